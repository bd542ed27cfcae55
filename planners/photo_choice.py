"""Which of the photos has the most (least) of a per-photo quantity: "which photo was taken from higher up?",
"which image has the finer ground resolution?", "which shot covers more ground?", "which one is blurrier?",
"which photo faces north?".

The parser (:func:`read_photo_choice`) reads the quantity and whether the largest or the smallest value is wanted
into a program of form ``choice`` with ``expect`` ``max`` or ``min`` (for image quality ``max:<indicator>`` or
``min:<indicator>``, for a facing the 8-point direction named); :func:`photo_choice` measures the quantity of every
photo with its own operation's tool (``photo_geometry``: altitude, GSD, footprint, heading; ``image_quality``: its
raw indicators, e.g. the blur effect or the mean luminance) and answers with the photo that has it. A finer
resolution is a smaller GSD; a facing is the heading nearest the named direction. When the two best values lie
within :data:`TIES` of each other the answer is given with low confidence: the photos are about the same.
"""

from __future__ import annotations

import re

from planners.comparison import COMPASS_POINTS, SECTOR_HALF_DEG, named_points
from planners.evidence import Evidence, found, undecided
from planners.program import Ask, Program
from planners.toolbox import ToolContext

LOW_CONFIDENCE = 0.5
#: Absolute (altitude, metres) or relative (GSD, footprint area) difference under which two photos tie.
TIES = {Ask.ALTITUDE: ("abs", 2.0), Ask.GSD: ("share", 0.05), Ask.FOOTPRINT: ("share", 0.05),
        Ask.QUALITY: ("share", 0.05), Ask.COMPASS: ("abs", 10.0), Ask.INTERVAL: ("abs", 1.0)}

_WHICH_PHOTO = re.compile(r"\b(which|what)\b( of)?( the| these| both| all)?( \w+)?( two| three| four)? ?"
                          r"(photos?|images?|pictures?|shots?|frames?|views?|ones?|exposures?)\b|"
                          r"\b(photo|image|picture|shot|frame) ([1-9]|a|one) or (the )?(photo |image |picture |shot "
                          r"|frame )?([1-9]|b|two)\b")
# (ask, expect, pattern): how each per-photo quantity is asked for at its largest or smallest
_QUANTITIES: tuple[tuple[Ask, str, str], ...] = (
    (Ask.GSD, "min", r"\b(finer|finest|sharper|sharpest|better|best|higher|highest|more) (ground |spatial |pixel )?"
                     r"(resolution|detail|gsd)\b|\b(smaller|smallest|lower|lowest) (gsd|ground sampling|pixel size)"),
    (Ask.GSD, "max", r"\b(coarser|coarsest|worse|worst|lower|lowest|less) (ground |spatial |pixel )?(resolution|detail)"
                     r"\b|\b(larger|largest|bigger|biggest|higher|highest) (gsd|ground sampling|pixel size)"),
    (Ask.FOOTPRINT, "max", r"\b(more|most|larger|largest|bigger|biggest|wider|widest) (ground|area|land|terrain|"
                           r"footprint|coverage)\b|\bcovers? (the )?(more|most)\b"),
    (Ask.FOOTPRINT, "min", r"\b(less|least|smaller|smallest|narrower|narrowest) (ground|area|land|terrain|footprint|"
                           r"coverage)\b|\bcovers? (the )?(less|least)\b"),
    (Ask.INTERVAL, "min", r"\b(taken|shot|captured|recorded|snapped) (first|earl(y|ier|iest))\b|\b(first|earl(ier|iest)) "
                          r"(taken|shot|captured|recorded|snapped)\b|\bcame first\b|\b(older|oldest)\b"),
    (Ask.INTERVAL, "max", r"\b(taken|shot|captured|recorded|snapped) (last|later|latest|most recently)\b|\b(last|later|latest)"
                          r" (taken|shot|captured|recorded|snapped)\b|\b(newer|newest|more recent|most recent)\b"),
    (Ask.QUALITY, "max:blur", r"\b(blurr(ier|iest)|more blurr(ed|y)|most blurr(ed|y)|less sharp|softer|softest|"
                              r"(more|most) out of focus)\b"),
    (Ask.QUALITY, "min:blur", r"\b(sharper|sharpest|crisper|crispest|(more|most|better) in focus|clearer|clearest)\b"),
    (Ask.QUALITY, "min:low_light", r"\b(darker|darkest|dimmer|dimmest|(more|most) underexposed)\b"),
    (Ask.QUALITY, "max:low_light", r"\b(brighter|brightest)\b"),
    (Ask.QUALITY, "max:noise", r"\b(noisier|noisiest|grainier|grainiest|(more|most) (noise|noisy|grain|grainy))\b"),
    (Ask.QUALITY, "max:fog", r"\b(hazier|haziest|foggier|foggiest|(more|most) (haze|hazy|fog|foggy|mist|misty))\b"),
    (Ask.QUALITY, "max:overexposure", r"\b(more|most) (overexposed|blown out)\b"),
    (Ask.ALTITUDE, "max", r"\b(higher|highest|greater|greatest|more|most)\b( up)?( (altitude|height|elevation))?\b|"
                          r"\b(altitude|height)\b.*\b(larger|largest|greater|greatest|higher|highest)\b"),
    (Ask.ALTITUDE, "min", r"\b(lower|lowest|less|least|closer to the ground|nearer the ground)\b( down)?"
                          r"( (altitude|height|elevation))?\b"),
)
_ALTITUDE_WORDS = r"\b(altitude|height|elevation|high|higher|highest|low|lower|lowest|up|above)\b"


