"""The executor of question programs: one operation per asked quantity, each a short sequence of MCP tool calls
that composes the typed answer (``agent.answers`` / ``agent.answers_measure``).

Operations read the :class:`~planners.program.Program` the parser (or the LLM) wrote and return plan evidence
(``planners.plans.found`` / ``undecided``): a value for the answer format, a confidence and a reason. They never
answer a different question: when the value asked for cannot be measured, the evidence says which value is
missing and where it was looked for.
"""

from __future__ import annotations

import math
import re
from datetime import datetime, timezone
from typing import Awaitable, Callable

from planners.comparison import SPEEDS, judge_point
from planners.object_classes import detector_labels
from planners.plans import Evidence, count_confidence, found, read_regions, undecided, unlabeled_boxes
from planners.program import Ask, Program
from planners.toolbox import ToolCallError, ToolContext

Operation = Callable[[ToolContext, Program], Awaitable[Evidence]]
TURN_THRESHOLD_DEG = 12.0  # a heading change at least this large counts as "turned" (hand-held yaw noise ~ 2-5 deg)
CLIMB_THRESHOLD_M = 2.0  # a height change at least this large counts as a climb or descent (GPS/baro noise ~1 m)
MIN_SPEED_INTERVAL_S = 5.0  # capture times are whole seconds: a shorter interval leaves the speed ±20 % or worse
TURNING_MOTION_DEG = 45.0  # total yaw over a sequence from which the motion is described as turning
METADATA_CONFIDENCE = 0.9  # values read from the file's own tags
QUALITY_GROUPS = {"exposure": ["low_light", "overexposure"]}  # a question about exposure asks about either
QUALITY_NAMES = {"blur": "blur (out of focus)", "noise": "noise (grainy)", "low_light": "too dark (underexposed)",
                 "overexposure": "overexposed (too bright)", "fog": "haze (fog)", "occlusion": "occlusion"}


async def geometry(ctx: ToolContext, p: Program, index: int = 0) -> dict:
    """``photo_geometry`` of image ``index`` with the values the question states."""
    c = p.conventions
    return await ctx.call("photo_geometry", image=ctx.images[index], altitude_m=c.altitude_m, pitch_deg=c.pitch_deg,
                          focal_mm=c.focal_mm, sensor_width_mm=c.sensor_width_mm, focal_px=c.focal_px,
                          ground_width_m=c.ground_width_m, ground_elevation_m=c.ground_elevation_m)


def _missing(g: dict, key: str, what: str) -> Evidence:
    why = (g.get("missing") or {}).get(key) or "not in the file's metadata and not stated in the question"
    return undecided(f"the {what} is not available: {why}")


def _source(g: dict, key: str) -> str | None:
    src = g.get(f"{key}_source")
    return f"{key.removesuffix('_deg').removesuffix('_m')} from {src}" if src else None


# --- one photo --------------------------------------------------------------------------------------------------
async def altitude(ctx: ToolContext, p: Program) -> Evidence:
    if sum(r.kind == "capture_point" for r in p.operands) >= 2 and len(ctx.images) >= 2:
        return await altitude_change(ctx, p)
    if p.expect == "sea_level":
        meta = (await ctx.call("camera_metadata", image=ctx.images[0])).get("metadata") or {}
        if meta.get("abs_altitude_m") is None:
            return undecided("the height above sea level needs the photo's GPS altitude tag, which is not recorded")
        source = (meta.get("sources") or {}).get("abs_altitude_m", "GPS altitude tag")
        return found({"metres": float(meta["abs_altitude_m"]), "unit": p.conventions.unit or "m"}, METADATA_CONFIDENCE,
                     f"{source} (the receiver's altitude: above mean sea level, or the ellipsoid on some cameras)")
    g = await geometry(ctx, p)
    if g.get("altitude_m") is None:
        return _missing(g, "altitude_m", "height above ground")
    return found({"metres": float(g["altitude_m"]), "unit": p.conventions.unit or "m"}, METADATA_CONFIDENCE,
                 _source(g, "altitude"))


