"""SpatialUAV scorer: hand-computed cases for every rule of benchmarks.md §1, traps included."""

from __future__ import annotations

import math

import pytest

from benchmarks.sample import Sample
from benchmarks.scoring import score, score_detailed, spatialuav
from benchmarks.scoring.spatialuav import TASKS, answer_format, bbox_composite, score_task


def test_registry_has_the_14_tasks_in_5_groups():
    official = {name for name, spec in TASKS.items() if spec.official}
    assert len(official) == 14
    assert set(TASKS) - official == {"BEDI_Clock"}  # generator-only task, scored with BEDI's clock rule
    assert score_task("BEDI_Clock", "4 o'clock", "7 o'clock", benchmark="synth") == 0.5  # 1 − 3/6
    # in the real benchmark's files the official script does not know it: token F1 ("o", "clock" of 3 tokens)
    assert score_task("BEDI_Clock", "4 o'clock", "7 o'clock") == pytest.approx(2 / 3)
    assert {s.group for s in TASKS.values()} == {"semantic", "spatial", "aerial-aerial", "aerial-ground", "motion"}
    assert TASKS["A2G_Path_Planning"].group == "aerial-ground"
    assert TASKS["Distance_Comparison"].group == "spatial"


@pytest.mark.parametrize(
    ("pred", "expected"),
    [
        ("Region 3, 4", 1.0),
        ("Region 4", 0.5),  # recall 1/2
        ("Region 3, 4, 5", 0.0),  # over-prediction: more predicted than in GT → 0
        ("Region 3, 5", 0.5),  # same size: recall 1/2
        ("Region 4, 3, 3, 3", 1.0),  # a set: duplicates collapse
        ("none", 0.0),
    ],
)
def test_region_set_recall_and_over_prediction(pred, expected):
    assert score_task("Region_Recognition", pred, "Region 3, 4.") == pytest.approx(expected)
    assert score_task("Anomaly_Detection", pred, "Region 3, 4.") == pytest.approx(expected)


def test_region_set_reads_every_integer():
    # "Region 5, Region 6 and Region 7" (published example) → {5, 6, 7}; an extra number in prose over-predicts
    assert score_task("Region_Recognition", "Region 5, 6 and 7", "Region 5, Region 6 and Region 7") == 1.0
    assert score_task("Region_Recognition", "Region 6 (about 2 of them)", "Region 6") == 0.0


def test_ordered_region_lists_are_order_sensitive():
    for task in ("Distance_Comparison", "A2A_Occlusion_Removal", "A2G_View_Translation"):
        assert score_task(task, "Region 1, 2", "Region 1, 2") == 1.0
        assert score_task(task, "Region 2, 1", "Region 1, 2") == 0.0
        assert score_task(task, "Region 1", "Region 1, 2") == 0.0


def test_first_int_tasks():
    assert score_task("Direction_Recognition", "7 o'clock", "7 o'clock") == 1.0
    assert score_task("Direction_Recognition", "It is at 8 o'clock, not 7", "7 o'clock") == 0.0
    assert score_task("A2G_Path_Planning", "Direction 3", "Direction 3") == 1.0
    assert score_task("A2G_Path_Planning", "3", "Direction 3") == 1.0
    assert score_task("A2G_Path_Planning", "Direction three", "Direction 3") == 0.0


def test_option_letter_and_the_article_trap():
    assert score_task("A2A_Collaboration_Recognition", "D", "D") == 1.0
    assert score_task("A2G_Collaboration_Recognition", "(b)", "B") == 1.0  # upper-cased first
    # `\b([A-D])\b`: the leading article "A" is read as option A
    assert score_task("A2G_Collaboration_Recognition", "A good match is option C", "C") == 0.0
    assert score_task("A2G_Collaboration_Recognition", "A good match is option C", "A") == 1.0
    assert score_task("A2A_Collaboration_Recognition", "Candidate: BD", "B") == 0.0  # "BD" is no standalone letter


def test_pair_f1_multisets():
    gt = "6-11, 2-9, 4-12"
    assert score_task("A2A_Shared_Association", "6-11, 2 - 9, 4-12", gt) == pytest.approx(1.0)
    # 2 of 3 right, 1 wrong: P = 2/3, R = 2/3 → F1 = 2/3
    assert score_task("A2G_Shared_Association", "6-11, 2-9, 9-2", gt) == pytest.approx(2 / 3)
    # a duplicated pair counts once in the intersection: P = 1/2, R = 1/3 → F1 = 0.4
    assert score_task("A2A_Shared_Association", "6-11, 6-11", gt) == pytest.approx(0.4)
    assert score_task("A2A_Shared_Association", "11-6", gt) == 0.0  # order inside a pair matters


