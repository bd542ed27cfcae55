"""Ego-motion of a drone over an ordered frame sequence, from ground-plane homographies between frames.

Each step i → i+1 fits a homography ``H`` (frame i pixels → frame i+1 pixels) and decomposes it knowing the
ground normal in camera i (from the camera pitch, −90 = nadir): with ``K`` the intrinsics,
``K⁻¹ H K ∝ R + t nᵀ / d`` (X_{i+1} = R X_i + t, plane nᵀX = d, d = height above ground). For two directions
u ⟂ n, ``R u`` is read directly (orthonormalised by SVD), then ``t / d = (M − R) n``. For a nadir camera this is
the similarity decomposition (rotation = yaw, zoom = altitude change, shift = translation) plus the keystone
terms that give the tilt change. For an oblique, forward-looking camera pass its ``camera_pitch_deg``: forward
flight then shows as a zoom about the vanishing point and is decomposed as such.

Sign conventions (per step, expressed in camera i's horizontal axes):
- ``yaw_deg``: heading change, clockwise seen from above (turning right) positive.
- ``forward``: along camera i's horizontal viewing direction (image up for a nadir view); ``lateral``: right +.
  Both are in units of the height above ground (``*_m`` in metres when ``altitude_m`` is given).
- ``climb``: up positive, same units; ``scale_change`` = height_i / height_{i+1} (> 1 = descending / closer).
- ``tilt_change_deg``: change of camera pitch, positive = the camera tilts up towards the horizon.
Without ``focal_px`` a lens with ``DEFAULT_HFOV_DEG`` horizontal field of view is assumed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from agent.config import Config
from tools.common import ToolError, downscale, to_full_res
from tools.views.matching import (INLIER_TOL_WORK_PX, Image, MatchResult, detect_classical, match_descriptors,
                                  match_views, prepare_image, result_from_matches)

DEFAULT_HFOV_DEG = 73.7  # 24 mm-equivalent lens of most DJI cameras (36 mm frame: 2·atan(18/24))
MOTION_MAX_SIDE = 800  # consecutive video frames differ little; 800 px keeps 16 frames within seconds
MOTION_FEATURES = 2000  # SIFT features per frame; consecutive frames share most of them
# Words (totals over the whole sequence); chosen from what a viewer can perceive, not fitted to data:
YAW_STILL_DEG = 5.0  # below a few degrees a heading change is within consumer compass / estimation noise
YAW_SLOW_DEG = 45.0  # under an eighth of a turn over a clip reads as "slowly turning"
YAW_AROUND_DEG = 135.0  # more than this reads as "turning around"
MOVE_STILL = 0.05  # horizontal travel under 5 % of the height shifts the view by ~3 % of the frame: hovering
LATERAL_SHARE = 0.4  # a side component above 40 % of the travel (≈ 22°) makes the direction "diagonal"
ALT_STILL = 0.05  # height change under 5 % is an imperceptible zoom: "altitude stays constant"
ALT_SLIGHT = 0.20  # under 20 %: "slightly"
TILT_STILL_DEG = 5.0  # camera pitch change that is not worth mentioning


@dataclass
class MotionStep:
    """Motion between frame i and i+1 (see the module docstring for units and signs); None when not confident."""

    index: int
    yaw_deg: float | None
    forward: float | None
    lateral: float | None
    climb: float | None
    scale_change: float | None
    tilt_change_deg: float | None
    forward_m: float | None = None
    lateral_m: float | None = None
    climb_m: float | None = None
    confident: bool = False
    reason: str | None = None
    n_inliers: int = 0
    method: str = ""


@dataclass
class EgoMotion:
    """Per-step motion and totals; totals are in frame 0's horizontal axes, heights in units of the first one."""

    steps: list[MotionStep]
    total_yaw_deg: float
    total_forward: float
    total_lateral: float
    total_climb: float
    total_scale_change: float  # height_0 / height_last
    total_tilt_change_deg: float
    total_forward_m: float | None = None
    total_lateral_m: float | None = None
    total_climb_m: float | None = None
    confident: bool = False  # every step was confident
    reason: str | None = None
    timings: dict[str, float] = field(default_factory=dict)

    def describe(self) -> str:
        """Plain-English summary in the order the question asks for: how the drone moves (with metres when the
        altitude is known), altitude and heading, the camera angle, how the ground scene shifts in the frame, and
        where the drone ends up; e.g. "The drone flies forward about 12 meters while turning right; ..."."""
        if not any(s.confident for s in self.steps):
            return "The motion cannot be determined: consecutive frames could not be matched."
        move = _movement_phrase(self.total_forward, self.total_lateral)
        turn = _turn_phrase(self.total_yaw_deg)
        metres = (float(np.hypot(self.total_forward_m, self.total_lateral_m))
                  if self.total_forward_m is not None and self.total_lateral_m is not None else None)
        if move is None and turn is None:
            text = "The drone hovers in place without turning"
        elif move is None:
            text = f"The drone hovers while {turn} by about {abs(self.total_yaw_deg):.0f} degrees"
        else:
            text = f"The drone {move}" + (f" about {metres:.0f} meters" if metres else "")
            text += f" while {turn}" if turn else ", keeping its heading"
        text += "; " + _altitude_phrase(self.total_scale_change) + "."
        if abs(self.total_tilt_change_deg) >= TILT_STILL_DEG:
            way = "up towards the horizon" if self.total_tilt_change_deg > 0 else "down towards the ground"
            text += f" The camera tilts {way} by about {abs(self.total_tilt_change_deg):.0f} degrees."
        else:
            text += " The camera angle stays the same."
        text += f" The ground scene {self._scene_phrase(move, turn)}, and the drone finally {self._end_phrase(move, turn, metres)}."
        if not self.confident:
            text += " (Some frames could not be matched; the estimate covers the rest.)"
        return text

    def _scene_phrase(self, move: str | None, turn: str | None) -> str:
        """How the ground moves in the image: opposite to the drone's travel, against its turn, in and out with
        height (image axes: forward = top of the frame)."""
        if move is not None:
            dist = float(np.hypot(self.total_forward, self.total_lateral))
            parts = []
            if abs(self.total_forward) >= LATERAL_SHARE * dist:
                parts.append("bottom" if self.total_forward > 0 else "top")
            if abs(self.total_lateral) >= LATERAL_SHARE * dist:
                parts.append("left" if self.total_lateral > 0 else "right")
            return f"slides steadily toward the {' '.join(parts)} of the frame"
        if turn is not None:
            return f"turns {'counter-clockwise' if self.total_yaw_deg > 0 else 'clockwise'} around the centre of the frame"
        change = 1.0 / self.total_scale_change - 1.0
        if abs(change) >= ALT_STILL:
            return "shrinks toward the centre of the frame" if change > 0 else "grows outward from the centre of the frame"
        return "stays still in the frame"

    def _end_phrase(self, move: str | None, turn: str | None, metres: float | None) -> str:
        if move is not None:
            return "reaches a new viewpoint" + (f" about {metres:.0f} meters from its starting position" if metres else "")
        if turn is not None:
            return "faces a new heading from the same position"
        change = 1.0 / self.total_scale_change - 1.0
        if abs(change) >= ALT_STILL:
            return f"views the same area from {'higher' if change > 0 else 'lower'} up"
        return "keeps looking at the same area"


