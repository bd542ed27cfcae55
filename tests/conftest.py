"""Shared fixtures: the real data folder beside the checkout, and offline environment defaults."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"

os.environ.setdefault("YOLO_OFFLINE", "true")
os.environ.setdefault("YOLO_CONFIG_DIR", str(ROOT / ".cache" / "ultralytics"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
# one OCR thread per test process, as the benchmark runner's workers use: `make test`'s two workers already fill both
# cores, and a second onnxruntime thread per worker mostly spins waiting for work (a fifth more CPU, same reads)
os.environ.setdefault("UAV_AGENT_OCR_THREADS", "1")
os.environ["UAV_AGENT_DAEMON"] = "0"  # CLI tests answer in their own process even if a developer's daemon runs


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` (real aerial data with licenses); tests that need it skip clearly if it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data folder not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture(autouse=True)
def _fresh_caches() -> None:
    """Each test starts without the per-process caches of image views, features and metadata tags (a test that
    breaks a reader on purpose must see it run)."""
    from tools import feature_cache
    from tools.metadata.read import clear_cache

    feature_cache.clear()
    clear_cache()
