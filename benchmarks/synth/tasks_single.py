"""Single-image tasks: Direction_Recognition, BEDI_Clock, Distance_Comparison, Region_Recognition.

Conventions (the benchmarks'): clock direction = image-plane angle from the image centre to the centre of the
region's box, 12 o'clock = image up, nearest hour (0 → 12), whatever the pitch. Distances = horizontal ground
distance from the drone's nadir point to the object's ground centre (not the image-y order).
"""

from __future__ import annotations

import numpy as np

from benchmarks.synth.instance import (FORMAT_REGIONS, Instance, Seen, SynthError, TaskContext, box_meta,
                                       choose_disjoint, clock_angle_deg, clock_hour, clock_margin_deg, draw_overlay,
                                       jpeg_quality, object_name, pick_source, place_camera, region_ids, region_list,
                                       sample_spec, scene_with_objects, seen_objects)
from benchmarks.synth.scene import Scene, box_iou, camera_meta, ground_distance, render_view
from benchmarks.synth.camera import PinholeCamera

FORMAT_CLOCK = "Answer with only the clock direction, formatted exactly like `3 o'clock`. No explanation."
FORMAT_ONE_REGION = "Answer with only the region label, formatted exactly like `Region 1`. No explanation."
FORMAT_RANK = ("Answer with only the region labels in order, formatted exactly like `Region 1, 2, 3`. "
               "No explanation.")


def _single_view(ctx: TaskContext, *, labelled: bool = False) -> tuple[Scene, PinholeCamera, list[Seen]]:
    source = pick_source(ctx, labelled=labelled)
    spec = sample_spec(ctx.rng, ctx.tier, ctx.size)
    scene = scene_with_objects(ctx, source, [spec], room=1.2)
    cam = place_camera(ctx.rng, scene, spec)
    return scene, cam, seen_objects(scene, cam)


def _base_meta(scene: Scene, cam: PinholeCamera, nuisance: dict, regions: list[tuple[int, Seen]]) -> dict:
    return {"source": scene.source.name, "scene_scale": scene.scale, "gsd_m": scene.texture.gsd_m,
            "cameras": [camera_meta(cam)], "nuisance": [nuisance],
            "regions": [[{"id": rid, "label": s.obj.label, "object": s.obj.index, "bbox": box_meta(s.box),
                          "ground_xy_m": box_meta(s.obj.centre), "ground_distance_m": round(
                              ground_distance(cam, s.obj.centre), 3)} for rid, s in regions]]}


def _clock(ctx: TaskContext, bedi: bool) -> Instance:
    rng, tier = ctx.rng, ctx.tier
    scene, cam, seen = _single_view(ctx)
    centre = np.array([cam.width / 2, cam.height / 2])
    min_r = 0.08 * min(cam.width, cam.height)

    def hour_of(s: Seen) -> int:
        return clock_hour(clock_angle_deg(centre, (s.box[:2] + s.box[2:]) / 2))

    def ok(s: Seen) -> bool:
        tgt = (s.box[:2] + s.box[2:]) / 2
        a = clock_angle_deg(centre, tgt)
        return np.linalg.norm(tgt - centre) >= min_r and clock_margin_deg(a) >= tier.clock_margin_deg

    targets = [s for s in seen if ok(s)]
    if not targets:
        raise SynthError("no unambiguous clock target in view")
    # draw the answer hour uniformly first (redraw the view when it is not on offer): wide images would
    # otherwise favour 2/4/8/10 o'clock and oblique ones the top half
    hour = int(ctx.slot().integers(1, 13))
    if hour not in {hour_of(s) for s in targets}:
        raise SynthError(f"no unambiguous target at {hour} o'clock in view")
    targets = [s for s in targets if hour_of(s) == hour]
    target = targets[int(rng.integers(len(targets)))]
    k = int(rng.integers(tier.regions[0], tier.regions[1] + 1))
    pad = np.array([-8.0, -8.0, 8.0, 8.0])
    apart = [s for s in seen if s is not target and box_iou(s.box + pad, target.box + pad) == 0]
    chosen = [target] + choose_disjoint(rng, apart, k - 1)
    if len(chosen) < 2:
        raise SynthError("fewer than 2 regions in view")
    chosen = [chosen[i] for i in rng.permutation(len(chosen))]
    ids = region_ids(rng, len(chosen))
    regions = list(zip(ids, chosen))
    img, nz = render_view(scene, cam, rng, tier.nuisance)
    img = draw_overlay(img, [(rid, s.box) for rid, s in regions], rng, bare_numbers=True if bedi else None)
    rid = ids[chosen.index(target)]
    angle = clock_angle_deg(centre, (target.box[:2] + target.box[2:]) / 2)
    of_image = " of the image" if bedi else ""
    q = (f"With the front facing the 12 o'clock direction, in which o'clock direction is the target in Region "
         f"{rid}{of_image} relative to the drone? {FORMAT_CLOCK}")
    meta = _base_meta(scene, cam, nz, regions) | {"target_region": rid, "clock_angle_deg": round(angle, 3),
                                                  "convention": "image-plane angle from the image centre to the box "
                                                                "centre, 12 = image up, nearest hour"}
    return Instance([img], q, f"{clock_hour(angle)} o'clock", meta, jpeg_quality(ctx))


def direction_recognition(ctx: TaskContext) -> Instance:
    """SpatialUAV Direction_Recognition: clock direction of one drawn region from the drone (image centre)."""
    return _clock(ctx, bedi=False)


def bedi_clock(ctx: TaskContext) -> Instance:
    """BEDI Spatial_PosRelDis-style clock question (task name ``BEDI_Clock``; bare-number labels; scored with
    BEDI's partial credit 1 − min(|d|, 12 − |d|)/6)."""
    return _clock(ctx, bedi=True)


