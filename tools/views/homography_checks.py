"""Checks on a fitted homography between two views: the image corners it warps, whether it is absurd (folded,
degenerate or scaled beyond what two UAV views of one scene allow), the overlap it implies, and the statistics that
tell a real fit from chance (the a-contrario number of false alarms, the spread of the inliers). Pure numpy/OpenCV
on arrays; :mod:`tools.views.matching` uses them to decide whether a match is confident."""

from __future__ import annotations

import math

import cv2
import numpy as np

MAX_SCALE_CHANGE = 8.0  # linear scale between two UAV views of one scene (altitude ratio) beyond which H is absurd


def corners(size: tuple[int, int]) -> np.ndarray:
    """(4, 2) corners of a (width, height) image, clockwise from top-left on screen."""
    w, h = size
    return np.array([[0, 0], [w, 0], [w, h], [0, h]], float)


def warp_points(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Apply a 3x3 homography to (N, 2) points (NaN where a point maps to infinity)."""
    p = np.column_stack([np.asarray(pts, float).reshape(-1, 2), np.ones(len(pts))]) @ np.asarray(H, float).T
    with np.errstate(divide="ignore", invalid="ignore"):
        return p[:, :2] / p[:, 2:3]


def homography_problem(H: np.ndarray | None, size_a: tuple[int, int]) -> str | None:
    """Why ``H`` cannot relate two views of a ground scene, or None when it is sane.

    Sane: finite; image a's rectangle stays in front of the horizon (w > 0 at all corners, same sign), maps to a
    convex, non-mirrored quadrilateral (positive determinant), with an area change within
    ``MAX_SCALE_CHANGE``² either way.
    """
    if H is None or not np.all(np.isfinite(H)) or abs(np.linalg.det(H)) < 1e-12:
        return "no finite, invertible homography"
    c = corners(size_a)
    w = np.column_stack([c, np.ones(4)]) @ H[2]
    if not (np.all(w > 0) or np.all(w < 0)):
        return "homography puts the horizon inside image a (degenerate fit)"
    quad = warp_points(H, c)
    area = _signed_area(quad)
    if area <= 0:
        return "homography mirrors the image (negative determinant)"
    if not cv2.isContourConvex(quad.astype(np.float32).reshape(-1, 1, 2)):
        return "homography folds image a into a non-convex shape"
    ratio = area / float(size_a[0] * size_a[1])
    if not (MAX_SCALE_CHANGE ** -2 <= ratio <= MAX_SCALE_CHANGE ** 2):
        return f"homography changes the scale by {np.sqrt(ratio):.2f}x (implausible)"
    return None


def _signed_area(poly: np.ndarray) -> float:
    """Shoelace area; positive for clockwise order on screen (y down)."""
    x, y = poly[:, 0], poly[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


def overlap_area_in_a(H: np.ndarray | None, size_a: tuple[int, int], size_b: tuple[int, int]) -> float:
    """Area (px²) of image a that image b also sees, via ``H``; all of a when b's outline cannot be mapped back."""
    full = float(size_a[0] * size_a[1])
    if H is None or homography_problem(np.linalg.inv(H), size_b) is not None:
        return full
    quad = warp_points(np.linalg.inv(H), corners(size_b)).astype(np.float32)
    area, _ = cv2.intersectConvexConvex(corners(size_a).astype(np.float32), quad)
    return float(max(area, 1.0))


def log10_nfa(n_matches: int, n_inliers: int, p_chance: float, sample_size: int) -> float:
    """log10 of the a-contrario number of false alarms of ``n_inliers`` among ``n_matches`` (ORSA form).

    NFA = (n − s) · C(n, k) · C(k, s) · p^(k − s): hypotheses from minimal samples of size s, k inliers each
    within the tolerance that a random point meets with probability ``p_chance``.
    """
    n, k, s = n_matches, n_inliers, sample_size
    if k <= s or n <= s:
        return float("inf")
    # math.lgamma rather than scipy.special.gammaln: same values, and importing scipy.special costs ~0.3 s
    lc = lambda a, b: (math.lgamma(a + 1) - math.lgamma(b + 1) - math.lgamma(a - b + 1)) / math.log(10)  # noqa: E731
    return float(np.log10(n - s) + lc(n, k) + lc(k, s) + (k - s) * np.log10(min(max(p_chance, 1e-300), 1.0)))


def hull_area(pts: np.ndarray) -> float:
    """Area (px²) of the convex hull of (N, 2) points (0 for fewer than 3)."""
    if len(pts) < 3:
        return 0.0
    return float(cv2.contourArea(cv2.convexHull(pts.astype(np.float32))))