async def altitude_change(ctx: ToolContext, p: Program) -> Evidence:
    """Image 2's capture height minus image 1's, from the two files' altitude tags (relative ones, else sea-level
    ones: their difference needs no ground elevation); a yes/no asks whether the drone climbed (descended) by more
    than :data:`CLIMB_THRESHOLD_M`."""
    try:
        r = await ctx.call("pose_from_metadata", image_a=ctx.images[0], image_b=ctx.images[1])
    except ToolCallError as exc:
        return undecided(f"the height change needs the photos' altitude tags, which could not be read: {exc}")
    source = (r.get("sources") or {}).get("vertical")
    if source is None or not r.get("translation_m"):
        return undecided("the height change needs an altitude tag in both photos (relative or GPS altitude); "
                         f"{r.get('reason') or 'at least one has none'}")
    up = float(r["translation_m"][2])
    note = f"image 2's altitude minus image 1's, from their {source}"
    if p.form == "label":
        word = "climbed" if up >= CLIMB_THRESHOLD_M else "descended" if up <= -CLIMB_THRESHOLD_M else "stayed level"
        return found({"text": f"{word} ({up:+.1f} m)"}, METADATA_CONFIDENCE, note)
    if p.form == "yes_no":
        moved = up >= CLIMB_THRESHOLD_M if p.expect != "down" else up <= -CLIMB_THRESHOLD_M
        margin = abs(abs(up) - CLIMB_THRESHOLD_M)
        return found({"value": moved}, METADATA_CONFIDENCE if margin > 1.0 else 0.5,
                     f"{note}: {up:+.1f} m; a climb or descent means at least {CLIMB_THRESHOLD_M:.0f} m")
    return found({"metres": up, "unit": p.conventions.unit or "m"}, METADATA_CONFIDENCE, note + " (negative: lower)")


async def gsd(ctx: ToolContext, p: Program) -> Evidence:
    g = await geometry(ctx, p)
    if g.get("gsd_m_per_px") is None:
        return _missing(g, "gsd_m_per_px", "ground sampling distance")
    unit = p.conventions.unit if p.conventions.unit in ("cm", "mm", "m", "in") else "cm"
    return found({"m_per_px": float(g["gsd_m_per_px"]), "unit": unit}, METADATA_CONFIDENCE,
                 "; ".join(filter(None, [_source(g, "altitude"), _source(g, "focal")])))


async def footprint(ctx: ToolContext, p: Program) -> Evidence:
    g = await geometry(ctx, p)
    if not g.get("footprint_m"):
        return _missing(g, "footprint_m", "ground footprint")
    w, h = (float(v) for v in g["footprint_m"])
    return found({"width_m": w, "height_m": h, "unit": p.conventions.unit or "m"}, METADATA_CONFIDENCE,
                 "; ".join(filter(None, [_source(g, "altitude"), _source(g, "focal")])))


async def compass_heading(ctx: ToolContext, p: Program) -> Evidence:
    g = await geometry(ctx, p)
    if g.get("heading_deg") is None:
        return _missing(g, "heading_deg", "camera heading (compass direction of the image top)")
    return found({"bearing_deg": float(g["heading_deg"])}, METADATA_CONFIDENCE, _source(g, "heading"))


async def tilt(ctx: ToolContext, p: Program) -> Evidence:
    g = await geometry(ctx, p)
    view = g.get("view")
    if view not in ("nadir", "oblique"):
        return _missing(g, "view", "camera tilt")
    pitch = g.get("pitch_deg")
    note = _source(g, "pitch")
    # an estimated view carries its measured accuracy; a tagged, given or seen (sky) one the metadata's confidence
    conf = float(g["view_confidence"]) if g.get("view_confidence") is not None else METADATA_CONFIDENCE
    if p.form == "yes_no":
        return found({"value": view == (p.expect or "nadir")}, conf, note)
    if p.form == "value":
        return _tilt_angle(g, p.expect or "pitch", conf, note)
    angle = f", pitch {float(pitch):.0f} degrees" if pitch is not None else ""
    text = f"nadir (straight down{angle})" if view == "nadir" else f"oblique (tilted{angle})"
    return found({"text": text}, conf, note)


#: Words that name the drawn marks themselves: "how many regions are marked?" counts the overlay, not objects.
DRAWN_MARKS = re.compile(r"(bounding )?(regions?|box(es)?|bbox(es)?|marks?|markers?|labels?|tags?|rectangles?|"
                         r"annotations?|outlines?|polygons?|masks?|rois?|zones?)\b")


