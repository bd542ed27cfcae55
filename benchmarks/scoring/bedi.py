"""BEDI scoring (spec: benchmarks.md §2), following the benchmark's ``test/score_calculation/*_score.py`` and the
reply parsing of ``test/task_testing/model_action_answer.py``.

Question types: ``Spatial_PosRelDis`` (clock, partial credit), ``Semantic_InfoDet`` (region ids, Jaccard), action
generation (structure/action scores) and LLM-judged text types, which go through a :class:`benchmarks.judge.Judge`.

Strict mode (default) keeps the official quirks: the clock formula is applied to any hours (``25 o'clock`` against
``7 o'clock`` scores 2.0, ``15`` against ``3`` scores 1.0, integers beyond int64 follow numpy's arithmetic);
Jaccard of two digit-free answers raises (the official code divides by zero); an action reply is read the way
the official answering script reads it (``ast.literal_eval`` after deleting "json", back-ticks and newlines), a
reply it cannot read is left out of the denominator (``NotScored``), and a value the official pipeline crashes
on raises ``OfficialCrash``. Lenient mode keeps hours in 0–12, scores empty sets 0 and reads actions as JSON.
"""

from __future__ import annotations

import ast
import json
import re
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from benchmarks.scoring.common import ScoreParseError, first_oclock
from benchmarks.scoring.modes import STRICT, Mode, NotScored, OfficialCrash, check_mode

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


# --- clock direction --------------------------------------------------------------------------------------------
def official_clock_value(pred_hour: int, gt_hour: int) -> float:
    """The official partial credit ``1 − min(d, 12 − d)/6`` with d = |GT − pred|, for any integers.

    Kept exactly as the official script computes it: the difference goes through ``numpy.abs`` (so a difference
    beyond int64 takes numpy's unsigned or object arithmetic), and nothing bounds the result (hours above 12 can
    give more than 1 or less than 0).
    """
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        diff = np.abs(gt_hour - pred_hour)
        nearest = min(diff, 12 - diff)
        return float(1 - nearest / 6)


def score_clock(prediction: str | None, gt: str | None, mode: Mode = STRICT) -> float:
    """Clock partial credit: "first match of ``(\\d+)\\s*o'clock``; score = 1 − min(|d|, 12 − |d|)/6; missing → 0".

    Strict: the official value for any hours (see ``official_clock_value``). Lenient: hours must lie in 0–12
    (0 ≡ 12), anything else scores 0, so the score stays in [0, 1].
    """
    check_mode(mode)
    pred, ref = first_oclock(prediction), first_oclock(gt)
    if pred is None or ref is None:
        return 0.0
    if mode == STRICT:
        return official_clock_value(pred, ref)
    if not (0 <= pred <= 12 and 0 <= ref <= 12):
        return 0.0
    d = abs(pred - ref)
    return 1.0 - min(d, 12 - d) / 6.0


# --- target determination ---------------------------------------------------------------------------------------
def score_jaccard(prediction: str | None, gt: str | None, mode: Mode = STRICT) -> float:
    """Region target determination: "all ints as sets; Jaccard |∩|/|∪|" (every ``\\d+``, unsigned).

    Both without digits: the official code divides by zero, so strict raises ``OfficialCrash``; lenient gives 0.
    """
    check_mode(mode)
    pred = {int(x) for x in re.findall(r"\d+", prediction or "")}
    ref = {int(x) for x in re.findall(r"\d+", gt or "")}
    union = pred | ref
    if not union:
        if mode == STRICT:
            raise OfficialCrash("Semantic_InfoDet: no region number in either answer; the official Jaccard "
                                "divides by zero")
        return 0.0
    return len(pred & ref) / len(union)


