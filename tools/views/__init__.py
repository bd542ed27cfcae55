"""Two or more views of a scene: feature matching, the relative camera pose (from pixels or from metadata), region
association across views, and the drone's motion along a sequence.

A camera-transformation question ends in :mod:`tools.views.pose` (``relative_pose``, or ``pose_from_metadata``
when both photos carry GPS and gimbal tags; :mod:`tools.views.pose_fused` combines the two); its answer type,
``RelativePose``, is in :mod:`tools.views.pose_types`.
Matches come from :mod:`tools.views.matching` (classical features; :mod:`tools.views.matchers_learned` when
learned weights are installed).

Public names are imported on first use, so importing the package stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "MatchResult": "matching", "match_views": "matching", "corners": "homography_checks", "warp_points": "homography_checks",
    "LearnedMatcher": "matchers_learned", "build_matcher": "matchers_learned", "match_learned": "matchers_learned",
    "PoseSetup": "pose", "relative_pose": "pose", "pose_from_correspondences": "pose",
    "pose_from_metadata": "pose_metadata", "scale_by_gps": "pose_metadata", "fuse_with_metadata": "pose_fused",
    "RelativePose": "pose_types", "clock_hour": "pose_types", "signed_angle": "pose_types", "wrap360": "pose_types",
    "associate_regions": "association", "transfer_box": "association", "visible_in": "association",
    "view_overlap": "association", "rank_candidate_views": "association", "region_visibility": "association",
    "EgoMotion": "motion", "MotionStep": "motion", "ego_motion": "motion",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
