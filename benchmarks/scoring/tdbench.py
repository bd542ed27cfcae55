"""TDBench scoring (spec: benchmarks.md §5): exact option letter, rotation ``hit_all``, grounding hits.

Letter reading follows VLMEvalKit's exact matching (``can_infer_option`` then ``can_infer_text``): no LLM
extractor, so an answer it cannot read is wrong.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

from benchmarks.scoring.common import extract_floats, normalize_text
from benchmarks.scoring.spatialuav import bbox_iou

ROTATIONS_DEG: tuple[int, ...] = (0, 90, 180, 270)
Box = tuple[float, float, float, float]


def _option_letter(text: str, letters: Iterable[str]) -> str | None:
    """A letter standing alone among the words (punctuation ``.()[],:;!*#{}`` split words); exactly one
    candidate letter must occur, and a lone "A" in a longer sentence (> 3 words) is read as an article."""
    cleaned = text or ""
    for ch in ".()[],:;!*#{}":
        cleaned = cleaned.replace(ch, " ")
    words = cleaned.split()
    present = [ch for ch in letters if ch in words]
    if len(present) != 1:
        return None
    if present[0] == "A" and len(words) > 3:
        return None
    return present[0]


def _option_text(text: str, options: Mapping[str, str]) -> str | None:
    """The letter whose option text (normalised) is the only one contained in the answer."""
    norm = normalize_text(text)
    hits = [k for k, v in options.items() if v and normalize_text(str(v)) in norm]
    return hits[0] if len(hits) == 1 else None


def extract_letter(text: str, options: Mapping[str, str] | None = None) -> str | None:
    """Option letter of a reply: standalone letter first, then a unique option text; None when neither reads."""
    letters = list(options) if options else ["A", "B", "C", "D"]
    return _option_letter(text, letters) or (_option_text(text, options) if options else None)


def score_choice(prediction: str, answer: str, options: Mapping[str, str] | None = None) -> float:
    """1 iff the extracted letter equals the answer letter (exact letter)."""
    letter = extract_letter(prediction, options)
    return float(letter is not None and letter == (answer or "").strip().upper())


def hit_all(rotation_scores: Mapping[int, float]) -> bool:
    """"a question counts only if all four are right": True iff all of 0/90/180/270° are present and scored 1."""
    missing = [r for r in ROTATIONS_DEG if r not in rotation_scores]
    if missing:
        raise ValueError(f"hit_all needs all four rotations; missing {missing}")
    return all(rotation_scores[r] >= 1.0 for r in ROTATIONS_DEG)


def parse_box(text: str) -> Box | None:
    """First four numbers of the reply as ``(x1, y1, x2, y2)`` with corners sorted; None if fewer or not finite."""
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


def score_grounding(prediction: str, gt: str | Box, image_size: tuple[int, int] | None = None) -> float:
    """1 iff the predicted box (relative coordinates, as the prompt asks) has its centre inside the GT box."""
    pred = parse_box(prediction)
    ref = parse_box(gt) if isinstance(gt, str) else tuple(float(v) for v in gt)
    if pred is None or ref is None:
        return 0.0
    return float(grounding_hit(to_relative(pred, image_size), to_relative(ref, image_size)))
