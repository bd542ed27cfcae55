"""BEDI, Open3D-VQA, AirCopBench and TDBench scorers: hand-computed cases from benchmarks.md §2–5."""

from __future__ import annotations

import pytest

from benchmarks.sample import Sample
from benchmarks.scoring import ScoreParseError, aircopbench, bedi, open3dvqa, score, score_detailed, tdbench


# --- BEDI -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("pred", "gt", "expected"),
    [
        ("5 o'clock.", "5 o'clock.", 1.0),
        ("6 o'clock", "5 o'clock.", 1 - 1 / 6),
        ("11 o'clock", "5 o'clock.", 0.0),  # opposite: d = 6
        ("1 o'clock", "11 o'clock", 1 - 2 / 6),  # wraps: min(10, 2) = 2
        ("12 o'clock", "1 o'clock", 1 - 1 / 6),
        ("five o'clock", "5 o'clock", 0.0),  # missing → 0
        ("5 oclock", "5 o'clock", 0.0),
    ],
)
def test_bedi_clock_partial_credit(pred, gt, expected):
    assert bedi.score_clock(pred, gt) == pytest.approx(expected)
    assert bedi.score_clock(pred, gt, mode="lenient") == pytest.approx(expected)


def test_bedi_clock_hours_above_12_strict_formula_lenient_zero():
    # official 1 − min(d, 12 − d)/6 with d = |GT − pred| = 12: min(12, 0) = 0 → 1.0
    assert bedi.score_clock("17 o'clock", "5 o'clock") == 1.0
    assert bedi.score_clock("17 o'clock", "5 o'clock", mode="lenient") == 0.0


def test_bedi_jaccard():
    assert bedi.score_jaccard("Region 2 and 3", "Region 2 and 3") == 1.0
    assert bedi.score_jaccard("Region 2, 3, 4", "Region 2 and 3") == pytest.approx(2 / 3)
    assert bedi.score_jaccard("Region 3", "Region 2 and 3") == pytest.approx(1 / 2)
    assert bedi.score_jaccard("no regions", "Region 2") == 0.0


def test_bedi_action_structure_and_value_scores_by_hand():
    gt = {"action": "move", "direction": "forward", "distance": 10, "speed": 0}
    # same keys; distance wrong: structure = 1 * 3/4; non-zero values {action, direction, distance}: 2/3 match,
    # numeric non-zero {distance}: 0/1 → action score = 2/3 * 0 = 0
    pred = {"action": "move", "direction": "forward", "distance": 5, "speed": 0}
    s = bedi.score_actions(gt, pred)
    assert s.structure == pytest.approx(0.75) and s.action == 0.0
    # an extra key: Jaccard 4/5, all GT values match → structure 0.8; non-zero: keys {a,d,dist} vs {a,d,dist,dur}
    pred2 = dict(gt, duration=3)
    s2 = bedi.score_actions(gt, pred2)
    assert s2.structure == pytest.approx(0.8)
    assert s2.action == pytest.approx(3 / 4 * 1 * (1 / 2 * 1))  # value: J 3/4 × 1; numeric: J 1/2 × 1


def test_bedi_action_sequences_length_penalty():
    a = {"action": "rotate", "rotate_direction": "left", "duration": 2}
    b = {"action": "move", "direction": "up", "distance": 5}
    assert bedi.score_actions([a, b], [a, b]).action == 1.0
    assert bedi.score_actions([a, b], [a]).structure == pytest.approx(0.5)  # t/s = 1/2
    assert bedi.score_actions([a], [a, b, b]).structure == pytest.approx(1 / 3)
    assert bedi.score_actions([a, b], [b, a]).action == 0.0
    assert bedi.score_actions([], []).structure == 1.0 and bedi.score_actions([a], []).structure == 0.0
    assert bedi.score_actions([a], None).action == 0.0


def test_bedi_dispatch_parse_error_and_judge_requirement():
    sample = Sample("img1/Action/q1", "bedi", "Action", [], "q", [{"action": "zoom", "zoom_level": 2}])
    assert score(sample, '```json\n[{"action": "zoom", "zoom_level": 2}]\n```') == 1.0
    res = score_detailed(sample, "zoom in twice")
    assert res.score == 0.0 and res.parsed is False
    with pytest.raises(ScoreParseError):
        bedi.parse_actions("zoom in")
    with pytest.raises(ValueError, match="ground truth unreadable"):
        bedi.score("Action", "[]", "move forward")
    with pytest.raises(ValueError, match="LLM-judged"):
        bedi.score("Semantic_InfoDis", "a red car", "a red car")