def _tilt_angle(g: dict, asked: str, conf: float, note: str | None) -> Evidence:
    """The camera angle asked for, written first: the pitch (-90 = straight down), the angle off nadir (0 = straight
    down) or the depression below the horizon (90 = straight down)."""
    if g.get("pitch_deg") is None:
        return _missing(g, "pitch_deg", "camera pitch")
    pitch = float(g["pitch_deg"])
    off_nadir, depression = abs(90.0 + pitch), -pitch
    text = {"off_nadir": f"{off_nadir:.0f} degrees from straight down (pitch {pitch:.0f} degrees)",
            "depression": f"{depression:.0f} degrees below the horizon (pitch {pitch:.0f} degrees)"}.get(
        asked, f"pitch {pitch:.0f} degrees ({off_nadir:.0f} degrees from straight down)")
    return found({"text": text}, conf, note)


async def count(ctx: ToolContext, p: Program) -> Evidence:
    label = (p.objects() or ["object"])[0]
    if DRAWN_MARKS.match(label) and not p.regions():  # "regions", "boxes drawn"
        return await count_drawn(ctx, label)
    boxes = None  # the regions counted in (None: the whole frame), read first: a missing one needs no detector run
    if p.regions():
        regions, _, _ = await read_regions(ctx, 0, p.regions())
        if missing := [i for i in p.regions() if i not in regions]:
            return undecided(f"counting '{label}' inside region(s) {missing}: the region could not be read in the image")
        boxes = [regions[i]["bbox"] for i in p.regions()]
    try:
        r = await ctx.call("detect", image=ctx.images[0])
    except ToolCallError as exc:
        return undecided(f"counting '{label}' needs the object detector, which failed: {exc}")
    known = [str(k) for k in r.get("known_labels", ["person"])]
    wanted = detector_labels(label)
    if not set(wanted) <= set(known):
        return undecided(f"counting '{label}' needs a detector trained for it; the detector for this image "
                         f"({r.get('model') or 'configured'}) only knows {', '.join(known)} (configure other "
                         "detector weights to count other classes)")
    if not r.get("count_reliable", True):
        return undecided(f"the {label} count is not reliable on this image: {r.get('reason')}")
    conf, measured = count_confidence(r.get("count_accuracy") or {}, wanted)
    if boxes is None:
        counts = r.get("counts") or {}
        n, where = sum(int(counts.get(k, 0)) for k in wanted), ""
    else:
        n = sum(d["label"] in wanted and any(_centre_inside(d["bbox"], b) for b in boxes)
                for d in r.get("detections") or [])
        where = f" with their centre inside region(s) {', '.join(map(str, p.regions()))}"
    return found({"n": n, "label": label}, conf, f"{' + '.join(wanted)} found by the {r.get('model') or ''} detector "
                 f"(it knows {', '.join(known)}){where}{measured}; small or occluded objects may be missed")


async def count_drawn(ctx: ToolContext, label: str) -> Evidence:
    """The number of drawn regions (boxes with their ids, and boxes whose label could not be read)."""
    regions, _, unread = await read_regions(ctx, 0)
    boxes = unlabeled_boxes(unread)
    note = f"{len(regions)} drawn region(s) with ids read" + (
        f" and {len(boxes)} drawn box(es) whose label could not be read" if boxes else "")
    return found({"n": len(regions) + len(boxes), "label": label}, 0.7 if boxes else 0.8, note + " (read_regions)")


def _centre_inside(box: list[float], region: list[float]) -> bool:
    """Whether the centre of ``box`` lies inside ``region`` (both x0, y0, x1, y1 pixels)."""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return region[0] <= cx <= region[2] and region[1] <= cy <= region[3]


async def quality(ctx: ToolContext, p: Program) -> Evidence:
    r = await ctx.call("image_quality", image=ctx.images[0])
    labels = [str(x) for x in r.get("labels", [])]
    conf = 0.8
    if p.form == "yes_no":
        expect = p.expect or "any"
        negative = expect.startswith("no_")
        asked = expect.removeprefix("no_")
        present = bool(set(labels) & set(QUALITY_GROUPS.get(asked, [asked]))) if asked != "any" else bool(labels)
        return found({"value": present != negative}, conf, f"problems found: {', '.join(labels) or 'none'}")
    text = ", ".join(QUALITY_NAMES.get(x, x) for x in labels) or "no quality problem found (clean image)"
    return found({"text": text}, conf)


