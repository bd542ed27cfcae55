"""Every disagreement class of issue #51 as a named test: the official rule (named in each comment), the value it
gives worked out by hand, strict mode reproducing it and lenient mode reading the reply our own way."""

from __future__ import annotations

import random

import pytest

from benchmarks.aggregate import aggregate
from benchmarks.sample import Sample
from benchmarks.scoring import NotScored, OfficialCrash, ScoreParseError, bedi, score, score_detailed, tdbench
from benchmarks.scoring.aircopbench import LetterDraw, official_reply_text, predicted_letter
from benchmarks.scoring.tdbench_rotation import RotationHit, rotation_table


def _su(task: str, gt: str) -> Sample:
    return Sample(f"{task}_00001", "spatialuav", task, [], "q", gt)


# --- SpatialUAV -------------------------------------------------------------------------------------------------
def test_spatialuav_upper_case_think_tags_stay_in_the_answer():
    # run_spatialuav_inference.strip_thinking: re.sub(r"<think>\s*.*?\s*</think>\s*", "") is case-sensitive, so
    # the ints read are [7, 3] and Direction_Recognition compares the first: 7 != 3
    s = _su("Direction_Recognition", "3 o'clock")
    assert score(s, "<THINK>region 7 is left</THINK> 3 o'clock") == 0.0
    assert score(s, "<think>region 7 is left</think> 3 o'clock") == 1.0
    assert score(s, "<THINK>region 7 is left</THINK> 3 o'clock", mode="lenient") == 1.0


def test_spatialuav_dangling_closing_tag_keeps_the_reasoning():
    # no opening tag: nothing is removed; Region_Recognition reads {3, 12}, more than GT's {12} -> 0
    s = _su("Region_Recognition", "Region 12")
    assert score(s, "Region 3 is a car park, not this </think> Region 12") == 0.0
    assert score(s, "Region 3 is a car park, not this </think> Region 12", mode="lenient") == 1.0


def test_spatialuav_path_planning_and_unknown_tasks_are_scored():
    # evaluate_row: "Path_Planning" compares first integers; any other unknown task falls back to token F1
    assert score(_su("Path_Planning", "Direction 4"), "4") == 1.0
    assert score(_su("Region_Counting", "three red cars"), "three cars") == pytest.approx(0.8)


def test_spatialuav_integers_beyond_float_range():
    # parse_bbox keeps Python ints; bbox_geometry_metrics divides them by 2.0 -> OverflowError above ~1e308
    s = _su("A2A_Object_Matching", "[823, 189, 932, 249]")
    huge = "1" + "0" * 320
    with pytest.raises(OfficialCrash, match="OverflowError"):
        score(s, f"[{huge}, 189, {huge}, 249]")
    assert score(s, f"[{huge}, 189, {huge}, 249]", mode="lenient") == 0.0
    # exact integer comparison needs no float: a 321-digit region id is simply a different region
    assert score(_su("Distance_Comparison", "Region 1"), f"Region {huge}") == 0.0


def test_spatialuav_motion_strict_is_the_official_token_f1_mode():
    s = _su("Motion_Understanding", "The drone rotated left.")
    res = score_detailed(s, "The drone turned left.")
    assert res.judge == "token_f1" and res.score == pytest.approx(0.75)  # 3 of 4 tokens each way


# --- BEDI -------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("pred", "gt", "official"), [
    ("25 o'clock", "7 o'clock", 2.0),  # d = 18: 1 - min(18, -6)/6 = 2
    ("15 o'clock", "3 o'clock", 1.0),  # d = 12: min(12, 0) = 0
    ("20 o'clock", "3 o'clock", 1 + 5 / 6),  # d = 17: min(17, -5) = -5
])  # fmt: skip
def test_bedi_clock_hours_above_12_follow_the_official_formula(pred, gt, official):
    # Spatial_PosRelDis_score.clock_distance_score: diff = |t1 - t2|; 1 - min(diff, 12 - diff)/6, unbounded
    s = Sample("b", "bedi", "Spatial_PosRelDis", [], "q", gt)
    assert score(s, pred) == pytest.approx(official)
    assert score(s, pred, mode="lenient") == 0.0
    assert aggregate([score_detailed(s, pred)])["overall"] == pytest.approx(100 * official)


MOVE = {"action": "move", "direction": "forward", "distance": 10, "speed": 0}


def _action(gt, answer_type: str) -> Sample:
    return Sample("a", "bedi", "Action", [], "q", gt, metadata={"answer_type": answer_type})


def test_bedi_action_replies_are_read_with_literal_eval():
    # model_action_answer.py: output.replace("json", "").replace("```", "").replace("\n", ""); ast.literal_eval
    s = _action(MOVE, "dictionary")
    python_dict = "{'action': 'move', 'direction': 'forward', 'distance': 10, 'speed': 0}"
    assert score(s, python_dict) == 1.0
    assert score_detailed(s, python_dict, mode="lenient").parsed is False  # not JSON
    assert score(s, "```json\n" + python_dict + "\n```") == 1.0  # "json" and the fences are deleted first


