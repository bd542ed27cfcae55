"""Geometry of one drone photo: clock directions, the camera and its metadata, ground positions and distances,
camera pitch from the picture, depth, point clouds and the photo's geometric facts.

A clock question ends in :mod:`tools.geometry.clock` (``clock_direction``; ``clock_from_angle`` is the project's
one rule from an angle to an hour). Camera facts start in :mod:`tools.geometry.camera` (``read_metadata``) and
:mod:`tools.geometry.photo_geometry`; ground positions and distances in :mod:`tools.geometry.ground`.

Public names are imported on first use, so importing the package stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "ClockResult": "clock", "clock_direction": "clock", "clock_from_angle": "clock", "point_of": "clock",
    "ground_bearing_clock": "clock", "open3d_clock": "clock",
    "CameraMetadata": "camera", "Intrinsics": "camera", "read_metadata": "camera", "camera_heading_deg": "camera",
    "intrinsics_for": "camera",
    "CameraGeometry": "ground", "RankResult": "ground", "DEFAULT_HFOV_DEG": "ground", "DEFAULT_PITCH_DEG": "ground",
    "ground_position": "ground", "distance_from_drone": "ground", "rank_by_distance": "ground",
    "PitchEstimate": "pitch", "estimate_pitch": "pitch",
    "estimate_depth": "depth", "depth_from_ground_plane": "depth",
    "ObjectMeasure": "pointcloud", "point_cloud": "pointcloud", "measure_object": "pointcloud",
    "separation": "pointcloud", "clock_between": "pointcloud",
    "PhotoGeometry": "photo_geometry", "photo_geometry": "photo_geometry",
    "SkyCue": "view_cues", "sky_at_top": "view_cues",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