# --- two photos -------------------------------------------------------------------------------------------------
async def _pose(ctx: ToolContext, prefer: str, needs: str | None = None) -> tuple[dict | None, list[str]]:
    """The first confident pose of image 2 from image 1 that holds the value ``needs`` (a result field): from
    metadata (GPS, heading tags) or from pixels, in the ``prefer``red order."""
    order = ("pose_from_metadata", "relative_pose") if prefer == "metadata" else ("relative_pose", "pose_from_metadata")
    reasons = []
    for tool in order:
        args = {"image_a": ctx.images[0], "image_b": ctx.images[1]}
        if tool == "relative_pose":
            args["use_metadata"] = True
        try:
            r = await ctx.call(tool, **args)
        except ToolCallError as exc:
            reasons.append(f"{tool}: {exc}")
            continue
        if r.get("confident") and (needs is None or r.get(needs) is not None):
            r["method_tool"] = tool
            return r, reasons
        reasons.append(f"{tool}: {r.get('reason') or f'no {needs}'}")
    return None, reasons


async def capture_distance(ctx: ToolContext, p: Program) -> Evidence:
    r, reasons = await _pose(ctx, "metadata", "horizontal_m")
    if r is not None and r.get("scale_known", True):
        return found({"metres": float(r["horizontal_m"]), "unit": p.conventions.unit or "m"}, 0.85,
                     f"horizontal distance between the capture points ({r['method_tool']})")
    return undecided("the distance between the capture points needs GPS positions or a metric scale: "
                     + "; ".join(reasons))


async def speed(ctx: ToolContext, p: Program) -> Evidence:
    """Ground speed from photo 1 to photo 2: the distance between their capture points over the time between their
    capture times (camera clocks, whole seconds: a short interval is a low-confidence answer)."""
    if len(ctx.images) < 2:
        return undecided("a speed needs two photos of one flight (their positions and capture times)")
    dist = await capture_distance(ctx, p)
    if dist["value"] is None:
        return undecided(f"the speed needs the distance between the photos: {dist['reason']}")
    times = [await capture_time(ctx, image) for image in ctx.images[:2]]
    if None in times:
        return undecided("the speed needs both photos' capture times (DateTimeOriginal), which are not recorded")
    seconds = abs(times[1] - times[0])
    if seconds == 0:
        return undecided("both photos carry the same capture second: the time between them is unknown")
    v = float(dist["value"]["metres"]) / seconds
    unit = p.compare.unit if p.compare is not None and p.compare.unit in SPEEDS else _speed_unit(p.question)
    text = f"{v / SPEEDS[unit]:.1f} {unit}" + ("" if unit == "m/s" else f" ({v:.1f} m/s)")
    evidence = found({"text": text}, 0.8 if seconds >= MIN_SPEED_INTERVAL_S else 0.5,
                     f"{float(dist['value']['metres']):.1f} m in {seconds:.0f} s ({dist['reason']}; capture times)")
    evidence["measured"] = (v, "m/s")
    return evidence


async def capture_time(ctx: ToolContext, image: str) -> float | None:
    """Capture time of one photo (seconds since 1970, camera clock), None where none is recorded."""
    meta = (await ctx.call("camera_metadata", image=image)).get("metadata") or {}
    return capture_time_s(str(meta.get("datetime") or ""))


async def interval(ctx: ToolContext, p: Program) -> Evidence:
    """Seconds between photo 1's and photo 2's capture stamps (whole seconds on most cameras)."""
    if len(ctx.images) < 2:
        return undecided("a time between photos needs two photos")
    times = [await capture_time(ctx, image) for image in ctx.images[:2]]
    if None in times:
        return undecided("the photos' capture times (DateTimeOriginal) are not both recorded")
    seconds = times[1] - times[0]
    text = f"{abs(seconds):.0f} seconds" + (" (photo 2 was taken first)" if seconds < 0 else "")
    return found({"text": text}, METADATA_CONFIDENCE, "from the capture time stamps (camera clocks)")


