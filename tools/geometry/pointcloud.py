"""Depth map + intrinsics → 3-D points, object measurements, separations and clock directions.

Points are in the OpenCV camera frame (x right, y down, z along the optical axis, metres when the depth is metric).
Depth is z-depth (see ``tools/geometry/depth.py``). "Up" is world up expressed in the camera frame: ``(0, -1, 0)`` for a
level camera (the default), ``CameraGeometry.up_in_camera`` for a pitched one, ``(0, 0, -1)`` for nadir.
A region is a box ``[x1, y1, x2, y2]`` in pixels or a bool mask of the depth map's shape.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from tools.common import ToolError

LEVEL_UP = (0.0, -1.0, 0.0)
EXTENT_PERCENTILES = (2.0, 98.0)  # object extents ignore the outermost 2 % of points on each side (depth noise)


@dataclass
class ObjectMeasure:
    """An object's 3-D summary: distance from the camera, width (horizontal), height (along up), centroid."""

    distance_m: float  # from the camera centre to the centroid
    width_m: float  # extent along the horizontal image-right direction
    height_m: float  # extent along world up
    centroid: tuple[float, float, float]  # median point, camera frame
    n_points: int
    up: tuple[float, float, float] = LEVEL_UP


def _check_depth_k(depth: np.ndarray, K: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    depth = np.asarray(depth, np.float64)
    K = np.asarray(K, np.float64)
    if depth.ndim != 2 or min(depth.shape) < 1:
        raise ToolError(f"depth must be a 2-D (H, W) array, got shape {depth.shape}")
    if K.shape != (3, 3) or K[0, 0] <= 0 or K[1, 1] <= 0:
        raise ToolError(f"K must be a 3x3 intrinsic matrix with positive focal lengths, got {K.tolist()}")
    return depth, K


def region_mask(region: Any, shape: tuple[int, int]) -> np.ndarray:
    """Bool (H, W) mask from a box [x1, y1, x2, y2] (pixels, clipped to the image) or a mask of that shape."""
    arr = np.asarray(region)
    if arr.dtype == bool:
        if arr.shape != shape:
            raise ToolError(f"mask shape {arr.shape} does not match the depth map {shape}")
        return arr
    if arr.shape != (4,):
        raise ToolError(f"region must be a box [x1, y1, x2, y2] or a bool mask, got shape {arr.shape}")
    x1, y1, x2, y2 = (float(v) for v in arr)
    if not (x1 < x2 and y1 < y2):
        raise ToolError(f"box must have x1 < x2 and y1 < y2, got {arr.tolist()}")
    h, w = shape
    c1, r1 = max(0, int(math.floor(x1))), max(0, int(math.floor(y1)))
    c2, r2 = min(w, int(math.ceil(x2))), min(h, int(math.ceil(y2)))
    if c1 >= c2 or r1 >= r2:
        raise ToolError(f"box {arr.tolist()} lies outside the {w}x{h} image")
    mask = np.zeros(shape, bool)
    mask[r1:r2, c1:c2] = True
    return mask


def backproject(depth: np.ndarray, K: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """(N, 3) camera-frame points of the valid (finite, > 0) depth pixels, sampled at pixel centres."""
    depth, K = _check_depth_k(depth, K)
    valid = np.isfinite(depth) & (depth > 0)
    if mask is not None:
        valid &= mask
    v, u = np.nonzero(valid)
    z = depth[v, u]
    x = (u + 0.5 - K[0, 2]) / K[0, 0] * z
    y = (v + 0.5 - K[1, 2]) / K[1, 1] * z
    return np.column_stack([x, y, z])


def point_cloud(depth: np.ndarray, K: np.ndarray, image: np.ndarray | None = None) -> Any:
    """open3d ``PointCloud`` of the valid depth pixels, coloured by ``image`` (RGB uint8, same size) if given."""
    import open3d as o3d  # heavy: imported on use

    depth, K = _check_depth_k(depth, K)
    pts = backproject(depth, K)
    pcd = o3d.geometry.PointCloud(o3d.utility.Vector3dVector(pts))
    if image is not None:
        img = np.asarray(image)
        if img.shape[:2] != depth.shape or img.ndim != 3 or img.shape[2] != 3:
            raise ToolError(f"image must be (H, W, 3) matching depth {depth.shape}, got {img.shape}")
        valid = np.isfinite(depth) & (depth > 0)
        pcd.colors = o3d.utility.Vector3dVector(img[valid].astype(np.float64) / 255.0)
    return pcd


def object_points(depth: np.ndarray, K: np.ndarray, region: Any) -> np.ndarray:
    """(N, 3) camera-frame points inside a box or mask."""
    depth, K = _check_depth_k(depth, K)
    return backproject(depth, K, region_mask(region, depth.shape))


def _unit(v: Sequence[float], name: str) -> np.ndarray:
    arr = np.asarray(v, float).reshape(-1)
    n = np.linalg.norm(arr)
    if arr.shape != (3,) or not np.isfinite(n) or n < 1e-9:
        raise ToolError(f"{name} must be a non-zero 3-vector, got {list(np.asarray(v).reshape(-1))}")
    return arr / n


def horizontal_axes(up: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """(forward, right) unit vectors in the ground plane, camera frame.

    forward = the optical axis made horizontal; for a nadir camera (axis vertical) the image-top direction.
    right = forward x up (image right for a level camera).
    """
    u = _unit(up, "up")
    axis = np.array([0.0, 0.0, 1.0])
    if abs(axis @ u) > 0.999:  # looking straight down (or up): forward is the image top
        axis = np.array([0.0, -1.0, 0.0])
    forward = axis - (axis @ u) * u
    forward /= np.linalg.norm(forward)
    return forward, np.cross(forward, u)


def measure_object(
    depth: np.ndarray, K: np.ndarray, region: Any, *, up: Sequence[float] = LEVEL_UP
) -> ObjectMeasure:
    """Distance, width and height (m) of the object in a box or mask, from its back-projected points."""
    pts = object_points(depth, K, region)
    if len(pts) == 0:
        raise ToolError("no valid depth inside the region")
    u = _unit(up, "up")
    _, right = horizontal_axes(u)
    lo, hi = EXTENT_PERCENTILES
    along_right, along_up = pts @ right, pts @ u
    centroid = np.median(pts, axis=0)
    return ObjectMeasure(
        distance_m=float(np.linalg.norm(centroid)),
        width_m=float(np.percentile(along_right, hi) - np.percentile(along_right, lo)),
        height_m=float(np.percentile(along_up, hi) - np.percentile(along_up, lo)),
        centroid=(float(centroid[0]), float(centroid[1]), float(centroid[2])),
        n_points=len(pts),
        up=(float(u[0]), float(u[1]), float(u[2])),
    )


def separation(a: ObjectMeasure, b: ObjectMeasure) -> tuple[float, float, float]:
    """(horizontal_m, vertical_m, direct_m) between centroids; vertical is signed, positive when b is higher.

    Uses ``a.up`` as the vertical; both measures must share it (same camera).
    """
    if not np.allclose(a.up, b.up, atol=1e-6):
        raise ToolError(f"objects measured with different 'up' vectors {a.up} vs {b.up}: not the same camera")
    d = np.subtract(b.centroid, a.centroid)
    vertical = float(d @ np.asarray(a.up))
    direct = float(np.linalg.norm(d))
    return math.sqrt(max(direct**2 - vertical**2, 0.0)), vertical, direct


def ground_offset(a: ObjectMeasure, b: ObjectMeasure) -> tuple[float, float]:
    """Offset of b from a in the ground plane as (forward_m, right_m) along :func:`horizontal_axes`."""
    forward, right = horizontal_axes(a.up)
    d = np.subtract(b.centroid, a.centroid)
    return float(d @ forward), float(d @ right)


def clock_between(a: ObjectMeasure, b: ObjectMeasure, heading_deg: float = 0.0) -> int:
    """Clock hour (1–12) of b as seen from a when facing ``heading_deg`` (clockwise from the camera's forward).

    heading 0 faces the direction the camera looks (the image top for a nadir view); 3 o'clock is to the right.
    """
    if not math.isfinite(heading_deg):
        raise ToolError(f"heading_deg must be finite, got {heading_deg}")
    fwd, right = ground_offset(a, b)
    if math.hypot(fwd, right) < 1e-9:
        raise ToolError("the two objects are at the same ground position: no clock direction")
    from tools.geometry.clock import clock_from_angle

    return clock_from_angle(math.degrees(math.atan2(right, fwd)) - heading_deg)
