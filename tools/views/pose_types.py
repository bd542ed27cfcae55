"""The vocabulary of relative poses, shared by the vision pose (``tools.views.pose``) and the metadata pose
(``tools.views.pose_metadata``): the result type, angle wrapping, the clock hour of a bearing, and the uncertainty of
drone log values. Conventions as in ``tools/views/pose.py``: headings clockwise from north, translation (forward, right,
up) in A's heading frame.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from tools.common import ToolError

# Independent check from the drone log (nominal consumer-grade figures: metre-level GNSS, compass a few degrees).
METADATA_POSITION_SIGMA_M = 1.5  # per fix
METADATA_YAW_SIGMA_DEG = 3.0  # per photo


@dataclass
class RelativePose:
    """Pose of view B relative to view A. Numbers are ``None`` when ``confident`` is False (see ``reason``).

    ``translation_m``, ``horizontal_m`` and ``translation_uncertainty_m`` are in ``units``: metres, or multiples of
    A's altitude when no scale is known (``scale_known=False``).
    """

    heading_deg: float | None  # B's heading minus A's, clockwise, [0, 360)
    heading_signed_deg: float | None  # same in (−180, 180]
    translation_m: tuple[float, float, float] | None  # (forward, right, up) in A's frame
    horizontal_m: float | None  # length of (forward, right)
    bearing_deg: float | None  # direction of B's position, clockwise from A's forward, [0, 360)
    clock: int | None  # bearing as a clock hour, 12 = A's forward, 3 = right
    scale_known: bool
    units: str  # "m" or "altitude"
    n_inliers: int
    residual_px: float | None  # RMS reprojection error of the inliers in image B (full-resolution px)
    heading_uncertainty_deg: float | None  # one standard deviation
    translation_uncertainty_m: float | None  # one standard deviation of the horizontal position, in ``units``
    confident: bool
    reason: str | None
    method: str
    assumptions: list[str] = field(default_factory=list)
    compass_bearing_deg: float | None = None  # direction from A's position to B's, clockwise from north, [0, 360)
    east_north_m: tuple[float, float] | None = None  # B's position minus A's in local east/north metres (GPS)
    sources: dict[str, str] = field(default_factory=dict)  # which tag each metadata value came from


def signed_angle(deg: float) -> float:
    """An angle in degrees wrapped to (−180, 180]."""
    if not math.isfinite(deg):
        raise ToolError(f"angle must be finite, got {deg!r}")
    a = math.fmod(deg, 360.0)
    if a <= -180.0:
        a += 360.0
    elif a > 180.0:
        a -= 360.0
    return a


def wrap360(deg: float) -> float:
    """An angle in degrees wrapped to [0, 360) (``-1e-15 % 360`` is 360.0 in floating point: mapped to 0)."""
    a = deg % 360.0
    return 0.0 if a >= 360.0 else a


def clock_hour(bearing_deg: float) -> int:
    """Clock hour of a bearing (clockwise from 12 o'clock): the project's one rule,
    ``tools.geometry.clock.clock_from_angle`` (nearest hour, halves up: 15 deg is 1 o'clock, not Python's
    round-half-even 12)."""
    from tools.geometry.clock import clock_from_angle

    return clock_from_angle(bearing_deg)


def undecided_pose(reason: str, method: str, n_inliers: int = 0, residual: float | None = None,
                   assumptions: list[str] | None = None, scale_known: bool = False) -> RelativePose:
    """A pose that could not be decided, with the reason."""
    return RelativePose(None, None, None, None, None, None, scale_known, "m" if scale_known else "altitude",
                        n_inliers, residual, None, None, False, reason, method, list(assumptions or []))
