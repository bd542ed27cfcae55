"""What one photo shows: object detection (YOLO, tiled for small objects), segmentation masks (SAM) and image
quality (blur, noise, haze, occluders). The models load on first use, never at import.

Public names are imported on first use, so importing the package stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "Detection": "detect", "DetectionReport": "detect", "detect": "detect", "detect_report": "detect",
    "count": "detect", "grid_location": "detect",
    "MaskResult": "segment", "segment": "segment", "mask_bbox": "segment",
    "QualityReport": "quality", "assess_quality": "quality", "compute_indicators": "quality",
    "quality_score": "quality",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
