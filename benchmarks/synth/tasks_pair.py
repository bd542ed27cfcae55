"""Aerial–aerial pair tasks: A2A_Camera_Transformation, A2A_Shared_Association, A2A_Object_Matching,
A2A_Collaboration_Recognition, A2A_Occlusion_Removal.

Camera_Transformation convention (stated in each question): heading offset = yaw₂ − yaw₁ (the directions the
tops of the images point to), degrees clockwise positive, in (−180, 180]; distance = signed horizontal
displacement of camera 2 from camera 1 along image 1's forward direction (towards the top of image 1), metres,
negative when camera 2 is behind. ``meta.translation_in_a_m`` holds the full (forward, right, up) vector.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from benchmarks.synth.camera import PinholeCamera, translation_in_a
from benchmarks.synth.instance import (FORMAT_REGIONS, Instance, Seen, SynthError, TaskContext, box_meta,
                                       choose_disjoint, draw_overlay, jpeg_quality, outside_view, pick_source,
                                       place_camera, region_ids, region_list, sample_spec, scene_with_objects,
                                       seen_objects, signed_deg, uniform_in)
from benchmarks.synth.scene import Scene, camera_meta, footprint_radius, overlap_fraction, render_view

PAIR_INTRO = "Image 1 and Image 2 are two UAV images."


def sample_pair(ctx: TaskContext, *, room: float = 1.6, source=None) -> tuple[Scene, PinholeCamera, PinholeCamera]:
    """Two cameras of one drone model over one scene whose footprints overlap by a share in ``tier.overlap``
    of image 1's footprint; yaw change within ±``tier.yaw_change_deg``, altitude ratio within 1 ± change."""
    rng, tier = ctx.rng, ctx.tier
    source = source or pick_source(ctx)
    spec_a = sample_spec(rng, tier, ctx.size, pitch=tier.pair_pitch_deg)
    ratio = uniform_in(rng, 1.0 - tier.altitude_change, 1.0 + tier.altitude_change)
    spec_b = replace(spec_a, altitude=spec_a.altitude * ratio, pitch_deg=uniform_in(rng, *tier.pair_pitch_deg),
                     roll_deg=uniform_in(rng, -tier.nuisance.roll_deg, tier.nuisance.roll_deg))
    scene = scene_with_objects(ctx, source, [spec_a, spec_b], room)
    reach = 1.5 * footprint_radius(spec_a)
    for _ in range(30):
        a = place_camera(rng, scene, spec_a)
        for _ in range(30):
            yaw_b = a.yaw_deg + uniform_in(rng, -tier.yaw_change_deg, tier.yaw_change_deg)
            try:
                b = place_camera(rng, scene, spec_b, yaw_deg=yaw_b, near=(np.array([a.x, a.y]), reach), tries=20)
            except SynthError:
                continue
            if tier.overlap[0] <= overlap_fraction(a, b) <= tier.overlap[1]:
                return scene, a, b
    raise SynthError(f"no camera pair with overlap in {tier.overlap} on {source.name}")


def _pair_meta(scene: Scene, cams: list[PinholeCamera], nuis: list[dict]) -> dict:
    return {"source": scene.source.name, "scene_scale": scene.scale, "gsd_m": scene.texture.gsd_m,
            "cameras": [camera_meta(c) for c in cams], "nuisance": nuis,
            "overlap": round(overlap_fraction(cams[0], cams[1]), 4)}


def _render_pair(ctx: TaskContext, scene: Scene, a: PinholeCamera, b: PinholeCamera):
    ia, na = render_view(scene, a, ctx.rng, ctx.tier.nuisance)
    ib, nb = render_view(scene, b, ctx.rng, ctx.tier.nuisance)
    return ia, ib, [na, nb]


def _pose_words(cam: PinholeCamera) -> str:
    if cam.pitch_deg <= -89.5:
        return "looking straight down"
    return f"with the camera pitched {-cam.pitch_deg:.0f}° below the horizon"


