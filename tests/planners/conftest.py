"""Fixtures of the planner tests: two plain images and an agent without embeddings."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image
from planner_fakes import H, W

from agent.agent import Agent
from agent.config import Config


@pytest.fixture(scope="module")
def images(tmp_path_factory) -> list[str]:
    d = tmp_path_factory.mktemp("imgs")
    paths = []
    for i in range(2):
        p = d / f"view{i}.png"
        Image.fromarray(np.full((H, W, 3), 90 + 40 * i, np.uint8)).save(p)
        paths.append(str(p))
    return paths


@pytest.fixture(scope="module")
def agent() -> Agent:
    return Agent(Config(), use_embeddings=False)
