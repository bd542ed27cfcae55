"""Per-class count thresholds and the count accuracy by detected count, on per-frame scores with known truths."""

from __future__ import annotations

import numpy as np

from training.thermal_calibrate import (MIN_BUCKET_FRAMES, NMS_CANDIDATES, accuracy_by_detected, best_threshold,
                                      calibrate, choose_nms_iou, suppressed_scores)


def test_the_threshold_counting_most_frames_right_is_chosen() -> None:
    # true objects score 0.6, clutter 0.2: any threshold in (0.2, 0.6] counts every frame exactly
    frames = [([0.6] * n + [0.2] * 3, n) for n in (0, 1, 4, 9)]
    thr, share, mae = best_threshold(frames)
    assert 0.2 < thr <= 0.6 and share == 1.0 and mae == 0.0


def test_accuracy_by_detected_count_merges_buckets_too_small_to_measure() -> None:
    sparse = [([0.9] * 2, 2)] * MIN_BUCKET_FRAMES  # 2 found, 2 true: right
    crowds = [([0.9] * 7, 20)] * (MIN_BUCKET_FRAMES - 1) + [([0.9] * 7, 7)]  # 7 found of 20: wrong, but once
    few_big = [([0.9] * 30, 30)] * 3  # too few frames for a bucket of its own: merged into the one below
    rows = accuracy_by_detected(sparse + crowds + few_big, 0.5)
    assert [r["detected_from"] for r in rows] == [1, 6]
    assert rows[0] == {"detected_from": 1, "frames": MIN_BUCKET_FRAMES, "within_10pct_or_1": 1.0}
    assert rows[1]["frames"] == MIN_BUCKET_FRAMES + 3 and rows[1]["within_10pct_or_1"] == 4 / (MIN_BUCKET_FRAMES + 3)


def test_the_sidecar_document_names_size_thresholds_and_accuracies() -> None:
    frame = {"person": ([0.7, 0.1], 1), "car": ([], 0), "bicycle": ([0.8], 1), "other_vehicle": ([], 0)}
    doc = calibrate([frame] * 25, 640)
    assert doc["imgsz"] == 640 and set(doc["score_thresholds"]) == {"person", "car", "bicycle", "other_vehicle"}
    person = doc["val_counts"]["person"]
    assert person["val_within_10pct_or_1"] == 1.0 and person["by_detected_count"][0]["within_10pct_or_1"] == 1.0


def _raw_frame(boxes: list[list[float]], scores: list[float], labels: list[str], rejected: list[bool],
               truth: dict[str, int]):
    counts = {label: truth.get(label, 0) for label in ("person", "car", "bicycle", "other_vehicle")}
    return (np.array(boxes, float).reshape(-1, 4), np.array(scores, float), labels, np.array(rejected, bool), counts)


def test_suppression_is_per_class_and_a_dropped_box_still_suppresses() -> None:
    twin = [[0, 0, 10, 10], [0, 0, 10, 8]]  # IoU 0.8
    frame = _raw_frame(twin + twin, [0.9, 0.8, 0.7, 0.6], ["person", "person", "car", "car"],
                       [False, False, True, False], {"person": 1, "car": 1})
    kept = suppressed_scores([frame], 0.7)[0]
    assert kept["person"] == ([0.9], 1)  # the twin suppressed
    assert kept["car"] == ([], 1)  # the implausible car box suppressed its twin, then was dropped itself
    assert suppressed_scores([frame], 0.9)[0]["person"] == ([0.9, 0.8], 1)


def test_the_suppression_iou_counting_most_frames_right_is_chosen() -> None:
    # three people per frame, each found twice by boxes overlapping at IoU 0.55 with the same score: only a
    # suppression IoU under 0.55 counts them right; frames without anyone are right at every IoU
    shift = 10 * (1 - 0.55) / (1 + 0.55)  # two 10x10 boxes this far apart overlap at IoU 0.55

    def person(x: float) -> list[list[float]]:
        return [[x, 0, x + 10, 10], [x + shift, 0, x + shift + 10, 10]]
    boxes = [b for x in (0, 50, 100) for b in person(x)]
    crowd = _raw_frame(boxes, [0.8] * 6, ["person"] * 6, [False] * 6, {"person": 3})
    empty = _raw_frame([], [], [], [], {})
    iou, right = choose_nms_iou([crowd] * 5 + [empty] * 5)
    assert iou == min(NMS_CANDIDATES) and right[min(NMS_CANDIDATES)] > right[max(NMS_CANDIDATES)]
    iou, _ = choose_nms_iou([empty] * 5)
    assert iou == max(NMS_CANDIDATES)  # a tie keeps the larger IoU


def test_the_sidecar_names_the_suppression_iou_it_was_calibrated_with() -> None:
    frame = {"person": ([0.7], 1), "car": ([], 0), "bicycle": ([], 0), "other_vehicle": ([], 0)}
    assert calibrate([frame] * 3, 640, 0.6)["nms_iou"] == 0.6
    assert "nms_iou" not in calibrate([frame] * 3, 640)


def test_validation_frames_of_the_held_out_scenes_are_not_calibrated_on(tmp_path) -> None:
    from training.thermal_calibrate import calibration_frames
    from training.thermal_data import FrameName

    sets = tmp_path / "normal_xml" / "ImageSets" / "Main"
    sets.mkdir(parents=True)
    # a held-out frame itself, a near neighbour of it, the same flight far away, and another flight
    sets.joinpath("val.txt").write_text("0_60_30_0_01609\n0_60_30_0_01650\n0_60_30_0_05000\n1_60_30_0_01609\n")
    frames = calibration_frames(tmp_path, [FrameName("0_60_30_0", 1609)])
    assert [image.stem for image, _ in frames] == ["0_60_30_0_05000", "1_60_30_0_01609"]
