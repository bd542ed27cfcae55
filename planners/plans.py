"""Task → tool steps. Each plan is a list of strategies tried in order (the verify loop moves to the next one);
a strategy is an async function ``(ctx, understanding) -> Evidence`` that calls MCP tools through ``ctx``.

Evidence is a plain dict: ``value`` (keyword arguments of the answer dataclass for the chosen format, or
``None``), ``confidence`` in [0, 1] and ``reason`` (why there is no value, or a caveat). Plans never guess:
when a tool is not confident, or the question needs what no tool provides, ``value`` is ``None`` with the reason.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Awaitable, Callable, Sequence

from planners.conventions import is_person_label, word_number
from planners.evidence import Evidence, found, undecided
from planners.pitch_sweep import rank_pitch_sweep
from planners.region_numbering import with_inferred_id
from planners.router import Understanding
from planners.toolbox import ToolContext

Strategy = Callable[[ToolContext, Understanding], Awaitable[Evidence]]
LETTERS = "ABCDE"


@dataclass(frozen=True)
class Plan:
    """A named plan: ``outline`` lists the tool steps for --explain, ``strategies`` are tried in order."""

    name: str
    outline: tuple[str, ...]
    strategies: tuple[Strategy, ...]


# --- helpers ----------------------------------------------------------------------------------------------------
async def read_regions(ctx: ToolContext, index: int,
                       ids: list[int] | None = None) -> tuple[dict[int, dict], list, list[list[float]]]:
    """Regions read on image ``index`` by id, the image size [w, h], and the drawn boxes whose label could not be
    read (with ``ids``: also those that read as an id not asked for)."""
    r = await ctx.call("read_regions", image=ctx.images[index], expected_ids=sorted(set(ids)) if ids else None)
    return ({int(g["id"]): g for g in r.get("regions", [])}, r.get("image_size"),
            [list(b) for b in r.get("unlabeled_boxes", [])])


def unlabeled_boxes(unread: list[list[float]]) -> dict[int, dict]:
    """Drawn boxes whose label could not be read, as regions with ids -1, -2, ...: they take part in a ranking over
    every region, and an answer that names one of them does not stand (:data:`UNLABELED_ANSWER`)."""
    return {-1 - k: {"bbox": b} for k, b in enumerate(unread)}


UNLABELED_ANSWER = "the region that answers is a drawn box whose label could not be read"


def unlabeled_block_full_ranking(unlabeled: dict[int, dict]) -> str:
    return f"{len(unlabeled)} drawn box(es) whose label could not be read; the full ranking needs them"


def _missing(regions: dict[int, dict], ids: list[int]) -> list[int]:
    return [i for i in dict.fromkeys(ids) if i not in regions]


def _region_conf(regions: dict[int, dict], ids: list[int]) -> float:
    return min((float(regions[i].get("confidence", 1.0)) for i in ids), default=1.0)


# --- single image with regions --------------------------------------------------------------------------------
async def clock_strategy(ctx: ToolContext, u: Understanding) -> Evidence:
    """Clock hour of the named region from the image centre (the drone) or from ``anchor_region``."""
    conv = u.conventions
    targets = [i for i in conv.region_ids if i != conv.anchor_region]
    if not targets:
        return undecided("the question names no target region (expected e.g. 'Region 3')")
    target = targets[0]
    need = [target] + ([conv.anchor_region] if conv.anchor_region is not None else [])
    regions, size, _ = await read_regions(ctx, 0, need)
    if _missing(regions, need):  # every box read: an unread one may take its id from the numbering of the others
        every, _, unread = await read_regions(ctx, 0)
        regions = {**with_inferred_id(every, unread)[0], **regions}
    if miss := _missing(regions, need):
        return undecided(f"region(s) {miss} could not be read in the image")
    anchor = regions[conv.anchor_region]["bbox"] if conv.anchor_region is not None else None
    r = await ctx.call("clock_direction", target=regions[target]["bbox"], image_size=size, anchor=anchor,
                       rounding=conv.rounding)
    hour = int(r["hour"])
    if not conv.clockwise:  # counter-clockwise numbering mirrors the dial
        hour = (12 - hour) % 12 or 12
    return found({"hour": hour}, _region_conf(regions, need))


async def rank_strategy(ctx: ToolContext, u: Understanding) -> Evidence:
    """Regions ordered by ground distance from the drone; 'far left/right' picks by bearing instead."""
    conv = u.conventions
    # A comparison needs ≥ 2 regions: one named id (often just the answer-format example "Region 1") is not the
    # set to compare, so then every region on the image is read.
    named = list(dict.fromkeys(conv.region_ids)) if len(set(conv.region_ids)) >= 2 else []
    regions, size, unread = await read_regions(ctx, 0, named or None)
    if miss := _missing(regions, named):
        return undecided(f"region(s) {miss} could not be read in the image")
    if not named:  # over every region, an unread box may take its id from the numbering of the others
        regions, unread = with_inferred_id(regions, unread)
    ids = named or sorted(regions)
    if len(ids) < 2:  # e.g. the overlay reader found one box of several: a "farthest" over one region says nothing
        return undecided(f"{len(ids)} region(s) read in the image; a distance comparison needs at least two")
    unlabeled = unlabeled_boxes(unread) if not named else {}  # over every region, unreadable boxes take part
    if unlabeled and conv.want_all:
        return undecided(unlabeled_block_full_ranking(unlabeled))
    ev = await _rank(ctx, u, {**regions, **unlabeled}, ids + list(unlabeled), size)
    if ev["value"] is None or min(ev["value"]["ids"]) < 0:
        return ev if ev["value"] is None else undecided(UNLABELED_ANSWER)
    # As sure as the answer's own labels: another box's id read does not change which box answers.
    return {**ev, "confidence": min(ev["confidence"], _region_conf(regions, list(ev["value"]["ids"])))}


async def _rank(ctx: ToolContext, u: Understanding, regions: dict[int, dict], ids: list[int],
                size: list) -> Evidence:
    """The asked part of the ground-distance (or left/right) order of ``ids`` (``size``: image [w, h] px), with
    the confidence the geometry leaves (the caller adds the labels' own)."""
    conv = u.conventions
    if conv.side:
        lateral = {}
        for i in ids:
            r = await ctx.call("clock_direction", target=regions[i]["bbox"], image_size=size)
            lateral[i] = math.sin(math.radians(float(r["angle_deg"])))  # +1 = straight right, -1 = left
        sign = -1.0 if conv.side == "left" else 1.0
        ranked = sorted(ids, key=lambda i: -sign * lateral[i])
        return found({"ids": ranked if conv.want_all else ranked[:1]}, 1.0)
    r = await ctx.call("rank_by_distance", image=ctx.images[0],
                       regions=[{"id": i, "bbox": regions[i]["bbox"]} for i in ids], altitude_m=conv.altitude_m,
                       pitch_deg=conv.pitch_deg, focal_px=conv.focal_px, order=conv.order)
    if not r.get("confident", True) and conv.pitch_deg is None and "pitch_deg" in r.get("assumed", []):
        return await rank_pitch_sweep(ctx, u, regions, ids)
    if not r.get("confident", True) and not (not conv.want_all and first_is_clear(r)):
        return undecided(f"distance ranking not decided: {r.get('reason')}")
    order = [int(i) for i in r["order"]]
    return found({"ids": order if conv.want_all else order[:1]}, 1.0, r.get("reason"))


def first_is_clear(r: dict) -> bool:
    """Whether the first region of a ranking (the nearest, or the farthest) is decided although the whole order
    is not: its distance interval does not overlap the runner-up's (``rank_by_distance`` half-widths)."""
    ids = [str(i) for i in r.get("order", [])]
    d, u = r.get("distances_m") or {}, r.get("uncertainty_m") or {}
    if len(ids) < 2 or any(d.get(i) is None or u.get(i) is None for i in ids[:2]):
        return False
    return abs(float(d[ids[0]]) - float(d[ids[1]])) > float(u[ids[0]]) + float(u[ids[1]])


# --- pairs ------------------------------------------------------------------------------------------------------
def _pose_value(r: dict, u: Understanding) -> Evidence:
    fmt, conv = u.answer_format, u.conventions
    if not r.get("confident", False):
        return undecided(f"relative pose not decided: {r.get('reason')}")
    if fmt in ("ANGLE", "ANGLE_DISTANCE") and r.get("heading_signed_deg") is None:
        return undecided(f"the heading change is not known (no yaw tag and the pixels did not decide it): "
                         f"{r.get('reason') or 'no heading source'}")
    if fmt in ("ANGLE_DISTANCE", "QUANTITY") and (r.get("horizontal_m") is None or not r.get("scale_known", False)):
        return undecided("the distance needs a metric scale (altitude or GPS) that is not available")
    conf = 1.0 / (1.0 + float(r.get("heading_uncertainty_deg") or 0.0) / 10.0)
    if fmt == "ANGLE":
        deg = r["heading_signed_deg"] if conv.signed else r["heading_deg"]
        return found({"degrees": float(deg), "signed": conv.signed}, conf)
    metres, note = float(r["horizontal_m"]), "distance = horizontal distance between the cameras"
    if conv.distance_kind == "forward" and r.get("translation_m"):
        metres, note = float(r["translation_m"][0]), "distance = signed displacement along image 1's forward axis"
    if fmt == "QUANTITY":
        return found({"metres": metres}, conf, note)
    return found({"degrees": float(r["heading_signed_deg"]), "metres": metres}, conf, note)


async def pose_images(ctx: ToolContext, u: Understanding) -> Evidence:
    c = u.conventions
    r = await ctx.call("relative_pose", image_a=ctx.images[0], image_b=ctx.images[1], altitude_m=c.altitude_m,
                       pitch_deg=c.pitch_deg, focal_px=c.focal_px, hfov_deg=c.hfov_deg, use_metadata=True)
    return _pose_value(r, u)


async def pose_metadata(ctx: ToolContext, u: Understanding) -> Evidence:
    r = await ctx.call("pose_from_metadata", image_a=ctx.images[0], image_b=ctx.images[1])
    return _pose_value(r, u)


async def associate_pairs(ctx: ToolContext, u: Understanding) -> Evidence:
    r = await ctx.call("associate_regions", image_a=ctx.images[0], image_b=ctx.images[1])
    if not r.get("confident", False):
        return undecided(f"region association not decided: {r.get('reason')}")
    pairs = [(int(p["a"]), int(p["b"])) for p in r.get("pairs", [])]
    if not pairs:
        return undecided("no region of image 1 was matched to a region of image 2")
    return found({"pairs": tuple(pairs)}, float(r.get("match_confidence", 1.0)))


async def occlusion(ctx: ToolContext, u: Understanding) -> Evidence:
    """Regions of image 1 that image 2 does not show (outside its view, or hidden under something)."""
    r = await ctx.call("region_visibility", image_a=ctx.images[0], image_b=ctx.images[1])
    if not r.get("confident", False):
        return undecided(f"region visibility not decided: {r.get('reason')}")
    hidden = tuple(int(i) for i in r.get("not_visible", []))
    if not hidden:
        return undecided("every region of image 1 appears in image 2; the question expects at least one that does not")
    return found({"ids": hidden}, float(r.get("match_confidence", 1.0)))


async def match_object(ctx: ToolContext, u: Understanding) -> Evidence:
    conv = u.conventions
    first = [i for i, img in zip(conv.region_ids, conv.region_images) if img in (0, 1)]
    if not first:
        return undecided("the question names no region of image 1")
    k = first[0]
    if u.answer_format == "REGION_LIST":
        r = await ctx.call("associate_regions", image_a=ctx.images[0], image_b=ctx.images[1])
        hit = [int(p["b"]) for p in r.get("pairs", []) if int(p["a"]) == k]
        read_a = {int(p["a"]) for p in r.get("pairs", [])} | {int(i) for i in r.get("only_in_a", [])}
        if r.get("confident", False) and k not in read_a:  # a reading failure, not a matching one
            return undecided(f"region {k} could not be read in image 1")
        if not r.get("confident", False) or not hit:
            return undecided(f"region {k} of image 1 was not matched in image 2: {r.get('reason')}")
        return found({"ids": (hit[0],)}, float(r.get("match_confidence", 1.0)))
    regions, _, _ = await read_regions(ctx, 0, [k])
    if k not in regions:
        return undecided(f"region {k} could not be read in image 1")
    r = await ctx.call("transfer_box", image_a=ctx.images[0], image_b=ctx.images[1], bbox=regions[k]["bbox"],
                       outline="ellipse")  # the region boxes an object of unknown orientation
    if not r.get("confident", False) or r.get("bbox") is None:
        return undecided(f"the box could not be transferred to image 2: {r.get('reason')}")
    box = [float(v) for v in r["bbox"]]
    if conv.normalized_boxes:
        size = image_size(ctx, 1)
        if size is None:
            return undecided("normalised box asked but the size of image 2 is unknown")
        box = [box[0] / size[0], box[1] / size[1], box[2] / size[0], box[3] / size[1]]
    return found({"x1": box[0], "y1": box[1], "x2": box[2], "y2": box[3], "normalized": conv.normalized_boxes},
                 float(r.get("visible_fraction", 1.0)))


def image_size(ctx: ToolContext, index: int) -> tuple[int, int] | None:
    """(width, height) of a local image from its header (no decoding); None when only base64 is known."""
    if index >= len(ctx.image_paths) or not ctx.image_paths[index]:
        return None
    from PIL import Image

    with Image.open(ctx.image_paths[index]) as im:
        return im.size


async def rank_views(ctx: ToolContext, u: Understanding) -> Evidence:
    if len(ctx.images) < 3:
        return undecided("needs a query image and at least two candidate images")
    r = await ctx.call("rank_candidate_views", image=ctx.images[0], candidates=ctx.images[1:])
    ranking = r.get("ranking", [])
    if not r.get("confident", False) or not ranking:
        return undecided(f"no candidate view clearly overlaps the query: {r.get('reason')}")
    best = int(ranking[0]["index"])
    return found({"letter": LETTERS[best]}, float(ranking[0].get("confidence", 1.0)))


# --- frames, whole images --------------------------------------------------------------------------------------
async def ego_motion(ctx: ToolContext, u: Understanding) -> Evidence:
    r = await ctx.call("ego_motion", images=ctx.images, altitude_m=u.conventions.altitude_m)
    if not r.get("confident", False) or not r.get("description"):
        return undecided(f"camera motion not decided: {r.get('reason', 'frames could not be registered')}")
    return found({"text": str(r["description"])}, 0.7)


async def quality(ctx: ToolContext, u: Understanding) -> Evidence:
    r = await ctx.call("image_quality", image=ctx.images[0])
    labels = r.get("labels") or ["no degradation found"]
    return found({"text": f"quality score {r['score']}/5 (5 = clean): {', '.join(map(str, labels))}"}, 0.8)


#: Confidence of a count from a detector whose count accuracy was never measured.
UNMEASURED_COUNT_CONFIDENCE = 0.7


def count_confidence(accuracy: dict[str, float], labels: Sequence[str]) -> tuple[float, str]:
    """(confidence, note) of a count of ``labels``: the detector's measured share of validation frames (with about as
    many detections) counted within ±1 or ±10 % (the least of the labels summed), else
    :data:`UNMEASURED_COUNT_CONFIDENCE` with no note."""
    shares = [float(accuracy[k]) for k in labels if k in accuracy]
    if not labels or len(shares) < len(labels):
        return UNMEASURED_COUNT_CONFIDENCE, ""
    share = min(shares)
    return share, (f"; its {'/'.join(labels)} counts were within ±1 or ±10 % on {share:.0%} of the validation "
                   "frames where it found about as many")


async def _person_count(ctx: ToolContext, index: int, label: str | None) -> tuple[int | None, str | None, float]:
    """(count, why not, confidence) of the persons on image ``index``."""
    if not is_person_label(label):
        return None, (f"counting '{label or 'objects'}' needs a detector for that class; the configured detector "
                      "only knows persons"), 0.0
    r = await ctx.call("detect", image=ctx.images[index], labels=["person"])
    return int(sum(r.get("counts", {}).values())), None, count_confidence(r.get("count_accuracy") or {}, ["person"])[0]


async def count(ctx: ToolContext, u: Understanding) -> Evidence:
    n, why, conf = await _person_count(ctx, 0, u.conventions.target_label)
    if n is None:
        return undecided(why or "")
    return found({"text": f"{n} {u.conventions.target_label}"}, conf)


async def count_choice(ctx: ToolContext, u: Understanding) -> Evidence:
    conv = u.conventions
    index = (conv.uav_index - 1) if conv.uav_index and conv.uav_index <= len(ctx.images) else 0
    n, why, conf = await _person_count(ctx, index, conv.target_label)
    if n is None:
        return undecided(why or "")
    hits = [k for k, text in conv.options.items() if word_number(text) == n]
    if len(hits) != 1:
        return undecided(f"counted {n}, which matches {len(hits)} of the options")
    return found({"letter": hits[0]}, conf)


async def grounding(ctx: ToolContext, u: Understanding) -> Evidence:
    label = u.conventions.target_label
    if not is_person_label(label):
        return undecided(f"locating '{label}' needs a detector for that class; the configured one only knows persons")
    r = await ctx.call("detect", image=ctx.images[0], labels=["person"])
    dets = r.get("detections", [])
    if len(dets) != 1:
        return undecided(f"{len(dets)} persons detected; the question asks for one")
    box = [float(v) for v in dets[0]["bbox"]]
    norm = u.conventions.normalized_boxes
    if norm:
        size = image_size(ctx, 0)
        if size is None:
            return undecided("normalised box asked but the image size is unknown")
        box = [box[0] / size[0], box[1] / size[1], box[2] / size[0], box[3] / size[1]]
    return found({"x1": box[0], "y1": box[1], "x2": box[2], "y2": box[3], "normalized": norm},
                 float(dets[0].get("score", 0.5)))


async def camera_info(ctx: ToolContext, u: Understanding) -> Evidence:
    """The camera facts the question asks for (the program operation's answer, ``planners.execute_camera``)."""
    from planners.execute_camera import facts_asked_in

    return await facts_asked_in(ctx, (u.program or {}).get("question") or "")


async def semantic(ctx: ToolContext, u: Understanding) -> Evidence:
    """Semantic questions: answered by the configured LLM/VLM, otherwise an explicit abstention."""
    if ctx.llm is None:
        spec_reason = {"semantic_regions": "which regions contain what", "semantic_crossview": "aerial-ground "
                       "cross-view understanding", "semantic_tools": "grounding objects named by description"}
        what = spec_reason.get(u.plan or "", "understanding image content")
        return undecided(f"this question needs semantics ({what}) and no LLM/VLM is configured "
                         "(set --llm-base-url and --llm-model)")
    from planners import llm

    return await llm.answer_semantic(ctx, u)


PLANS: dict[str, Plan] = {p.name: p for p in (
    Plan("clock", ("read_regions", "clock_direction"), (clock_strategy,)),
    Plan("rank", ("read_regions", "rank_by_distance | clock_direction per region"), (rank_strategy,)),
    Plan("pose", ("relative_pose", "pose_from_metadata (fallback)"), (pose_images, pose_metadata)),
    Plan("associate_pairs", ("associate_regions",), (associate_pairs,)),
    Plan("occlusion", ("region_visibility",), (occlusion,)),
    Plan("match_object", ("read_regions(image 1)", "transfer_box | associate_regions"), (match_object,)),
    Plan("rank_views", ("rank_candidate_views",), (rank_views,)),
    Plan("ego_motion", ("ego_motion",), (ego_motion,)),
    Plan("quality", ("image_quality",), (quality,)),
    Plan("count", ("detect",), (count,)),
    Plan("count_choice", ("detect",), (count_choice,)),
    Plan("grounding", ("detect",), (grounding,)),
    Plan("camera_info", ("camera_metadata",), (camera_info,)),
    *(Plan(n, ("llm",), (semantic,)) for n in ("semantic_regions", "semantic_text", "semantic_choice",
                                              "semantic_crossview", "semantic_tools")),
)}