@pytest.mark.parametrize("reply", [
    '{"action": "move", "direction": "forward", "distance": 10, "speed": 0, "ok": true}',  # JSON true
    '{"action": "move", "distance": null}',  # JSON null
    "```python\n{'action': 'move'}\n```",  # "python" stays in front of the dict
    "Here is the action: {'action': 'move'}",  # leading text
])  # fmt: skip
def test_bedi_action_replies_the_official_parser_drops_leave_the_denominator(reply):
    s = _action(MOVE, "dictionary")
    res = score_detailed(s, reply)
    assert (res.counted, res.score) == (False, 0.0)
    with pytest.raises(NotScored):
        bedi.score("Action", reply, MOVE)
    assert aggregate([res, score_detailed(s, str(MOVE))])["overall"] == 100.0  # only the counted reply weighs


def test_bedi_action_dictionary_rule_crashes_on_a_non_dict_item():
    # str_acc_dict calls str_acc_single without a guard: filter_non_zero('m') raises AttributeError
    with pytest.raises(OfficialCrash):
        score(_action(MOVE, "dictionary"), "['move']")
    # the list rule guards each pair: 0
    assert score(_action([MOVE], "list"), "['move']") == 0.0


def test_bedi_target_determination_without_digits_divides_by_zero():
    # Semantic_InfoDet_score.compare_lists_score: len(intersection) / len(union) with both sets empty
    s = Sample("d", "bedi", "Semantic_InfoDet", [], "q", "none of the regions")
    with pytest.raises(OfficialCrash, match="divides by zero"):
        score(s, "no region")
    assert score(s, "no region", mode="lenient") == 0.0
    assert score(s, "Region 2") == 0.0


def test_bedi_lenient_action_reading_is_json():
    with pytest.raises(ScoreParseError):
        bedi.parse_actions("{'action': 'move'}")


# --- AirCopBench ------------------------------------------------------------------------------------------------
def test_aircopbench_reads_from_rfind_think_plus_len_close_tag():
    # evaluation.extract_answer: res[res.rfind('<think>') + len('</think>'):] -- one character past the tag lost
    assert official_reply_text("<think>BC") == "C"
    assert predicted_letter("I pick C. <think>", draw=LetterDraw(0)) == "D"  # nothing after the tag: random
    assert predicted_letter("I pick C. <think>", mode="lenient") == "C"
    assert predicted_letter("<think>A</think>", draw=LetterDraw(0)) == "D"  # "</think>" left: no A-D at all


def test_aircopbench_random_letter_is_reproducible_with_a_seed():
    # random.seed(0); [random.choice("ABCD") for 5 draws] == D, D, A, C, D (derived with CPython's generator)
    draw = LetterDraw(0)
    assert [predicted_letter("no letters here?", draw=draw) for _ in range(5)] == list("DDACD")
    assert draw.draws == 5
    assert [LetterDraw(7)() for _ in range(1)] == [random.Random(7).choice("ABCD")]
    # without a LetterDraw the global generator is used, as the official random.choice: seeding it reproduces
    random.seed(0)
    assert [predicted_letter("no letters here?") for _ in range(3)] == list("DDA")
    assert predicted_letter("???", seed=7) == "C"  # random.seed(7); random.choice(...) -> C


def test_aircopbench_strict_figure_with_guesses_and_the_figure_without():
    samples = [Sample(f"q{i}", "aircopbench", "Object Counting", [], "q", "D") for i in range(4)]
    draw = LetterDraw(0)  # draws D, D for the two unreadable replies
    rows = [score_detailed(s, r, draw=draw) for s, r in zip(samples, ["D", "B", "???", "!!!"])]
    summary = aggregate(rows)
    assert summary["overall"] == 75.0 and summary["guessed"] == 2
    assert summary["overall_without_guesses"] == 25.0
    assert aggregate([score_detailed(s, r, mode="lenient") for s, r in zip(samples, ["D", "B", "???", "!!!"])]
                     )["overall"] == 25.0


# --- TDBench (VLMEvalKit) ---------------------------------------------------------------------------------------
OPTS = {"A": "red car", "B": "two", "C": "3", "D": "blue truck"}


def _mcq(answer: str, options=OPTS) -> Sample:
    return Sample("t", "tdbench", "counting", [], "q", answer, options=dict(options))


def test_tdbench_answer_is_x():
    # can_infer_option: two letters present -> the "(correct) answer is X" pattern decides
    assert score(_mcq("B"), "The answer is B, not C") == 1.0
    assert score(_mcq("B"), "The answer is B, not C", mode="lenient") == 0.0
    assert score(_mcq("D"), "the correct answer is **d**") == 1.0  # any case, starred


