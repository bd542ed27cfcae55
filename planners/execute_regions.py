"""Operations on drawn regions: a region's clock hour, regions ordered by distance, the ground distance between two
regions, and where a marked spot of one image lies in another. Clock and order reuse the benchmark plans
(``planners.plans.clock_strategy`` / ``rank_strategy``, the named programs Direction_Recognition and
Distance_Comparison) with the referents the program resolved."""

from __future__ import annotations

import math
import re
from dataclasses import replace

from agent.task_types import TASK_TYPES, TaskType
from planners.conventions import parse_conventions
from planners.comparison import judge_point
from planners.execute import OPERATIONS, capture_clock, capture_distance, compass, geometry
from planners.plans import (UNLABELED_ANSWER, Evidence, clock_strategy, found, rank_strategy, read_regions, undecided,
                            unlabeled_block_full_ranking, unlabeled_boxes)
from planners.parse import SLANT
from planners.program import Ask, Program
from planners.ranking_view import ranking_view, with_view_note
from planners.router import Understanding
from planners.toolbox import ToolCallError, ToolContext


def legacy_understanding(p: Program, task: TaskType, plan: str) -> Understanding:
    """The router's :class:`Understanding` of a program as benchmark task ``task`` (its canonical answer format),
    for the benchmark plans that read it."""
    c = p.conventions
    conv = parse_conventions(p.question or "")
    ids = p.regions()
    anchor = c.anchor.id if c.anchor is not None and c.anchor.kind == "region" else None
    conv = replace(conv, region_ids=ids, region_images=[0] * len(ids), anchor_region=anchor, order=c.order,
                   want_all=c.want_all, altitude_m=c.altitude_m, pitch_deg=c.pitch_deg, focal_px=c.focal_px,
                   clockwise=c.clockwise, rounding=c.rounding)
    return Understanding(task.value, TASK_TYPES[task].answer_format.name, plan, False, 1.0, "program", conv, [])


async def region_clock(ctx: ToolContext, p: Program) -> Evidence:
    if len(ctx.images) >= 2 and not p.regions():
        return await capture_clock(ctx, p)
    if p.conventions.reference == "north":  # "if 12 o'clock is north": the hour of the compass bearing
        bearing = await region_bearing(ctx, p)
        if bearing["value"] is None:
            return bearing
        return found({"hour": bearing["value"]["hour"]}, bearing["confidence"], "12 o'clock = north; " + bearing["reason"])
    return await clock_strategy(ctx, legacy_understanding(p, TaskType.DIRECTION_RECOGNITION, "clock"))


async def region_bearing(ctx: ToolContext, p: Program) -> Evidence:
    """Compass bearing (``bearing_deg``) and north-up clock ``hour`` of the named region from the drone (the image
    centre) or from the anchor region, on a straight-down photo: its direction in the image turned by the camera
    heading (the compass direction of the image top). An oblique photo is refused: there a direction in the image is
    not one on the ground."""
    anchor = p.conventions.anchor.id if p.conventions.anchor is not None else None
    targets = [i for i in p.regions() if i != anchor]
    if not targets:
        return undecided("the question names no target region (expected e.g. 'region 3')")
    need = [targets[0]] + ([anchor] if anchor is not None else [])
    regions, size, _ = await read_regions(ctx, 0, need)
    if missing := [i for i in need if i not in regions]:
        return undecided(f"region(s) {missing} could not be read in the image")
    g = await geometry(ctx, p)
    if g.get("heading_deg") is None:
        why = (g.get("missing") or {}).get("heading_deg") or "no heading tag"
        return undecided(f"a compass direction in the photo needs the camera heading: {why}")
    if g.get("view") == "oblique":
        return undecided("the photo is oblique: a direction in the image is not a compass direction on the ground")
    heading = float(g["heading_deg"])
    r = await ctx.call("clock_direction", target=regions[targets[0]]["bbox"], image_size=size,
                       anchor=regions[anchor]["bbox"] if anchor is not None else None, heading_deg=(-heading) % 360.0,
                       rounding=p.conventions.rounding)
    note = f"image top faces {heading:.0f} degrees ({_source_of(g)})" + (
        "" if g.get("view") else "; assuming a straight-down view")
    return found({"bearing_deg": float(r["angle_deg"]) % 360.0, "hour": int(r["hour"])}, 0.8 if g.get("view") else 0.6,
                 note)


def _source_of(g: dict) -> str:
    return str(g.get("heading_source") or "heading tag")


