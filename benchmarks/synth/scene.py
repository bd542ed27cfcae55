"""Scenes (a texture laid on the ground plane with its objects) and the cameras placed over them.

The world origin is the texture centre. A scene's ``scale`` multiplies the source's nominal GSD so that the
footprint of the requested cameras fits in a (small) texture: with scale s the world is s times larger than the
real place, objects included. All metric answers refer to the scaled world; ``scale`` is recorded in each
instance's ``meta``. Footprints are checked to lie inside the texture, so clean images have no empty pixels.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from benchmarks.synth.camera import GroundTexture, PinholeCamera, render_exact
from benchmarks.synth.sources import Source
from benchmarks.synth.tiers import Nuisance, Tier


class SynthError(RuntimeError):
    """The generator could not place cameras or objects as asked (message says what and why)."""


@dataclass(frozen=True)
class WorldObject:
    """An object on the ground: axis-aligned world rectangle ``corners`` (4, 2) metres and its label."""

    index: int
    label: str
    corners: np.ndarray

    @property
    def centre(self) -> np.ndarray:
        return self.corners.mean(axis=0)


@dataclass(frozen=True)
class Scene:
    source: Source
    texture: GroundTexture
    scale: float
    objects: tuple[WorldObject, ...]

    def contains(self, xy: np.ndarray, inset_m: float = 0.0) -> bool:
        """True if all (N, 2) ground points lie inside the texture, ``inset_m`` metres from its edges."""
        w, h = self.texture.size_m
        xy = np.asarray(xy, float).reshape(-1, 2)
        if not np.isfinite(xy).all():
            return False
        return bool((np.abs(xy[:, 0]) <= w / 2 - inset_m).all() and (np.abs(xy[:, 1]) <= h / 2 - inset_m).all())


@dataclass(frozen=True)
class CameraSpec:
    """Everything of a camera but its position and yaw."""

    altitude: float
    pitch_deg: float
    focal_px: float
    width: int
    height: int
    roll_deg: float = 0.0

    def at(self, x: float, y: float, yaw_deg: float) -> PinholeCamera:
        return PinholeCamera(x, y, self.altitude, yaw_deg % 360.0, self.pitch_deg, self.roll_deg, self.focal_px,
                             self.width, self.height)


def uniform(rng: np.random.Generator, r: tuple[float, float]) -> float:
    return float(rng.uniform(r[0], r[1])) if r[1] > r[0] else float(r[0])


def sample_spec(rng: np.random.Generator, tier: Tier, size: tuple[int, int], *, pitch: tuple[float, float] | None = None,
                altitude: float | None = None) -> CameraSpec:
    """Draw altitude (m), pitch (deg), focal (px, from the horizontal FOV) and roll from the tier's ranges."""
    w, h = size
    hfov = uniform(rng, tier.hfov_deg)
    focal = w / 2 / np.tan(np.radians(hfov) / 2)
    roll = uniform(rng, (-tier.nuisance.roll_deg, tier.nuisance.roll_deg))
    alt = altitude if altitude is not None else uniform(rng, tier.altitude_m)
    return CameraSpec(alt, uniform(rng, pitch or tier.pitch_deg), float(focal), w, h, roll)


def hfov_deg(cam: PinholeCamera) -> float:
    """Horizontal field of view in degrees."""
    return float(np.degrees(2 * np.arctan(cam.width / 2 / cam.focal_px)))


def footprint(cam: PinholeCamera, inset_px: float = 0.0) -> np.ndarray:
    """(4, 2) ground points seen at the image corners (NaN where a corner looks above the horizon)."""
    w, h, i = cam.width, cam.height, inset_px
    return cam.image_to_ground(np.array([[i, i], [w - i, i], [w - i, h - i], [i, h - i]], float))


def footprint_radius(spec: CameraSpec) -> float:
    """Largest horizontal distance (m) from the nadir point to the footprint of a camera with ``spec``."""
    fp = footprint(spec.at(0.0, 0.0, 0.0))
    if not np.isfinite(fp).all():
        raise SynthError(f"camera with pitch {spec.pitch_deg:.1f}° sees the horizon; use a steeper pitch")
    return float(np.linalg.norm(fp, axis=1).max())


def overlap_fraction(a: PinholeCamera, b: PinholeCamera) -> float:
    """Area of (footprint a ∩ footprint b) / area of footprint a, on the ground."""
    fa, fb = footprint(a), footprint(b)
    if not (np.isfinite(fa).all() and np.isfinite(fb).all()):
        return 0.0
    area_a = cv2.contourArea(fa.astype(np.float32))
    inter, _ = cv2.intersectConvexConvex(fa.astype(np.float32), fb.astype(np.float32))
    return float(inter / area_a) if area_a > 0 else 0.0