def capture_time_s(stamp: str) -> float | None:
    """Seconds since 1970 of an EXIF or ISO time stamp ("2016:06:23 16:31:59", "2016-06-23T16:31:59.5"), or None."""
    m = re.match(r"(\d{4})[:-](\d\d)[:-](\d\d)[ T](\d\d):(\d\d):(\d\d(?:\.\d+)?)", stamp.strip())
    if not m:
        return None
    y, mo, d, h, mi = (int(g) for g in m.groups()[:5])
    return (datetime(y, mo, d, h, mi, tzinfo=timezone.utc) - datetime(1970, 1, 1, tzinfo=timezone.utc)
            ).total_seconds() + float(m.group(6))


def _speed_unit(question: str) -> str:
    t = question.lower()
    for unit, rx in (("km/h", r"km/h|kilometres? per hour|kilometers? per hour|kph"), ("mph", r"mph|miles per hour"),
                     ("kn", r"\bknots?\b")):
        if re.search(rx, t):
            return unit
    return "m/s"


async def capture_clock(ctx: ToolContext, p: Program) -> Evidence:
    # relative_pose first: it fuses GPS, yaw tags and pixels and checks the tags against the pixels (a rotated or
    # edited copy keeps tags that no longer describe its frame); the metadata pose alone is the fallback
    r, reasons = await _pose(ctx, "pixels", "clock")
    if r is None:
        return undecided("where image 2 was taken could not be placed: " + "; ".join(reasons))
    return found({"hour": int(r["clock"])}, 0.8, f"clock 12 = image 1's top ({r['method_tool']})")


async def capture_compass(ctx: ToolContext, p: Program) -> Evidence:
    r, reasons = await _pose(ctx, "metadata", "compass_bearing_deg")
    bearing = r.get("compass_bearing_deg") if r else None
    if bearing is None:
        return undecided("the compass direction between the capture points needs GPS positions: "
                         + "; ".join(reasons))
    return found({"bearing_deg": float(bearing)}, 0.85, "bearing from image 1's position to image 2's (GPS)")


async def _heading_change(ctx: ToolContext, p: Program) -> tuple[float | None, str]:
    """Image 2's heading minus image 1's, clockwise, in (-180, 180]: from the pixels, else from a pose read from
    the metadata, else from each photo's own heading tag."""
    r, reasons = await _pose(ctx, "pixels", "heading_signed_deg")
    if r is not None:
        return float(r["heading_signed_deg"]), r["method_tool"]
    headings = []
    for i in (0, 1):
        g = await geometry(ctx, p, i)
        if g.get("heading_deg") is None:
            reasons.append(f"image {i + 1}: {(g.get('missing') or {}).get('heading_deg', 'no heading tag')}")
            return None, "; ".join(reasons)
        headings.append(float(g["heading_deg"]))
    diff = (headings[1] - headings[0] + 180.0) % 360.0 - 180.0
    return (180.0 if diff == -180.0 else diff), "each photo's heading tag (photo_geometry)"


async def heading_change(ctx: ToolContext, p: Program) -> Evidence:
    deg, how = await _heading_change(ctx, p)
    if deg is None:
        return undecided(f"the heading change could not be measured: {how}")
    if not p.conventions.clockwise:
        deg = -deg
    return found({"degrees": deg, "signed": p.conventions.signed}, 0.85,
                 f"clockwise positive ({how})" if p.conventions.clockwise else f"counter-clockwise positive ({how})")


async def turned(ctx: ToolContext, p: Program) -> Evidence:
    deg, how = await _heading_change(ctx, p)
    if deg is None:
        return undecided(f"the heading change could not be measured: {how}")
    changed = abs(deg) >= TURN_THRESHOLD_DEG
    answer = not changed if p.expect == "same" else changed
    margin = abs(abs(deg) - TURN_THRESHOLD_DEG)
    return found({"value": answer}, 0.9 if margin > 4 else 0.5,
                 f"heading changed by {deg:+.1f} degrees ({how}); turned means at least {TURN_THRESHOLD_DEG:.0f}")