def _turn_phrase(yaw: float) -> str | None:
    a = abs(yaw)
    if a < YAW_STILL_DEG:
        return None
    side = "right" if yaw > 0 else "left"
    if a >= YAW_AROUND_DEG:
        return f"turning around to the {side}"
    return f"slowly turning {side}" if a < YAW_SLOW_DEG else f"turning {side}"


def _movement_phrase(forward: float, lateral: float) -> str | None:
    dist = float(np.hypot(forward, lateral))
    if dist < MOVE_STILL:
        return None
    fwd = "forward" if forward > 0 else "backward"
    side = "right" if lateral > 0 else "left"
    if abs(lateral) < LATERAL_SHARE * dist:
        return f"flies {fwd}"
    if abs(forward) < LATERAL_SHARE * dist:
        return f"moves sideways to the {side}"
    return f"flies {fwd} and to the {side}"


def _altitude_phrase(scale: float) -> str:
    change = 1.0 / scale - 1.0  # relative height change
    if abs(change) < ALT_STILL:
        return "its altitude stays constant"
    verb = "climbs" if change > 0 else "descends"
    return f"it {verb} slightly" if abs(change) < ALT_SLIGHT else f"it {verb}"


# ---- geometry -------------------------------------------------------------------------------------------------
def intrinsics(width: int, height: int, focal_px: float | None) -> np.ndarray:
    """Pinhole K with the principal point at the image centre (focal from ``DEFAULT_HFOV_DEG`` when None)."""
    f = focal_px if focal_px else 0.5 * width / np.tan(np.radians(DEFAULT_HFOV_DEG) / 2)
    return np.array([[f, 0, width / 2], [0, f, height / 2], [0, 0, 1.0]])


