"""Clock directions and bearings.

Convention (the benchmarks' default, see ``../shared/specs/benchmarks.md``): the anchor is the image centre (the
drone), 12 o'clock is image up (or a given heading), 3 o'clock is image right, and the angle is taken in the image
plane whatever the camera pitch. Angles are degrees clockwise from 12 o'clock. Hours round to the nearest hour by
default (0 → 12); ``rounding="floor"`` bins like Open3D-VQA's ground truth.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, Sequence

from tools.common import ToolError

Rounding = Literal["nearest", "floor"]


@dataclass
class ClockResult:
    """Clock hour (1–12) and the exact angle (degrees clockwise from 12 o'clock) of a target seen from an anchor."""

    hour: int
    angle_deg: float
    anchor: tuple[float, float]
    target: tuple[float, float]
    convention: str


def point_of(p: Sequence[float]) -> tuple[float, float]:
    """A point ``[x, y]`` or the centre of a box ``[x1, y1, x2, y2]`` (pixels)."""
    vals = [float(v) for v in p]
    if len(vals) == 2:
        x, y = vals
    elif len(vals) == 4:
        x, y = (vals[0] + vals[2]) / 2, (vals[1] + vals[3]) / 2
    else:
        raise ToolError(f"expected a point [x, y] or a box [x1, y1, x2, y2], got {len(vals)} numbers")
    if not (math.isfinite(x) and math.isfinite(y)):
        raise ToolError(f"coordinates must be finite, got {list(p)}")
    return x, y


def clock_from_angle(angle_deg: float, rounding: Rounding = "nearest") -> int:
    """Angle clockwise from 12 o'clock (degrees) → hour 1–12 (0 → 12)."""
    if not math.isfinite(angle_deg):
        raise ToolError(f"angle must be finite, got {angle_deg}")
    a = angle_deg % 360.0
    if rounding == "nearest":
        hour = int(math.floor(a / 30.0 + 0.5)) % 12
    elif rounding == "floor":
        hour = int(math.floor(a / 30.0)) % 12
    else:
        raise ToolError(f"rounding must be 'nearest' or 'floor', got {rounding!r}")
    return 12 if hour == 0 else hour


def image_angle_deg(target: tuple[float, float], anchor: tuple[float, float]) -> float:
    """Image-plane angle of ``target`` from ``anchor``, degrees clockwise from image up, in [0, 360)."""
    dx, dy = target[0] - anchor[0], target[1] - anchor[1]
    if math.hypot(dx, dy) < 1e-9:
        raise ToolError("target and anchor coincide: no direction")
    return math.degrees(math.atan2(dx, -dy)) % 360.0  # y grows downwards, so "up" is −dy


def clock_direction(
    target: Sequence[float],
    *,
    image_size: tuple[int, int] | None = None,
    anchor: Sequence[float] | None = None,
    heading_deg: float = 0.0,
    rounding: Rounding = "nearest",
) -> ClockResult:
    """Clock direction of a point or box ``target`` (pixels) seen from ``anchor`` (default: the image centre).

    ``heading_deg`` is the direction (clockwise from image up) that counts as 12 o'clock.
    """
    if anchor is None:
        if image_size is None:
            raise ToolError("give image_size (or an anchor) so the image centre is known")
        w, h = image_size
        if w <= 0 or h <= 0:
            raise ToolError(f"image_size must be positive, got {image_size}")
        anchor_pt = (w / 2.0, h / 2.0)
    else:
        anchor_pt = point_of(anchor)
    target_pt = point_of(target)
    angle = (image_angle_deg(target_pt, anchor_pt) - heading_deg) % 360.0
    convention = "image plane, 12 = " + ("image up" if heading_deg == 0 else f"{heading_deg:g} deg from image up")
    return ClockResult(clock_from_angle(angle, rounding), angle, anchor_pt, target_pt, convention)


def ground_bearing_clock(
    target_xy: Sequence[float], anchor_xy: Sequence[float], heading_deg: float, rounding: Rounding = "nearest"
) -> ClockResult:
    """Clock direction on the ground: points in metres (x east, y north), heading clockwise from north = 12."""
    tx, ty = point_of(target_xy)
    ax, ay = point_of(anchor_xy)
    if math.hypot(tx - ax, ty - ay) < 1e-9:
        raise ToolError("target and anchor coincide: no direction")
    bearing = math.degrees(math.atan2(tx - ax, ty - ay)) % 360.0
    angle = (bearing - heading_deg) % 360.0
    return ClockResult(clock_from_angle(angle, rounding), angle, (ax, ay), (tx, ty), "ground plane, 12 = heading")


def open3d_clock(dx: float, dy: float) -> int:
    """Open3D-VQA's ground-truth rule: angle = atan2(−dy, dx) in degrees, hour = floor(angle / 30°), 0 → 12."""
    angle = math.degrees(math.atan2(-dy, dx)) % 360.0
    hour = int(angle // 30) % 12
    return 12 if hour == 0 else hour
