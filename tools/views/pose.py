"""Relative pose of view B with respect to view A of the (locally flat) ground, from images or from metadata.

Conventions (see ``benchmarks/synth/camera.py``): heading = yaw, degrees clockwise from north (the direction the
top of a nadir image points to, the horizontal viewing direction of an oblique one); pitch −90 = nadir; roll is
taken as 0 (gimbals keep the horizon level). The translation is B's camera position minus A's, along A's
(forward, right, up) axes; forward = A's heading.

Vision method: matches (``tools.views.matching.match_views``) are projected from each image onto the ground plane with
that camera's pitch and altitude, in the camera's own heading frame; a 2-D rigid (both altitudes known) or
similarity (B's altitude unknown: the scale is h_B/h_A) fit between the two ground point sets gives the heading
offset (its rotation) and the horizontal translation (B's nadir point in A's frame). For nadir views this is the
similarity decomposition of the ground homography; for oblique views it is the plane homography with the plane
normal from the known pitch. When a pitch is unknown, it is estimated from the plane normal of the homography
decomposition (``cv2.decomposeHomographyMat``). The metric scale comes from altitude and intrinsics; without an
altitude the translation is in units of A's altitude (``units="altitude"``).

The 2-D Umeyama fit and the ray/plane projection are written by hand: they are a few closed-form lines, and OpenCV
has no rigid (rotation + translation, no scale) 2-D estimator.
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from tools.geometry.camera import CameraMetadata, Intrinsics, intrinsics_for, read_metadata
from tools.common import ToolError, image_size
from tools.views.pose_fused import fuse_with_metadata
from tools.views.pose_metadata import pose_from_metadata, scale_by_gps  # noqa: F401 (callers import it from here)
from tools.views.pose_types import (  # noqa: F401 (the pose vocabulary, re-exported for callers)
    METADATA_POSITION_SIGMA_M, METADATA_YAW_SIGMA_DEG, RelativePose, clock_hour, signed_angle, undecided_pose,
    wrap360,
)

POSE_METHODS = ("auto", "ground", "homography")
MIN_INLIERS = 15  # fewer ground correspondences → cannot decide
MAX_RESIDUAL_FRAC = 0.005  # RMS reprojection residual in B, as a fraction of B's diagonal (≈ 5 px at 960x540)
MAX_HEADING_SIGMA_DEG = 5.0  # heading uncertainty above which the pose is not reported
N_EFF_CAP = 50  # matches are spatially correlated (lens, relief): their effective count is capped
ALTITUDE_REL_SIGMA = 0.03  # relative uncertainty of an altitude (barometric/caller value), propagated to metres
MIN_BASELINE_FOR_NORMAL = 0.03  # |t|/altitude below which the homography normal (pitch estimate) is unreliable
def camera_rotation(yaw_deg: float, pitch_deg: float, roll_deg: float = 0.0) -> np.ndarray:
    """World (east, north, up) → camera (OpenCV) rotation; rows are the camera axes in world coordinates."""
    psi, theta, phi = np.radians([yaw_deg, pitch_deg, roll_deg])
    forward = np.array([np.sin(psi), np.cos(psi), 0.0])
    right = np.array([np.cos(psi), -np.sin(psi), 0.0])
    z = np.cos(theta) * forward + np.array([0.0, 0.0, np.sin(theta)])
    y = np.cross(z, right)
    return np.stack([np.cos(phi) * right + np.sin(phi) * y, -np.sin(phi) * right + np.cos(phi) * y, z])


def ground_from_pixels(pixels: np.ndarray, K: np.ndarray, pitch_deg: float, altitude: float) -> np.ndarray:
    """(N, 2) pixels → (N, 2) ground points (right, forward) in the camera's heading frame, relative to its nadir
    point, in the units of ``altitude``. NaN where the ray does not reach the ground."""
    rays = np.column_stack([np.asarray(pixels, float).reshape(-1, 2), np.ones(len(pixels))])
    world = rays @ np.linalg.inv(K).T @ camera_rotation(0.0, pitch_deg)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = -altitude / world[:, 2]
    xy = t[:, None] * world[:, :2]
    xy[~(t > 0)] = np.nan
    return xy


def pixels_from_ground(xy: np.ndarray, K: np.ndarray, pitch_deg: float, altitude: float) -> np.ndarray:
    """Inverse of :func:`ground_from_pixels`: (N, 2) ground (right, forward) → (N, 2) pixels."""
    R = camera_rotation(0.0, pitch_deg)
    H = K @ np.column_stack([R[:, 0], R[:, 1], -R @ np.array([0.0, 0.0, altitude])])
    p = np.column_stack([np.asarray(xy, float).reshape(-1, 2), np.ones(len(xy))]) @ H.T
    with np.errstate(divide="ignore", invalid="ignore"):
        return p[:, :2] / p[:, 2:3]


def fit_similarity_2d(src: np.ndarray, dst: np.ndarray, *, with_scale: bool) -> tuple[float, float, np.ndarray]:
    """Least-squares ``dst ≈ s·R(angle)·src + t`` (Umeyama 1991). Returns (s, angle CCW in radians, t)."""
    mu_s, mu_d = src.mean(0), dst.mean(0)
    a, b = src - mu_s, dst - mu_d
    cov = b.T @ a / len(src)
    U, S, Vt = np.linalg.svd(cov)
    D = np.diag([1.0, np.sign(np.linalg.det(U) * np.linalg.det(Vt)) or 1.0])
    R = U @ D @ Vt
    var = float((a ** 2).sum(1).mean())
    s = float(np.trace(np.diag(S) @ D) / var) if with_scale and var > 0 else 1.0
    return s, math.atan2(R[1, 0], R[0, 0]), mu_d - s * R @ mu_s


def _rot(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s], [s, c]])


def pitches_from_homography(points_a: np.ndarray, points_b: np.ndarray, intr_a: Intrinsics,
                            intr_b: Intrinsics, known_a: float | None = None) -> tuple[float, float] | None:
    """Pitch of A and B (degrees, roll taken as 0) from the ground normal of the plane homography, or None.

    Of the decompositions that keep the inliers in front of both cameras, the one whose normals imply the least
    roll, a pitch within the gimbal range (−90 … 0, with a few degrees of slack past nadir) and, when A's pitch is
    ``known_a``, the least disagreement with it is chosen. None when the baseline is too short for the normal.
    """
    H, _ = cv2.findHomography(points_a, points_b, 0)
    if H is None:
        return None
    Hn = np.linalg.inv(intr_b.K) @ H @ intr_a.K
    _, Rs, ts, ns = cv2.decomposeHomographyMat(Hn, np.eye(3))
    ray_a = np.column_stack([points_a, np.ones(len(points_a))]) @ np.linalg.inv(intr_a.K).T
    ray_b = np.column_stack([points_b, np.ones(len(points_b))]) @ np.linalg.inv(intr_b.K).T
    best, best_cost = None, math.inf
    for R, t, n in zip(Rs, ts, ns):
        n_a, n_b = n.ravel(), (R @ n).ravel()
        if np.mean(ray_a @ n_a > 0) < 0.9 or np.mean(ray_b @ n_b > 0) < 0.9:
            continue
        if np.linalg.norm(t) < MIN_BASELINE_FOR_NORMAL:
            return None
        cost = 0.0
        pitches = []
        for d in (n_a, n_b):  # d = ground "down" in camera coordinates = (sinφcosθ, cosφcosθ, −sinθ)
            pitch = math.degrees(math.atan2(-d[2], d[1]))
            roll = math.degrees(math.atan2(abs(d[0]), math.hypot(d[1], d[2])))
            cost += roll ** 2 + max(0.0, -100.0 - pitch) ** 2 + max(0.0, pitch) ** 2
            pitches.append(pitch)
        if known_a is not None:
            cost += (pitches[0] - known_a) ** 2
        if cost < best_cost:
            best, best_cost = (pitches[0], pitches[1]), cost
    return best


@dataclass(frozen=True)
class PoseSetup:
    """What is known about the two cameras: intrinsics, altitudes above the ground (m) and pitches (deg), or None."""

    intr_a: Intrinsics
    intr_b: Intrinsics
    alt_a: float | None
    alt_b: float | None
    pitch_a: float | None
    pitch_b: float | None


def pose_from_correspondences(points_a: np.ndarray, points_b: np.ndarray, setup: PoseSetup, *, method: str = "auto",
                              assumptions: list[str] | None = None) -> RelativePose:
    """Relative pose from inlier correspondences (full-resolution pixels) of a ground scene; see the module doc."""
    if method not in POSE_METHODS:
        raise ToolError(f"unknown pose method {method!r}; choose one of {', '.join(POSE_METHODS)}")
    notes = list(assumptions or [])
    pa, pb = np.asarray(points_a, float).reshape(-1, 2), np.asarray(points_b, float).reshape(-1, 2)
    scale_known = setup.alt_a is not None or setup.alt_b is not None
    if len(pa) != len(pb):
        raise ToolError(f"points_a and points_b differ in length ({len(pa)} vs {len(pb)})")
    if len(pa) < MIN_INLIERS:
        return undecided_pose(f"only {len(pa)} inlier matches (need {MIN_INLIERS})", method, len(pa), None, notes,
                          scale_known)
    pitch_a, pitch_b, used = setup.pitch_a, setup.pitch_b, "ground-plane"
    if method == "homography" or (method == "auto" and (pitch_a is None or pitch_b is None)):
        est = pitches_from_homography(pa, pb, setup.intr_a, setup.intr_b, None if method == "homography" else pitch_a)
        used = "homography-normal+ground-plane"
        if est is None:  # a drone pair usually keeps one gimbal setting: B's pitch falls back to A's known one
            fallback = -90.0 if pitch_a is None or method == "homography" else pitch_a
            notes.append(f"pitch could not be estimated (baseline too short): {fallback:.0f} deg assumed")
            est = (fallback, fallback)
        else:
            notes.append(f"pitch estimated from the homography: A {est[0]:.1f}, B {est[1]:.1f} deg")
        pitch_a = est[0] if pitch_a is None or method == "homography" else pitch_a
        pitch_b = est[1] if pitch_b is None or method == "homography" else pitch_b
    if pitch_a is None or pitch_b is None:
        notes.append("pitch unknown: nadir assumed")
        pitch_a = -90.0 if pitch_a is None else pitch_a
        pitch_b = -90.0 if pitch_b is None else pitch_b
    # Unit altitudes unless known; with both known the fit is rigid, else a similarity whose scale is h_B/h_A.
    h_a = setup.alt_a if setup.alt_a is not None else 1.0
    both = setup.alt_a is not None and setup.alt_b is not None
    h_b = setup.alt_b if both else 1.0
    ga = ground_from_pixels(pa, setup.intr_a.K, pitch_a, h_a)
    gb = ground_from_pixels(pb, setup.intr_b.K, pitch_b, h_b)
    ok = np.isfinite(ga).all(1) & np.isfinite(gb).all(1)
    for it in range(3):  # fit, drop gross outliers (> 3 robust sigmas), refit
        if ok.sum() < MIN_INLIERS:
            return undecided_pose(f"only {int(ok.sum())} matches project onto the ground (need {MIN_INLIERS})",
                              used, int(ok.sum()), None, notes, scale_known)
        s, ang, t = fit_similarity_2d(gb[ok], ga[ok], with_scale=not both)
        res = np.linalg.norm(ga - (s * gb @ _rot(ang).T + t), axis=1)
        if it < 2:
            sigma = 1.4826 * float(np.median(res[ok]))
            ok &= res <= max(3 * sigma, 1e-6 * h_a)
    back = ((ga[ok] - t) @ _rot(ang)) / s  # A's ground points in B's ground frame (B's altitude h_b)
    reproj = pixels_from_ground(back, setup.intr_b.K, pitch_b, h_b)
    residual_px = float(np.sqrt(np.mean(np.sum((reproj - pb[ok]) ** 2, axis=1))))
    h_b = h_b if both else s  # B's altitude in the units of A's ground points (s = h_b / h_a)
    if setup.alt_a is None and setup.alt_b is not None:  # only B's altitude known: rescale to metres
        k = setup.alt_b / s
        t, ga, res, h_a, h_b = t * k, ga * k, res * k, k, setup.alt_b
    lever = float(np.linalg.norm(ga[ok].mean(0) - t))  # B's nadir point to the matched centroid, A's units
    return _finish(setup, ang, t, h_a, h_b, ga[ok], res[ok], lever, residual_px, used, notes, scale_known)


def _finish(setup: PoseSetup, ang: float, t: np.ndarray, h_a: float, h_b: float, ga: np.ndarray, res: np.ndarray,
            lever: float, residual_px: float, method: str, notes: list[str], scale_known: bool) -> RelativePose:
    """Package the fit; uncertainties: heading from the residual RMS over the point spread (√N_eff), position
    from the residual, the heading error times the lever arm, and the altitude's relative error."""
    n = len(ga)
    heading = wrap360(-math.degrees(ang))
    right, forward, up = float(t[0]), float(t[1]), float(h_b - h_a)
    horizontal = math.hypot(forward, right)
    bearing = wrap360(math.degrees(math.atan2(right, forward)))
    spread = float(np.sqrt(np.mean(np.sum((ga - ga.mean(0)) ** 2, axis=1))))
    rms = float(np.sqrt(np.mean(res ** 2)))
    n_eff = min(n, N_EFF_CAP)
    sig_head = math.degrees(rms / max(spread, 1e-9) / math.sqrt(n_eff))
    alt_term = ALTITUDE_REL_SIGMA * horizontal if scale_known else 0.0
    sig_t = math.sqrt(rms ** 2 / n_eff + (lever * math.radians(sig_head)) ** 2 + alt_term ** 2)
    diag_b = math.hypot(setup.intr_b.width, setup.intr_b.height)
    reason = None
    if residual_px > MAX_RESIDUAL_FRAC * diag_b:
        reason = f"ground-plane fit residual {residual_px:.1f} px exceeds {MAX_RESIDUAL_FRAC * diag_b:.1f} px"
    elif sig_head > MAX_HEADING_SIGMA_DEG:
        reason = f"heading uncertainty {sig_head:.1f} deg exceeds {MAX_HEADING_SIGMA_DEG} deg"
    if reason is not None:
        return undecided_pose(reason, method, n, residual_px, notes, scale_known)
    return RelativePose(heading, signed_angle(heading), (forward, right, up), horizontal, bearing,
                        clock_hour(bearing), scale_known, "m" if scale_known else "altitude", n, residual_px,
                        sig_head, sig_t, True, None, method, notes)