def camera_transformation(ctx: TaskContext) -> Instance:
    """Heading offset (and signed forward translation) between two clean overlapping views."""
    scene, a, b = sample_pair(ctx)
    ia, ib, nz = _render_pair(ctx, scene, a, b)
    angle = signed_deg(b.yaw_deg - a.yaw_deg)
    t = translation_in_a(a, b)
    heading = ("The heading offset is Image 2's heading minus Image 1's heading (the direction the top of each "
               "image points to), in degrees, clockwise positive, between -180 and 180.")
    if ctx.rng.random() < 1 / 3:
        q = (f"{PAIR_INTRO} What is the heading offset angle from Image 1 to Image 2? {heading} "
             "Answer with only the angle, formatted exactly like `-160.0 degrees`. No explanation.")
        gt = f"{angle:.1f} degrees"
    else:
        hfov = np.degrees(2 * np.arctan(a.width / 2 / a.focal_px))
        q = (f"{PAIR_INTRO} Both were taken with the same camera, whose horizontal field of view is {hfov:.0f}°; "
             f"Image 1 was taken {a.altitude:.0f} m above the ground {_pose_words(a)}. What are the aligned heading "
             f"offset angle and relative translation distance from Image 1 to Image 2's target pose? {heading} "
             "The distance is the signed horizontal displacement of Image 2's camera from Image 1's camera along "
             "Image 1's forward direction (towards the top of Image 1), in meters, negative if it is behind. "
             "Answer formatted exactly like `-160.0 degrees, -70.0 meters`. No explanation.")
        gt = f"{angle:.1f} degrees, {t[0]:.1f} meters"
    meta = _pair_meta(scene, [a, b], nz) | {"heading_offset_deg": angle, "translation_in_a_m": box_meta(t),
                                            "horizontal_distance_m": round(float(np.hypot(t[0], t[1])), 3)}
    return Instance([ia, ib], q, gt, meta, jpeg_quality(ctx))


def _shared_and_single(ctx: TaskContext, scene: Scene, a: PinholeCamera, b: PinholeCamera):
    """Objects fully seen in both views, and objects fully seen in one and wholly outside the other."""
    sa, sb = seen_objects(scene, a), seen_objects(scene, b)
    by_b = {s.obj.index: s for s in sb}
    shared = [(s, by_b[s.obj.index]) for s in sa if s.obj.index in by_b]
    only_a = [s for s in sa if outside_view(b, s.obj)]
    only_b = [s for s in sb if outside_view(a, s.obj)]
    return shared, only_a, only_b


def shared_association(ctx: TaskContext) -> Instance:
    """Region pairs (image 1 id − image 2 id) that mark the same object; each image also has regions of
    objects the other view does not see."""
    rng, tier = ctx.rng, ctx.tier
    scene, a, b = sample_pair(ctx)
    shared, only_a, only_b = _shared_and_single(ctx, scene, a, b)
    k = int(rng.integers(tier.regions[0], tier.regions[1] + 1))
    pick = _disjoint_pairs(rng, shared, max(1, k - 2))
    if not pick:
        raise SynthError("no object seen in both views")
    ra = [p[0] for p in pick] + _fill(rng, only_a, [p[0] for p in pick], int(rng.integers(0, 3)))
    rb = [p[1] for p in pick] + _fill(rng, only_b, [p[1] for p in pick], int(rng.integers(0, 3)))
    order_a, order_b = list(rng.permutation(len(ra))), list(rng.permutation(len(rb)))
    ra, rb = [ra[i] for i in order_a], [rb[i] for i in order_b]
    ids_a, ids_b = region_ids(rng, len(ra)), region_ids(rng, len(rb))
    ia, ib, nz = _render_pair(ctx, scene, a, b)
    ia = draw_overlay(ia, [(i, s.box) for i, s in zip(ids_a, ra)], rng)
    ib = draw_overlay(ib, [(i, s.box) for i, s in zip(ids_b, rb)], rng)
    id_b = {s.obj.index: i for i, s in zip(ids_b, rb)}
    pairs = [(i, id_b[s.obj.index]) for i, s in zip(ids_a, ra) if s.obj.index in id_b]
    q = (f"{PAIR_INTRO} List all shared region pairs between the two UAV images, i.e. each region in Image 1 "
         "and the region in Image 2 that contains the same object. Answer with only the pairs as "
         "`Image 1 region-Image 2 region`, formatted exactly like `1-3, 2-5`. No explanation.")
    meta = _pair_meta(scene, [a, b], nz) | {"regions": [_regions_meta(ids_a, ra), _regions_meta(ids_b, rb)]}
    return Instance([ia, ib], q, ", ".join(f"{x}-{y}" for x, y in pairs), meta, jpeg_quality(ctx))


