"""TDBench scoring (spec: benchmarks.md §5) as VLMEvalKit evaluates it: option letters by exact matching (no LLM
extractor), grounding by centroid containment, the rotation table (``benchmarks.scoring.tdbench_rotation``).

Strict mode (default) is VLMEvalKit HEAD's ``can_infer``: a letter standing alone among the words counts only
when it is the one candidate letter present and sits in the last four words; failing that ``answer is X``
(any case, starred) counts; a refusal phrase or a lone "Z" reads "Z"; then the option texts, only when the reply
is at most twice as long as all option texts together. The article rule ("A" in a reply of more than three
words is no answer) applies only when verbose: ``verbose=True``, or by default as VLMEvalKit decides it, when the
``VERBOSE`` environment variable is set to a non-empty value. An
empty reply is read as "nan", the text pandas gives an empty cell. Grounding needs exactly one ``a, b, c, d``
tuple of numbers with at most one integer digit each. Lenient mode is our own reading (any standalone letter,
boxes of any numbers, pixels converted with the image size).
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable, Mapping

from benchmarks.scoring.common import extract_floats, normalize_text
from benchmarks.scoring.modes import STRICT, Mode, check_mode
from benchmarks.scoring.spatialuav import bbox_iou

ROTATIONS_DEG: tuple[int, ...] = (0, 90, 180, 270)
Box = tuple[float, float, float, float]
NO_ANSWER = "Z"  # VLMEvalKit's letter for "refused / nothing matched"
SPLIT_CHARS = ".()[],:;!*#{}"
REFUSALS: tuple[str, ...] = (
    "Sorry, I can't help with images of people yet.",
    "I can't process this file.",
    "I'm sorry, but without the image provided",
    "Cannot determine the answer",
)
API_FAILURE = "Failed to obtain answer via API"
_ANSWER_IS = re.compile(r"(?:correct\s+)?answer\s+is\s+\**([ABCD])\**", flags=re.IGNORECASE)
# one coordinate: an optional single digit, then an optional fraction (both may be empty)
_COORD = r"(\d?(?:\.\d+)?)"
_BOX_TUPLE = re.compile(r",\s?".join([_COORD] * 4))


# --- multiple choice --------------------------------------------------------------------------------------------
def _words(text: str) -> list[str]:
    for ch in SPLIT_CHARS:
        text = text.replace(ch, " ")
    return text.split()


def official_verbose(verbose: bool | None = None) -> bool:
    """``verbose`` itself, or (None) VLMEvalKit's ``os.environ.get('VERBOSE', 0)`` taken as a truth value."""
    return bool(os.environ.get("VERBOSE", "")) if verbose is None else verbose


def official_option(reply: str, letters: Iterable[str], verbose: bool | None = None) -> str | None:
    """VLMEvalKit ``can_infer_option``: a letter, ``NO_ANSWER`` or None (nothing read)."""
    verbose = official_verbose(verbose)
    choices = list(letters)
    if API_FAILURE in reply:
        return None
    if any(phrase in reply for phrase in REFUSALS):
        return NO_ANSWER
    words = _words(reply)
    present = [c for c in choices if c in words]
    if len(present) == 1:
        if verbose and "A" in words and len(words) > 3:
            return None
        letter = present[0]
        if words.index(letter) > len(words) - 5:
            return letter
    elif not present and NO_ANSWER in words:
        return NO_ANSWER
    match = _ANSWER_IS.search(reply)
    if match and match.group(1).upper() in choices:
        return match.group(1).upper()
    return None


def official_option_text(reply: str, options: Mapping[str, object]) -> str | None:
    """VLMEvalKit ``can_infer_text``: the one option whose lower-cased text occurs in the lower-cased reply, when
    the reply is at most twice as long as all option texts together."""
    lower = reply.lower()
    if len(lower) > 2 * sum(len(str(v)) for v in options.values()):
        return None
    hits = [k for k, v in options.items() if str(v).lower() in lower]
    return hits[0] if len(hits) == 1 else None


def official_reply(prediction: object) -> str:
    """The prediction as VLMEvalKit reads it back from its result sheet: ``str`` of the cell, "nan" when empty."""
    if prediction is None or (isinstance(prediction, float) and math.isnan(prediction)) or prediction == "":
        return "nan"
    return str(prediction)


def official_letter(prediction: object, options: Mapping[str, object], verbose: bool | None = None) -> str:
    """The letter VLMEvalKit records under exact matching: option rule, then option texts, else ``NO_ANSWER``."""
    reply = official_reply(prediction)
    return official_option(reply, options, verbose) or official_option_text(reply, options) or NO_ANSWER


def _lenient_letter(text: str, letters: Iterable[str]) -> str | None:
    words = _words(text or "")
    present = [ch for ch in letters if ch in words]
    if len(present) != 1 or (present[0] == "A" and len(words) > 3):
        return None
    return present[0]


