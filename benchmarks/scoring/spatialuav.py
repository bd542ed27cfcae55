"""SpatialUAV scoring, rule by rule as in the benchmark's ``eval_spatialuav.py`` (spec: benchmarks.md §1).

``TASKS`` is the registry of the task types (``agent.task_types``: group, scoring rule, answer format). Scoring and
aggregation read it. The synthetic suite ("synth") is scored by the same rules.

Strict mode (default) is the official pipeline: the inference script's think stripping (``official_strip_think``)
then ``eval_spatialuav.py``'s dispatch, where a ``Path_Planning`` task reads the first integer and any other task
it does not know (our generator's ``BEDI_Clock`` included) is scored by token F1; a reply the official code
crashes on (a box of integers too large for a float) raises ``OfficialCrash``. Lenient mode scores such a reply 0.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import TYPE_CHECKING

from agent.answer_formats import AnswerFormat
from agent.task_types import TASK_TYPES, TaskKind
from benchmarks.scoring.bedi import score_clock as score_bedi_clock
from benchmarks.scoring.common import extract_floats, extract_ints, multiset_f1, token_f1
from benchmarks.scoring.modes import STRICT, Mode, OfficialCrash, check_mode

if TYPE_CHECKING:  # pragma: no cover
    from benchmarks.judge import Judge

CAMERA_ANGLE_THRESHOLD_DEG = 10.0  # official default --camera-threshold
CAMERA_DISTANCE_THRESHOLD_M = 10.0  # official default --camera-distance-threshold
BBOX_SCORE_THRESHOLD = 0.5  # official default --bbox-score-threshold


#: The registry of the task types (``agent.task_types``): group, scoring rule and answer format.
TASKS: dict[str, TaskKind] = TASK_TYPES

UNKNOWN_TASK = TaskKind("unknown", "token_f1", AnswerFormat.FREE_TEXT, official=False)  # official fallback: token F1
_OFFICIAL_THINK = re.compile(r"<think>.*?</think>\s*", flags=re.DOTALL)


def official_strip_think(text: str | None) -> str | None:
    """Think stripping of the benchmark's inference script (``prediction`` = ``raw_prediction`` after it).

    Only complete, lower-case ``<think>…</think>`` blocks go, with the whitespace after them, then the text is
    trimmed; ``<THINK>…</THINK>`` and a dangling ``…</think>`` stay (their numbers are then read as answers).
    An empty or missing reply is returned unchanged.
    """
    if not text:
        return text
    return _OFFICIAL_THINK.sub("", text).strip()


def rule_of(task: str, benchmark: str = "spatialuav") -> TaskKind:
    """The spec that scores ``task`` in ``benchmark``'s official dispatch.

    Official tasks use their registry entry; ``Path_Planning`` reads the first integer; every other task
    (including the generator-only ``BEDI_Clock`` when the benchmark is the real "spatialuav") falls back to
    token F1 (``UNKNOWN_TASK``). The "synth" suite keeps its generator-only tasks.
    """
    spec = TASKS.get(task)
    if spec is not None and (spec.official or benchmark != "spatialuav"):
        return spec
    if task == "Path_Planning":
        return TaskKind("aerial-ground", "first_int", AnswerFormat.DIRECTION_LABEL, official=False)
    return UNKNOWN_TASK


def task_spec(task: str) -> TaskKind:
    """The registry entry of ``task``; ``KeyError`` naming the known tasks otherwise."""
    try:
        return TASKS[task]
    except KeyError:
        raise KeyError(f"unknown SpatialUAV task {task!r}; known: {', '.join(TASKS)}") from None


def answer_format(task: str, gt: str, benchmark: str = "spatialuav") -> str:
    """Answer format of one sample; Object Matching and Camera Transformation depend on the GT string."""
    spec = rule_of(task, benchmark)
    if not spec.format_from_truth:
        return spec.answer_format.value
    if spec.rule == "object_matching":
        return AnswerFormat.BBOX.value if parse_bbox(gt) is not None else AnswerFormat.REGION_LIST.value
    n = len(extract_floats(gt))
    return "angle" if n == 1 else "angle_distance" if n == 2 else "invalid"


# --- parsers (official) ---------------------------------------------------------------------------------------
def parse_option(text: str) -> str | None:
    """First standalone A–D in the upper-cased text: ``re.search(r"\\b([A-D])\\b", text.upper())``.

    Trap kept on purpose: a leading article ("A car…") is read as option A.
    """
    match = re.search(r"\b([A-D])\b", (text or "").upper())
    return match.group(1) if match else None


def parse_pairs(text: str) -> list[tuple[int, int]]:
    """Region pairs ``(\\d+)\\s*-\\s*(\\d+)`` in order of appearance."""
    return [(int(a), int(b)) for a, b in re.findall(r"(\d+)\s*-\s*(\d+)", text or "")]


def parse_bbox(text: str) -> tuple[int, int, int, int] | None:
    """First 4 integers as a box with corners sorted (x1 ≤ x2, y1 ≤ y2); None with fewer than 4 integers."""
    nums = extract_ints(text)
    if len(nums) < 4:
        return None
    x1, y1, x2, y2 = nums[:4]
    (x1, x2), (y1, y2) = sorted((x1, x2)), sorted((y1, y2))
    return (x1, y1, x2, y2)


# --- rules ----------------------------------------------------------------------------------------------------
def score_region_set(prediction: str, gt: str) -> float:
    """"all ints as a set; 0 if more predicted than in GT, else recall" (Region Recognition, Anomaly Detection)."""
    pred, ref = set(extract_ints(prediction)), set(extract_ints(gt))
    if len(pred) > len(ref):
        return 0.0
    return len(pred & ref) / len(ref) if ref else 0.0


def score_region_list(prediction: str, gt: str) -> float:
    """"the list of all ints must equal GT's list (order matters)"."""
    return float(extract_ints(prediction) == extract_ints(gt))


def score_first_int(prediction: str, gt: str) -> float:
    """"first int == first int of GT" (clock direction, arrow label); two missing ints count as equal (official)."""
    pred, ref = extract_ints(prediction), extract_ints(gt)
    return float((pred[0] if pred else None) == (ref[0] if ref else None))


def score_option(prediction: str, gt: str) -> float:
    """Option letters by ``parse_option`` must be equal."""
    return float(parse_option(prediction) == parse_option(gt))


def score_pairs(prediction: str, gt: str) -> float:
    """"pairs ``(\\d+)\\s*-\\s*(\\d+)`` as multisets; pair F1" (order inside a pair matters: 1-3 ≠ 3-1)."""
    return multiset_f1(Counter(parse_pairs(prediction)), Counter(parse_pairs(gt)))


def bbox_iou(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """Intersection over union of two ``(x1, y1, x2, y2)`` boxes; 0 when the union is empty."""
    iw = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    ih = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = iw * ih
    union = max(0.0, a[2] - a[0]) * max(0.0, a[3] - a[1]) + max(0.0, b[2] - b[0]) * max(0.0, b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def bbox_parts(pred: tuple[float, ...], gt: tuple[float, ...]) -> tuple[float, float, float, float]:
    """(IoU, c_ctr, c_size, c) of the official ``bbox_geometry_metrics``: c = 0.5·IoU + 0.25·c_ctr + 0.25·c_size.

    c_ctr = max(0, 1 − ‖Δcentre‖ / GT diagonal); c_size = mean(min/max of widths, min/max of heights);
    widths and heights are floored at 1e-6 px as in the official code.
    """
    iou = bbox_iou(pred, gt)
    pw, ph = max(pred[2] - pred[0], 1e-6), max(pred[3] - pred[1], 1e-6)
    gw, gh = max(gt[2] - gt[0], 1e-6), max(gt[3] - gt[1], 1e-6)
    centre_dist = math.hypot((pred[0] + pred[2]) / 2.0 - (gt[0] + gt[2]) / 2.0,
                             (pred[1] + pred[3]) / 2.0 - (gt[1] + gt[3]) / 2.0)
    c_ctr = max(0.0, 1.0 - centre_dist / max(math.hypot(gw, gh), 1e-6))
    c_size = (min(pw, gw) / max(pw, gw) + min(ph, gh) / max(ph, gh)) / 2.0
    return iou, c_ctr, c_size, 0.5 * iou + 0.25 * c_ctr + 0.25 * c_size


def bbox_composite(pred: tuple[float, ...], gt: tuple[float, ...]) -> float:
    """The composite c of ``bbox_parts``."""
    return bbox_parts(pred, gt)[3]


def score_object_matching(prediction: str, gt: str) -> float:
    """"GT with ≥4 ints → first 4 ints as a box (corners sorted); 1 if c ≥ 0.5. Otherwise region-list equality"."""
    gt_box = parse_bbox(gt)
    if gt_box is None:
        return score_region_list(prediction, gt)
    pred_box = parse_bbox(prediction)
    if pred_box is None:
        return 0.0
    # integers beyond float range (over 308 digits) raise OverflowError here, as in the official code
    return float(bbox_composite(pred_box, gt_box) >= BBOX_SCORE_THRESHOLD)


def circular_angle_error(a_deg: float, b_deg: float) -> float:
    """Smallest angle between two directions in degrees, in [0, 180] (values taken mod 360 first)."""
    diff = abs(a_deg % 360.0 - b_deg % 360.0) % 360.0
    return min(diff, 360.0 - diff)


def score_camera(prediction: str, gt: str) -> float:
    """"floats; the count must match GT's (1 → angle only, 2 → angle and distance, else 0); angle error circular
    on value mod 360; 1 iff angle error ≤ 10° (and distance error ≤ 10 m)"."""
    pred, ref = extract_floats(prediction), extract_floats(gt)
    if len(pred) != len(ref) or len(ref) not in (1, 2):
        return 0.0
    if not all(math.isfinite(v) for v in pred + ref):
        return 0.0
    if circular_angle_error(pred[0], ref[0]) > CAMERA_ANGLE_THRESHOLD_DEG:
        return 0.0
    return float(len(ref) == 1 or abs(pred[1] - ref[1]) <= CAMERA_DISTANCE_THRESHOLD_M)