# --- action generation ------------------------------------------------------------------------------------------
def _dict_score(ans: Action, prd: Action) -> float:
    """Key Jaccard × share of GT keys whose predicted value is exactly equal (``Score_Str-Acc`` of one pair)."""
    k_ans, k_prd = set(ans), set(prd)
    union = k_ans | k_prd
    jaccard = len(k_ans & k_prd) / len(union) if union else 1.0
    p = len(k_ans) or 1
    return jaccard * sum(1 for k in k_ans if ans[k] == prd.get(k)) / p


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float, complex)) and not isinstance(v, bool)


def _pair_scores(ans: Any, prd: Any) -> tuple[float, float]:
    """(structure, action) of one action pair; ``TypeError`` when either item is not a dict (as officially: the
    sequence rule turns that into (0, 0), the dictionary rule does not catch it)."""
    if not isinstance(ans, dict) or not isinstance(prd, dict):
        raise TypeError(f"not a pair of action dicts: {type(ans).__name__}, {type(prd).__name__}")
    structure = _dict_score(ans, prd)
    val_ans = {k: v for k, v in ans.items() if v != 0}
    val_prd = {k: v for k, v in prd.items() if v != 0}
    num_ans = {k: v for k, v in val_ans.items() if _is_number(v)}
    num_prd = {k: v for k, v in val_prd.items() if _is_number(v)}
    num_score = _dict_score(num_ans, num_prd) if num_ans else 1.0
    return structure, _dict_score(val_ans, val_prd) * num_score


@dataclass(frozen=True)
class ActionScore:
    """BEDI action-generation scores: ``structure`` (keys and values) and ``action`` (non-zero values × numeric
    values); both in [0, 1]."""

    structure: float
    action: float


def _as_list(value: Any) -> list:
    """A dict is one action; anything else is iterated (a string becomes its characters, as officially)."""
    if isinstance(value, dict):
        return [value]
    try:
        return list(value)
    except TypeError as exc:  # a number: the official ``list(x)`` raises
        raise OfficialCrash(f"BEDI action answer {value!r} is neither an action nor a list: {exc}") from exc


def _score_dictionary(ans: list, prd: list, mode: Mode) -> ActionScore:
    """``answer_type`` "dictionary": pairs up to the shorter length, sums divided by the GT count."""
    structure = action = 0.0
    for a, p in zip(ans, prd):
        try:
            s, v = _pair_scores(a, p)
        except TypeError as exc:
            if mode == STRICT:
                raise OfficialCrash(f"BEDI dictionary answer holds a non-dict item {p!r}") from exc
            s, v = 0.0, 0.0
        structure, action = structure + s, action + v
    n = len(ans)
    return ActionScore(structure / n, action / n) if n else ActionScore(1.0, 1.0)


def _score_sequence(ans: list, prd: list) -> ActionScore:
    """``answer_type`` "list": t = min(m, n) pairs averaged, times t/s with s = max(m, n); a failing pair is 0."""
    m, n = len(ans), len(prd)
    if m == 0 and n == 0:
        return ActionScore(1.0, 1.0)
    if m == 0 or n == 0:
        return ActionScore(0.0, 0.0)
    structure = action = 0.0
    for a, p in zip(ans, prd):
        try:
            s, v = _pair_scores(a, p)
        except Exception:  # noqa: BLE001 - the official sequence rule scores any failing pair 0
            s, v = 0.0, 0.0
        structure, action = structure + s, action + v
    t, s_len = min(m, n), max(m, n)
    return ActionScore(t / s_len * (structure / t), t / s_len * (action / t))


def score_actions(gt: list | dict, prediction: Any, answer_type: str | None = None,
                  mode: Mode = STRICT) -> ActionScore:
    """Action generation: "key Jaccard × share of matching values; sequences aligned on the shorter, times t/s
    length penalty".

    ``answer_type`` is the record's ("dictionary" or "list"; default: "dictionary" for a dict GT). A missing
    prediction (None) scores 0. Strict: an item the official dictionary rule cannot score raises
    ``OfficialCrash``; lenient: it scores 0.
    """
    check_mode(mode)
    if prediction is None:
        return ActionScore(0.0, 0.0)
    kind = answer_type or ("dictionary" if isinstance(gt, dict) else "list")
    ans = _as_list(gt)
    if mode != STRICT and not isinstance(prediction, (list, dict)):
        return ActionScore(0.0, 0.0)
    prd = _as_list(prediction)
    if kind == "dictionary":
        return _score_dictionary(ans, prd, mode)
    if kind == "list":
        return _score_sequence(ans, prd)
    raise ValueError(f"BEDI answer_type {kind!r} is neither 'dictionary' nor 'list'")