def _check_positive(name: str, value: float | None) -> float | None:
    if value is not None and not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
        raise ToolError(f"{name} must be a positive number of metres, got {value!r}")
    return None if value is None else float(value)


def _pair(value: Any, name: str) -> tuple[Any, Any]:
    if isinstance(value, (tuple, list)):
        if len(value) != 2:
            raise ToolError(f"{name} must be one value or a pair (a, b), got {len(value)} values")
        return value[0], value[1]
    return value, value


def _resolve_pitch(value: Any, meta: CameraMetadata | None, name: str, notes: list[str]) -> float | None:
    if value is None and meta is not None and meta.camera_pitch_deg is not None:
        value = meta.camera_pitch_deg
        notes.append(f"pitch of {name} from metadata ({value:.1f} deg, {meta.sources.get('camera_pitch_deg')})")
    if value is None:
        return None
    if not (isinstance(value, (int, float)) and -180.0 < value < 0.0):
        raise ToolError(f"pitch of {name} must be in (-180, 0) degrees (below the horizon), got {value!r}")
    return float(value)


def _metadata(name: str, image: str | Path | np.ndarray, wanted: bool) -> CameraMetadata | None:
    """Metadata of a file when ``wanted`` (None for arrays); a ToolError names the image."""
    if not wanted or not isinstance(image, (str, Path)):
        return None
    try:
        return read_metadata(image)
    except ToolError as exc:
        raise ToolError(f"image {name}: {exc}") from exc