def make_scene(source: Source, radius_m: float, room: float = 1.0) -> Scene:
    """Scene of ``source`` scaled up (never down) so that a disc of radius ``radius_m`` × ``room`` fits inside the
    texture with a 5 % margin; objects carry over with the same scale."""
    tex = source.load()
    h, w = tex.shape[:2]
    gsd0 = source.texture_gsd_m
    scale = max(1.0, 2.1 * radius_m * room / (min(w, h) * gsd0))
    gsd = gsd0 * scale
    texture = GroundTexture(tex, gsd, x0=-w * gsd / 2, y0=h * gsd / 2)
    objs = []
    for i, o in enumerate(source.objects):
        x1, y1, x2, y2 = (np.array(o.box) / source.shrink).tolist()
        px = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]])
        objs.append(WorldObject(i, o.label, (texture.pixel_to_world() @ np.c_[px, np.ones(4)].T).T[:, :2]))
    return Scene(source, texture, scale, tuple(objs))


def place_camera(rng: np.random.Generator, scene: Scene, spec: CameraSpec, *, yaw_deg: float | None = None,
                 near: tuple[np.ndarray, float] | None = None, tries: int = 300) -> PinholeCamera:
    """A camera with ``spec`` whose whole footprint lies on the texture; position uniform on the texture (or within
    ``near = (xy, radius_m)``), yaw uniform in [0, 360) unless given. Raises SynthError when nothing fits."""
    half = np.array(scene.texture.size_m) / 2 - scene.texture.gsd_m
    for _ in range(tries):
        yaw = float(rng.uniform(0, 360)) if yaw_deg is None else yaw_deg
        # The footprint moves rigidly with the camera position, so the positions that keep it on the texture
        # form a rectangle: sample inside it.
        fp = footprint(spec.at(0.0, 0.0, yaw))
        lo, hi = -half - fp.min(axis=0), half - fp.max(axis=0)
        if not np.isfinite(fp).all() or (lo > hi).any():
            continue
        if near is None:
            xy = rng.uniform(lo, hi)
        else:
            ang, r = rng.uniform(0, 2 * np.pi), near[1] * np.sqrt(rng.uniform())
            xy = np.asarray(near[0], float) + r * np.array([np.cos(ang), np.sin(ang)])
            if (xy < lo).any() or (xy > hi).any():
                continue
        cam = spec.at(float(xy[0]), float(xy[1]), yaw)
        if scene.contains(footprint(cam), inset_m=scene.texture.gsd_m * 0.5):
            return cam
    raise SynthError(f"no camera position of {scene.source.name} keeps the footprint on the texture")


def project_object(cam: PinholeCamera, obj: WorldObject) -> tuple[np.ndarray, np.ndarray] | None:
    """(box [x1, y1, x2, y2] px, (4, 2) projected corners) of a ground object, None if any corner is behind."""
    px, depth = cam.project(np.c_[obj.corners, np.zeros(4)])
    if not (depth > 0).all():
        return None
    return np.array([*px.min(axis=0), *px.max(axis=0)]), px


def box_inside(box: np.ndarray, cam: PinholeCamera, margin_px: float = 0.0) -> bool:
    return bool(box[0] >= margin_px and box[1] >= margin_px and box[2] <= cam.width - margin_px
                and box[3] <= cam.height - margin_px)


def box_iou(a: np.ndarray, b: np.ndarray) -> float:
    iw = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    ih = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = iw * ih
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return float(inter / union) if union > 0 else 0.0


def ground_distance(cam: PinholeCamera, xy: np.ndarray) -> float:
    """Horizontal distance (m) from the drone's nadir point to ground point ``xy``."""
    return float(np.hypot(xy[0] - cam.x, xy[1] - cam.y))


def render_view(scene: Scene, cam: PinholeCamera, rng: np.random.Generator, nuisance: Nuisance,
                values: dict | None = None) -> tuple[np.ndarray, dict]:
    """Render ``cam`` and apply exposure, blur and noise drawn from ``nuisance`` (or the given ``values``, e.g. to
    keep one setting over a video); returns (RGB image, the nuisance values used). Raises SynthError if any pixel
    falls outside the texture (the footprint checks prevent it)."""
    img, valid = render_exact(scene.texture, cam)
    if not valid.all():
        raise SynthError(f"{int((~valid).sum())} pixels of the view fall outside the texture {scene.source.name}")
    if values is None:
        values = {"exposure_gain": uniform(rng, nuisance.exposure_gain),
                  "blur_sigma_px": uniform(rng, nuisance.blur_sigma_px), "noise_std": uniform(rng, nuisance.noise_std)}
    gain, sigma, noise = values["exposure_gain"], values["blur_sigma_px"], values["noise_std"]
    out = img.astype(np.float32) * gain
    if sigma > 0.05:
        out = cv2.GaussianBlur(out, (0, 0), sigma)
    if noise > 0:
        out += rng.normal(0.0, noise, out.shape).astype(np.float32)
    return np.clip(out + 0.5, 0, 255).astype(np.uint8), {"exposure_gain": gain, "blur_sigma_px": sigma,
                                                         "noise_std": noise}


def camera_meta(cam: PinholeCamera) -> dict:
    """JSON-ready camera parameters (world x east, y north, z up; yaw clockwise from north; pitch −90 = nadir)."""
    return {"x_m": cam.x, "y_m": cam.y, "altitude_m": cam.altitude, "yaw_deg": cam.yaw_deg, "pitch_deg": cam.pitch_deg,
            "roll_deg": cam.roll_deg, "focal_px": cam.focal_px, "width": cam.width, "height": cam.height,
            "hfov_deg": hfov_deg(cam)}
