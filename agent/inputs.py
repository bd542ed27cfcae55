"""Checks of a question's input that need no planner, tools or MCP: the CLI runs them before importing those, so
that a missing image or an empty question is refused at once, and :class:`agent.agent.Agent` runs them again for
callers from Python."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PIL import Image, UnidentifiedImageError


class AgentInputError(ValueError):
    """Bad input to :meth:`Agent.ask` (no images, unreadable image, wrong image count, empty question)."""


def check_question(question: Any) -> str:
    if not isinstance(question, str) or not question.strip():
        raise AgentInputError("the question is empty: ask something about the image(s)")
    return question.strip()


def check_images(images: Sequence[str | Path]) -> list[str]:
    """Absolute paths of readable images; :class:`AgentInputError` naming the first bad one."""
    if isinstance(images, (str, Path)):
        images = [images]
    if not images:
        raise AgentInputError("no images given: pass one or more image files")

    out = []
    for raw in images:
        p = Path(raw).expanduser()
        if not p.is_file():
            raise AgentInputError(f"image not found: {raw}")
        try:
            with Image.open(p) as im:
                im.verify()
        except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
            raise AgentInputError(f"unreadable image {raw}: {exc}") from None
        out.append(str(p.resolve()))
    return out
