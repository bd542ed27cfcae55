"""Property-based tests of the scorers' contracts in both modes.

Lenient mode: arbitrary text gives a score in [0, 1] or the documented parse error, never an exception.
Strict mode: arbitrary text gives a finite score, ``NotScored`` (left out of the official denominator) or
``OfficialCrash`` (the official code raises), nothing else. The official values themselves are checked in
tests/benchmarks/test_scoring_official_cases.py and tests/benchmarks/test_scoring_disagreements.py.
"""

from __future__ import annotations

import math

from hypothesis import example, given, settings
from hypothesis import strategies as st

from agent.task_types import TaskType
from benchmarks.judge import TokenF1Judge
from benchmarks.sample import Sample
from benchmarks.scoring import (NotScored, OfficialCrash, ScoreParseError, aircopbench, bedi, open3dvqa,
                                score_detailed, spatialuav, tdbench)
from benchmarks.scoring.spatialuav import TASKS

# text that often looks like an answer: numbers, signs, brackets, o'clock, letters, think tags, huge numbers
_PIECES = st.sampled_from(
    ["Region ", "1", "-", "12", ", ", "[", "]", " o'clock", "A", "B", " d ", "(C)", "Answer: ", ".", "e9", "9" * 400,
     "<think>", "</think>", "meters", " cm", "feet", "yes", "No", "\n", "{", "}", '"action"', ":", "0.5", "inf",
     "'action'", "json", "```", "true", "25 o'clock", "<THINK>", "answer is ", "Z"]
)  # fmt: skip
ANSWERISH = st.one_of(st.text(max_size=80), st.lists(_PIECES, max_size=25).map("".join))
SETTINGS = settings(max_examples=150, deadline=None)


def _in_unit(x: float) -> bool:
    return isinstance(x, float) and math.isfinite(x) and 0.0 <= x <= 1.0


@SETTINGS
@given(task=st.sampled_from(sorted(TASKS)), pred=ANSWERISH, gt=ANSWERISH)
@example(task=TaskType.BEDI_CLOCK, pred="0o'clock", gt="13o'clock")  # lenient once scored 7/6: the strict formula
def test_spatialuav_rules_total(task, pred, gt):
    assert _in_unit(spatialuav.score_task(task, pred, gt, mode="lenient", benchmark="synth"))
    try:
        assert _in_unit(spatialuav.score_task(task, pred, gt))
    except OfficialCrash:
        pass


@SETTINGS
@given(pred=ANSWERISH, gt=ANSWERISH)
def test_bedi_text_rules_total(pred, gt):
    assert _in_unit(bedi.score_clock(pred, gt, mode="lenient"))
    assert _in_unit(bedi.score_jaccard(pred, gt, mode="lenient"))
    for rule in ("Spatial_PosRelDis", "Semantic_InfoDet"):
        try:
            assert isinstance(bedi.score(rule, pred, gt), float)
        except OfficialCrash:
            pass


@SETTINGS
@given(pred=ANSWERISH)
def test_bedi_actions_parse_or_documented_error(pred):
    gt = [{"action": "move", "direction": "forward", "distance": 10}]
    try:
        parsed = bedi.parse_actions(pred)
    except ScoreParseError:
        pass
    else:
        s = bedi.score_actions(gt, parsed, mode="lenient")
        assert _in_unit(float(s.structure)) and _in_unit(float(s.action))
    try:
        assert _in_unit(bedi.score("Action", pred, gt))
    except (NotScored, OfficialCrash):
        pass


@SETTINGS
@given(pred=ANSWERISH, gt=ANSWERISH, qa_type=st.sampled_from(["", "qualitative", "quantitative"]))
def test_open3dvqa_total(pred, gt, qa_type):
    assert _in_unit(open3dvqa.score(pred, gt, qa_type, mode="lenient"))
    try:
        assert _in_unit(open3dvqa.score(pred, gt, qa_type))
    except NotScored:
        assert not pred or not gt


@SETTINGS
@given(pred=ANSWERISH)
def test_aircopbench_and_tdbench_total(pred):
    for mode in ("strict", "lenient"):
        letter = aircopbench.extract_letter(pred, mode)
        assert letter is None or letter in "ABCD"
        assert _in_unit(aircopbench.score(pred, "C", mode))
        assert _in_unit(tdbench.score_choice(pred, "B", {"A": "left", "B": "right"}, mode))
        assert _in_unit(tdbench.score_grounding(pred, "[0.1, 0.1, 0.5, 0.5]", (512, 512), mode))
    # strict: a reply with no A-D at all gets a letter drawn, never None
    assert aircopbench.predicted_letter(pred) in "ABCD"


_SAMPLES = [Sample(f"{t}_00001", "spatialuav", t, [], "q", "Region 1, 2") for t in TASKS] + [
    Sample("b1", "bedi", "Spatial_PosRelDis", [], "q", "5 o'clock"),
    Sample("b2", "bedi", "Semantic_InfoDet", [], "q", "Region 2 and 3"),
    Sample("b3", "bedi", "Action", [], "q", [{"action": "zoom", "zoom_level": 2}]),
    Sample("b4", "bedi", "Semantic_InfoDis", [], "q", "a red truck"),
    Sample("o1", "open3dvqa", "egocentric_distance", [], "q", "3 meters", metadata={"qa_info": {"type": "quantitative"}}),
    Sample("o2", "open3dvqa", "allocentric_size", [], "q", "The white van", metadata={"qa_info": {"type": "qualitative"}}),
    Sample("a1", "aircopbench", "Object Counting", [], "q", "A", options={"A": "1", "B": "2"}),
    Sample("t1", "tdbench", "counting", [], "q", "B", options={"A": "3", "B": "4"}),
    Sample("t2", "tdbench", "grounding", [], "q", "[0.1, 0.1, 0.3, 0.3]", metadata={"image_size": [512, 512]}),
]


@SETTINGS
@given(sample=st.sampled_from(_SAMPLES), pred=st.one_of(st.none(), ANSWERISH))
def test_lenient_entry_point_never_raises_on_predictions(sample, pred):
    result = score_detailed(sample, pred, judge=TokenF1Judge(), mode="lenient")
    assert _in_unit(result.score) and result.counted and result.mode == "lenient"
    assert isinstance(result.parsed, bool) and result.answer_format and result.group


@SETTINGS
@given(sample=st.sampled_from(_SAMPLES), pred=st.one_of(st.none(), ANSWERISH))
def test_strict_entry_point_scores_skips_or_names_the_official_crash(sample, pred):
    try:
        result = score_detailed(sample, pred, judge=TokenF1Judge())
    except OfficialCrash as exc:
        assert exc.__cause__ is not None or "official" in str(exc)
        return
    assert math.isfinite(result.score) and result.mode == "strict"
    if not result.counted:
        assert result.score == 0.0 and "not_scored" in result.metadata