def official_action_reply(text: str) -> Any:
    """A reply read as the official answering script reads it: every "json", "```" and newline deleted, then
    ``ast.literal_eval``; the value as stored in the answer file (a JSON round trip: tuples become lists).

    ``NotScored`` when the official script cannot read it (no answer file is written: JSON ``true``/``null``,
    leading prose, a fence of another language …); ``OfficialCrash`` when the value cannot be stored as JSON
    (a set, complex numbers …: the official answer file is left half written and the scoring run fails).
    """
    body = (text or "").replace("json", "").replace("```", "").replace("\n", "")
    try:
        value = ast.literal_eval(body)
    except Exception as exc:  # noqa: BLE001 - the official script drops the reply on any exception
        raise NotScored(f"BEDI action reply not readable by ast.literal_eval ({type(exc).__name__})") from None
    try:
        return json.loads(json.dumps(value, ensure_ascii=False))
    except (TypeError, ValueError) as exc:
        raise OfficialCrash(f"BEDI action reply {type(value).__name__} cannot be stored as JSON: {exc}") from exc


def parse_actions(text: str | list | dict) -> list[Action] | Action:
    """Lenient reading: a JSON action dict or list of dicts (a fenced ```json block is accepted);
    ``ScoreParseError`` otherwise."""
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


def _reference_actions(gt: Any) -> Any:
    if isinstance(gt, (list, dict)):
        return gt
    try:
        return parse_actions(gt)
    except ScoreParseError as exc:  # a bad record, not a bad prediction
        raise ValueError(f"BEDI action ground truth unreadable: {exc}") from None


def score_action_reply(prediction: Any, gt: Any, mode: Mode = STRICT, answer_type: str | None = None) -> ActionScore:
    """Both action scores of one reply: a string is read by ``official_action_reply`` (strict; ``NotScored`` or
    ``OfficialCrash`` as documented there) or ``parse_actions`` (lenient); a parsed value is scored as it is."""
    reference = _reference_actions(gt)
    if isinstance(prediction, str):
        prediction = official_action_reply(prediction) if mode == STRICT else parse_actions(prediction)
    return score_actions(reference, prediction, answer_type, mode)


def score(question_type: str, prediction: Any, gt: Any, judge: "Judge | None" = None, mode: Mode = STRICT,
          answer_type: str | None = None) -> float:
    """Score one BEDI answer by question type; judged types need ``judge`` (``ValueError`` without).

    Action answers return the action score (``score_actions(...).action``); a reply given as a string is read by
    ``official_action_reply`` (strict) or ``parse_actions`` (lenient, ``ScoreParseError`` when unreadable); an
    already parsed value (a stored ``Generated Answer``) is scored as it is. An unreadable action GT raises
    ``ValueError``.
    """
    check_mode(mode)
    if question_type in CLOCK_TYPES or question_type in SET_TYPES:
        rule = score_clock if question_type in CLOCK_TYPES else score_jaccard
        try:
            return rule(prediction, str(gt), mode)
        except (OverflowError, ValueError) as exc:  # huge hours; int() of more than 4,300 digits
            if mode == STRICT:
                raise OfficialCrash(f"{question_type}: the official scorer raises {type(exc).__name__}") from exc
            return 0.0
    if question_type in ACTION_TYPES:
        return score_action_reply(prediction, gt, mode, answer_type).action
    if judge is None:
        raise ValueError(f"BEDI question type {question_type!r} is LLM-judged: pass a judge")
    return judge.similarity(prediction, str(gt))