def object_matching(ctx: TaskContext) -> Instance:
    """Box variant: image 1 has regions, image 2 is clean; GT = the object's box in image 2 pixels.
    Region variant: both images have regions; GT = the region of image 2 holding the same object."""
    rng, tier = ctx.rng, ctx.tier
    scene, a, b = sample_pair(ctx)
    shared, only_a, only_b = _shared_and_single(ctx, scene, a, b)
    if not shared:
        raise SynthError("no object seen in both views")
    tgt_a, tgt_b = shared[int(rng.integers(len(shared)))]
    k = int(rng.integers(tier.regions[0], tier.regions[1] + 1))
    others_a = choose_disjoint(rng, [s for s, _ in shared if s.obj.index != tgt_a.obj.index] + only_a, k)
    ra = [tgt_a] + _fill(rng, others_a, [tgt_a], k - 1)
    ids_a = region_ids(rng, len(ra))
    ia, ib, nz = _render_pair(ctx, scene, a, b)
    ia = draw_overlay(ia, list(zip(ids_a, [s.box for s in ra])), rng)
    meta = _pair_meta(scene, [a, b], nz) | {"regions": [_regions_meta(ids_a, ra)], "target_object": tgt_a.obj.index}
    if rng.random() < 0.5:
        q = (f"{PAIR_INTRO} Which bounding box in image2 corresponds to the object at Region {ids_a[0]} in image1? "
             "Answer with only the box in pixel coordinates of image2, formatted exactly like "
             "`[x1, y1, x2, y2]`. No explanation.")
        bx = [int(round(v)) for v in tgt_b.box]
        gt = f"[{bx[0]}, {bx[1]}, {bx[2]}, {bx[3]}]"
        meta |= {"variant": "box", "target_bbox_b": box_meta(tgt_b.box)}
    else:
        others_b = choose_disjoint(rng, [s for _, s in shared if s.obj.index != tgt_b.obj.index] + only_b, k)
        rb = [tgt_b] + _fill(rng, others_b, [tgt_b], k - 1)
        rb = [rb[i] for i in rng.permutation(len(rb))]
        ids_b = region_ids(rng, len(rb))
        ib = draw_overlay(ib, list(zip(ids_b, [s.box for s in rb])), rng)
        q = (f"{PAIR_INTRO} Which region in image2 contains the same object as Region {ids_a[0]} in image1? "
             "Answer with only the region label, formatted exactly like `Region 1`. No explanation.")
        gt = region_list([ids_b[[s.obj.index for s in rb].index(tgt_b.obj.index)]])
        meta |= {"variant": "region", "regions": meta["regions"] + [_regions_meta(ids_b, rb)]}
    return Instance([ia, ib], q, gt, meta, jpeg_quality(ctx))


def occlusion_removal(ctx: TaskContext) -> Instance:
    """Regions of image 1 that image 2 does not show: outside its view, or hidden under a pasted occluder
    (a patch of ground copied from elsewhere in image 2). GT in increasing order; at least one region of
    each kind."""
    rng, tier = ctx.rng, ctx.tier
    scene, a, b = sample_pair(ctx)
    shared, only_a, _ = _shared_and_single(ctx, scene, a, b)
    k = int(rng.integers(tier.regions[0], tier.regions[1] + 1))
    vis = _disjoint_pairs(rng, shared, max(2, k - 2))
    gone = _fill(rng, only_a, [p[0] for p in vis], max(int(len(vis) < 2), int(rng.integers(0, 3))))
    n_hidden = int(rng.integers(0 if gone else 1, min(2, len(vis) - 1) + 1)) if len(vis) >= 2 else 0
    if len(vis) - n_hidden < 1 or not (gone or n_hidden):
        raise SynthError("need regions both visible and not visible in image 2")
    hidden, vis = vis[:n_hidden], vis[n_hidden:]
    ra = [p[0] for p in vis + hidden] + gone
    perm = rng.permutation(len(ra))
    ra = [ra[i] for i in perm]
    ids = region_ids(rng, len(ra))
    ia, ib, nz = _render_pair(ctx, scene, a, b)
    for _, sb in hidden:
        ib = _paste_occluder(rng, ib, sb.box, [p[1].box for p in vis])
    ia = draw_overlay(ia, list(zip(ids, [s.box for s in ra])), rng)
    hidden_idx = {p[0].obj.index for p in hidden}
    gone_idx = {s.obj.index for s in gone}
    not_visible = sorted(i for i, s in zip(ids, ra) if s.obj.index in hidden_idx | gone_idx)
    q = (f"{PAIR_INTRO} Which regions marked in Image 1 contain objects that cannot be seen in Image 2, either "
         f"because they are outside its view or because they are hidden? List them in increasing order. "
         f"{FORMAT_REGIONS}")
    meta = _pair_meta(scene, [a, b], nz) | {
        "regions": [_regions_meta(ids, ra)], "hidden_objects": sorted(hidden_idx), "outside_objects": sorted(gone_idx),
        "occluder_boxes_b": [box_meta(p[1].box) for p in hidden]}
    return Instance([ia, ib], q, region_list(not_visible), meta, jpeg_quality(ctx))


