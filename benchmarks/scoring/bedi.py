"""BEDI scoring (spec: benchmarks.md §2), following the benchmark's ``test/score_calculation/*_score.py``.

Question types: ``Spatial_PosRelDis`` (clock, partial credit), ``Semantic_InfoDet`` (region ids, Jaccard), action
generation (structure/value scores) and LLM-judged text types, which go through a :class:`benchmarks.judge.Judge`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from benchmarks.scoring.common import ScoreParseError, first_oclock

if TYPE_CHECKING:  # pragma: no cover
    from benchmarks.judge import Judge

CLOCK_TYPES = frozenset({"Spatial_PosRelDis"})
SET_TYPES = frozenset({"Semantic_InfoDet"})
ACTION_TYPES = frozenset({"Action", "Action_generation", "Motion_Action"})
# judged by an LLM in the paper (yes/no equivalence or 0-10 with the image); here by the configured judge
JUDGED_TYPES = frozenset(
    {"Semantic_InfoDis", "Spatial_RelDisRelDis", "Semantic_InfoDes", "Attitude", "Motion", "Tool", "Plan"}
)

Action = dict[str, Any]


def group(question_type: str) -> str:
    """Sub-skill group from the question-type prefix: semantic | spatial | action | decision."""
    head = question_type.split("_", 1)[0].lower()
    if head in ("semantic", "spatial"):
        return head
    return "action" if question_type in ACTION_TYPES else "decision"


def score_clock(prediction: str, gt: str) -> float:
    """Clock partial credit: "first match of ``(\\d+)\\s*o'clock``; score = 1 − min(|d|, 12 − |d|)/6; missing → 0".

    Hours must lie in 0–12 (0 ≡ 12, as the official formula gives); a larger hour scores 0, because the official
    formula would give a score above 1 or below 0 for it.
    """
    pred, ref = first_oclock(prediction), first_oclock(gt)
    if pred is None or ref is None or not (0 <= pred <= 12 and 0 <= ref <= 12):
        return 0.0
    d = abs(pred - ref)
    return 1.0 - min(d, 12 - d) / 6.0


def score_jaccard(prediction: str, gt: str) -> float:
    """Region target determination: "all ints as sets; Jaccard |∩|/|∪|" (``re.findall(r"\\d+")``).

    Both empty: the official code divides by zero; scored 0 here.
    """
    pred = {int(x) for x in re.findall(r"\d+", prediction or "")}
    ref = {int(x) for x in re.findall(r"\d+", gt or "")}
    union = pred | ref
    return len(pred & ref) / len(union) if union else 0.0


def _dict_score(ans: Action, prd: Action) -> float:
    """Key Jaccard × share of GT keys whose predicted value is exactly equal (official ``dict_score``)."""
    k_ans, k_prd = set(ans), set(prd)
    union = k_ans | k_prd
    jaccard = len(k_ans & k_prd) / len(union) if union else 1.0
    p = len(k_ans) or 1
    return jaccard * sum(1 for k in k_ans if prd.get(k) == ans[k]) / p


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float, complex)) and not isinstance(v, bool)


def _pair_scores(ans: Any, prd: Any) -> tuple[float, float]:
    """(structure, action) of one action pair (official ``str_acc_single``); non-dict items score (0, 0)."""
    if not isinstance(ans, dict) or not isinstance(prd, dict):
        return 0.0, 0.0
    structure = _dict_score(ans, prd)
    val_ans = {k: v for k, v in ans.items() if v != 0}
    val_prd = {k: v for k, v in prd.items() if v != 0}
    num_ans = {k: v for k, v in val_ans.items() if _is_number(v)}
    num_prd = {k: v for k, v in val_prd.items() if _is_number(v)}
    num_score = _dict_score(num_ans, num_prd) if num_ans else 1.0
    return structure, _dict_score(val_ans, val_prd) * num_score


@dataclass(frozen=True)
class ActionScore:
    """BEDI action-generation scores, both in [0, 1]: ``structure`` (keys and values) and ``action`` (non-zero values
    × numeric values)."""

    structure: float
    action: float


def parse_actions(text: str | list | dict) -> list[Action] | Action:
    """A JSON action dict or list of dicts (a fenced ```json block is accepted); ``ScoreParseError`` otherwise."""
    if isinstance(text, (list, dict)):
        return text
    body = re.sub(r"^\s*```(?:json)?\s*|\s*```\s*$", "", text or "")
    try:
        value = json.loads(body)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise ScoreParseError(f"BEDI action answer is not JSON: {exc}") from None
    if not isinstance(value, (list, dict)):
        raise ScoreParseError(f"BEDI action answer must be a dict or a list of dicts, got {type(value).__name__}")
    return value


def score_actions(gt: list | dict, prediction: list | dict | None) -> ActionScore:
    """Action generation: "key Jaccard × share of matching values; sequences aligned on the shorter, times t/s
    length penalty".

    A dict GT (``answer_type`` "dictionary") pairs items up to the shorter length and divides by the GT count;
    a list GT (``answer_type`` "list") averages over t = min(m, n) pairs and multiplies by t/s, s = max(m, n);
    both empty → 1, one empty → 0; a missing prediction (None) → 0.
    """
    if prediction is None:
        return ActionScore(0.0, 0.0)
    ans = [gt] if isinstance(gt, dict) else list(gt)
    prd = [prediction] if isinstance(prediction, dict) else list(prediction)
    pairs = [_pair_scores(a, p) for a, p in zip(ans, prd)]
    if isinstance(gt, dict):
        n = len(ans)
        return ActionScore(sum(s for s, _ in pairs) / n, sum(a for _, a in pairs) / n)
    m, n = len(ans), len(prd)
    if m == 0 and n == 0:
        return ActionScore(1.0, 1.0)
    if m == 0 or n == 0:
        return ActionScore(0.0, 0.0)
    t, s = min(m, n), max(m, n)
    return ActionScore(sum(x for x, _ in pairs) / t * t / s, sum(a for _, a in pairs) / t * t / s)


def score(question_type: str, prediction: str, gt: Any, judge: "Judge | None" = None) -> float:
    """Score one BEDI answer in [0, 1] by question type; judged types need ``judge`` (``ValueError`` without).

    Action answers return the action score (``score_actions(...).action``); an unparseable action answer raises
    ``ScoreParseError``, an unparseable action GT ``ValueError``.
    """
    if question_type in CLOCK_TYPES:
        return score_clock(prediction, str(gt))
    if question_type in SET_TYPES:
        return score_jaccard(prediction, str(gt))
    if question_type in ACTION_TYPES:
        try:
            reference = parse_actions(gt)
        except ScoreParseError as exc:  # a bad record, not a bad prediction
            raise ValueError(f"BEDI action ground truth unreadable: {exc}") from None
        return score_actions(reference, parse_actions(prediction)).action
    if judge is None:
        raise ValueError(f"BEDI question type {question_type!r} is LLM-judged: pass a judge")
    return judge.similarity(prediction, str(gt))