async def compass_of(ctx: ToolContext, p: Program) -> Evidence:
    """A region's compass direction from the drone, else the photo's heading or image 2's position from image 1's."""
    if p.regions():
        evidence = await region_bearing(ctx, p)
        if evidence["value"] is not None:
            evidence["value"] = {"bearing_deg": evidence["value"]["bearing_deg"]}
        return judge_point(p.expect, evidence) if p.form == "yes_no" and p.expect else evidence
    return await compass(ctx, p)


async def order_from_region(ctx: ToolContext, p: Program, anchor: int | None) -> Evidence:
    """Regions ordered by their distance from region ``anchor`` (``None``: from the image centre), centre to
    centre in the image. From a region this orders ground distances on a straight-down photo only (an oblique
    photo is refused); from the image centre the question asks for image distances, which need no view."""
    regions, size, unread = await read_regions(ctx, 0)
    if anchor is not None and anchor not in regions:
        return undecided(f"region {anchor} could not be read in the image")
    named = [i for i in dict.fromkeys(p.regions()) if i != anchor]  # "closer to region 5: region 2 or 8?"
    if len(named) >= 2 and (missing := [i for i in named if i not in regions]):
        return undecided(f"region(s) {missing} could not be read in the image")
    unlabeled = unlabeled_boxes(unread) if len(named) < 2 else {}  # as in the ranking from the drone
    regions = {**regions, **unlabeled}
    others = named if len(named) >= 2 else [i for i in regions if i != anchor]
    if len(others) < (1 if anchor is not None else 2):
        return undecided(f"{len(others)} other region(s) read in the image: nothing to compare")
    if unlabeled and p.conventions.want_all:
        return undecided(unlabeled_block_full_ranking(unlabeled))
    g = await optional_geometry(ctx, p) if anchor is not None else {"view": "image"}
    if g.get("view") == "oblique":
        return undecided("the photo is oblique: distances between regions need a straight-down view")
    ax, ay = _centre(regions[anchor]["bbox"]) if anchor is not None else (size[0] / 2.0, size[1] / 2.0)
    ranked = sorted(others, key=lambda i: math.dist((ax, ay), _centre(regions[i]["bbox"])))
    if p.conventions.order == "farthest_first":
        ranked.reverse()
    answer = ranked if p.conventions.want_all else ranked[:1]
    if min(answer) < 0:
        return undecided(UNLABELED_ANSWER)
    note = "centre to centre" + ("" if g.get("view") else ", assuming a straight-down view")
    if anchor is None:
        note = "distance from the image centre, in the image"
    if unlabeled:
        note += f"; {len(unlabeled)} drawn box(es) whose label could not be read rank behind the answer"
    return found({"ids": answer}, 0.7 if unlabeled else 0.8, note)


async def order(ctx: ToolContext, p: Program) -> Evidence:
    anchor = p.conventions.anchor
    if p.form == "yes_no":  # "is region 6 closer than region 2?": the first named one ranks first of the two
        first = next((i for i in p.regions() if anchor is None or i != anchor.id), None)
        ranked = await order(ctx, p.model_copy(update={"form": "value", "conventions": p.conventions.model_copy(
            update={"want_all": False})}))
        if ranked["value"] is None or first is None:
            return ranked if first is not None else undecided("no region to compare was named")
        return found({"value": ranked["value"]["ids"][0] == first}, ranked["confidence"], ranked["reason"])
    if anchor is not None and anchor.kind == "region" and anchor.id is not None:
        return await order_from_region(ctx, p, anchor.id)
    if anchor is not None and anchor.kind == "centre":
        return await order_from_region(ctx, p, None)
    view = None
    if p.conventions.pitch_deg is None:
        view = ranking_view(await optional_geometry(ctx, p))
        if view.pitch_deg is not None:
            p = p.model_copy(update={"conventions": p.conventions.model_copy(
                update={"pitch_deg": view.pitch_deg, "altitude_m": p.conventions.altitude_m or view.altitude_m})})
    u = legacy_understanding(p, TaskType.DISTANCE_COMPARISON, "rank")
    if p.expect != "nearest_and_farthest":
        return with_view_note(await rank_strategy(ctx, u), view)
    ranked = await rank_strategy(ctx, replace(u, conventions=replace(u.conventions, want_all=True,
                                                                      order="nearest_first")))
    if ranked["value"] is None:
        return ranked
    ids = list(ranked["value"]["ids"])
    return with_view_note(found({"ids": [ids[0], ids[-1]]}, ranked["confidence"], "nearest first, then farthest"),
                          view)