async def overlap(ctx: ToolContext, p: Program) -> Evidence:
    if len(ctx.images) == 2 and p.form in ("yes_no", "value"):
        return await pair_overlap(ctx, p)
    if len(ctx.images) < 3:
        return undecided("an overlap choice needs a reference image and at least two candidates")
    r = await ctx.call("rank_candidate_views", image=ctx.images[0], candidates=ctx.images[1:])
    ranking = r.get("ranking") or []
    if not ranking or not r.get("confident", False):
        return undecided(f"no candidate was matched to image 1 with confidence: {r.get('reason')}")
    best = ranking[0]
    return found({"image": int(best["index"]) + 2}, float(best.get("confidence", 0.7)),
                 f"overlap {float(best.get('overlap', 0.0)):.2f} of image 1")


async def pair_overlap(ctx: ToolContext, p: Program) -> Evidence:
    """Whether photo 2 shows photo 1's ground (yes/no), or the share of photo 1's frame that photo 2 shows (the
    matched homography's overlap). Unmatched views are answered no with low confidence: matching can fail on views
    that do overlap (very oblique, another season)."""
    r = await ctx.call("rank_candidate_views", image=ctx.images[0], candidates=[ctx.images[1]])
    best = (r.get("ranking") or [{}])[0]
    share = float(best.get("overlap") or 0.0)
    if not r.get("confident", False) or share <= 0.0:
        why = f"the two photos could not be matched ({r.get('reason')})"
        return found({"value": False}, 0.5, why) if p.form == "yes_no" else undecided(why)
    note = f"{share:.0%} of photo 1's frame is seen in photo 2 ({int(best.get('n_inliers') or 0)} matched points)"
    if p.form == "yes_no":
        return found({"value": True}, float(best.get("confidence", 0.8)), note)
    return found({"text": f"about {share:.0%} of photo 1 is seen in photo 2"}, float(best.get("confidence", 0.8)), note)


def motion_label(forward: float, lateral: float, yaw_deg: float) -> str:
    """forward / backward / left / right (relative to image up) or turning, from a sequence's total motion."""
    if abs(yaw_deg) >= TURNING_MOTION_DEG:
        return f"turning ({'right, clockwise' if yaw_deg > 0 else 'left, counter-clockwise'})"
    angle = math.degrees(math.atan2(lateral, forward))
    if abs(angle) <= 45:
        return "forward (towards the top of the image)"
    if abs(angle) >= 135:
        return "backward (towards the bottom of the image)"
    return "sideways to the right" if angle > 0 else "sideways to the left"


async def motion(ctx: ToolContext, p: Program) -> Evidence:
    if p.expect == "compass":
        r = await ctx.call("pose_from_metadata", image_a=ctx.images[0], image_b=ctx.images[-1])
        if r.get("confident") and r.get("compass_bearing_deg") is not None:
            return found({"bearing_deg": float(r["compass_bearing_deg"])}, 0.85,
                         "track from the first capture point to the last (GPS)")
        return undecided(f"the compass direction of travel needs GPS positions: {r.get('reason')}")
    r = await ctx.call("ego_motion", images=list(ctx.images))
    t = r.get("total") or {}
    if not r.get("confident", False) or t.get("forward") is None:
        return undecided(f"the motion could not be measured: {r.get('reason')}")
    return found({"text": motion_label(float(t["forward"]), float(t.get("lateral") or 0.0),
                                       float(t.get("yaw_deg") or 0.0))}, 0.75, r.get("description"))


async def compass(ctx: ToolContext, p: Program) -> Evidence:
    """The compass heading of one photo, or the compass direction of image 2's position from image 1's; for a
    yes/no question ("was it facing north-east?"), whether that direction is the one named (``expect``)."""
    evidence = await (capture_compass if len(ctx.images) >= 2 else compass_heading)(ctx, p)
    return judge_point(p.expect, evidence) if p.form == "yes_no" and p.expect else evidence


#: The operation of each ask; ``planners.execute_regions`` adds the region operations (clock, order, distance,
#: transfer), which build on these.
OPERATIONS: dict[Ask, Operation] = {
    Ask.ALTITUDE: altitude, Ask.GSD: gsd, Ask.FOOTPRINT: footprint, Ask.TILT: tilt, Ask.COUNT: count,
    Ask.QUALITY: quality, Ask.TURNED: turned, Ask.HEADING_CHANGE: heading_change, Ask.OVERLAP: overlap,
    Ask.MOTION: motion, Ask.COMPASS: compass, Ask.SPEED: speed, Ask.INTERVAL: interval,
}
