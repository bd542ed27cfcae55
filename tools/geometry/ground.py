"""Ground-plane distances from camera pitch, altitude and intrinsics (no weights).

Conventions (same as ``benchmarks/synth/camera.py``): pinhole camera, OpenCV image axes (x right, y down), flat
ground at altitude ``altitude_m`` below the camera. ``pitch_deg`` is the optical axis' elevation: −90 = nadir
(straight down), 0 = horizon. ``roll_deg`` positive turns the camera clockwise about its optical axis. Ground
positions are ``(forward_m, right_m)`` from the drone's nadir point, forward = the horizontal direction the camera
looks along (for a nadir camera: the image top), right = image right.

Unknown altitude: every ground position scales linearly with altitude, so the *order* of distances does not depend
on it; :meth:`CameraGeometry.assumed` fills unknown values with documented defaults and marks the geometry as
assumed (distances are then relative, in units of the assumed altitude). Unknown pitch does change the order; the
default :data:`DEFAULT_PITCH_DEG` is a typical oblique low-altitude drone view.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Hashable, Literal, Sequence

import numpy as np

from tools.common import ToolError

DEFAULT_PITCH_DEG = -45.0  # assumed gimbal pitch when none is known (oblique drone view)
DEFAULT_ALTITUDE_M = 50.0  # assumed altitude when none is known: distances become relative to it
DEFAULT_HFOV_DEG = 73.7  # horizontal field of view of the common 24 mm-equivalent drone lens (36 mm frame)
NADIR_TOLERANCE_DEG = 10.0  # pitch within this of −90 counts as nadir for the foot point
FOOT_SIGMA_FRACTION = 0.1  # 1-sigma foot-point uncertainty as a fraction of the box size (pixels)
FOOT_SIGMA_MIN_PX = 1.0  # ... but never below this (pixel quantisation)


@dataclass(frozen=True)
class CameraGeometry:
    """Pinhole camera above flat ground: altitude (m), pitch/roll (deg), focal length and principal point (px)."""

    altitude_m: float
    pitch_deg: float
    focal_px: float
    cx: float
    cy: float
    roll_deg: float = 0.0
    assumed: tuple[str, ...] = field(default=(), compare=False)  # names of values that were defaults, not known

    def __post_init__(self) -> None:
        if not (math.isfinite(self.altitude_m) and self.altitude_m > 0):
            raise ToolError(f"altitude_m must be a positive number of metres, got {self.altitude_m}")
        if not (math.isfinite(self.pitch_deg) and -90.0 <= self.pitch_deg < 0.0):
            raise ToolError(f"pitch_deg must be in [-90, 0) (-90 = nadir, 0 = horizon), got {self.pitch_deg}")
        if not (math.isfinite(self.focal_px) and self.focal_px > 0):
            raise ToolError(f"focal_px must be positive, got {self.focal_px}")
        if not (math.isfinite(self.cx) and math.isfinite(self.cy) and math.isfinite(self.roll_deg)):
            raise ToolError("cx, cy and roll_deg must be finite numbers")

    @classmethod
    def assumed_for(
        cls,
        width: int,
        height: int,
        *,
        altitude_m: float | None = None,
        pitch_deg: float | None = None,
        hfov_deg: float | None = None,
        roll_deg: float = 0.0,
    ) -> "CameraGeometry":
        """Geometry for a ``width`` x ``height`` image, filling unknown values with the module defaults."""
        if width <= 0 or height <= 0:
            raise ToolError(f"image size must be positive, got {width}x{height}")
        assumed = tuple(n for n, v in (("altitude_m", altitude_m), ("pitch_deg", pitch_deg), ("hfov_deg", hfov_deg))
                        if v is None)
        hfov = DEFAULT_HFOV_DEG if hfov_deg is None else hfov_deg
        if not 1.0 < hfov < 179.0:
            raise ToolError(f"hfov_deg must be in (1, 179), got {hfov}")
        focal = width / 2 / math.tan(math.radians(hfov) / 2)
        return cls(DEFAULT_ALTITUDE_M if altitude_m is None else altitude_m,
                   DEFAULT_PITCH_DEG if pitch_deg is None else pitch_deg,
                   focal, width / 2, height / 2, roll_deg, assumed)

    @property
    def is_nadir(self) -> bool:
        return self.pitch_deg <= -90.0 + NADIR_TOLERANCE_DEG

    @property
    def K(self) -> np.ndarray:
        """3x3 intrinsic matrix."""
        return np.array([[self.focal_px, 0, self.cx], [0, self.focal_px, self.cy], [0, 0, 1.0]])

    @property
    def R(self) -> np.ndarray:
        """Local-frame → camera rotation; local frame x = right, y = forward, z = up (rows: camera axes)."""
        theta, phi = math.radians(self.pitch_deg), math.radians(self.roll_deg)
        z = np.array([0.0, math.cos(theta), math.sin(theta)])  # optical axis
        x = np.array([1.0, 0.0, 0.0])
        y = np.cross(z, x)
        return np.stack([math.cos(phi) * x + math.sin(phi) * y, -math.sin(phi) * x + math.cos(phi) * y, z])

    @property
    def up_in_camera(self) -> np.ndarray:
        """World "up" as a unit vector in the camera frame (OpenCV axes)."""
        return self.R[:, 2].copy()


@dataclass
class RankResult:
    """Regions ordered by horizontal distance from the drone (``ids``), their distances in the same order."""

    ids: list[Hashable]
    distances_m: list[float]
    confident: bool
    reason: str | None = None
    uncertainty_m: list[float] = field(default_factory=list)  # half-width of each distance interval
    relative: bool = False  # True when altitude was assumed: distances are only meaningful relative to each other


def _check_bbox(bbox: Sequence[float]) -> tuple[float, float, float, float]:
    if len(bbox) != 4:
        raise ToolError(f"bbox must be [x1, y1, x2, y2], got {list(bbox)}")
    x1, y1, x2, y2 = (float(v) for v in bbox)
    if not all(math.isfinite(v) for v in (x1, y1, x2, y2)) or x2 < x1 or y2 < y1:
        raise ToolError(f"bbox must be finite with x1 <= x2 and y1 <= y2, got {list(bbox)}")
    return x1, y1, x2, y2


def foot_point(bbox: Sequence[float], cam: CameraGeometry | None = None) -> tuple[float, float]:
    """Image point (x, y) where the object meets the ground.

    Oblique views (and ``cam=None``): the bottom-centre of the box, where an upright object stands. Nadir views
    (pitch within 10 deg of −90): the box centre, since from above an object covers its own footprint.
    """
    x1, y1, x2, y2 = _check_bbox(bbox)
    if cam is not None and cam.is_nadir:
        return (x1 + x2) / 2, (y1 + y2) / 2
    return (x1 + x2) / 2, y2


def ground_positions(pixels: np.ndarray, cam: CameraGeometry) -> np.ndarray:
    """(N, 2) pixels → (N, 2) ground (forward_m, right_m) from the nadir point; NaN at or above the horizon."""
    px = np.asarray(pixels, float).reshape(-1, 2)
    rays = np.column_stack([px, np.ones(len(px))]) @ np.linalg.inv(cam.K).T @ cam.R  # local-frame directions
    with np.errstate(divide="ignore", invalid="ignore"):
        t = -cam.altitude_m / rays[:, 2]
    out = np.column_stack([t * rays[:, 1], t * rays[:, 0]])
    out[~(t > 0)] = np.nan
    return out


def ground_position(pixel: Sequence[float], cam: CameraGeometry) -> tuple[float, float]:
    """Ground point (forward_m, right_m) seen at image ``pixel`` (x, y); raises if the ray misses the ground."""
    fwd, right = ground_positions(np.asarray(pixel, float), cam)[0]
    if not np.isfinite(fwd):
        raise ToolError(f"pixel {tuple(pixel)} is at or above the horizon for pitch {cam.pitch_deg} deg")
    return float(fwd), float(right)


def distance_from_drone(bbox: Sequence[float], cam: CameraGeometry) -> float:
    """Horizontal ground distance (m) from the drone's nadir point to the object's foot point."""
    fwd, right = ground_position(foot_point(bbox, cam), cam)
    return math.hypot(fwd, right)


def slant_distance_from_drone(bbox: Sequence[float], cam: CameraGeometry) -> float:
    """Straight-line distance (m) from the camera to the object's foot point on the ground."""
    return math.hypot(distance_from_drone(bbox, cam), cam.altitude_m)