# --- Open3D-VQA -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("pred", "gt", "expected"),
    [
        ("2.5 meters", "2 meters", 1.0),  # ratio 1.25: inside
        ("2.6 meters", "2 meters", 0.0),
        ("1.5 m", "2 meters", 1.0),  # 0.75
        ("1.49 m", "2 meters", 0.0),
        ("200 cm", "2 meters", 1.0),
        ("6.5 feet", "2 meters", 1.0),  # 1.98 m
        ("100 inches", "2 meters", 0.0),  # 2.54 m > 2.5 m
        ("The van is 7 feet wide", "2.1 meters", 1.0),
        ("about two meters", "2 meters", 0.0),
    ],
)
def test_open3dvqa_metric_tolerance_after_unit_conversion(pred, gt, expected):
    assert open3dvqa.score(pred, gt, qa_type="quantitative") == expected


def test_open3dvqa_clock_and_yes_no():
    assert open3dvqa.score("3 o'clock", "3 o'clock", "qualitative") == 1.0
    assert open3dvqa.score("It is at 4 o'clock", "3 o'clock", "qualitative") == 0.0
    assert open3dvqa.score("Yes, the van is taller.", "Yes, it is.", "qualitative") == 1.0
    assert open3dvqa.score("No.", "Yes, it is.", "qualitative") == 0.0
    sample = Sample("7", "open3dvqa", "egocentric_distance", [], "q", "3.2 meters", metadata={"qa_info": {"type": "quantitative"}})
    res = score_detailed(sample, "3 meters")
    assert res.score == 1.0 and res.answer_format == "metric_quantity" and res.group == "quantitative"


# --- AirCopBench ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("reply", "letter"),
    [
        ("Answer: C", "C"),
        ("I think the answer is b because", "B"),  # "THE ANSWER IS B" beats the later patterns
        ("Between (D) and A, I pick (D)", "D"),
        ("B: two cars", "B"),
        ("Option A looks right", "A"),
        ("Looking at UAV2... C.", "C"),  # trailing letter
        ("Definitely a choice", "D"),  # first A-D character anywhere: "DEFINITELY"
        ("none fits", None),  # no A–D at all: unparseable (official would pick at random)
        ("", None),
    ],
)
def test_aircopbench_letter_cascade(reply, letter):
    assert aircopbench.extract_letter(reply) == letter


def test_aircopbench_cascade_order_answer_colon_before_parentheses():
    assert aircopbench.extract_letter("(A) is tempting but Answer: B") == "B"


def test_aircopbench_unparseable_is_wrong_and_reported():
    s = Sample("q1", "aircopbench", "Object Counting", [], "q", "B", options={"A": "1", "B": "2"},
               metadata={"question_type": "2.2 Object Counting (UAV1)"})  # fmt: skip
    res = score_detailed(s, "I'm not sure", mode="lenient")  # strict draws the official random letter
    assert res.score == 0.0 and res.parsed is False and res.group == "Object Understanding"
    assert score(s, "<think>maybe A</think>The answer is B") == 1.0
    assert aircopbench.subcategory("4.3 Who to Collaborate (UAV2)") == "Who to Collaborate"


# --- TDBench --------------------------------------------------------------------------------------------------
def test_tdbench_exact_letter():
    opts = {"A": "top-left", "B": "top-right", "C": "bottom-left", "D": "bottom-right"}
    assert tdbench.score_choice("B", "B", opts) == 1.0
    assert tdbench.score_choice("(C).", "C", opts) == 1.0
    assert tdbench.score_choice("The car is at the bottom-right", "D", opts) == 1.0  # unique option text
    assert tdbench.score_choice("B or C", "B", opts) == 0.0  # two letters: unreadable
    assert tdbench.extract_letter("A car is in the top-left corner of the image.", opts) == "A"  # via option text


def test_tdbench_hit_all():
    assert tdbench.hit_all({0: 1.0, 90: 1.0, 180: 1.0, 270: 1.0})
    assert not tdbench.hit_all({0: 1.0, 90: 0.0, 180: 1.0, 270: 1.0})
    with pytest.raises(ValueError, match="missing"):
        tdbench.hit_all({0: 1.0, 90: 1.0})


def test_tdbench_grounding_centroid_and_iou():
    gt = (0.2, 0.2, 0.4, 0.4)
    assert tdbench.grounding_hit((0.25, 0.25, 0.5, 0.5), gt)  # centre (0.375, 0.375)
    assert not tdbench.grounding_hit((0.3, 0.3, 0.6, 0.6), gt)  # centre (0.45, 0.45)
    assert tdbench.grounding_iou((0.2, 0.2, 0.4, 0.4), gt) == pytest.approx(1.0)
    assert tdbench.grounding_iou((0.3, 0.2, 0.5, 0.4), gt) == pytest.approx(1 / 3)
    s = Sample("9", "tdbench", "grounding", [], "q", "[0.2, 0.2, 0.4, 0.4]", metadata={"image_size": [512, 512]})
    assert score(s, "[0.25, 0.25, 0.5, 0.5]") == 1.0
    # pixel answer: officially no tuple of one-digit numbers → miss; lenient converts: centre 192/512 = 0.375
    assert score(s, "[128, 128, 256, 256]") == 0.0
    assert score(s, "[128, 128, 256, 256]", mode="lenient") == 1.0
    assert score_detailed(s, "somewhere on the left").parsed is False
