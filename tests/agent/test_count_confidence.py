"""A count answer says which detector counted, what it knows, and is as confident as its measured count accuracy
(for frames where the detector found as many objects).

Truth of the measured accuracy: the calibration written beside the shipped thermal weights
(``tools/weights/thermal_detector.json``, by ``training/thermal_calibrate.py`` on HIT-UAV's validation split).
"""

from __future__ import annotations

import json
import re

import pytest

from agent.agent import Agent
from agent.config import Config, MissingWeightsError
from planners.plans import UNMEASURED_COUNT_CONFIDENCE, count_confidence


def test_the_confidence_of_a_count_is_the_least_measured_accuracy_of_the_labels_summed() -> None:
    accuracy = {"car": 0.82, "other_vehicle": 0.99, "person": 0.68}
    assert count_confidence(accuracy, ["car"])[0] == 0.82
    conf, note = count_confidence(accuracy, ["car", "other_vehicle"])
    assert conf == 0.82 and "82%" in note and "car/other_vehicle" in note
    # a label never measured (or a detector without calibration): the fixed confidence, no claim of a measurement
    assert count_confidence(accuracy, ["bicycle"]) == (UNMEASURED_COUNT_CONFIDENCE, "")
    assert count_confidence({}, ["person"]) == (UNMEASURED_COUNT_CONFIDENCE, "")


def test_a_thermal_count_answer_names_its_detector_and_carries_its_measured_accuracy(shared_data) -> None:
    cfg = Config.from_env()
    try:
        weights = cfg.resolved_thermal_yolo_weights()
    except MissingWeightsError:
        pytest.skip("thermal detector weights not installed")
    sidecar = json.loads(open(weights.removesuffix(".pt") + ".json").read())
    frame = shared_data / "hit_uav_thermal" / "images" / "0_100_60_0_08194.jpg"
    a = Agent(cfg, use_embeddings=False).ask([frame], "How many cars are in this thermal frame?")
    assert not a.abstained, a.reason
    n = int(re.match(r"\d+", a.text).group())
    rows = sidecar["val_counts"]["car"]["by_detected_count"]
    assert a.confidence == pytest.approx([r["within_10pct_or_1"] for r in rows if r["detected_from"] <= n][-1])
    assert "thermal_detector.pt" in a.reason and "bicycle" in a.reason and "validation frames" in a.reason