def _lenient_text(text: str, options: Mapping[str, str]) -> str | None:
    norm = normalize_text(text)
    hits = [k for k, v in options.items() if v and normalize_text(str(v)) in norm]
    return hits[0] if len(hits) == 1 else None


def extract_letter(text: str | None, options: Mapping[str, str] | None = None, mode: Mode = STRICT,
                   verbose: bool | None = None) -> str | None:
    """Option letter of a reply; None when nothing is read (strict: when VLMEvalKit records ``NO_ANSWER``)."""
    check_mode(mode)
    opts = dict(options) if options else {k: "" for k in "ABCD"}
    if mode == STRICT:
        letter = official_letter(text, opts, verbose)
        return None if letter == NO_ANSWER else letter
    return _lenient_letter(text or "", list(opts)) or (_lenient_text(text or "", opts) if options else None)


def score_choice(prediction: str | None, answer: str, options: Mapping[str, str] | None = None,
                 mode: Mode = STRICT, verbose: bool | None = None) -> float:
    """1 iff the read letter equals the answer letter (strict: exactly as stored, VLMEvalKit's ``opt == GT``)."""
    letter = extract_letter(prediction, options, mode, verbose)
    if mode == STRICT:
        return float(letter is not None and letter == answer)
    return float(letter is not None and letter == (answer or "").strip().upper())


def hit_all(rotation_scores: Mapping[int, float]) -> bool:
    """"a question counts only if all four are right": True iff all of 0/90/180/270° are present and scored 1."""
    missing = [r for r in ROTATIONS_DEG if r not in rotation_scores]
    if missing:
        raise ValueError(f"hit_all needs all four rotations; missing {missing}")
    return all(rotation_scores[r] >= 1.0 for r in ROTATIONS_DEG)


# --- grounding --------------------------------------------------------------------------------------------------
def official_box(text: object) -> Box | None:
    """TDBenchGrounding's reading: newlines removed, exactly one ``a, b, c, d`` tuple whose numbers have at most
    one integer digit (``0``, ``0.25``, ``.5``, ``1``); None when there are none or several, or a number is empty."""
    found = _BOX_TUPLE.findall(str(text).replace("\n", ""))
    if len(found) != 1:
        return None
    try:
        x1, y1, x2, y2 = (float(v) for v in found[0])
    except ValueError:  # an empty coordinate: officially an error, scored as a miss
        return None
    return (x1, y1, x2, y2)


def parse_box(text: str) -> Box | None:
    """Lenient reading: first four numbers as ``(x1, y1, x2, y2)`` with corners sorted; None if fewer or not
    finite."""
    nums = extract_floats(text)[:4]
    if len(nums) < 4 or not all(math.isfinite(v) for v in nums):
        return None
    (x1, x2), (y1, y2) = sorted(nums[0::2]), sorted(nums[1::2])
    return (x1, y1, x2, y2)


def grounding_hit(pred_box: Box, gt_box: Box) -> bool:
    """"a hit iff the predicted box centre lies inside the GT box" (both in the same coordinates, edges count)."""
    cx, cy = (pred_box[0] + pred_box[2]) / 2.0, (pred_box[1] + pred_box[3]) / 2.0
    return gt_box[0] <= cx <= gt_box[2] and gt_box[1] <= cy <= gt_box[3]


def grounding_iou(pred_box: Box, gt_box: Box) -> float:
    """IoU of predicted and GT boxes (reported beside the hit rate)."""
    return bbox_iou(pred_box, gt_box)


def to_relative(box: Box, image_size: tuple[int, int] | None) -> Box:
    """A box in pixels → relative [0, 1] coordinates given ``image_size`` = (width, height); relative boxes
    (all values ≤ 1) pass through."""
    if max(abs(v) for v in box) <= 1.0 or image_size is None:
        return box
    w, h = image_size
    return (box[0] / w, box[1] / h, box[2] / w, box[3] / h)


def score_grounding(prediction: str | None, gt: str | Box, image_size: tuple[int, int] | None = None,
                    mode: Mode = STRICT) -> float:
    """1 iff the predicted box centre lies inside the GT box. Strict: both read by ``official_box`` (relative
    coordinates, as the prompt asks; no conversion); lenient: any four numbers, pixels converted."""
    check_mode(mode)
    if mode == STRICT:
        pred = official_box(official_reply(prediction))
        ref = official_box(gt) if isinstance(gt, str) else tuple(float(v) for v in gt)
        return float(pred is not None and ref is not None and grounding_hit(pred, ref))
    pred = parse_box(prediction or "")
    ref = parse_box(gt) if isinstance(gt, str) else tuple(float(v) for v in gt)
    if pred is None or ref is None:
        return 0.0
    return float(grounding_hit(to_relative(pred, image_size), to_relative(ref, image_size)))
