"""Photo metadata of any vendor: raw tags as ExifTool names them (:mod:`tools.metadata.read`) and the one table
that says which tag gives which camera value (:mod:`tools.metadata.vendors`). :mod:`tools.geometry.camera` turns
them into a camera.

Public names are imported on first use, so importing the package stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "TagSet": "read", "read_tags": "read",
    "RULES": "vendors", "TEXT_RULES": "vendors", "TagRule": "vendors", "SENSOR_WIDTH_MM": "vendors",
    "first_value": "vendors", "first_text": "vendors", "georeference": "vendors",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
