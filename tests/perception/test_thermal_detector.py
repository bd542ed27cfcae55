"""The thermal detector: which detector a frame gets, loading its weights, and a count on a real HIT-UAV frame.

Ground truth of the count: the frame's Pascal VOC boxes in ``../shared/data/hit_uav_thermal/annotations_voc``
(the shipped weights were trained with every flight of those frames left out, see ``training/thermal_data.py``).
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from agent.config import Config, MissingWeightsError
from tools.common import ToolError
from tools.perception.detect import detect_report, label_map
from tools.perception.detector_choice import choose_detector, image_domain

THERMAL_CLASSES = ["Person", "Car", "Bicycle", "OtherVehicle"]  # HIT-UAV's classes, the shipped weights' order


def _colour_frame() -> np.ndarray:
    rng = np.random.default_rng(0)
    return rng.integers(0, 255, (64, 80, 3), dtype=np.uint8)


def _grey_frame() -> np.ndarray:
    grey = np.random.default_rng(1).integers(0, 255, (64, 80), dtype=np.uint8)
    return np.repeat(grey[:, :, None], 3, axis=2)  # a thermal JPEG decodes to three equal channels


def test_grey_frames_go_to_the_thermal_detector_and_colour_photos_to_the_rgb_one() -> None:
    cfg = Config()
    assert image_domain(_grey_frame(), cfg) == "thermal"
    assert image_domain(_grey_frame()[:, :, 0], cfg) == "thermal"
    assert image_domain(_colour_frame(), cfg) == "rgb"


def test_the_configured_domain_overrides_the_choice() -> None:
    assert image_domain(_grey_frame(), Config(detector_domain="rgb")) == "rgb"
    assert image_domain(_colour_frame(), Config(detector_domain="thermal")) == "thermal"
    with pytest.raises(ToolError, match="detector_domain"):
        image_domain(_grey_frame(), Config(detector_domain="infrared"))


def test_missing_thermal_weights_name_their_setting(tmp_path: Path) -> None:
    cfg = Config(thermal_yolo_weights=str(tmp_path / "absent.pt"))
    with pytest.raises(MissingWeightsError, match="thermal_yolo_weights"):
        detect_report(_grey_frame(), config=cfg)
    # a colour photo does not need them
    assert choose_detector(_colour_frame(), cfg).setting == "yolo_weights"


def test_hit_uav_class_names_become_snake_case_labels() -> None:
    assert label_map(dict(enumerate(THERMAL_CLASSES))) == {0: "person", 1: "car", 2: "bicycle", 3: "other_vehicle"}


@pytest.fixture(scope="module")
def random_thermal_weights(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A randomly initialised model of the shipped architecture (YOLOv8s, HIT-UAV's four classes)."""
    from ultralytics import YOLO
    from ultralytics.nn.tasks import DetectionModel

    model = YOLO("yolov8s.yaml")
    model.model = DetectionModel("yolov8s.yaml", nc=len(THERMAL_CLASSES), verbose=False)
    model.model.names = dict(enumerate(THERMAL_CLASSES))
    path = tmp_path_factory.mktemp("weights") / "thermal_random.pt"
    model.save(str(path))
    return path


def test_a_random_model_of_the_shipped_architecture_answers_for_grey_frames(random_thermal_weights: Path) -> None:
    rep = detect_report(_grey_frame(), conf=0.01, config=Config(thermal_yolo_weights=str(random_thermal_weights)))
    assert rep.model == "thermal (thermal_random.pt)"
    assert rep.known_labels == ["bicycle", "car", "other_vehicle", "person"] and rep.count_reliable
    assert all(d.label in rep.known_labels for d in rep.detections)