def ground_normal(pitch_deg: float) -> np.ndarray:
    """Unit normal of the ground, pointing from the camera down to the plane, in camera coordinates (roll 0)."""
    th = np.radians(pitch_deg)
    return np.array([0.0, np.cos(th), -np.sin(th)])


def decompose_ground_homography(H: np.ndarray, K: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(R, t/d) with X_{i+1} = R X_i + t from a ground homography and the known plane normal ``n`` (camera i)."""
    M = np.linalg.inv(K) @ H @ K
    if np.linalg.det(M) < 0:
        M = -M
    u1 = np.cross(n, [1.0, 0.0, 0.0])
    u1 /= np.linalg.norm(u1)
    u2 = np.cross(n, u1)
    A = M @ np.column_stack([u1, u2])
    U, S, Vt = np.linalg.svd(A, full_matrices=False)
    Q = U @ Vt  # nearest matrix with orthonormal columns: R u1, R u2
    R = Q @ np.column_stack([u1, u2]).T + np.outer(np.cross(Q[:, 0], Q[:, 1]), np.cross(u1, u2))
    t = (M / S.mean()) @ n - R @ n
    return R, t


def step_motion(H: np.ndarray, K: np.ndarray, pitch_deg: float) -> dict[str, float]:
    """Yaw, translation (units of height), climb, scale and tilt change of one step (module conventions)."""
    n = ground_normal(pitch_deg)
    R, t = decompose_ground_homography(H, K, n)
    up = -n
    fwd = np.cross(up, [1.0, 0.0, 0.0])
    c = -R.T @ t  # camera i+1 centre in camera i coordinates, units of height
    x_new, z_new = R[0], R[2]  # camera i+1 axes in camera i coordinates
    yaw = np.degrees(np.arctan2(-x_new @ fwd, x_new @ np.array([1.0, 0.0, 0.0])))
    fwd_new = np.cross(up, x_new)
    pitch_new = np.degrees(np.arctan2(z_new @ up, z_new @ fwd_new))
    climb = float(c @ up)
    return {"yaw_deg": float(yaw), "forward": float(c @ fwd), "lateral": float(c[0]), "climb": climb,
            "scale_change": 1.0 / max(1.0 + climb, 1e-6), "tilt_change_deg": float(pitch_new - pitch_deg)}


# ---- sequence -----------------------------------------------------------------------------------------------
def _pair_results(frames: list[np.ndarray], method: str, max_side: int, config: Config | None) -> list[MatchResult]:
    """Homography match of each consecutive pair; classical features are detected once per frame."""
    if method in ("aliked", "disk"):
        return [match_views(a, b, method=method, max_side=max_side, config=config)
                for a, b in zip(frames, frames[1:])]
    first = "sift" if method == "auto" else method
    feats = []
    for f in frames:
        work, s = downscale(f, max_side)
        kp, desc = detect_classical(first, work, MOTION_FEATURES)
        feats.append((to_full_res(kp, s), desc, s))
    size = (frames[0].shape[1], frames[0].shape[0])
    out = []
    for i in range(len(frames) - 1):
        pa, pb = match_descriptors(first, feats[i][:2], feats[i + 1][:2])
        res = result_from_matches(first, "homography", pa, pb, INLIER_TOL_WORK_PX / feats[i + 1][2], size, size)
        if method == "auto" and not res.confident:
            res = match_views(frames[i], frames[i + 1], method="auto", max_side=max_side, config=config)
        out.append(res)
    return out


def ego_motion(frames: Sequence[Image], *, altitude_m: float | None = None, focal_px: float | None = None,
               camera_pitch_deg: float = -90.0, method: str = "auto", max_side: int = MOTION_MAX_SIDE,
               config: Config | None = None) -> EgoMotion:
    """Ego-motion over ordered frames (paths or RGB arrays of one size); see the module docstring."""
    import time

    if len(frames) < 2:
        raise ToolError(f"ego_motion needs at least 2 frames, got {len(frames)}")
    if altitude_m is not None and not altitude_m > 0:
        raise ToolError(f"altitude_m must be positive, got {altitude_m}")
    if not -90.0 <= camera_pitch_deg < -5.0:
        raise ToolError(f"camera_pitch_deg must be in [-90, -5) (the ground must be in view), got {camera_pitch_deg}")
    t0 = time.perf_counter()
    imgs = [prepare_image(f, f"frame {i}") for i, f in enumerate(frames)]
    sizes = {im.shape[:2] for im in imgs}
    if len(sizes) > 1:
        raise ToolError(f"all frames must have the same size, got {sorted((w, h) for h, w in sizes)} (w, h)")
    K = intrinsics(imgs[0].shape[1], imgs[0].shape[0], focal_px)
    results = _pair_results(imgs, method, max_side, config)
    steps, pitch, height, yaw_total = [], camera_pitch_deg, 1.0, 0.0
    pos = np.zeros(2)  # (forward, lateral) in frame 0 axes, units of the first height
    climb_total, tilt_total = 0.0, 0.0
    for i, res in enumerate(results):
        if not res.confident or res.H is None:
            steps.append(MotionStep(i, None, None, None, None, None, None, confident=False,
                                    reason=res.reason or "no homography", n_inliers=res.n_inliers,
                                    method=res.method))
            continue
        m = step_motion(res.H, K, float(np.clip(pitch, -90.0, -5.0)))
        psi = np.radians(yaw_total)
        fwd, lat = m["forward"] * height, m["lateral"] * height
        pos += [fwd * np.cos(psi) - lat * np.sin(psi), fwd * np.sin(psi) + lat * np.cos(psi)]
        climb_total += m["climb"] * height
        steps.append(MotionStep(i, m["yaw_deg"], m["forward"], m["lateral"], m["climb"], m["scale_change"],
                                m["tilt_change_deg"], *_metres(m, height, altitude_m), confident=True,
                                n_inliers=res.n_inliers, method=res.method))
        yaw_total += m["yaw_deg"]
        tilt_total += m["tilt_change_deg"]
        pitch += m["tilt_change_deg"]
        height *= 1.0 + m["climb"]
    bad = [s.index for s in steps if not s.confident]
    alt = altitude_m
    return EgoMotion(steps, yaw_total, float(pos[0]), float(pos[1]), climb_total, 1.0 / max(height, 1e-6),
                     tilt_total, pos[0] * alt if alt else None, pos[1] * alt if alt else None,
                     climb_total * alt if alt else None, not bad,
                     f"steps {bad} could not be matched" if bad else None,
                     {"total": time.perf_counter() - t0})


def _metres(m: dict[str, float], height: float, altitude_m: float | None) -> tuple[float | None, ...]:
    if altitude_m is None:
        return None, None, None
    h = height * altitude_m
    return m["forward"] * h, m["lateral"] * h, m["climb"] * h