def _paste_occluder(rng: np.random.Generator, img: np.ndarray, box: np.ndarray, keep: list[np.ndarray]) -> np.ndarray:
    """Cover ``box`` (grown by 40 %) with a same-size patch of ``img`` taken from a place that overlaps neither
    the box nor the ``keep`` boxes; the copy gets a 2 px dark rim so it reads as an object on top."""
    from benchmarks.synth.scene import box_iou

    h_img, w_img = img.shape[:2]
    g = 0.2 * np.array([-(box[2] - box[0]), -(box[3] - box[1]), box[2] - box[0], box[3] - box[1]])
    x1, y1, x2, y2 = np.clip(np.round(box + g), 0, [w_img, h_img, w_img, h_img]).astype(int)
    w, h = x2 - x1, y2 - y1
    for _ in range(200):
        sx, sy = int(rng.integers(0, w_img - w)), int(rng.integers(0, h_img - h))
        src = np.array([sx, sy, sx + w, sy + h], float)
        if all(box_iou(src, np.asarray(k, float)) == 0 for k in [np.array([x1, y1, x2, y2])] + keep):
            out = img.copy()
            out[y1:y2, x1:x2] = img[sy:sy + h, sx:sx + w]
            out[y1:y2, x1:x2][[0, 1, -2, -1], :] = out[y1:y2, x1:x2][[0, 1, -2, -1], :] // 2
            out[y1:y2, x1:x2][:, [0, 1, -2, -1]] = out[y1:y2, x1:x2][:, [0, 1, -2, -1]] // 2
            return out
    raise SynthError("no place to copy an occluder from")


def _disjoint_pairs(rng: np.random.Generator, shared: list[tuple[Seen, Seen]], k: int) -> list[tuple[Seen, Seen]]:
    """Up to ``k`` shared objects whose boxes are apart in both views."""
    from benchmarks.synth.scene import box_iou

    out: list[tuple[Seen, Seen]] = []
    pad = np.array([-8.0, -8.0, 8.0, 8.0])
    for i in rng.permutation(len(shared)):
        sa, sb = shared[int(i)]
        if all(box_iou(sa.box + pad, oa.box + pad) == 0 and box_iou(sb.box + pad, ob.box + pad) == 0 for oa, ob in out):
            out.append((sa, sb))
            if len(out) == k:
                break
    return out


def _fill(rng: np.random.Generator, pool: list[Seen], taken: list[Seen], n: int) -> list[Seen]:
    """Up to ``n`` objects of ``pool`` whose boxes stay apart from ``taken`` and from each other."""
    from benchmarks.synth.scene import box_iou

    pad = np.array([-8.0, -8.0, 8.0, 8.0])
    out: list[Seen] = []
    for i in rng.permutation(len(pool)):
        s = pool[int(i)]
        if len(out) >= n:
            break
        if s.obj.index not in {t.obj.index for t in taken + out} and all(
                box_iou(s.box + pad, t.box + pad) == 0 for t in taken + out):
            out.append(s)
    return out


def _regions_meta(ids: list[int], seen: list[Seen]) -> list[dict]:
    return [{"id": i, "label": s.obj.label, "object": s.obj.index, "bbox": box_meta(s.box),
             "ground_xy_m": box_meta(s.obj.centre)} for i, s in zip(ids, seen)]
