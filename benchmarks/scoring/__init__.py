"""Official scorers of the five UAV benchmarks behind one entry point.

``score(sample, prediction)`` → float; ``score_detailed`` also returns the answer format, the group, whether the
prediction could be read, whether it counts in the denominator and which judge (if any) produced the score, i.e.
one row for ``benchmarks.aggregate.aggregate``.

``mode`` is ``"strict"`` (default: each benchmark's own evaluation code, quirks included, see
``benchmarks.scoring.modes``) or ``"lenient"`` (our own reading, for diagnostics). In strict mode a reply the
official code crashes on raises ``OfficialCrash``, a reply the official pipeline leaves out of its denominator
gives ``counted=False``, and BEDI clock scores can leave [0, 1] as the official formula does. In lenient mode
predictions never raise: an unreadable one scores 0 with ``parsed=False``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from benchmarks.judge import Judge, default_judge
from benchmarks.sample import Sample
from benchmarks.scoring import aircopbench, bedi, open3dvqa, spatialuav, tdbench
from benchmarks.scoring.common import ScoreParseError, strip_think
from benchmarks.scoring.modes import DEFAULT_MODE, LENIENT, STRICT, Mode, NotScored, OfficialCrash, check_mode

__all__ = ["DEFAULT_MODE", "LENIENT", "STRICT", "Mode", "NotScored", "OfficialCrash", "ScoreParseError",
           "ScoreResult", "reply_text", "score", "score_detailed", "strip_think"]

SPATIALUAV_RULES = ("spatialuav", "synth")  # benchmarks scored by SpatialUAV rules
_LENIENT_THINK_STRIPPED = {"spatialuav", "synth", "aircopbench", "tdbench"}  # lenient: think blocks removed


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
    counted: bool = True  # False: the official pipeline leaves this reply out of its denominator
    mode: str = DEFAULT_MODE

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class _JudgeCall:
    """Resolves the judge only when a scorer needs one, and remembers which judge answered."""

    def __init__(self, judge: Judge | None, mode: Mode = DEFAULT_MODE,
                 draw: aircopbench.LetterDraw | None = None) -> None:
        self._judge = judge
        self.used: str | None = None
        self.mode = mode
        self.draw = draw
        self.extra: dict[str, Any] = {}  # metadata a scorer adds to the row (e.g. a guessed letter)

    @property
    def explicit(self) -> bool:
        """True when the caller chose a judge (strict SpatialUAV motion scoring otherwise uses token F1)."""
        return self._judge is not None

    @property
    def name(self) -> str:
        return (self._judge or default_judge()).name

    def similarity(self, prediction: str, reference: str) -> float:
        judge = self._judge or default_judge()
        self.used = judge.name
        return float(min(1.0, max(0.0, judge.similarity(prediction, reference))))


def _spatialuav(sample: Sample, pred: str, judge: _JudgeCall) -> tuple[float, str, str, bool]:
    spec = spatialuav.rule_of(sample.task, sample.benchmark)
    gt = str(sample.target)
    # strict real SpatialUAV: the official offline mode (--motion-judge-mode token_f1) unless a judge is given;
    # our own synth suite keeps the configured judge (a stand-in for the official LLM judge)
    official_f1 = judge.mode == STRICT and sample.benchmark == "spatialuav" and not judge.explicit
    chosen = judge if spec.rule == "judge" and not official_f1 else None
    if spec.rule == "judge" and chosen is None:
        judge.used = "token_f1"  # the official script's --motion-judge-mode token_f1
    value = spatialuav.score_task(sample.task, pred, gt, judge=chosen, mode=judge.mode, benchmark=sample.benchmark)
    parsed = spatialuav.parse_option(pred) is not None if spec.rule == "option" else True
    return value, spatialuav.answer_format(sample.task, gt, sample.benchmark), spec.group, parsed


_BEDI_FORMATS = {"Spatial_PosRelDis": "clock_direction", "Semantic_InfoDet": "region_labels"}


def _bedi(sample: Sample, pred: str, judge: _JudgeCall) -> tuple[float, str, str, bool]:
    fmt = "action_sequence" if sample.task in bedi.ACTION_TYPES else _BEDI_FORMATS.get(sample.task, "free_text")
    answer_type = sample.metadata.get("answer_type")
    try:
        if sample.task in bedi.ACTION_TYPES:  # the structure score is the official secondary figure
            both = bedi.score_action_reply(pred, sample.target, judge.mode, answer_type)
            value, parsed = both.action, True
            judge.extra["structure_score"] = both.structure
        else:
            value, parsed = bedi.score(sample.task, pred, sample.target, judge=judge, mode=judge.mode,
                                       answer_type=answer_type), True
    except ScoreParseError:
        value, parsed = 0.0, False
    return value, fmt, bedi.group(sample.task), parsed


def _open3dvqa(sample: Sample, pred: str, judge: _JudgeCall) -> tuple[float, str, str, bool]:
    gt = str(sample.target)
    qa_type = str((sample.metadata.get("qa_info") or {}).get("type", ""))
    value = open3dvqa.score(pred, gt, qa_type=qa_type, judge=judge, mode=judge.mode)
    return value, open3dvqa.answer_kind(gt, qa_type), qa_type or "unknown", True


def _aircopbench(sample: Sample, pred: str, judge: _JudgeCall) -> tuple[float, str, str, bool]:
    group = aircopbench.category(str(sample.metadata.get("question_type", sample.task)))
    parsed = aircopbench.extract_letter(pred, judge.mode) is not None
    if judge.mode == STRICT and not parsed:
        letter = aircopbench.random_letter(judge.draw)
        judge.extra.update(guessed_letter=letter, guess_right=letter == str(sample.target))
        return float(letter == str(sample.target)), "option_letter", group, False
    value = aircopbench.score(pred, str(sample.target), judge.mode, judge.draw)
    return value, "option_letter", group, parsed


def _tdbench(sample: Sample, pred: str, judge: _JudgeCall) -> tuple[float, str, str, bool]:
    verbose = sample.metadata.get("verbose")  # None: VLMEvalKit's VERBOSE environment variable decides
    if sample.options:
        value = tdbench.score_choice(pred, str(sample.target), sample.options, judge.mode, verbose)
        parsed = tdbench.extract_letter(pred, sample.options, judge.mode, verbose) is not None
        return value, "option_letter", sample.task, parsed
    size = sample.metadata.get("image_size")
    value = tdbench.score_grounding(pred, sample.target, tuple(size) if size else None, judge.mode)
    parsed = (tdbench.official_box(tdbench.official_reply(pred)) if judge.mode == STRICT
              else tdbench.parse_box(pred)) is not None
    return value, "bbox_relative", sample.task, parsed


_DISPATCH = {
    "spatialuav": _spatialuav,
    "synth": _spatialuav,
    "bedi": _bedi,
    "open3dvqa": _open3dvqa,
    "aircopbench": _aircopbench,
    "tdbench": _tdbench,
}
_KEPT_METADATA = ("question_index", "rotation", "question_type", "dataset")


def reply_text(sample: Sample, prediction: Any, mode: Mode, raw: bool) -> Any:
    """The text each benchmark's scorer reads: strict SpatialUAV applies the inference script's think stripping to
    a raw reply (a ``prediction`` field of a prediction file is read as it is); lenient strips think blocks."""
    if sample.benchmark == "bedi" and isinstance(prediction, (list, dict)):
        return prediction  # a stored, already parsed action answer
    text = prediction if isinstance(prediction, str) else ("" if prediction is None else str(prediction))
    if mode == LENIENT:
        return strip_think(text) if sample.benchmark in _LENIENT_THINK_STRIPPED else text
    if sample.benchmark in SPATIALUAV_RULES and raw:
        return spatialuav.official_strip_think(text) or ""
    return text


def score_detailed(sample: Sample, prediction: Any, judge: Judge | None = None, mode: Mode = DEFAULT_MODE, *,
                   raw: bool = True, draw: aircopbench.LetterDraw | None = None) -> ScoreResult:
    """Score ``prediction`` for ``sample`` with its benchmark's rules; see the module docstring.

    ``judge`` scores free text (default: ``benchmarks.judge.default_judge()``, loaded only when needed; strict
    SpatialUAV motion answers use the official token F1 mode unless a judge is given). ``raw``: the prediction is a model's reply
    (True) or the ``prediction`` field of a SpatialUAV prediction file, already think-stripped by the official
    inference script (False). ``draw``: AirCopBench's random letter generator shared over a run (strict).
    ``ValueError`` for an unknown benchmark or a bad record; ``OfficialCrash`` (strict) for a reply the official
    code raises on.
    """
    check_mode(mode)
    try:
        scorer = _DISPATCH[sample.benchmark]
    except KeyError:
        raise ValueError(f"sample {sample.id!r}: unknown benchmark {sample.benchmark!r}; known: {', '.join(_DISPATCH)}")
    text = reply_text(sample, prediction, mode, raw)
    call = _JudgeCall(judge, mode, draw)
    counted = True
    try:
        value, fmt, group, parsed = scorer(sample, text, call)
    except KeyError as exc:
        raise ValueError(f"sample {sample.id!r}: {exc.args[0]}") from None
    except NotScored as exc:
        value, fmt, group, parsed, counted = 0.0, "not_scored", "not_scored", False, False
        meta_reason = str(exc)
    else:
        meta_reason = None
    meta = {k: sample.metadata[k] for k in _KEPT_METADATA if k in sample.metadata}
    if meta_reason:
        meta["not_scored"] = meta_reason
    meta.update(call.extra)
    return ScoreResult(sample.id, sample.benchmark, sample.task, float(value), fmt, group, parsed, call.used, meta,
                       counted, mode)


def score(sample: Sample, prediction: Any, judge: Judge | None = None, mode: Mode = DEFAULT_MODE) -> float:
    """Score of ``prediction`` for ``sample`` under its benchmark's official rules (``mode`` "strict") or ours
    ("lenient"); 0.0 for a reply the official pipeline does not count (see ``score_detailed``)."""
    return score_detailed(sample, prediction, judge, mode).score
