"""Official scorers of the five UAV benchmarks behind one entry point.

``score(sample, prediction)`` → float in [0, 1]; ``score_detailed`` also returns the answer format, the group,
whether the prediction could be read and which judge (if any) produced the score, i.e. one row for
``benchmarks.aggregate.aggregate``. Predictions never raise: an unreadable one scores 0 with ``parsed=False``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from benchmarks.judge import Judge, default_judge
from benchmarks.sample import Sample
from benchmarks.scoring import aircopbench, bedi, open3dvqa, spatialuav, tdbench
from benchmarks.scoring.common import ScoreParseError, strip_think

__all__ = ["ScoreParseError", "ScoreResult", "score", "score_detailed", "strip_think"]

SPATIALUAV_RULES = ("spatialuav", "synth")  # benchmarks scored by SpatialUAV rules
_THINK_STRIPPED = {"spatialuav", "synth", "aircopbench", "tdbench"}  # benchmarks whose scripts drop <think>


@dataclass
class ScoreResult:
    """One scored prediction (a row for aggregation). ``score`` in [0, 1]; ``judge`` names the judge if one scored."""

    id: str
    benchmark: str
    task: str
    score: float
    answer_format: str
    group: str
    parsed: bool = True
    judge: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class _JudgeCall:
    """Resolves the judge only when a scorer needs one, and remembers which judge answered."""

    def __init__(self, judge: Judge | None) -> None:
        self._judge = judge
        self.used: str | None = None

    @property
    def name(self) -> str:
        return (self._judge or default_judge()).name

    def similarity(self, prediction: str, reference: str) -> float:
        judge = self._judge or default_judge()
        self.used = judge.name
        return float(min(1.0, max(0.0, judge.similarity(prediction, reference))))


def _spatialuav(sample: Sample, pred: str, judge: _JudgeCall) -> tuple[float, str, str, bool]:
    spec = spatialuav.task_spec(sample.task)
    gt = str(sample.target)
    value = spatialuav.score_task(sample.task, pred, gt, judge=judge if spec.rule == "judge" else None)
    parsed = spatialuav.parse_option(pred) is not None if spec.rule == "option" else True
    return value, spatialuav.answer_format(sample.task, gt), spec.group, parsed


_BEDI_FORMATS = {"Spatial_PosRelDis": "clock_direction", "Semantic_InfoDet": "region_labels"}


def _bedi(sample: Sample, pred: str, judge: _JudgeCall) -> tuple[float, str, str, bool]:
    fmt = "action_sequence" if sample.task in bedi.ACTION_TYPES else _BEDI_FORMATS.get(sample.task, "free_text")
    try:
        value, parsed = bedi.score(sample.task, pred, sample.target, judge=judge), True
    except ScoreParseError:
        value, parsed = 0.0, False
    return value, fmt, bedi.group(sample.task), parsed


def _open3dvqa(sample: Sample, pred: str, judge: _JudgeCall) -> tuple[float, str, str, bool]:
    gt = str(sample.target)
    qa_type = str((sample.metadata.get("qa_info") or {}).get("type", ""))
    value = open3dvqa.score(pred, gt, qa_type=qa_type, judge=judge)
    return value, open3dvqa.answer_kind(gt, qa_type), qa_type or "unknown", True


def _aircopbench(sample: Sample, pred: str, judge: _JudgeCall) -> tuple[float, str, str, bool]:
    group = aircopbench.category(str(sample.metadata.get("question_type", sample.task)))
    return aircopbench.score(pred, str(sample.target)), "option_letter", group, aircopbench.extract_letter(pred) is not None


def _tdbench(sample: Sample, pred: str, judge: _JudgeCall) -> tuple[float, str, str, bool]:
    if sample.options:
        value = tdbench.score_choice(pred, str(sample.target), sample.options)
        return value, "option_letter", sample.task, tdbench.extract_letter(pred, sample.options) is not None
    size = sample.metadata.get("image_size")
    value = tdbench.score_grounding(pred, sample.target, tuple(size) if size else None)
    return value, "bbox_relative", sample.task, tdbench.parse_box(pred) is not None


_DISPATCH = {
    "spatialuav": _spatialuav,
    "synth": _spatialuav,
    "bedi": _bedi,
    "open3dvqa": _open3dvqa,
    "aircopbench": _aircopbench,
    "tdbench": _tdbench,
}
_KEPT_METADATA = ("question_index", "rotation", "question_type")


def score_detailed(sample: Sample, prediction: str | None, judge: Judge | None = None) -> ScoreResult:
    """Score ``prediction`` for ``sample`` with its benchmark's rules; see the module docstring.

    ``judge`` scores free text (default: ``benchmarks.judge.default_judge()``, loaded only when needed).
    ``ValueError`` for an unknown benchmark or task.
    """
    try:
        scorer = _DISPATCH[sample.benchmark]
    except KeyError:
        raise ValueError(f"sample {sample.id!r}: unknown benchmark {sample.benchmark!r}; known: {', '.join(_DISPATCH)}")
    text = prediction if isinstance(prediction, str) else ("" if prediction is None else str(prediction))
    if sample.benchmark in _THINK_STRIPPED:
        text = strip_think(text)
    call = _JudgeCall(judge)
    try:
        value, fmt, group, parsed = scorer(sample, text, call)
    except KeyError as exc:
        raise ValueError(f"sample {sample.id!r}: {exc.args[0]}") from None
    meta = {k: sample.metadata[k] for k in _KEPT_METADATA if k in sample.metadata}
    return ScoreResult(sample.id, sample.benchmark, sample.task, float(value), fmt, group, parsed, call.used, meta)


def score(sample: Sample, prediction: str | None, judge: Judge | None = None) -> float:
    """Score in [0, 1] of ``prediction`` for ``sample`` under its benchmark's official rules."""
    return score_detailed(sample, prediction, judge).score
