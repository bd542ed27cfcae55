"""MCP handlers for multi-view tools (matching, pose, association, motion). Thin adapters over ``tools/``."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import cv2
import numpy as np
from pydantic import Field

from mcp_server import annotate as draw
from mcp_server.images import LoadedImage, RequestError, metadata_of
from mcp_server.registry import (AnnotateArg, Altitude, Box, Focal, ImageArg, RegionArg, Result, ToolContext,
                                 ToolOutput, check_box, register)
from tools.common import to_jsonable
from tools.views.pose_types import RelativePose

MatchMethod = Literal["auto", "sift", "orb", "aliked", "aliked_rot", "disk"]


class MatchResultModel(Result):
    n_matches: int
    n_inliers: int
    H: list[list[float]] | None
    confidence: float
    confident: bool
    reason: str | None
    method: str


def _match(ctx: ToolContext, a: LoadedImage, b: LoadedImage, method: str = "auto") -> Any:
    from tools.views.matching import match_views

    return match_views(a.source, b.source, method=method, config=ctx.config)  # decoded at working size, cached


@register("match_views", """Match two views of the same scene (SIFT/ORB, or ALIKED/DISK + LightGlue; "auto" tries SIFT
    then learned features) and fit a homography with MAGSAC. Returns match and inlier counts, H (image a pixels ->
    image b pixels), residual, a confidence in [0, 1] and whether it is confident (else the reason). Use to decide
    whether two images overlap before association or pose.""",
          images=("image_a", "image_b"))  # fmt: skip
def match_views(ctx: ToolContext, image_a: ImageArg, image_b: ImageArg, method: MatchMethod = "auto",
                annotate: AnnotateArg = False) -> ToolOutput[MatchResultModel]:  # fmt: skip
    a, b = ctx.image(image_a), ctx.image(image_b)
    res = _match(ctx, a, b, method)
    data = {k: getattr(res, k) for k in ("n_matches", "n_inliers", "H", "residual_px", "confidence", "confident",
                                         "reason", "method", "tried")}  # fmt: skip
    pic = draw.matches(a.rgb, b.rgb, res.points_a, res.points_b, res.inliers) if annotate else None
    return ToolOutput(data, pic)


def _pose_data(pose: RelativePose) -> dict[str, Any]:
    return to_jsonable(pose)


def _pose_picture(a: LoadedImage, b: LoadedImage, data: dict[str, Any]) -> np.ndarray:
    canvas, _, _, off = draw.side_by_side(a.rgb, b.rgb)
    heading = data.get("heading_signed_deg")
    text = f"heading {heading:+.1f} deg" if heading is not None else "heading unknown"
    if data.get("horizontal_m") is not None:
        text += f", {data['horizontal_m']:.1f} {data.get('units', 'm')} at {data.get('clock')} o'clock"
    draw.label(canvas, "A", (4, 30), draw.PALETTE[1])
    draw.label(canvas, "B: " + text, (off + 4, 30), draw.PALETTE[2])
    return canvas


@register("relative_pose", """Pose of view B relative to view A: heading offset (deg clockwise; also signed),
    translation (forward, right, up) in metres when a scale is known (else in units of the altitude), horizontal
    distance, bearing and clock direction of B from A's image top, with uncertainties. When both photos carry GPS
    (use_metadata), distance and direction come from the GPS positions and the heading offset from the pixels
    (ground-plane homography), else from the yaw tags of any vendor; the tags are cross-checked against the pixels
    (a rotated/edited file is overruled) and sources names each value's origin. Without GPS: from the images alone.
    altitude_m and pitch_deg describe view A; missing altitude/pitch/focal come from the metadata. For Camera
    Transformation and where-was-image-2-taken questions.""", images=("image_a", "image_b"))  # fmt: skip
def relative_pose(ctx: ToolContext, image_a: ImageArg, image_b: ImageArg, altitude_m: Altitude = None,
                  pitch_deg: Annotated[float | None, Field(description="camera pitch of view A in degrees: -90 = "
                                                                       "straight down, 0 = horizon")] = None,
                  focal_px: Focal = None,
                  hfov_deg: Annotated[float | None, Field(description="horizontal field of view, degrees")] = None,
                  use_metadata: bool = True, annotate: AnnotateArg = False) -> ToolOutput[RelativePose]:  # fmt: skip
    from tools.geometry.camera import intrinsics_for
    from tools.views.pose import relative_pose as pose

    a, b = ctx.image(image_a), ctx.image(image_b)
    intr = None
    if focal_px is not None or hfov_deg is not None:
        intr = tuple(intrinsics_for(*im.size, focal_px=focal_px, hfov_deg=hfov_deg) for im in (a, b))
    inputs = [im.source for im in (a, b)]  # files (metadata) or bytes: the tool decodes at working size
    res = pose(inputs[0], inputs[1], altitude_m=altitude_m, pitch_deg=pitch_deg, intrinsics=intr,
               metadata=use_metadata, config=ctx.config)  # fmt: skip
    data = _pose_data(res)
    return ToolOutput(data, _pose_picture(a, b, data) if annotate else None)


@register("pose_from_metadata", """Relative pose of view B from view A read from the photos' metadata (any vendor:
    DJI, Autel, Skydio, Parrot, senseFly, MicaSense, EXIF GPS) instead of from pixels: horizontal_m = distance
    between the two GPS positions (m), compass_bearing_deg = direction from A's position to B's (deg clockwise from
    north), heading_deg/heading_signed_deg = heading change from the camera yaw tags, bearing_deg/clock = direction
    of B relative to A's image top (needs A's heading), sources = the tag behind each value. confident=false with
    the reason naming the missing value when a photo has no GPS.""", images=("image_a", "image_b"))  # fmt: skip
def pose_from_metadata(ctx: ToolContext, image_a: ImageArg, image_b: ImageArg,
                       annotate: AnnotateArg = False) -> ToolOutput[RelativePose]:  # fmt: skip
    from tools.views.pose import pose_from_metadata as pose

    a, b = ctx.image(image_a), ctx.image(image_b)
    data = _pose_data(pose(metadata_of(a), metadata_of(b)))
    return ToolOutput(data, _pose_picture(a, b, data) if annotate else None)


class AssociateResult(Result):
    pairs: list[dict[str, Any]]
    only_in_a: list[int]
    only_in_b: list[int]
    match_confidence: float
    confident: bool
    reason: str | None


def _regions(img: LoadedImage, given: list[RegionArg] | None) -> list[tuple[int, list[float]]]:
    if given is not None:
        return [(r.id, check_box(r.bbox, f"bbox of region {r.id}")) for r in given]
    from tools.regions.pipeline import read_regions

    return [(r.id, r.bbox) for r in read_regions(img.rgb)]


@register("associate_regions", """Pair the numbered regions of two overlapping views that show the same object
    (boxes of A mapped into B by the matched homography, one-to-one by IoU). Regions are read from the drawn
    overlays when not given. Returns pairs {a, b, iou} and the ids seen in only one view. For Shared Association
    questions (answer "a-b, ...").""", images=("image_a", "image_b"))  # fmt: skip
def associate_regions(ctx: ToolContext, image_a: ImageArg, image_b: ImageArg, regions_a: list[RegionArg] | None = None,
                      regions_b: list[RegionArg] | None = None, annotate: AnnotateArg = False) -> ToolOutput[AssociateResult]:
    from tools.views.association import associate_regions as associate

    a, b = ctx.image(image_a), ctx.image(image_b)
    ra, rb = _regions(a, regions_a), _regions(b, regions_b)
    res = _match(ctx, a, b)
    pairs = associate(ra, rb, res.H, b.size) if (res.confident and res.H is not None) else []
    paired_a, paired_b = {p[0] for p in pairs}, {p[1] for p in pairs}
    reason = res.reason if not res.confident else (None if ra and rb else "no regions found in one of the views")
    data = {"pairs": [{"a": p[0], "b": p[1], "iou": p[2]} for p in pairs],
            "only_in_a": [i for i, _ in ra if i not in paired_a], "only_in_b": [i for i, _ in rb if i not in paired_b],
            "match_confidence": res.confidence, "confident": bool(res.confident and ra and rb), "reason": reason}
    pic = None
    if annotate:
        pic = draw.side_by_side(draw.boxes(a.rgb, [(str(i), bx) for i, bx in ra]),
                                draw.boxes(b.rgb, [(str(i), bx) for i, bx in rb]))[0]  # fmt: skip
    return ToolOutput(data, pic)


class VisibilityResult(Result):
    regions: list[dict[str, Any]]
    not_visible: list[int]
    match_confidence: float
    confident: bool
    reason: str | None


@register("region_visibility", """Which numbered regions of image A cannot be seen in image B: a region is not
    visible when its box (mapped by the matched homography) falls mostly outside B, or when B shows other content
    there (after warping A onto B the region differs far more than the ground around it does, content_ratio above
    the threshold: hidden under something). Regions are read from the
    drawn overlays when not given. For Occlusion Removal questions.""", images=("image_a", "image_b"))  # fmt: skip
def region_visibility(ctx: ToolContext, image_a: ImageArg, image_b: ImageArg,
                      regions_a: list[RegionArg] | None = None, annotate: AnnotateArg = False) -> ToolOutput[VisibilityResult]:  # fmt: skip
    from tools.views.association import region_visibility as visibility

    a, b = ctx.image(image_a), ctx.image(image_b)
    ra = _regions(a, regions_a)
    res = _match(ctx, a, b)
    ok = bool(res.confident and res.H is not None and ra)
    vis = visibility(a.rgb, b.rgb, ra, res.H) if ok else []
    reason = res.reason if not res.confident else (None if ra else "no regions found in image a")
    data = {"regions": [to_jsonable(v) for v in vis], "not_visible": sorted(int(v.id) for v in vis if not v.visible),
            "match_confidence": res.confidence, "confident": ok, "reason": reason}
    pic = None
    if annotate:
        marks = [(f"{v.id} {'seen' if v.visible else 'not seen'}", bx) for v, (_, bx) in zip(vis, ra)]
        pic = draw.boxes(a.rgb, marks or [(str(i), bx) for i, bx in ra])
    return ToolOutput(data, pic)


class TransferResult(Result):
    bbox: list[float] | None
    visible_fraction: float
    confident: bool
    reason: str | None


@register("transfer_box", """Where a box of image A lands in image B: the box [x1, y1, x2, y2] mapped through the
    matched homography (pixels of B, clipped to B) and the fraction of it visible in B. For Object Matching
    questions ("which box in image 2 corresponds to ...").""", images=("image_a", "image_b"))  # fmt: skip
def transfer_box(ctx: ToolContext, image_a: ImageArg, image_b: ImageArg, bbox: Box,
                 outline: Annotated[Literal["box", "ellipse"], Field(description="warp the box itself (hull) or the "
                                    "ellipse inscribed in it (object of unknown orientation)")] = "box",
                 annotate: AnnotateArg = False) -> ToolOutput[TransferResult]:  # fmt: skip
    from tools.views.association import transfer_box as transfer
    from tools.views.association import visible_in

    a, b = ctx.image(image_a), ctx.image(image_b)
    box = check_box(bbox)
    res = _match(ctx, a, b)
    if not res.confident or res.H is None:
        data = {"bbox": None, "visible_fraction": 0.0, "confident": False, "reason": res.reason or "no homography"}
    else:
        moved = transfer(box, res.H, b.size, outline)
        data = {"bbox": moved, "visible_fraction": visible_in(box, res.H, b.size), "confident": moved is not None,
                "reason": None if moved is not None else "the box maps outside image b"}  # fmt: skip
    pic = None
    if annotate:
        right = draw.boxes(b.rgb, [("transferred", data["bbox"])]) if data["bbox"] else b.rgb
        pic = draw.side_by_side(draw.boxes(a.rgb, [("source", box)]), right)[0]
    return ToolOutput(data, pic)


class RankViewsResult(Result):
    ranking: list[dict[str, Any]]
    confident: bool
    reason: str | None


@register("rank_candidate_views", """Rank candidate images by how much of the query image's footprint they cover
    (feature matching + homography overlap), best first. For Collaboration Recognition questions: which candidate
    view shows the same area as the query. method "auto" falls back to learned features (slower) when SIFT fails.""", images=("image", "candidates"),
          can_annotate=False)  # fmt: skip
def rank_candidate_views(ctx: ToolContext, image: ImageArg, candidates: list[ImageArg], method: MatchMethod = "auto",
                         annotate: AnnotateArg = False) -> ToolOutput[RankViewsResult]:  # fmt: skip
    from tools.views.association import rank_candidate_views as rank

    if not candidates:
        raise RequestError("rank_candidate_views needs at least one candidate image")
    query = ctx.image(image)
    cands = [ctx.image(c) for c in candidates]
    scores = rank(query.rgb, [c.rgb for c in cands], method=method, config=ctx.config)
    ranking = [{"index": s.candidate_index, "overlap": s.overlap_fraction, "confidence": s.match_confidence,
                "score": s.score, "confident": s.confident, "n_inliers": s.n_inliers} for s in scores]  # fmt: skip
    best = scores[0]
    return ToolOutput({"ranking": ranking, "confident": best.confident, "reason": best.reason}, None)


def same_size(frames: list[np.ndarray]) -> list[np.ndarray]:
    """Frames resized to the first one's size when they are copies at another resolution (same aspect ratio
    within 1 %); frames of another shape are left for the motion tool to refuse."""
    h0, w0 = frames[0].shape[:2]
    out = [frames[0]]
    for f in frames[1:]:
        h, w = f.shape[:2]
        same_aspect = abs(w / h - w0 / h0) <= 0.01 * (w0 / h0)
        out.append(cv2.resize(f, (w0, h0), interpolation=cv2.INTER_AREA) if (h, w) != (h0, w0) and same_aspect
                   else f)
    return out


class EgoMotionResult(Result):
    steps: list[dict[str, Any]]
    total: dict[str, Any]
    description: str
    confident: bool


@register("ego_motion", """Camera ego-motion over ordered video frames (2 or more, same size): per step and in total
    the heading change (deg, clockwise = turning right), forward/lateral/vertical travel (metres when altitude_m is
    given, else in units of the height) and camera tilt change, plus a plain-English description. For Motion
    Understanding questions.""", images=("images",), can_annotate=True)  # fmt: skip
def ego_motion(ctx: ToolContext, images: list[ImageArg], altitude_m: Altitude = None,
               annotate: AnnotateArg = False) -> ToolOutput[EgoMotionResult]:  # fmt: skip
    from tools.views.motion import ego_motion as motion

    if len(images) < 2:
        raise RequestError(f"ego_motion needs at least 2 ordered frames, got {len(images)}")
    frames = [ctx.image(f) for f in images]
    res = motion(same_size([f.rgb for f in frames]), altitude_m=altitude_m, config=ctx.config)
    data = to_jsonable(res)
    total = {k.removeprefix("total_"): v for k, v in data.items() if k.startswith("total_")}
    out = {"steps": data["steps"], "total": total, "description": res.describe(), "confident": res.confident,
           "reason": res.reason}  # fmt: skip
    pic = None
    if annotate:  # one arrow per confident step, from the image centre, in the image's forward/right axes
        w, h = frames[0].size
        c = np.array([w / 2, h / 2])
        scale = 0.25 * min(w, h)
        segs = [(c, c + scale * np.array([s.lateral or 0.0, -(s.forward or 0.0)])) for s in res.steps if s.confident]
        pic = draw.arrows(frames[-1].rgb, segs, [str(s.index) for s in res.steps if s.confident])
    return ToolOutput(out, pic)