async def optional_geometry(ctx: ToolContext, p: Program) -> dict:
    """``photo_geometry`` where it only refines an answer (pitch, view): a failing call counts as no metadata."""
    try:
        return await geometry(ctx, p)
    except ToolCallError:
        return {}


def _centre(box: list[float]) -> tuple[float, float]:
    return (box[0] + box[2]) / 2.0, (box[1] + box[3]) / 2.0


def _no_pixel_scale(g: dict) -> Evidence | None:
    """Why pixel offsets in this photo cannot be turned into ground metres by its GSD, or None when they can."""
    if g.get("gsd_m_per_px") is None:
        why = (g.get("missing") or {}).get("gsd_m_per_px") or "no altitude and lens, or ground width, known"
        return undecided(f"the ground distance needs the ground sampling distance (altitude and lens, or the ground "
                         f"width of the image): {why}")
    if g.get("view") == "oblique":
        return undecided("the photo is oblique: a distance from pixel spacing holds only for straight-down photos")
    return None


async def region_distance(ctx: ToolContext, p: Program) -> Evidence:
    ids = p.regions()[:2]
    if len(ids) == 1 and any(r.kind == "camera" for r in p.operands):
        return await drone_to_region(ctx, p, ids[0])
    if len(ids) < 2:
        return undecided("a ground distance between regions needs two regions (e.g. 'region 3 and region 5')")
    regions, _, _ = await read_regions(ctx, 0, ids)
    if missing := [i for i in ids if i not in regions]:
        return undecided(f"region(s) {missing} could not be read in the image")
    g = await geometry(ctx, p)
    if (refusal := _no_pixel_scale(g)) is not None:
        return refusal
    (ax, ay), (bx, by) = _centre(regions[ids[0]]["bbox"]), _centre(regions[ids[1]]["bbox"])
    metres = math.hypot(bx - ax, by - ay) * float(g["gsd_m_per_px"])
    note = "centre to centre, assuming a straight-down view" if g.get("view") is None else "centre to centre"
    return found({"metres": metres, "unit": p.conventions.unit or "m"}, 0.8, note)


async def drone_to_region(ctx: ToolContext, p: Program, rid: int) -> Evidence:
    """Distance from the drone to a region of a straight-down photo: horizontal = the region centre's offset from
    the image centre (the nadir point) times the GSD; the straight-line distance also climbs the altitude."""
    regions, _, _ = await read_regions(ctx, 0, [rid])
    if rid not in regions:
        return undecided(f"region {rid} could not be read in the image")
    g = await geometry(ctx, p)
    if (refusal := _no_pixel_scale(g)) is not None:
        return refusal
    if g.get("width") is None or g.get("height") is None:
        return undecided("the distance from the drone needs the image size, which the photo's geometry lacks")
    cx, cy = _centre(regions[rid]["bbox"])
    metres = math.hypot(cx - float(g["width"]) / 2.0, cy - float(g["height"]) / 2.0) * float(g["gsd_m_per_px"])
    note = "horizontal, from the point below the drone (the image centre of a straight-down photo)"
    if re.search(SLANT, (p.question or "").lower()):
        if g.get("altitude_m") is None:
            return undecided("the straight-line distance from the drone needs its altitude above the ground")
        metres, note = math.hypot(metres, float(g["altitude_m"])), "straight line from the camera"
    if g.get("view") is None:
        note += ", assuming a straight-down view"
    return found({"metres": metres, "unit": p.conventions.unit or "m"}, 0.8, note)


async def distance(ctx: ToolContext, p: Program) -> Evidence:
    if len(ctx.images) >= 2:
        return await capture_distance(ctx, p)
    return await region_distance(ctx, p)


def _iou(a: list[float], b: list[float]) -> float:
    w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = w * h
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


async def _marked_in_image_1(ctx: ToolContext, p: Program) -> list[float] | str:
    """The box of image 1 the question means, or why there is none: the region it names there when read, else the
    one box drawn to mark a spot (``marked_box``: the reader's candidates by outline evidence; a label read on an
    unlabelled mark, pieces of it and scene structure taken for boxes are no second mark)."""
    if named := p.regions(1):
        regions, _, _ = await read_regions(ctx, 0, named)
        boxes = [regions[i]["bbox"] for i in named if i in regions]
        if boxes:
            return list(boxes[0]) if len(boxes) == 1 else f"expected one marked box in image 1, found {len(boxes)}"
    r = await ctx.call("marked_box", image=ctx.images[0])
    if not r.get("confident") or not r.get("bbox"):
        return f"no single marked box in image 1: {r.get('reason')}"
    return [float(v) for v in r["bbox"]]


