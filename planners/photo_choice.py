"""Which of the photos has the most (least) of a per-photo quantity: "which photo was taken from higher up?",
"which image has the finer ground resolution?", "which shot covers more ground?".

The parser (:func:`read_photo_choice`) reads the quantity (altitude, GSD, footprint) and whether the largest or
the smallest value is wanted into a program of form ``choice`` with ``expect`` ``max`` or ``min``;
:func:`photo_choice` measures the quantity of every photo with its own operation's tool (``photo_geometry``) and
answers with the photo that has it. A finer resolution is a smaller GSD. When the two best values lie within
:data:`TIES` of each other the answer is given with low confidence: the photos are about the same.
"""

from __future__ import annotations

import re

from planners.evidence import Evidence, found, undecided
from planners.program import Ask, Program
from planners.toolbox import ToolContext

LOW_CONFIDENCE = 0.5
#: Absolute (altitude, metres) or relative (GSD, footprint area) difference under which two photos tie.
TIES = {Ask.ALTITUDE: ("m", 2.0), Ask.GSD: ("share", 0.05), Ask.FOOTPRINT: ("share", 0.05)}

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
    (Ask.ALTITUDE, "max", r"\b(higher|highest|greater|greatest|more|most)\b( up)?( (altitude|height|elevation))?\b|"
                          r"\b(altitude|height)\b.*\b(larger|largest|greater|greatest|higher|highest)\b"),
    (Ask.ALTITUDE, "min", r"\b(lower|lowest|less|least|closer to the ground|nearer the ground)\b( down)?"
                          r"( (altitude|height|elevation))?\b"),
)
_ALTITUDE_WORDS = r"\b(altitude|height|elevation|high|higher|highest|low|lower|lowest|up|above)\b"


_OVERLAP = re.compile(r"\bsame\b|in common|overlap|\bshar|\b(with|as) (the )?(first|reference|image 1|photo 1|picture 1)\b")


def read_photo_choice(text: str, n_images: int) -> tuple[Ask, str] | None:
    """(asked quantity, ``max`` or ``min``) of a normalised question that asks which photo has the most (least) of a
    per-photo quantity, or None. Covering the most of the same ground as the first photo is overlap, not this."""
    if n_images < 2 or not _WHICH_PHOTO.search(text) or _OVERLAP.search(text):
        return None
    for ask, expect, pattern in _QUANTITIES:
        if re.search(pattern, text) and (ask != Ask.ALTITUDE or re.search(_ALTITUDE_WORDS, text)):
            return ask, expect
    return None


def _value(ask: Ask, g: dict) -> float | None:
    if ask == Ask.ALTITUDE:
        return g.get("altitude_m")
    if ask == Ask.GSD:
        return g.get("gsd_m_per_px")
    fp = g.get("footprint_m")
    return float(fp[0]) * float(fp[1]) if fp else None


#: The asks a photo choice compares (one value per photo).
PER_PHOTO = frozenset(TIES)
_KEYS = {Ask.ALTITUDE: "altitude_m", Ask.GSD: "gsd_m_per_px", Ask.FOOTPRINT: "footprint_m"}
_NAMES = {Ask.ALTITUDE: "height", Ask.GSD: "ground sampling distance", Ask.FOOTPRINT: "ground footprint (area)"}


async def photo_choice(ctx: ToolContext, p: Program) -> Evidence:
    """The 1-based photo with the largest (``expect`` max) or smallest value of the program's quantity."""
    # imported here: the parser reads this module and should not load the executor
    from planners.execute import METADATA_CONFIDENCE, geometry

    values = []
    for i in range(len(ctx.images)):
        g = await geometry(ctx, p, i)
        v = _value(p.ask, g)
        if v is None:
            why = (g.get("missing") or {}).get(_KEYS[p.ask]) or "not in the file's metadata"
            return undecided(f"comparing the photos' {_NAMES[p.ask]} needs it for every photo; image {i + 1}: {why}")
        values.append(float(v))
    order = sorted(range(len(values)), key=lambda i: values[i], reverse=p.expect != "min")
    best, runner_up = values[order[0]], values[order[1]]
    kind, tie = TIES[p.ask]
    gap = abs(best - runner_up) if kind == "m" else abs(best - runner_up) / max(abs(best), abs(runner_up), 1e-12)
    listed = ", ".join(f"image {i + 1}: {v:.3g}" for i, v in enumerate(values))
    note = f"{_NAMES[p.ask]} per photo ({listed}; photo_geometry)"
    if gap < tie:
        return found({"image": order[0] + 1}, LOW_CONFIDENCE, note + "; the photos are about the same")
    return found({"image": order[0] + 1}, METADATA_CONFIDENCE, note)
