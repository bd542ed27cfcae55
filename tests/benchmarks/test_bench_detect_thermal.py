"""The thermal detector's measures: one-to-one box matching, VOC average precision, count tolerance, VOC reading."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from benchmarks.measure.bench_detect_thermal import average_precision, match, voc_truth, within


def test_each_true_box_matches_one_detection_best_score_first() -> None:
    truth = np.array([[0, 0, 10, 10], [20, 20, 30, 30]], float)
    boxes = np.array([[0, 0, 10, 10], [1, 0, 11, 10], [50, 50, 60, 60], [20, 20, 30, 31]], float)
    scores = np.array([0.6, 0.9, 0.8, 0.7])
    # the 0.9 box takes the first true box (IoU 0.82), its 0.6 duplicate is a false positive
    assert match(truth, boxes, scores).tolist() == [False, True, False, True]


def test_average_precision_of_ranked_hits() -> None:
    assert average_precision(np.array([0.9, 0.8]), np.array([True, True]), 2) == pytest.approx(1.0)
    # a false positive ranked first: precision 1/2 at recall 1/2 and 2/3 at recall 1 -> 0.5 * 2/3 + 0.5 * 2/3
    assert average_precision(np.array([0.9, 0.8, 0.7]), np.array([False, True, True]), 2) == pytest.approx(2 / 3)
    assert average_precision(np.array([0.9]), np.array([True]), 2) == pytest.approx(0.5)  # half the boxes missed
    assert average_precision(np.array([]), np.array([], bool), 0) is None


def test_a_count_is_right_within_one_or_ten_percent() -> None:
    assert within(1, 3) and not within(2, 3)
    assert within(3, 30) and not within(4, 30)
    assert within(0, 0) and within(1, 0)


def test_voc_truth_reads_the_known_classes(shared_data: Path) -> None:
    truth = voc_truth(shared_data / "hit_uav_thermal" / "annotations_voc" / "1_60_30_0_00011.xml")
    assert {k: len(v) for k, v in truth.items()} == {"person": 31}  # README: Person 31, DontCare 1 (ignored)
    assert (truth["person"][:, 2:] > truth["person"][:, :2]).all()
