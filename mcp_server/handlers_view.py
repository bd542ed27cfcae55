"""MCP handlers for single-image tools. Thin adapters: load images, call ``tools/``, shape JSON; no geometry here."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field


from mcp_server import annotate as draw
from mcp_server.images import LoadedImage, RequestError, metadata_of
from mcp_server.registry import (AnnotateArg, Altitude, Box, Focal, ImageArg, Pitch, RegionArg, Result, ToolContext,
                                 ToolOutput, check_box, register)
from tools.common import to_jsonable
from tools.geometry.clock import ClockResult

Point = Annotated[list[float], Field(description="a point [x, y] or a box [x1, y1, x2, y2] in pixels")]


class ReadRegionsResult(Result):
    regions: list[dict[str, Any]]
    image_size: list[int]
    unlabeled_boxes: list[list[float]] = []


@register("read_regions", """Find the numbered region boxes drawn on a benchmark image ("Region 3" or a bare "3") and
    read their ids from the pixels. Use first on any image with drawn regions: returns each region's id and box
    [x1, y1, x2, y2] in pixels (the outer edge of the drawn outline, or a translucent mask's extent), the label text read, a confidence, whether two independent reads of the label
    agreed (confirmed; null when one read was sure enough) and where the label was read (label_box);
    unlabeled_boxes: drawn boxes whose label could not be read (or, with expected_ids, reads as another id).
    expected_ids: ids the question mentions.""")  # fmt: skip
def read_regions(ctx: ToolContext, image: ImageArg, expected_ids: list[int] | None = None,
                 annotate: AnnotateArg = False) -> ToolOutput[ReadRegionsResult]:  # fmt: skip
    from tools.regions.pipeline import read_regions as read

    img = ctx.image(image)
    every = read(img.rgb, expected_ids=expected_ids, include_unlabeled=True, outer_edges=True)
    regions = [r for r in every if r.id >= 0]
    data = {"regions": to_jsonable(regions), "image_size": list(img.size),
            "unlabeled_boxes": [list(map(float, r.bbox)) for r in every if r.id < 0]}
    pic = draw.boxes(img.rgb, [(f"{r.id}", r.bbox) for r in regions]) if annotate else None
    return ToolOutput(data, pic)


class MarkedBoxResult(Result):
    bbox: list[float] | None
    evidence: float
    confident: bool
    reason: str | None
    outlines: list[dict[str, Any]]


@register("marked_box", """The one box drawn on an image to mark a spot, without a label ("the box I drew in photo
    1"): among the boxes read_regions finds, the thin closed rectangle whose four sides are lines of one colour that
    stands out from both their sides (lawns, field edges, pieces of the box and boxes cut by the border fail that);
    where none is, straight thin lines of the overlay colours are followed to a box the reader missed.
    Returns its box [x1, y1, x2, y2] in pixels (the outer edge of its line), the weakest side's evidence in [0, 1]
    and the five strongest candidates' refined outlines; bbox null with the reason when no outline is clear or two are
    about as strong.""")  # fmt: skip
def marked_box(ctx: ToolContext, image: ImageArg, annotate: AnnotateArg = False) -> ToolOutput[MarkedBoxResult]:
    from tools.regions.edges import outer_box
    from tools.regions.marked_seeds import find_marked_box
    from tools.regions.pipeline import read_regions as read

    img = ctx.image(image)
    every = read(img.rgb, include_unlabeled=True, outer_edges=True)
    found = find_marked_box(img.rgb, [r.bbox for r in every])
    box = outer_box(img.rgb, found.bbox) if found.bbox is not None else None
    data = {"bbox": box, "evidence": found.evidence, "confident": box is not None, "reason": found.reason,
            "outlines": to_jsonable(found.outlines[:5])}
    pic = draw.boxes(img.rgb, [("marked", box)]) if annotate and box is not None else None
    return ToolOutput(data, pic)


@register("clock_direction", """Clock direction (1-12) of a target seen from an anchor in the image plane: 12 o'clock =
    image up (or the given heading), 3 = right. Default anchor = image centre (the drone), as in SpatialUAV/BEDI
    direction questions. target/anchor: point [x, y] or box [x1, y1, x2, y2] in pixels. Give image or image_size
    so the centre is known. rounding "nearest" (benchmarks) or "floor" (Open3D-VQA).""",
          images=("image",))  # fmt: skip
def clock_direction(ctx: ToolContext, target: Point, image: ImageArg | None = None,
                    image_size: Annotated[list[int] | None, Field(description="[width, height] in pixels")] = None,
                    anchor: Point | None = None, heading_deg: float = 0.0,
                    rounding: Literal["nearest", "floor"] = "nearest", annotate: AnnotateArg = False) -> ToolOutput[ClockResult]:  # fmt: skip
    from tools.geometry.clock import clock_direction as clock

    img = ctx.image(image) if image is not None else None
    size = tuple(img.size) if img is not None else (tuple(image_size) if image_size else None)
    if size is not None and len(size) != 2:
        raise RequestError(f"image_size must be [width, height], got {image_size}")
    res = clock(target, anchor=anchor, image_size=size, heading_deg=heading_deg, rounding=rounding)
    data = to_jsonable(res)
    pic = None
    if annotate and img is not None:
        pic = draw.clock_ray(img.rgb, data["anchor"], data.get("target", _centre(target)), data["hour"])
    return ToolOutput(data, pic)


def _centre(p: list[float]) -> list[float]:
    """Point of a point-or-box argument, for drawing only."""
    return [(p[0] + p[2]) / 2, (p[1] + p[3]) / 2] if len(p) == 4 else list(p[:2])


class RankByDistanceResult(Result):
    """The tool's ranking keyed by region id (``tools.geometry.ground.RankResult`` orders ids and distances)."""

    order: list[int]
    distances_m: dict[str, float | None]
    confident: bool
    reason: str | None


def camera_for(img: LoadedImage, altitude_m: float | None, pitch_deg: float | None, focal_px: float | None) -> Any:
    """Ground-plane camera for an image: known values from the caller, documented defaults for the rest."""
    from tools.geometry.ground import CameraGeometry

    w, h = img.size
    cam = CameraGeometry.assumed_for(w, h, altitude_m=altitude_m, pitch_deg=pitch_deg)
    if focal_px is not None:
        assumed = tuple(a for a in cam.assumed if a != "hfov_deg")
        cam = dataclasses.replace(cam, focal_px=float(focal_px), assumed=assumed)
    return cam


@register("rank_by_distance", """Order numbered regions by horizontal ground distance from the drone (nearest or
    farthest first), from camera pitch, altitude and the boxes' ground contact points. Unknown altitude keeps the
    order valid (distances become relative); unknown pitch is assumed and reported (confident=false).""")  # fmt: skip
def rank_by_distance(ctx: ToolContext, image: ImageArg, regions: list[RegionArg], altitude_m: Altitude = None,
                     pitch_deg: Pitch = None, focal_px: Focal = None,
                     order: Literal["nearest_first", "farthest_first"] = "nearest_first",
                     annotate: AnnotateArg = False) -> ToolOutput[RankByDistanceResult]:  # fmt: skip
    from tools.geometry.ground import rank_by_distance as rank

    img = ctx.image(image)
    cam = camera_for(img, altitude_m, pitch_deg, focal_px)
    res = rank([(r.id, check_box(r.bbox, f"bbox of region {r.id}")) for r in regions], cam, order=order)
    data = {"order": res.ids, "distances_m": {str(i): d for i, d in zip(res.ids, res.distances_m)},
            "uncertainty_m": {str(i): u for i, u in zip(res.ids, res.uncertainty_m)},
            "relative": res.relative, "assumed": list(cam.assumed), "confident": res.confident, "reason": res.reason}
    boxes = {r.id: r.bbox for r in regions}
    pic = draw.boxes(img.rgb, [(f"#{k + 1}: {i}", boxes[i]) for k, i in enumerate(res.ids)]) if annotate else None
    return ToolOutput(data, pic)


class DetectResult(Result):
    detections: list[dict[str, Any]]
    counts: dict[str, int]
    known_labels: list[str]
    count_reliable: bool
    reason: str | None
    model: str
    count_accuracy: dict[str, float]


@register("detect", """Detect objects with the configured YOLO detectors: colour photos with the RGB detector
    (default: persons only), grey/thermal frames with the thermal detector (person, car, bicycle, other_vehicle);
    model says which answered. Boxes in pixels, best score first, with counts per label and each box's cell of a
    3x3 grid (top-left ... bottom-right).
    known_labels: the only classes this detector can see (a count of anything else cannot be given: abstain).
    count_reliable=false (with the reason) when the image is outside what the detector was trained on (the shipped
    person detector on thermal frames or drone photos): then do not answer a count from it. count_accuracy: per
    label, the share of validation frames with as many detections that it counted within ±1 or ±10 % (calibrated
    weights, no conf). Boxes the frame cannot
    support (whole-frame or whole-tile boxes, featureless areas, boxes larger than the object on the ground) are
    dropped and listed in rejected. labels: keep only these classes. tile "auto" cuts large frames into tiles.""")  # fmt: skip
def detect(ctx: ToolContext, image: ImageArg, labels: list[str] | None = None,
           conf: Annotated[float | None, Field(ge=0, le=1, description="minimum score (default: the detector's "
                                                "calibrated per-class thresholds, else 0.25)")] = None,
           tile: Literal["auto", "none"] = "auto", annotate: AnnotateArg = False) -> ToolOutput[DetectResult]:  # fmt: skip
    from tools.perception.detect import detect_report, grid_location
    from tools.geometry.photo_geometry import photo_geometry

    img = ctx.image(image)
    geo = photo_geometry(metadata_of(img))
    aerial = geo.altitude_m is not None or geo.pitch_deg is not None
    scale = img.size[0] / geo.width if geo.width else 1.0  # the loaded image may be a downscaled copy
    gsd = geo.gsd_m_per_px / scale if geo.gsd_m_per_px is not None and geo.view == "nadir" else None
    rep = detect_report(img.rgb, labels=labels, conf=conf, tile=None if tile == "none" else "auto",
                        config=ctx.config, gsd_m_per_px=gsd, aerial=aerial)
    dets = rep.detections
    rows = [{"label": d.label, "score": d.score, "bbox": d.bbox, "grid": grid_location(d.bbox, img.size)} for d in dets]
    counts: dict[str, int] = {}
    for d in dets:
        counts[d.label] = counts.get(d.label, 0) + 1
    data = {"detections": rows, "counts": counts, "known_labels": rep.known_labels,
            "count_reliable": rep.count_reliable, "reason": rep.reason, "model": rep.model,
            "count_accuracy": rep.count_accuracy,
            "rejected": [{"label": d.label, "score": d.score, "bbox": d.bbox, "why": why} for d, why in rep.rejected]}
    pic = draw.boxes(img.rgb, [(f"{d.label} {d.score:.2f}", d.bbox) for d in dets]) if annotate else None
    return ToolOutput(data, pic)


class SegmentResult(Result):
    masks: list[dict[str, Any]]


@register("segment", """Segment objects with SAM from box prompts [[x1, y1, x2, y2], ...] and/or point prompts
    [[x, y], ...]; returns each mask's bounding box, area in pixels and score. Needs SAM weights
    (Config.sam_checkpoint).""")  # fmt: skip
def segment(ctx: ToolContext, image: ImageArg, boxes: list[Box] | None = None,
            points: Annotated[list[list[float]] | None, Field(description="points [[x, y], ...] in pixels")] = None,
            annotate: AnnotateArg = False) -> ToolOutput[SegmentResult]:  # fmt: skip
    from tools.perception.segment import segment as run_segment

    img = ctx.image(image)
    res = run_segment(img.rgb, boxes=boxes, points=points, config=ctx.config)
    data = {"masks": [{"bbox": m.bbox, "area_px": m.area_px, "score": m.score} for m in res]}
    return ToolOutput(data, draw.masks(img.rgb, [m.mask for m in res]) if annotate else None)


class MeasureResult(Result):
    objects: list[dict[str, Any]]
    separations: list[dict[str, Any]]
    clock_between: list[dict[str, Any]]


@register("measure_objects", """Metric 3-D measurements of objects given by boxes: distance from the camera, width and
    height (m), pairwise separations (horizontal, vertical, direct) and the clock direction of each object seen from
    each other (12 = camera forward). Depth from the configured depth model, else from the flat-ground model using
    altitude_m, pitch_deg and focal_px (then heights of upright objects are not measurable).""")  # fmt: skip
def measure_objects(ctx: ToolContext, image: ImageArg, boxes: list[Box], altitude_m: Altitude = None,
                    pitch_deg: Pitch = None, focal_px: Focal = None, annotate: AnnotateArg = False) -> ToolOutput[MeasureResult]:
    from tools.geometry.depth import depth_from_ground_plane, estimate_depth
    from tools.geometry.pointcloud import clock_between, measure_object, separation

    if not boxes:
        raise RequestError("measure_objects needs at least one box")
    img = ctx.image(image)
    cam = camera_for(img, altitude_m, pitch_deg, focal_px)
    if ctx.config.depth_model:
        depth, source = estimate_depth(img.rgb, ctx.config), f"depth model {Path(ctx.config.depth_model).name}"
    else:
        depth, source = depth_from_ground_plane(cam, *img.size), "flat ground plane"
    objs = [measure_object(depth, cam.K, check_box(b), up=tuple(cam.up_in_camera)) for b in boxes]
    seps, clocks = [], []
    for i, a in enumerate(objs):
        for j, b in enumerate(objs):
            if i < j:
                h, v, d = separation(a, b)
                seps.append({"a": i, "b": j, "horizontal_m": h, "vertical_m": v, "direct_m": d})
            if i != j:
                clocks.append({"from": i, "to": j, "hour": clock_between(a, b)})
    data = {"objects": [{"distance_m": o.distance_m, "width_m": o.width_m, "height_m": o.height_m} for o in objs],
            "separations": seps, "clock_between": clocks, "depth_source": source, "assumed": list(cam.assumed)}
    pic = draw.boxes(img.rgb, [(f"{i}: {o.distance_m:.1f} m", b) for i, (o, b) in enumerate(zip(objs, boxes))])
    return ToolOutput(data, pic if annotate else None)


class QualityResult(Result):
    score: int
    labels: list[str]
    indicators: dict[str, Any]
    thresholds: dict[str, float]


@register("image_quality", """Image quality assessment for degraded drone imagery: an overall score from 1 (unusable) to
    5 (no degradation found), labels of detected problems (blur, noise, low_light, overexposure, fog, occlusion),
    the raw indicators and the thresholds they were compared with. Use
    for perception-assessment questions (which view is usable, why).""")  # fmt: skip
def image_quality(ctx: ToolContext, image: ImageArg, annotate: AnnotateArg = False) -> ToolOutput[QualityResult]:
    from tools.perception.quality import assess_quality

    img = ctx.image(image)
    data = to_jsonable(assess_quality(img.rgb))
    pic = None
    if annotate:  # the verdict written on the image
        pic = img.rgb.copy()
        draw.label(pic, f"quality {data['score']}/5: {', '.join(data['labels']) or 'no problem found'}", (4, 4),
                   draw.PALETTE[3])  # fmt: skip
    return ToolOutput(data, pic)


class CameraResult(Result):
    metadata: dict[str, Any]
    intrinsics: dict[str, Any]


@register("camera_metadata", """Raw camera metadata of any vendor (DJI, Autel, Skydio, Parrot, senseFly, MicaSense,
    EXIF GPS, GeoTIFF) read with ExifTool: GPS position, relative/absolute altitude (m), camera, gimbal and flight
    yaw/pitch/roll (deg; pitch -90 = nadir), focal length, sensor width, and the tag each value came from
    (sources), plus the pinhole intrinsics (fx, fy, cx, cy in pixels, horizontal field of view) and the camera
    heading (deg clockwise from north). For altitude, GSD, footprint, tilt or heading answers use photo_geometry.""", can_annotate=False)  # fmt: skip
def camera_metadata(ctx: ToolContext, image: ImageArg, annotate: AnnotateArg = False) -> ToolOutput[CameraResult]:
    from tools.geometry.camera import camera_heading_deg, intrinsics_for

    img = ctx.image(image)
    meta = metadata_of(img)
    intr = intrinsics_for(*img.size, meta)
    data = {"metadata": to_jsonable(meta), "intrinsics": {**to_jsonable(intr), "hfov_deg": intr.hfov_deg},
            "heading_deg": camera_heading_deg(meta)}
    return ToolOutput(data, None)