async def transfer(ctx: ToolContext, p: Program) -> Evidence:
    """The marked box of image 1 mapped into image 2: the region of image 2 it lands on, or its clock hour."""
    box = await _marked_in_image_1(ctx, p)
    if isinstance(box, str):
        return undecided(box)
    r = await ctx.call("transfer_box", image_a=ctx.images[0], image_b=ctx.images[1], bbox=box)
    if not r.get("confident") or not r.get("bbox"):
        return undecided(f"the marked spot was not found in image 2: {r.get('reason')}")
    moved = [float(v) for v in r["bbox"]]
    if p.expect == "clock":
        c = await ctx.call("clock_direction", target=moved, image=ctx.images[1])  # the tool reads its size
        return found({"hour": int(c["hour"])}, 0.75, "clock 12 = top of image 2, from its centre")
    regions_b, _, _ = await read_regions(ctx, 1)
    if not regions_b:
        return undecided("no numbered region could be read in image 2")
    landed = landing_region({i: g["bbox"] for i, g in regions_b.items()}, moved)
    if landed is None:
        return undecided("the marked spot lands on none of image 2's regions")
    return found({"ids": [landed[0]]}, 0.75, landed[1])


def landing_region(boxes: dict[int, list[float]], moved: list[float]) -> tuple[int, str] | None:
    """The region of image 2 that covers the mapped spot (``moved``, the marked box mapped into image 2): the one
    whose box holds the spot's centre (of several nested ones, the one most like the mapped box), else the one the
    mapped box overlaps most; None when it overlaps none. A mapped box larger than the regions (image 2 taken
    closer) may overlap a neighbour more than the small region around its centre."""
    cx, cy = _centre(moved)
    holding = [i for i, b in boxes.items() if b[0] <= cx <= b[2] and b[1] <= cy <= b[3]]
    if holding:
        best = max(holding, key=lambda i: _iou(boxes[i], moved))
        return best, f"region {best}'s box holds the mapped spot's centre"
    best = max(boxes, key=lambda i: _iou(boxes[i], moved))
    if _iou(boxes[best], moved) <= 0.0:
        return None
    return best, f"IoU {_iou(boxes[best], moved):.2f} with the mapped box (no region holds its centre)"


VERTICAL = re.compile(r"\babove\b|\bbelow\b|\bahead\b|\bbehind\b|\bin front\b|\b(higher|lower|up|down)\b")
SIDE_WORDS = {"left": "left", "right": "right", "above": "above", "ahead": "above", "in front": "above",
              "higher": "above", "up": "above", "below": "below", "behind": "below", "lower": "below", "down": "below"}


async def side(ctx: ToolContext, p: Program) -> Evidence:
    """Where the first named region lies from the second, in the image: left or right (or above or below, which
    is ahead or behind for a camera looking along the image's up direction), centre to centre."""
    ids = list(dict.fromkeys(p.regions()))[:2]
    if len(ids) < 2:
        return undecided("where one region lies from another needs two regions (e.g. 'is region 3 left of region 5')")
    regions, _, _ = await read_regions(ctx, 0, ids)
    if missing := [i for i in ids if i not in regions]:
        return undecided(f"region(s) {missing} could not be read in the image")
    (ax, ay), (bx, by) = _centre(regions[ids[0]]["bbox"]), _centre(regions[ids[1]]["bbox"])
    question = (p.question or "").lower()
    vertical = bool(VERTICAL.search(question)) and not re.search(r"(left|right)", question)
    offset, size_of = (ay - by, 3) if vertical else (ax - bx, 2)
    where = ("above" if offset < 0 else "below") if vertical else ("left" if offset < 0 else "right")
    box = regions[ids[1]]["bbox"]
    clear = abs(offset) >= 0.5 * (box[size_of] - box[size_of - 2])  # beyond half the reference box: not in line
    note = f"region {ids[0]}'s centre is {abs(offset):.0f} px {where} of region {ids[1]}'s in the image"
    conf = 0.85 if clear else 0.5
    if p.form == "yes_no":
        said = re.search("|".join(sorted(SIDE_WORDS, key=len, reverse=True)), question)
        expect = SIDE_WORDS[said.group(0)] if said else where
        return found({"value": where == expect}, conf, note)
    relation = where if vertical else f"to the {where} of"
    return found({"text": f"{where} (region {ids[0]} is {relation} region {ids[1]})"}, conf, note)


OPERATIONS.update({Ask.CLOCK: region_clock, Ask.ORDER: order, Ask.DISTANCE: distance, Ask.TRANSFER: transfer,
                   Ask.SIDE: side, Ask.COMPASS: compass_of})