def _distance_interval(bbox: Sequence[float], cam: CameraGeometry) -> tuple[float, float, float]:
    """(distance, low, high) in metres; the interval moves the foot point by one sigma in x and in y."""
    x1, y1, x2, y2 = _check_bbox(bbox)
    fx, fy = foot_point(bbox, cam)
    sx = max(FOOT_SIGMA_MIN_PX, FOOT_SIGMA_FRACTION * (x2 - x1))
    sy = max(FOOT_SIGMA_MIN_PX, FOOT_SIGMA_FRACTION * (y2 - y1))
    probes = np.array([[fx, fy], [fx - sx, fy], [fx + sx, fy], [fx, fy - sy], [fx, fy + sy]])
    d = np.hypot(*ground_positions(probes, cam).T)
    if not np.isfinite(d[0]):
        return math.inf, math.inf, math.inf
    d = np.where(np.isfinite(d), d, math.inf)
    return float(d[0]), float(d.min()), float(d.max())


def rank_by_distance(
    regions: Sequence[tuple[Hashable, Sequence[float]]],
    cam: CameraGeometry,
    *,
    order: Literal["nearest_first", "farthest_first"] = "nearest_first",
) -> RankResult:
    """Order ``(id, bbox)`` regions by horizontal distance from the drone.

    ``confident`` is False when two neighbours in the order have overlapping distance intervals (foot point moved
    by 10 % of the box size), when a foot point lies above the horizon, or when the pitch was assumed.
    """
    if order not in ("nearest_first", "farthest_first"):
        raise ToolError(f"order must be 'nearest_first' or 'farthest_first', got {order!r}")
    if not regions:
        raise ToolError("rank_by_distance needs at least one (id, bbox) region")
    ids = [r[0] for r in regions]
    if len(set(map(repr, ids))) != len(ids):
        raise ToolError(f"region ids must be unique, got {ids}")
    intervals = [_distance_interval(bbox, cam) for _, bbox in regions]
    idx = sorted(range(len(regions)), key=lambda i: intervals[i][0], reverse=(order == "farthest_first"))
    reasons = []
    if "pitch_deg" in cam.assumed:
        reasons.append(f"camera pitch unknown, assumed {cam.pitch_deg} deg")
    beyond = [ids[i] for i in idx if math.isinf(intervals[i][0])]
    if beyond:
        reasons.append(f"foot point at or above the horizon for {beyond}")
    for a, b in zip(idx, idx[1:]):
        lo_a, hi_a = intervals[a][1:]
        lo_b, hi_b = intervals[b][1:]
        if math.isfinite(intervals[a][0]) and math.isfinite(intervals[b][0]) and lo_a <= hi_b and lo_b <= hi_a:
            reasons.append(f"{ids[a]!r} and {ids[b]!r} are within their distance uncertainty "
                           f"({intervals[a][0]:.1f} vs {intervals[b][0]:.1f} m)")
    return RankResult(
        ids=[ids[i] for i in idx],
        distances_m=[intervals[i][0] for i in idx],
        confident=not reasons,
        reason="; ".join(reasons) or None,
        uncertainty_m=[(intervals[i][2] - intervals[i][1]) / 2 for i in idx],
        relative="altitude_m" in cam.assumed,
    )
