"""Property-based tests: arbitrary text into every scorer gives a score in [0, 1] or the documented parse error."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.judge import TokenF1Judge
from benchmarks.sample import Sample
from benchmarks.scoring import ScoreParseError, aircopbench, bedi, open3dvqa, score_detailed, spatialuav, tdbench
from benchmarks.scoring.spatialuav import TASKS

# text that often looks like an answer: numbers, signs, brackets, o'clock, letters, think tags, huge numbers
_PIECES = st.sampled_from(
    ["Region ", "1", "-", "12", ", ", "[", "]", " o'clock", "A", "B", " d ", "(C)", "Answer: ", ".", "e9", "9" * 400,
     "<think>", "</think>", "meters", " cm", "feet", "yes", "No", "\n", "{", "}", '"action"', ":", "0.5", "inf"]
)  # fmt: skip
ANSWERISH = st.one_of(st.text(max_size=80), st.lists(_PIECES, max_size=25).map("".join))
SETTINGS = settings(max_examples=150, deadline=None)


def _in_unit(x: float) -> bool:
    return isinstance(x, float) and math.isfinite(x) and 0.0 <= x <= 1.0


@SETTINGS
@given(task=st.sampled_from(sorted(TASKS)), pred=ANSWERISH, gt=ANSWERISH)
def test_spatialuav_rules_total(task, pred, gt):
    assert _in_unit(spatialuav.score_task(task, pred, gt))


@SETTINGS
@given(pred=ANSWERISH, gt=ANSWERISH)
def test_bedi_text_rules_total(pred, gt):
    assert _in_unit(bedi.score_clock(pred, gt))
    assert _in_unit(bedi.score_jaccard(pred, gt))


@SETTINGS
@given(pred=ANSWERISH)
def test_bedi_actions_parse_or_documented_error(pred):
    gt = [{"action": "move", "direction": "forward", "distance": 10}]
    try:
        parsed = bedi.parse_actions(pred)
    except ScoreParseError:
        return
    s = bedi.score_actions(gt, parsed)
    assert _in_unit(float(s.structure)) and _in_unit(float(s.action))


@SETTINGS
@given(pred=ANSWERISH, gt=ANSWERISH, qa_type=st.sampled_from(["", "qualitative", "quantitative"]))
def test_open3dvqa_total(pred, gt, qa_type):
    assert _in_unit(open3dvqa.score(pred, gt, qa_type))


@SETTINGS
@given(pred=ANSWERISH)
def test_aircopbench_and_tdbench_total(pred):
    letter = aircopbench.extract_letter(pred)
    assert letter is None or letter in "ABCD"
    assert _in_unit(aircopbench.score(pred, "C"))
    assert _in_unit(tdbench.score_choice(pred, "B", {"A": "left", "B": "right"}))
    assert _in_unit(tdbench.score_grounding(pred, "[0.1, 0.1, 0.5, 0.5]", (512, 512)))


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


@settings(max_examples=300, deadline=None)
@given(sample=st.sampled_from(_SAMPLES), pred=st.one_of(st.none(), ANSWERISH))
def test_score_entry_point_never_raises_on_predictions(sample, pred):
    result = score_detailed(sample, pred, judge=TokenF1Judge())
    assert _in_unit(result.score)
    assert isinstance(result.parsed, bool) and result.answer_format and result.group