def relative_pose(image_a: str | Path | np.ndarray, image_b: str | Path | np.ndarray, *,
                  altitude_m: float | None = None, altitude_b_m: float | None = None,
                  intrinsics: Intrinsics | tuple[Intrinsics, Intrinsics] | None = None,
                  pitch_deg: float | tuple[float, float] | None = None, metadata: bool = True, method: str = "auto",
                  config: Any = None, match_method: str = "auto", fuse: bool = True) -> RelativePose:
    """Pose of view B relative to view A from the images (see the module doc for conventions and method).

    ``altitude_m`` is A's height above the ground in metres; B's is ``altitude_b_m``, else estimated from the image
    scale change. ``pitch_deg`` is A's pitch or a pair (a, b): one value describes A only (questions state image
    1's pose; B's gimbal pitch is independent), and an unknown pitch is estimated from the homography. With
    ``metadata=True`` and file paths, missing values come from the metadata of any vendor (relative altitude,
    camera pitch, focal length); explicit arguments win, and without an altitude the GPS baseline of the two
    photos sets the metric scale (``tools.views.pose_metadata.scale_by_gps``). ``method``: "ground" (pitch known or
    nadir assumed), "homography" (pitch estimated from the plane normal) or "auto" (ground when both pitches are
    known). With ``fuse`` (default) and GPS on both photos the result is fused with the metadata
    (``tools.views.pose_fused``: distance from GPS, heading change from the pixels else the yaw tags, tags cross-checked
    against the pixels; ``sources`` names each value's origin); ``fuse=False`` gives the pixels' pose alone.
    """
    from tools.views.matching import match_views

    if method not in POSE_METHODS:
        raise ToolError(f"unknown pose method {method!r}; choose one of {', '.join(POSE_METHODS)}")
    notes: list[str] = []
    with ThreadPoolExecutor(2) as pool:  # exiftool runs as one process per photo: read both at once
        metas = list(pool.map(lambda named: _metadata(*named, metadata), (("a", image_a), ("b", image_b))))
    sizes = []
    for name, img in (("a", image_a), ("b", image_b)):
        try:
            sizes.append(image_size(img))  # from the header: the matcher decodes what it needs, at reduced size
        except ToolError as exc:
            raise ToolError(f"image {name}: {exc}") from exc
    alt_a = _check_positive("altitude_m", altitude_m)
    alt_b = _check_positive("altitude_b_m", altitude_b_m)
    if alt_a is None and metas[0] is not None and metas[0].rel_altitude_m:
        alt_a = _check_positive("relative altitude of a", metas[0].rel_altitude_m)
        notes.append(f"altitude of a = relative altitude, {metas[0].sources.get('rel_altitude_m')} "
                     "(ground assumed at take-off height)")
    if alt_b is None and metas[1] is not None and metas[1].rel_altitude_m:
        alt_b = _check_positive("relative altitude of b", metas[1].rel_altitude_m)
        notes.append(f"altitude of b = relative altitude, {metas[1].sources.get('rel_altitude_m')} "
                     "(ground assumed at take-off height)")
    intr = _pair(intrinsics, "intrinsics")
    intr_ab = []
    for name, given, (w, h), meta in zip("ab", intr, sizes, metas):
        if given is None:
            given = intrinsics_for(w, h, meta)
            notes.append(f"intrinsics of {name}: {given.source}")
        elif not isinstance(given, Intrinsics):
            raise ToolError(f"intrinsics must be Intrinsics objects, got {type(given).__name__}")
        elif (given.width, given.height) != (w, h):
            raise ToolError(f"intrinsics of {name} are for {given.width}x{given.height}, image is {w}x{h}")
        intr_ab.append(given)
    pitch_a, pitch_b = _pair(pitch_deg, "pitch_deg") if isinstance(pitch_deg, (tuple, list)) else (pitch_deg, None)
    setup = PoseSetup(intr_ab[0], intr_ab[1], alt_a, alt_b, _resolve_pitch(pitch_a, metas[0], "a", notes),
                   _resolve_pitch(pitch_b, metas[1], "b", notes))
    if alt_a is None and alt_b is None:
        notes.append("no altitude known: translation in units of A's altitude")
    match = match_views(image_a, image_b, method=match_method, model="homography", config=config)
    if not match.confident or match.H is None:
        pose = undecided_pose(f"matching not confident: {match.reason or 'no homography'}", method,
                              int(match.n_inliers), match.residual_px, notes, alt_a is not None or alt_b is not None)
    else:
        inl = np.asarray(match.inliers, bool)
        pose = pose_from_correspondences(match.points_a[inl], match.points_b[inl], setup, method=method,
                                         assumptions=notes)
        pose = scale_by_gps(pose, metas[0], metas[1], list(pose.assumptions))
    if not fuse:
        return pose
    return fuse_with_metadata(pose, metas[0], metas[1], list(pose.assumptions))
