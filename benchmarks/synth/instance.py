"""What every task generator shares: the context it draws from, the instance it returns, and helpers for
regions (objects seen by a camera), overlays, clock directions and answer strings."""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from benchmarks.synth.camera import PinholeCamera
from benchmarks.synth.scene import (CameraSpec, Scene, SynthError, WorldObject, box_inside, box_iou, footprint,
                                    footprint_radius, make_scene, place_camera, project_object, sample_spec, uniform)
from benchmarks.synth.sources import LABEL_NAMES, Source
from benchmarks.synth.tiers import Tier

FORMAT_REGIONS = "Answer with only the region labels, formatted exactly like `Region 1, 2`. No explanation."
MIN_BOX_PX = 10.0  # regions smaller than this (either side) are not asked about
EDGE_MARGIN_PX = 6.0  # regions keep this far from the image border
LEGIBLE_TRIES = 20  # overlay styles tried before an instance is redrawn


@dataclass
class TaskContext:
    """Inputs of one task generator: its own random generator, the tier, the textures and the image size."""

    rng: np.random.Generator
    tier: Tier
    sources: list[Source]
    size: tuple[int, int] = (960, 540)  # (width, height) px
    slot_rng: np.random.Generator | None = None  # same stream on every retry of one instance: balanced answers

    def slot(self) -> np.random.Generator:
        """Generator for choices that must not depend on which retry succeeded (e.g. the answer's hour)."""
        return self.slot_rng if self.slot_rng is not None else self.rng


@dataclass
class Instance:
    """One rendered question: images (RGB uint8, in order), question text, GT string and exact geometry."""

    images: list[np.ndarray]
    question: str
    gt: str
    meta: dict = field(default_factory=dict)
    jpeg_quality: int = 90


@dataclass(frozen=True)
class Seen:
    """An object as a camera sees it: its projected box [x1, y1, x2, y2] (px) and projected centre (px)."""

    obj: WorldObject
    box: np.ndarray
    centre_px: np.ndarray


def uniform_in(rng: np.random.Generator, lo: float, hi: float) -> float:
    """Uniform draw in [lo, hi] (``lo`` when the range is empty)."""
    return uniform(rng, (lo, hi))


def pick_source(ctx: TaskContext, *, labelled: bool = False, exclude: str | None = None) -> Source:
    """A random source (with annotated objects when ``labelled``), never the one named ``exclude``."""
    pool = [s for s in ctx.sources if (s.objects or not labelled) and s.name != exclude]
    if not pool:
        raise SynthError("no texture source fits" + (" (annotated objects needed)" if labelled else ""))
    return pool[int(ctx.rng.integers(len(pool)))]


def jpeg_quality(ctx: TaskContext) -> int:
    lo, hi = ctx.tier.nuisance.jpeg_quality
    return int(ctx.rng.integers(lo, hi + 1))


def with_patches(scene: Scene, rng: np.random.Generator, side_m: tuple[float, float], n: int = 60) -> Scene:
    """The scene with ``n`` square ground patches (label ``patch``, side drawn from ``side_m``) as its objects,
    used when the source has no annotations; patches do not overlap each other."""
    w, h = scene.texture.size_m
    objs: list[WorldObject] = []
    centres = np.empty((0, 2))
    sides = np.empty(0)
    for _ in range(n * 20):
        if len(objs) >= n:
            break
        s = uniform(rng, side_m)
        cx, cy = rng.uniform(-w / 2 + s, w / 2 - s), rng.uniform(-h / 2 + s, h / 2 - s)
        if len(sides) and (np.abs(centres - (cx, cy)).max(axis=1) <= np.maximum(sides, s)).any():
            continue
        corners = np.array([[cx - s / 2, cy + s / 2], [cx + s / 2, cy + s / 2], [cx + s / 2, cy - s / 2],
                            [cx - s / 2, cy - s / 2]])
        objs.append(WorldObject(len(objs), "patch", corners))
        centres, sides = np.vstack([centres, (cx, cy)]), np.append(sides, s)
    return Scene(scene.source, scene.texture, scene.scale, tuple(objs))


def scene_with_objects(ctx: TaskContext, source: Source, specs: list[CameraSpec], room: float) -> Scene:
    """Scene sized for the cameras in ``specs``; unannotated sources get ground patches about 4–9 % of the
    first camera's footprint width."""
    scene = make_scene(source, max(footprint_radius(s) for s in specs), room)
    if not scene.objects:
        fp = footprint(specs[0].at(0.0, 0.0, 0.0))
        width = float(np.linalg.norm(fp[0] - fp[1]) + np.linalg.norm(fp[3] - fp[2])) / 2
        area = float(np.prod(scene.texture.size_m)) / max(cv2.contourArea(fp.astype(np.float32)), 1e-6)
        n = int(np.clip(12 * area, 20, 400))  # about 12 patches per footprint
        scene = with_patches(scene, ctx.rng, (0.04 * width, 0.09 * width), n)
    return scene