_RULES = {
    "region_set": score_region_set,
    "region_list": score_region_list,
    "first_int": score_first_int,
    "option": score_option,
    "pairs": score_pairs,
    "object_matching": score_object_matching,
    "camera": score_camera,
    "bedi_clock": score_bedi_clock,
}


def score_task(task: str, prediction: str | None, gt: str | None, judge: "Judge | None" = None,
               mode: Mode = STRICT, benchmark: str = "spatialuav") -> float:
    """Score one prediction (think block already removed) against the GT string.

    Motion_Understanding uses ``judge.similarity`` (semantic score 0–1); with ``judge=None`` it falls back to
    token F1, the official script's ``--motion-judge-mode token_f1``. Strict: a reply the official code raises
    on raises ``OfficialCrash``; lenient: it scores 0.
    """
    check_mode(mode)
    spec = rule_of(task, benchmark)
    pred, ref = prediction or "", gt or ""
    if spec.rule == "judge":
        return token_f1(pred, ref) if judge is None else judge.similarity(pred, ref)
    if spec.rule == "token_f1":
        return token_f1(pred, ref)
    try:
        if spec.rule == "bedi_clock":  # BEDI's clock rule has a lenient mode of its own (hours 0-12, score in [0, 1])
            return score_bedi_clock(pred, ref, mode)
        return _RULES[spec.rule](pred, ref)
    except (OverflowError, ValueError) as exc:  # floats of huge integers; int() of more than 4,300 digits
        if mode == STRICT:
            raise OfficialCrash(f"{task}: the official scorer raises {type(exc).__name__}: {exc}") from exc
        return 0.0