def test_bbox_composite_formula_by_hand():
    gt = (0, 0, 100, 100)
    # shifted by 50 px in x: IoU = 50*100 / (2*10000 - 5000) = 1/3; centre dist 50, diag 100√2;
    # c_ctr = 1 - 50/141.42 = 0.64645; c_size = 1 → c = 0.16667 + 0.16161 + 0.25 = 0.57828
    expected = 0.5 / 3 + 0.25 * (1 - 50 / math.hypot(100, 100)) + 0.25
    assert bbox_composite((50, 0, 150, 100), gt) == pytest.approx(expected)
    assert score_task("A2A_Object_Matching", "[50, 0, 150, 100]", "[0, 0, 100, 100]") == 1.0
    # half-size box in the corner: IoU 0.25, centre dist 25√2, c_size 0.5 → 0.125 + 0.25*0.75 + 0.125 = 0.4375
    assert bbox_composite((0, 0, 50, 50), gt) == pytest.approx(0.4375)
    assert score_task("A2A_Object_Matching", "[0, 0, 50, 50]", "[0, 0, 100, 100]") == 0.0


def test_bbox_corners_are_sorted_and_region_fallback():
    assert score_task("A2A_Object_Matching", "[932, 249, 823, 189]", "[823, 189, 932, 249]") == 1.0
    assert score_task("A2A_Object_Matching", "[823, 189, 932]", "[823, 189, 932, 249]") == 0.0
    # GT with < 4 ints is a region answer: list equality
    assert score_task("A2A_Object_Matching", "Region 2", "Region 2") == 1.0
    assert answer_format("A2A_Object_Matching", "Region 2") == "region_list"
    assert answer_format("A2A_Object_Matching", "[823, 189, 932, 249]") == "bbox"


@pytest.mark.parametrize(
    ("pred", "gt", "expected"),
    [
        ("355", "5 degrees", 1.0),  # circular: 10° apart → correct iff ≤ 10
        ("354", "5 degrees", 0.0),  # 11°
        ("-160.0 degrees, -70.0 meters", "-160.0 degrees, -70.0 meters", 1.0),
        ("200 degrees, -61 meters", "-160.0 degrees, -70.0 meters", 1.0),  # 200 ≡ -160; |Δd| = 9
        ("-160 degrees, -59 meters", "-160.0 degrees, -70.0 meters", 0.0),  # |Δd| = 11 m
        ("-160 degrees", "-160.0 degrees, -70.0 meters", 0.0),  # count mismatch → 0
        ("-160 degrees, -70 meters, 3", "-160.0 degrees, -70.0 meters", 0.0),
        ("-160 degrees, 70 m", "-160 degrees", 0.0),
        ("1e999", "5", 0.0),  # infinite value
    ],
)
def test_camera_transformation(pred, gt, expected):
    assert score_task("A2A_Camera_Transformation", pred, gt) == expected


def test_camera_answer_format_by_number_count():
    assert answer_format("A2A_Camera_Transformation", "-160.0 degrees") == "angle"
    assert answer_format("A2A_Camera_Transformation", "-160.0 degrees, -70.0 meters") == "angle_distance"


def test_motion_uses_the_judge_and_token_f1_without_one():
    class Half:
        name = "half"

        def similarity(self, prediction, reference):
            return 0.5

    # token F1: 2 of 3 tokens match each way → 2/3
    assert score_task("Motion_Understanding", "drone rotates left", "drone rotates right") == pytest.approx(2 / 3)
    sample = Sample("Motion_Understanding_00001", "spatialuav", "Motion_Understanding", [], "q", "The drone rose.")
    result = score_detailed(sample, "The drone climbed.", judge=Half())
    assert result.score == 0.5 and result.judge == "half" and result.answer_format == "free_text"


def test_think_block_is_removed_and_synth_uses_the_same_rules():
    s = Sample("Region_Recognition_00001", "synth", "Region_Recognition", [], "q", "Region 3, 4.")
    assert score(s, "<think>Regions 1, 2, 3, 4 and 5 look like parking</think>Region 3, 4") == 1.0
    assert score_detailed(s, "Region 3").group == "semantic"


def test_unknown_task_is_scored_by_token_f1_as_officially():
    s = Sample("Region_Counting_00001", "spatialuav", "Region_Counting", [], "q", "three red cars")
    assert score(s, "three cars") == pytest.approx(0.8)  # P 2/2, R 2/3
    res = score_detailed(s, "three cars")
    assert res.answer_format == "free_text" and res.group == "unknown"
    with pytest.raises(KeyError, match="unknown SpatialUAV task"):
        spatialuav.task_spec("Nope")