def test_tdbench_letter_must_be_in_the_last_four_words():
    # splits.index(ch) > len(splits) - 5
    long_tail = "C is the best choice among all these options"
    assert score(_mcq("C"), long_tail) == 0.0
    assert score(_mcq("C"), long_tail, mode="lenient") == 1.0
    assert score(_mcq("C"), "so I choose C here") == 1.0


def test_tdbench_article_rule_only_when_verbose(monkeypatch):
    reply = "It shows a car so A"
    monkeypatch.delenv("VERBOSE", raising=False)
    assert score(_mcq("A"), reply) == 1.0  # VERBOSE unset: the lone "A" counts
    assert tdbench.score_choice(reply, "A", OPTS, verbose=True) == 0.0
    assert score(_mcq("A"), reply, mode="lenient") == 0.0
    monkeypatch.setenv("VERBOSE", "0")  # os.environ.get('VERBOSE', 0) is the string "0": true
    assert score(_mcq("A"), reply) == 0.0


def test_tdbench_option_text_only_for_replies_at_most_twice_the_options_length():
    # can_infer_text: len(answer) > 2 * sum(len(options)) -> False (options here total 21 characters)
    assert score(_mcq("D"), "blue truck") == 1.0
    assert score(_mcq("D"), "I am fairly sure that it must be the blue truck") == 0.0
    assert score(_mcq("D"), "I am fairly sure that it must be the blue truck", mode="lenient") == 1.0


def test_tdbench_refusal_reads_z_and_scores_zero():
    assert tdbench.official_letter("Cannot determine the answer, maybe B", OPTS) == "Z"
    assert score(_mcq("B"), "Cannot determine the answer, maybe B") == 0.0


@pytest.mark.parametrize(("reply", "hit"), [
    ("[0.25, 0.25, 0.5, 0.5]", 1.0),
    ("0.3,0.3,0.4,0.4", 1.0),
    ("[128, 128, 256, 256]", 0.0),  # pixels: no tuple of one-digit numbers
    ("[0.25, 0.25, 0.5, 0.5] or [0.2, 0.2, 0.4, 0.4]", 0.0),  # two tuples
    ("[0.25,  0.25, 0.5, 0.5]", 0.0),  # two spaces after a comma
])  # fmt: skip
def test_tdbench_grounding_needs_exactly_one_tuple_of_small_numbers(reply, hit):
    # tdbench.extract_bbox_from_string: re.findall of 4 comma-separated (\d?(?:\.\d+)?) groups, exactly one
    s = Sample("g", "tdbench", "visual_grounding", [], "q", "[0.2, 0.2, 0.4, 0.4]")
    assert score(s, reply) == hit


def test_tdbench_rotation_average_is_a_macro_mean_over_categories():
    # rotational_eval: acc.loc['Average'] = acc.mean().round(3), one row per category
    hits = [RotationHit(str(q), "counting", r, 1.0) for q in range(3) for r in (0, 90, 180, 270)]
    hits += [RotationHit("9", "localization", r, float(r != 90)) for r in (0, 90, 180, 270)]
    table = rotation_table(hits)
    assert table["counting"]["hit_all"] == 1.0 and table["localization"]["hit_all"] == 0.0
    assert table["Average"]["hit_all"] == 0.5  # pooled over the 4 questions it would be 0.75
    assert table["Average"]["total_questions"] == 2 and table["localization"]["rot90"] == 0.0


def test_tdbench_rotation_table_uses_the_rotations_present():
    hits = [RotationHit("1", "c", r, 1.0) for r in (0, 90, 180)] + [RotationHit("2", "c", 0, 1.0)]
    table = rotation_table(hits)
    assert table["c"]["total_questions"] == 1  # question 2 is not at 90 and 180
    assert table["c"]["hit_all"] == 1.0 and table["c"]["rot270"] == "No Data"


# --- Open3D-VQA -------------------------------------------------------------------------------------------------
def _o3d(gt: str, qa_type: str) -> Sample:
    return Sample("o", "open3dvqa", "t", [], "q", gt, metadata={"qa_info": {"type": qa_type}})


def test_open3dvqa_empty_responses_leave_the_denominator():
    # evaluation.py: `if pred and gt:` -- nothing is added to total otherwise
    s = _o3d("3 meters", "quantitative")
    rows = [score_detailed(s, ""), score_detailed(s, "3 m"), score_detailed(s, None)]
    assert [r.counted for r in rows] == [False, True, False]
    assert aggregate(rows)["overall"] == 100.0 and aggregate(rows)["not_scored"] == 2
    assert score(s, "", mode="lenient") == 0.0


def test_open3dvqa_kilometres_and_template_polarity():
    assert score(_o3d("500 meters", "quantitative"), "about 0.5 km") == 1.0
    yes, no = _o3d("Indeed, the van is left of the tree.", "qualitative"), _o3d("In fact, it is right.", "")
    assert score(yes, "Correct, it is on the left.") == 1.0 and score(yes, "Incorrect.") == 0.0
    assert score(no, "No, it is not.") == 1.0 and score(no, "Yes.") == 0.0
