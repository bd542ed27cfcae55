"""Reading the numbered region overlays drawn on images: :func:`read_regions` finds every drawn box and reads its
id from the pixels (``docs/regions.md``). The pipeline is ``pipeline.py``; each pass has its own module; ``Region``
lives in the leaf ``region.py``. Public names are imported on first use, so importing the package stays light."""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {"read_regions": "pipeline", "iou": "geom", "Region": "region", "regions_from_json": "given"}
__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
