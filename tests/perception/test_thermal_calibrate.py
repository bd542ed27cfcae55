"""Per-class count thresholds and the count accuracy by detected count, on per-frame scores with known truths."""

from __future__ import annotations

from training.thermal_calibrate import MIN_BUCKET_FRAMES, accuracy_by_detected, best_threshold, calibrate


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
