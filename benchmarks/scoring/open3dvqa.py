"""Open3D-VQA scoring (spec: benchmarks.md §3).

The official ``evaluation.py`` scores only with an LLM judge (GPT-4o answers 0 or 1) and leaves every item with an
empty response (or empty answer) out of its denominator. Strict mode (default) keeps that denominator (an empty
reply raises ``NotScored``); the judge itself cannot run offline, so both modes stand in for it with these rules:

* quantitative answers: correct iff prediction ∈ [0.75, 1.25] × GT after conversion to metres
  (km 1000, mm 0.001, cm 0.01, inch 0.0254, foot 0.3048, yard 0.9144, mile 1609.344; a bare number is read as
  metres; "in" is not read as inches because "2 in front" would be);
* direction answers: the clock integers must be equal;
* qualitative yes/no answers: the polarity must be equal; it is the first polarity phrase of the reply, in the
  benchmark's true/false templates "Yes/Indeed/Correct, …" (yes) and "No/Incorrect/In fact, …" (no);
* other qualitative answers (e.g. "which object …" naming a caption) are LLM-judged in the paper: here the
  configured judge's similarity, or token F1 without a judge.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

from benchmarks.scoring.common import first_oclock, token_f1
from benchmarks.scoring.modes import STRICT, Mode, NotScored, check_mode

if TYPE_CHECKING:  # pragma: no cover
    from benchmarks.judge import Judge

TOLERANCE = 0.25  # ±25 % of the ground truth
UNIT_TO_M: dict[str, float] = {
    "m": 1.0, "meter": 1.0, "meters": 1.0, "metre": 1.0, "metres": 1.0,
    "cm": 0.01, "centimeter": 0.01, "centimeters": 0.01, "centimetre": 0.01, "centimetres": 0.01,
    "inch": 0.0254, "inches": 0.0254,
    "ft": 0.3048, "foot": 0.3048, "feet": 0.3048,
    "km": 1000.0, "kilometer": 1000.0, "kilometers": 1000.0, "kilometre": 1000.0, "kilometres": 1000.0,
    "mm": 0.001, "millimeter": 0.001, "millimeters": 0.001, "millimetre": 0.001, "millimetres": 0.001,
    "yd": 0.9144, "yard": 0.9144, "yards": 0.9144,
    "mile": 1609.344, "miles": 1609.344,
}  # fmt: skip
_UNITS = "|".join(sorted(UNIT_TO_M, key=len, reverse=True))
_QUANTITY = re.compile(rf"(-?\d+(?:\.\d+)?)\s*({_UNITS})\b", flags=re.IGNORECASE)
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_POLARITY = re.compile(r"\b(yes|indeed|correct|no|incorrect|in\s+fact)\b", flags=re.IGNORECASE)
_YES_WORDS = frozenset({"yes", "indeed", "correct"})


def to_metres(text: str) -> float | None:
    """First "<number> <unit>" in ``text`` converted to metres; else the first bare number (metres); else None."""
    match = _QUANTITY.search(text or "")
    if match:
        return float(match.group(1)) * UNIT_TO_M[match.group(2).lower()]
    bare = _NUMBER.search(text or "")
    return float(bare.group(0)) if bare else None


def score_quantity(prediction: str, gt: str) -> float:
    """1 iff 0.75·GT ≤ prediction ≤ 1.25·GT in metres (GT 0: prediction must be 0); 0 if either has no number."""
    pred, ref = to_metres(prediction), to_metres(gt)
    if pred is None or ref is None or not (math.isfinite(pred) and math.isfinite(ref)):
        return 0.0
    lo, hi = sorted(((1 - TOLERANCE) * ref, (1 + TOLERANCE) * ref))
    return float(lo <= pred <= hi)


def score_clock(prediction: str, gt: str) -> float:
    """Direction answers: 1 iff the ``N o'clock`` integers are equal (missing in the prediction → 0)."""
    pred, ref = first_oclock(prediction), first_oclock(gt)
    return float(pred is not None and pred == ref)


def polarity(text: str) -> str | None:
    """"yes" or "no": the first polarity phrase of the text (yes/indeed/correct → "yes"; no/incorrect/in fact →
    "no"); None if none occurs."""
    match = _POLARITY.search(text or "")
    if not match:
        return None
    return "yes" if match.group(1).lower() in _YES_WORDS else "no"


def answer_kind(gt: str, qa_type: str = "") -> str:
    """How a GT answer is scored: clock_direction | yes_no | metric_quantity | free_text.

    "N o'clock" → clock; a GT starting with yes/no (not quantitative) → polarity; quantitative (or, with no
    ``qa_type``, any GT holding a number) → metric tolerance; anything else → judged free text.
    """
    if first_oclock(gt) is not None:
        return "clock_direction"
    if qa_type != "quantitative" and re.match(r"\s*(yes|no|indeed|correct|incorrect|in\s+fact)\b", gt or "",
                                              re.IGNORECASE):
        return "yes_no"
    if qa_type == "quantitative" or (qa_type == "" and to_metres(gt) is not None):
        return "metric_quantity"
    return "free_text"


def score(prediction: str | None, gt: str | None, qa_type: str = "", judge: "Judge | None" = None,
          mode: Mode = STRICT) -> float:
    """Score one Open3D-VQA answer in [0, 1]; ``qa_type`` is ``qa_info["type"]`` (qualitative | quantitative).

    Dispatch by ``answer_kind``; free text goes to ``judge.similarity`` (token F1 without a judge). Strict: an
    empty reply or answer raises ``NotScored`` (the official denominator skips it); lenient: it scores 0.
    """
    check_mode(mode)
    if not prediction or not gt:
        if mode == STRICT:
            raise NotScored("Open3D-VQA: empty response or answer; the official evaluation skips it")
        return 0.0
    kind = answer_kind(gt, qa_type)
    if kind == "clock_direction":
        return score_clock(prediction, gt)
    if kind == "yes_no":
        return float(polarity(prediction) == polarity(gt))
    if kind == "metric_quantity":
        return score_quantity(prediction, gt)
    return token_f1(prediction, gt) if judge is None else judge.similarity(prediction, gt)