_OVERLAP = re.compile(r"\bsame\b|in common|overlap|\bshar(e|es|ed|ing)\b|\b(with|as) (the )?(first|reference|image 1|photo 1|picture 1)\b")


def read_photo_choice(text: str, n_images: int) -> tuple[Ask, str] | None:
    """(asked quantity, ``max`` or ``min``) of a normalised question that asks which photo has the most (least) of a
    per-photo quantity, or None. Covering the most of the same ground as the first photo is overlap, not this."""
    if n_images < 2 or not _WHICH_PHOTO.search(text) or _OVERLAP.search(text):
        return None
    for ask, expect, pattern in _QUANTITIES:
        if re.search(pattern, text) and (ask != Ask.ALTITUDE or re.search(_ALTITUDE_WORDS, text)):
            return ask, expect
    points = named_points(text)
    if len(points) == 1 and re.search(r"\b(fac(e|es|ed|ing)|point(s|ed|ing)?|look(s|ed|ing)?|oriented|heading|aimed)\b",
                                      text):
        return Ask.COMPASS, points[0]
    return None


#: The asks a photo choice compares (one value per photo).
PER_PHOTO = frozenset(TIES)
_KEYS = {Ask.ALTITUDE: "altitude_m", Ask.GSD: "gsd_m_per_px", Ask.FOOTPRINT: "footprint_m", Ask.COMPASS: "heading_deg"}
_NAMES = {Ask.ALTITUDE: "height", Ask.GSD: "ground sampling distance", Ask.FOOTPRINT: "ground footprint (area)",
          Ask.COMPASS: "camera heading", Ask.INTERVAL: "capture time (seconds since 1970)"}


async def _measured(ctx: ToolContext, p: Program, i: int) -> tuple[float | None, str]:
    """The compared value of image ``i`` (a heading: its angle off the named direction), or None and why not."""
    from planners.execute import geometry  # here: the parser reads this module and should not load the executor

    if p.ask == Ask.INTERVAL:
        from planners.execute import capture_time

        return await capture_time(ctx, ctx.images[i]), "no capture time (DateTimeOriginal) recorded"
    if p.ask == Ask.QUALITY:
        indicator = (p.expect or "").partition(":")[2]
        r = await ctx.call("image_quality", image=ctx.images[i])
        value = (r.get("indicators") or {}).get(indicator)
        return (None if value is None else float(value)), f"no {indicator} indicator"
    g = await geometry(ctx, p, i)
    value = g.get(_KEYS[p.ask])
    why = (g.get("missing") or {}).get(_KEYS[p.ask]) or "not in the file's metadata"
    if value is None:
        return None, why
    if p.ask == Ask.FOOTPRINT:
        return float(value[0]) * float(value[1]), why
    if p.ask == Ask.COMPASS:
        return abs((float(value) - 45.0 * COMPASS_POINTS.index(p.expect) + 180.0) % 360.0 - 180.0), why
    return float(value), why


async def photo_choice(ctx: ToolContext, p: Program) -> Evidence:
    """The 1-based photo with the largest (``expect`` max...) or smallest (min...) value of the program's quantity;
    for a facing, the photo whose heading lies nearest the named direction."""
    from planners.execute import METADATA_CONFIDENCE

    if p.ask == Ask.COMPASS and p.expect not in COMPASS_POINTS:
        return undecided(f"the direction asked about, {p.expect!r}, is no 8-point compass direction")
    name = _NAMES.get(p.ask) or f"{(p.expect or '').partition(':')[2]} indicator (image_quality)"
    values = []
    for i in range(len(ctx.images)):
        v, why = await _measured(ctx, p, i)
        if v is None:
            return undecided(f"comparing the photos' {name} needs it for every photo; image {i + 1}: {why}")
        values.append(v)
    smallest = (p.expect or "").startswith("min") or p.ask == Ask.COMPASS  # a facing: the least angle off
    order = sorted(range(len(values)), key=lambda i: values[i], reverse=not smallest)
    best, runner_up = values[order[0]], values[order[1]]
    kind, tie = TIES[p.ask]
    gap = abs(best - runner_up) if kind == "abs" else abs(best - runner_up) / max(abs(best), abs(runner_up), 1e-12)
    listed = ", ".join(f"image {i + 1}: {v:.3g}" for i, v in enumerate(values))
    note = f"{name} per photo ({listed}" + (f" degrees off {p.expect})" if p.ask == Ask.COMPASS else ")")
    if p.ask == Ask.COMPASS and best > SECTOR_HALF_DEG:
        return found({"image": order[0] + 1}, LOW_CONFIDENCE, note + f"; none faces {p.expect}: this one is nearest")
    if gap < tie:
        return found({"image": order[0] + 1}, LOW_CONFIDENCE, note + "; the photos are about the same")
    return found({"image": order[0] + 1}, METADATA_CONFIDENCE, note)