def distance_comparison(ctx: TaskContext) -> Instance:
    """Closest / farthest region, or the full nearest-to-farthest ranking, by true ground distance from the
    drone's nadir point; distances in the answer differ by at least ``tier.distance_gap`` (relative)."""
    rng, tier = ctx.rng, ctx.tier
    scene, cam, seen = _single_view(ctx)
    k = int(rng.integers(max(3, tier.regions[0]), min(5, tier.regions[1]) + 1))
    chosen = choose_disjoint(rng, seen, k)
    if len(chosen) < 3:
        raise SynthError("fewer than 3 regions in view")
    ids = region_ids(rng, len(chosen))
    dist = np.array([ground_distance(cam, s.obj.centre) for s in chosen])
    order = np.argsort(dist)
    ratios = dist[order][1:] / np.maximum(dist[order][:-1], 1e-6)
    variant = ["closest", "farthest", "rank"][int(rng.integers(3))]
    need = {"closest": ratios[:1], "farthest": ratios[-1:], "rank": ratios}[variant]
    if (need < 1.0 + tier.distance_gap).any():
        raise SynthError("region distances too close to rank unambiguously")
    where = "measured on the ground from the point directly below the drone"
    if variant == "rank":
        q = f"Rank the regions from nearest to farthest from the drone (distance {where}). {FORMAT_RANK}"
        gt = region_list([ids[i] for i in order])
    else:
        i = int(order[0] if variant == "closest" else order[-1])
        q = f"Which region is {variant} to the drone? Distances are {where}. {FORMAT_ONE_REGION}".replace(
            "farthest to", "farthest from")
        gt = region_list([ids[i]])
    regions = list(zip(ids, chosen))
    img, nz = render_view(scene, cam, rng, tier.nuisance)
    img = draw_overlay(img, [(rid, s.box) for rid, s in regions], rng)
    meta = _base_meta(scene, cam, nz, regions) | {"variant": variant}
    return Instance([img], q, gt, meta, jpeg_quality(ctx))


def region_recognition(ctx: TaskContext) -> Instance:
    """Regions containing an annotated class; the other regions hold other classes or bare ground that overlaps
    no annotated object (the annotations are assumed complete — see the README)."""
    rng, tier = ctx.rng, ctx.tier
    scene, cam, seen = _single_view(ctx, labelled=True)
    labels = sorted({s.obj.label for s in seen})
    if not labels:
        raise SynthError("no annotated object in view")
    label = labels[int(rng.integers(len(labels)))]
    k = int(rng.integers(tier.regions[0], tier.regions[1] + 1))
    pos = choose_disjoint(rng, [s for s in seen if s.obj.label == label], int(rng.integers(1, max(2, k // 2) + 1)))
    neg = choose_disjoint(rng, [s for s in seen if s.obj.label != label], k - len(pos))
    chosen = choose_disjoint(rng, pos + neg, len(pos) + len(neg))  # keep all boxes apart
    chosen += _ground_patches(rng, scene, cam, chosen, k - len(chosen))
    if not any(s.obj.label == label for s in chosen) or len(chosen) < 2:
        raise SynthError("not enough regions for Region_Recognition")
    ids = region_ids(rng, len(chosen))
    regions = list(zip(ids, chosen))
    img, nz = render_view(scene, cam, rng, tier.nuisance)
    img = draw_overlay(img, [(rid, s.box) for rid, s in regions], rng)
    name = object_name(label)
    art = "an" if name[0] in "aeiou" else "a"
    q = f"Which regions in the image contain {art} {name}? {FORMAT_REGIONS}"
    gt = region_list(sorted(rid for rid, s in regions if s.obj.label == label))
    return Instance([img], q, gt, _base_meta(scene, cam, nz, regions) | {"class": label}, jpeg_quality(ctx))


def _ground_patches(rng: np.random.Generator, scene: Scene, cam: PinholeCamera, taken: list[Seen],
                    n: int) -> list[Seen]:
    """Up to ``n`` image boxes of bare ground: sized like the taken boxes, apart from them, and whose ground
    footprint (grown by 50 %) overlaps no annotated object."""
    from benchmarks.synth.scene import WorldObject, box_iou

    if n <= 0 or not taken:
        return []
    sizes = np.array([s.box[2:] - s.box[:2] for s in taken])
    out: list[Seen] = []
    for _ in range(60 * n):
        if len(out) >= n:
            break
        w, h = sizes[int(rng.integers(len(sizes)))]
        x1 = rng.uniform(8, cam.width - w - 8)
        y1 = rng.uniform(8, cam.height - h - 8)
        box = np.array([x1, y1, x1 + w, y1 + h])
        grow = np.array([-w, -h, w, h]) * 0.5
        if any(box_iou(box + grow, s.box + grow) > 0 for s in taken + out):
            continue
        g = cam.image_to_ground(np.array([[box[0], box[1]], [box[2], box[1]], [box[2], box[3]], [box[0], box[3]]]))
        gx1, gy1 = g.min(axis=0)
        gx2, gy2 = g.max(axis=0)
        pad = 0.5 * max(gx2 - gx1, gy2 - gy1)
        if any(o.corners[:, 0].max() > gx1 - pad and o.corners[:, 0].min() < gx2 + pad and
               o.corners[:, 1].max() > gy1 - pad and o.corners[:, 1].min() < gy2 + pad for o in scene.objects):
            continue
        centre = (box[:2] + box[2:]) / 2
        obj = WorldObject(-1, "background", g)
        out.append(Seen(obj, box, centre))
    return out
