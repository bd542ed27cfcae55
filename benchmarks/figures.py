"""Where every benchmark script's measured figures go: printed, and written as JSON under ``docs/figures/``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def write_figures(figures: dict[str, Any], path: str | Path, *, echo: bool = True) -> Path:
    """Print ``figures`` (when ``echo``) and write them as indented JSON to ``path``, creating its folder."""
    text = json.dumps(figures, indent=2) + "\n"
    if echo:
        print(text, end="")
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    return out