def test_calibrated_thresholds_beside_the_weights_apply_when_no_threshold_is_given(random_thermal_weights: Path,
                                                                                   tmp_path: Path) -> None:
    weights = tmp_path / "thermal.pt"
    weights.write_bytes(random_thermal_weights.read_bytes())
    cfg = Config(thermal_yolo_weights=str(weights))
    every = detect_report(_grey_frame(), conf=0.0, config=cfg).detections  # a random model's scores are tiny
    scores = sorted(d.score for d in every)
    assert len(set(scores)) > 1
    cut = scores[len(scores) // 2]
    weights.with_suffix(".json").write_text(json.dumps({"score_thresholds": {d.label: cut for d in every}}))
    kept = detect_report(_grey_frame(), config=cfg).detections
    assert kept and all(d.score >= cut for d in kept) and len(kept) < len(every)


def test_unreadable_thresholds_are_a_clear_error(random_thermal_weights: Path, tmp_path: Path) -> None:
    weights = tmp_path / "thermal_bad.pt"
    weights.write_bytes(random_thermal_weights.read_bytes())
    weights.with_suffix(".json").write_text('{"thresholds": 0.3}')
    with pytest.raises(ToolError, match="score thresholds"):
        detect_report(_grey_frame(), config=Config(thermal_yolo_weights=str(weights)))


def _voc_count(xml: Path, name: str) -> int:
    return sum(o.findtext("name") == name for o in ET.parse(xml).getroot().iter("object"))


def test_shipped_thermal_detector_counts_cars_on_a_real_frame(shared_data: Path) -> None:
    """Cars, the class the shipped weights count best on HIT-UAV's test split (docs/figures/detect_thermal.json)."""
    try:
        Config.from_env().resolved_thermal_yolo_weights()
    except MissingWeightsError:
        pytest.skip("thermal detector weights not installed")
    frame = "0_100_60_0_08194"  # 100 m, 60 deg oblique: 15 Car and 27 Bicycle boxes
    data = shared_data / "hit_uav_thermal"
    truth = _voc_count(data / "annotations_voc" / f"{frame}.xml", "Car")
    rep = detect_report(data / "images" / f"{frame}.jpg")
    counted = sum(d.label == "car" for d in rep.detections)
    assert rep.model == "thermal (thermal_detector.pt)" and rep.count_reliable
    assert abs(counted - truth) <= max(2, 0.15 * truth), (counted, truth)


def _random_model_setup(random_weights: Path, path: Path, seed: int) -> tuple[Path, np.ndarray, Config]:
    """A copy of the random thermal weights at ``path`` (its calibration file beside it is the test's), a noise
    frame and the configuration that uses the copy."""
    path.write_bytes(random_weights.read_bytes())
    frame = np.repeat(np.random.default_rng(seed).integers(0, 255, (96, 120), dtype=np.uint8)[:, :, None], 3, axis=2)
    return path, frame, Config(thermal_yolo_weights=str(path))


def test_the_calibrated_input_size_is_the_size_the_whole_frame_is_seen_at(random_thermal_weights: Path,
                                                                         tmp_path: Path) -> None:
    weights, frame, cfg = _random_model_setup(random_thermal_weights, tmp_path / "thermal_sized.pt", 2)
    scores = {px: [round(d.score, 6) for d in detect_report(frame, conf=0.0, tile=None, config=cfg,
                                                            input_px=px).detections] for px in (128, 320)}
    assert scores[128] != scores[320]  # the input size changes what a random model outputs
    accuracy = {"person": 0.68, "car": 0.82, "bicycle": 0.89, "other_vehicle": 0.99}
    weights.with_suffix(".json").write_text(json.dumps({
        "score_thresholds": {k: 0.0 for k in accuracy}, "imgsz": 320,
        "val_counts": {k: {"val_within_10pct_or_1": v} for k, v in accuracy.items()}}))
    rep = detect_report(frame, tile=None, config=cfg)
    assert [round(d.score, 6) for d in rep.detections] == scores[320]
    assert rep.count_accuracy == accuracy
    # a threshold of the caller's own: the measured count accuracy (at the calibrated thresholds) does not apply
    assert detect_report(frame, conf=0.0, tile=None, config=cfg).count_accuracy == {}


@pytest.mark.parametrize("key,value", [("imgsz", "large"), ("imgsz", 0), ("imgsz", 640.5), ("imgsz", True),
                                       ("nms_iou", 0), ("nms_iou", 1.5), ("nms_iou", "loose"), ("nms_iou", True)])
def test_an_unusable_calibrated_setting_is_a_clear_error(random_thermal_weights: Path, tmp_path: Path, key: str,
                                                         value: object) -> None:
    """An input size or suppression IoU in the weights' calibration file that the detector cannot run with."""
    weights = tmp_path / "thermal_bad.pt"
    weights.write_bytes(random_thermal_weights.read_bytes())
    weights.with_suffix(".json").write_text(json.dumps({"score_thresholds": {"car": 0.5}, key: value}))
    with pytest.raises(ToolError, match=f"{key}|score thresholds"):
        detect_report(_grey_frame(), config=Config(thermal_yolo_weights=str(weights)))


def test_the_count_accuracy_is_the_one_measured_for_as_many_detections(tmp_path: Path) -> None:
    from tools.perception.detector_choice import DetectorChoice

    weights = tmp_path / "thermal_buckets.pt"
    rows = [{"detected_from": 0, "frames": 120, "within_10pct_or_1": 0.9},
            {"detected_from": 6, "frames": 40, "within_10pct_or_1": 0.45},
            {"detected_from": 16, "frames": 0, "within_10pct_or_1": None}]
    weights.with_suffix(".json").write_text(json.dumps({"score_thresholds": {"person": 0.3, "car": 0.5}, "val_counts": {
        "person": {"val_within_10pct_or_1": 0.7, "by_detected_count": rows},
        "car": {"val_within_10pct_or_1": 0.8}}}))
    choice = DetectorChoice("thermal", str(weights), "thermal_yolo_weights")
    assert choice.count_accuracy({"person": 0, "car": 30}) == {"person": 0.9, "car": 0.8}
    assert choice.count_accuracy({"person": 5}) == {"person": 0.9}
    assert choice.count_accuracy({"person": 6, "bicycle": 2}) == {"person": 0.45}
    assert choice.count_accuracy({"person": 40}) == {"person": 0.45}  # no frame measured from 16 up


def test_the_calibrated_suppression_iou_is_the_one_the_detector_runs_with(random_thermal_weights: Path,
                                                                        tmp_path: Path) -> None:
    weights, frame, cfg = _random_model_setup(random_thermal_weights, tmp_path / "thermal_nms.pt", 3)

    def boxes(rep) -> list[tuple]:
        return [(d.label, round(d.score, 6)) for d in rep.detections]

    # max_det far above the candidates: a cap reached at both IoUs would hide the suppression
    loose, tight = (boxes(detect_report(frame, conf=0.0, tile=None, config=cfg, nms_iou=iou, max_det=30000))
                    for iou in (1.0, 0.3))
    assert len(tight) < len(loose)  # a random model's boxes overlap: a lower IoU suppresses more of them
    weights.with_suffix(".json").write_text(json.dumps({"score_thresholds": {k: 0.0 for k in ("person", "car")},
                                                        "nms_iou": 0.3}))
    assert boxes(detect_report(frame, conf=0.0, tile=None, config=cfg)) == tight