def seen_objects(scene: Scene, cam: PinholeCamera, *, margin_px: float = EDGE_MARGIN_PX) -> list[Seen]:
    """Objects fully inside the image (``margin_px`` from the border) and at least MIN_BOX_PX wide and high."""
    out = []
    for obj in scene.objects:
        proj = project_object(cam, obj)
        if proj is None:
            continue
        box, _ = proj
        if box_inside(box, cam, margin_px) and min(box[2] - box[0], box[3] - box[1]) >= MIN_BOX_PX:
            c, _ = cam.project(np.r_[obj.centre, 0.0][None])
            out.append(Seen(obj, box, c[0]))
    return out


def outside_view(cam: PinholeCamera, obj: WorldObject) -> bool:
    """True if no part of ``obj`` is in the image of ``cam``."""
    proj = project_object(cam, obj)
    if proj is None:
        return True
    b = proj[0]
    return bool(b[2] < 0 or b[3] < 0 or b[0] > cam.width or b[1] > cam.height)


def choose_disjoint(rng: np.random.Generator, seen: list[Seen], k: int, pad_px: float = 8.0) -> list[Seen]:
    """Up to ``k`` objects in random order whose boxes (grown by ``pad_px``) do not touch."""
    out: list[Seen] = []
    for i in rng.permutation(len(seen)):
        b = seen[int(i)].box + np.array([-pad_px, -pad_px, pad_px, pad_px])
        if all(box_iou(b, o.box + np.array([-pad_px, -pad_px, pad_px, pad_px])) == 0 for o in out):
            out.append(seen[int(i)])
            if len(out) == k:
                break
    return out


def region_ids(rng: np.random.Generator, n: int) -> list[int]:
    """``n`` distinct region numbers, a random permutation of 0..n−1 or 1..n (both occur in the benchmarks)."""
    start = int(rng.integers(0, 2))
    return [int(v) + start for v in rng.permutation(n)]


def draw_overlay(img: np.ndarray, regions: list[tuple[int, np.ndarray]], rng: np.random.Generator,
                 *, bare_numbers: bool | None = None) -> np.ndarray:
    """Draw regions in one random benchmark-like style (``benchmarks.synth.overlay``); ``bare_numbers`` forces the label
    form."""
    from dataclasses import replace

    from benchmarks.synth.overlay import draw_regions, legible_layout, random_style

    boxes = [(rid, [float(round(v)) for v in box]) for rid, box in regions]
    size = (img.shape[1], img.shape[0])
    for _ in range(LEGIBLE_TRIES):   # a style whose labels would hide boxes or each other: a person could not read it
        style = random_style(rng)
        if bare_numbers is not None:
            style = replace(style, label_format="{id}" if bare_numbers else "Region {id}")
        if legible_layout(boxes, [style] * len(boxes), size):
            return draw_regions(img, boxes, style=style)
    raise SynthError(f"no legible overlay style in {LEGIBLE_TRIES} tries")


def clock_angle_deg(centre_px: np.ndarray, target_px: np.ndarray) -> float:
    """Image-plane angle of ``target`` seen from ``centre``, degrees clockwise from image up, in [0, 360)."""
    dx, dy = target_px[0] - centre_px[0], target_px[1] - centre_px[1]
    return float(np.degrees(np.arctan2(dx, -dy)) % 360.0)


def clock_hour(angle_deg: float) -> int:
    """Nearest hour of a clock angle (0 → 12): the project's one rule, ``tools.geometry.clock.clock_from_angle``."""
    from tools.geometry.clock import clock_from_angle

    return clock_from_angle(angle_deg)


def clock_margin_deg(angle_deg: float) -> float:
    """Distance (deg) from ``angle_deg`` to the nearest hour boundary (15° + k·30°)."""
    x = (angle_deg - 15.0) % 30.0
    return float(min(x, 30.0 - x))


def signed_deg(angle: float) -> float:
    """Angle in (−180, 180]."""
    a = (angle + 180.0) % 360.0 - 180.0
    return 180.0 if a == -180.0 else float(a)


def region_list(ids: list[int]) -> str:
    return "Region " + ", ".join(str(i) for i in ids)


def object_name(label: str) -> str:
    return LABEL_NAMES.get(label, label.lower())


def box_meta(box: np.ndarray) -> list[float]:
    return [round(float(v), 2) for v in box]


__all__ = ["TaskContext", "Instance", "Seen", "SynthError", "pick_source", "jpeg_quality", "scene_with_objects",
           "seen_objects", "outside_view", "choose_disjoint", "region_ids", "draw_overlay", "clock_angle_deg",
           "clock_hour", "clock_margin_deg", "signed_deg", "region_list", "object_name", "box_meta", "place_camera",
           "sample_spec", "FORMAT_REGIONS", "uniform_in"]
