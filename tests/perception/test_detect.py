"""Detection: bundled RGB person detector on real hit_uav_thermal frames, tiling/merging on the real Person boxes,
label maps, counting, 3x3 grid, and errors.

The bundled RGB detector was trained on ground-level RGB people and finds almost none of the small thermal Person
boxes (recall is measured and reported by benchmarks/measure/bench_detect.py); these tests check its contract, so
they force it on grey frames (``detector_domain="rgb"``; grey frames go to the thermal detector otherwise, see
tests/perception/test_thermal_detector.py).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from agent.config import Config, MissingWeightsError
from tools.common import ToolError
from tools.perception.detect import (
    Detection,
    count,
    detect,
    grid_location,
    label_map,
    merge_detections,
    model_labels,
    tile_origins,
)
from tools.perception.detect import DETECTOR_SIZE_PX, MAX_AUTO_TILES, auto_tile_size

FRAME = "1_60_30_0_00011"  # 31 Person boxes, 60 m, 30 deg oblique
RGB_DETECTOR = Config(detector_domain="rgb")


def person_boxes(data: Path, name: str) -> np.ndarray:
    root = ET.parse(data / "hit_uav_thermal" / "annotations_voc" / f"{name}.xml").getroot()
    boxes = [[float(o.find("bndbox").find(k).text) for k in ("xmin", "ymin", "xmax", "ymax")]
             for o in root.iter("object") if o.find("name").text == "Person"]
    return np.array(boxes)


def test_fall_detector_classes_mean_person_and_other_models_keep_names() -> None:
    assert label_map({0: "Normal", 1: "Fall"}) == {0: "person", 1: "person"}
    assert label_map({0: "person", 1: "bicycle", 2: "car"}) == {0: "person", 1: "bicycle", 2: "car"}
    assert label_map({0: "Pedestrian", 1: "Fall"}) == {0: "pedestrian", 1: "fall"}


def test_bundled_detector_on_real_thermal_frame(shared_data: Path) -> None:
    image = shared_data / "hit_uav_thermal" / "images" / f"{FRAME}.jpg"
    dets = detect(image, conf=0.05, tile=None, config=RGB_DETECTOR)
    assert model_labels() == ["person"]
    assert all(isinstance(d, Detection) and d.label == "person" for d in dets)
    scores = [d.score for d in dets]
    assert scores == sorted(scores, reverse=True) and all(0.05 <= s <= 1 for s in scores)
    for d in dets:
        x1, y1, x2, y2 = d.bbox
        assert -1 <= x1 < x2 <= 641 and -1 <= y1 < y2 <= 513
    assert count(dets, "Person") == len(dets)
    with pytest.raises(ToolError, match=r"not known to this detector; it reports \['person'\]"):
        detect(image, labels=["car"], config=RGB_DETECTOR)


def test_tiles_hold_every_real_person_whole(shared_data: Path) -> None:
    """On a 3x upscaled real frame (1920x1536) each annotated person lies wholly inside some 640 px tile."""
    boxes = person_boxes(shared_data, FRAME) * 3
    origins = tile_origins(1920, 1536, 640)
    covered = np.zeros((1536, 1920), bool)
    for x, y in origins:
        covered[y : y + 640, x : x + 640] = True
        assert x + 640 <= 1920 and y + 640 <= 1536
    assert covered.all()
    for b in boxes:
        assert any(x <= b[0] and y <= b[1] and b[2] <= x + 640 and b[3] <= y + 640 for x, y in origins), b


@pytest.mark.parametrize("size", [(1920, 1536), (4000, 2250), (8192, 5460), (700, 7000)])
def test_auto_tiles_are_few_and_cover_the_frame(size: tuple[int, int]) -> None:
    """"auto" keeps native 640 px tiles while they are at most MAX_AUTO_TILES (the 3x thermal frame's 12), else
    grows the tiles; every pixel of the frame is in some tile and no tile leaves it."""
    w, h = size
    side = auto_tile_size(w, h)
    origins = tile_origins(w, h, side)
    assert len(origins) <= MAX_AUTO_TILES and side >= DETECTOR_SIZE_PX
    assert (side == DETECTOR_SIZE_PX) == (len(tile_origins(w, h, DETECTOR_SIZE_PX)) <= MAX_AUTO_TILES)
    covered = np.zeros((h, w), bool)
    for x, y in origins:
        covered[y : y + side, x : x + side] = True
        assert x + min(side, w) <= w and y + min(side, h) <= h
    assert covered.all()


def test_merge_keeps_whole_real_boxes_and_drops_tile_fragments(shared_data: Path) -> None:
    boxes = person_boxes(shared_data, FRAME)
    whole = [(b, 0.9) for b in boxes]
    # a tile border through the middle of each person leaves two fragments with lower scores
    frags = []
    for b in boxes:
        mid = (b[0] + b[2]) / 2
        frags += [(np.array([b[0], b[1], mid, b[3]]), 0.5), (np.array([mid, b[1], b[2], b[3]]), 0.4)]
    allb = np.array([b for b, _ in whole + frags])
    scores = np.array([s for _, s in whole + frags])
    keep = merge_detections(allb, scores, ["person"] * len(allb))
    assert sorted(keep) == list(range(len(boxes)))
    # a different class at the same place is kept
    keep2 = merge_detections(allb[:2], scores[:2], ["person", "car"])
    assert sorted(keep2) == [0, 1]


def test_custom_model_keeps_its_own_names(tmp_path: Path) -> None:
    """A (randomly initialised) VisDrone-style checkpoint loads by configuration and reports its own labels."""
    from ultralytics import YOLO
    from ultralytics.nn.tasks import DetectionModel

    names = ["pedestrian", "people", "bicycle", "car", "van", "truck", "tricycle", "awning-tricycle", "bus", "motor"]
    model = YOLO("yolov8n.yaml")
    model.model = DetectionModel("yolov8n.yaml", nc=len(names), verbose=False)
    model.model.names = dict(enumerate(names))
    path = tmp_path / "visdrone_random.pt"
    model.save(str(path))
    cfg = Config(yolo_weights=str(path), detector_domain="rgb")
    assert model_labels(cfg) == sorted(names)
    dets = detect(np.zeros((96, 128, 3), np.uint8), labels=["car", "van"], conf=0.01, config=cfg)
    assert all(d.label in {"car", "van"} for d in dets)


def test_missing_weights_name_the_setting() -> None:
    with pytest.raises(MissingWeightsError, match="yolo_weights"):
        detect(np.zeros((32, 32, 3), np.uint8), config=Config(yolo_weights="/nonexistent/best.pt",
                                                               detector_domain="rgb"))


@pytest.mark.parametrize("kwargs,match", [({"conf": 1.5}, "conf"), ({"tile": 10}, "tile"), ({"tile": "big"}, "tile")])
def test_bad_arguments(kwargs: dict, match: str) -> None:
    with pytest.raises(ToolError, match=match):
        detect(np.zeros((32, 32, 3), np.uint8), **kwargs)


def test_bad_image() -> None:
    with pytest.raises(ToolError, match="not found"):
        detect("/nonexistent/frame.jpg")


def test_count_is_case_insensitive() -> None:
    dets = [Detection("person", 0.9, [0, 0, 1, 1]), Detection("car", 0.8, [0, 0, 1, 1]),
            Detection("Person", 0.7, [0, 0, 1, 1])]
    assert count(dets, "person") == 2 and count(dets, "CAR") == 1 and count(dets, "bus") == 0


@pytest.mark.parametrize("bbox,cell", [([0, 0, 10, 10], "top-left"), ([300, 0, 340, 20], "top"),
                                       ([600, 5, 640, 40], "top-right"), ([0, 230, 20, 250], "left"),
                                       ([310, 230, 330, 250], "center"), ([620, 230, 640, 250], "right"),
                                       ([0, 470, 10, 480], "bottom-left"), ([300, 460, 340, 480], "bottom"),
                                       ([630, 470, 640, 480], "bottom-right")])
def test_grid_location_on_a_640x480_frame(bbox: list[float], cell: str) -> None:
    assert grid_location(bbox, (640, 480)) == cell


def test_grid_location_uses_width_then_height() -> None:
    # centre (500, 100) in a 600 wide, 1200 tall frame: right third horizontally, top third vertically
    assert grid_location([490, 90, 510, 110], (600, 1200)) == "top-right"
    with pytest.raises(ToolError, match="positive"):
        grid_location([0, 0, 1, 1], (0, 10))
    with pytest.raises(ToolError, match="out of order"):
        grid_location([5, 0, 1, 1], (10, 10))


def test_loading_the_detector_keeps_pillow_errors_plain(tmp_path) -> None:
    """ultralytics patches PIL.Image.open to pip-install a plugin on unknown files; we undo that (air-gapped)."""
    from PIL import Image, UnidentifiedImageError

    from agent.config import Config
    from tools.perception.detect import _load_model

    _load_model(Config.from_env().resolved_yolo_weights())
    bad = tmp_path / "not_an_image.png"
    bad.write_bytes(b"this is text")
    with pytest.raises(UnidentifiedImageError):
        Image.open(bad)


@pytest.mark.parametrize("user_threads", [None, "1"])
def test_inference_runs_on_every_core_unless_the_user_limits_threads(user_threads: str | None) -> None:
    """ultralytics sets torch to cpu_count - 1 threads (meant for training; 1 on 2 cores halves the speed); detect
    runs with OMP_NUM_THREADS when the user set it, else with every core. Fresh process: thread settings are global."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
    env["UAV_AGENT_DETECTOR_DOMAIN"] = "rgb"  # the bundled detector, whatever else is installed
    if user_threads:
        env["OMP_NUM_THREADS"] = user_threads
    code = ("import numpy as np, torch; from tools.perception.detect import detect; "
            "detect(np.zeros((64, 64, 3), np.uint8), tile=None); print(torch.get_num_threads())")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300,
                         cwd=Path(__file__).resolve().parents[2])
    assert out.returncode == 0, out.stderr
    assert int(out.stdout.strip().splitlines()[-1]) == int(user_threads or os.cpu_count())


# --- plausibility of boxes, what the detector knows, whether its counts mean anything -----------------------------


def test_uniform_grey_frame_gets_no_box() -> None:
    from tools.perception.detect import detect_report

    rep = detect_report(np.full((480, 640, 3), 128, np.uint8), conf=0.05, config=RGB_DETECTOR)
    assert rep.detections == [] and rep.known_labels == ["person"]
    assert not rep.count_reliable and "thermal" in rep.reason  # a single-channel frame


def test_real_thermal_frame_no_whole_frame_box_and_counts_flagged(shared_data: Path) -> None:
    from tools.perception.detect import detect_report

    image = shared_data / "hit_uav_thermal" / "images" / "0_60_90_0_01830.jpg"  # 14 Person boxes (README)
    rep = detect_report(image, conf=0.05, config=RGB_DETECTOR)
    for d in rep.detections:
        x1, y1, x2, y2 = d.bbox
        assert (x2 - x1) < 0.9 * 640 or (y2 - y1) < 0.9 * 512, d
    assert not rep.count_reliable and "thermal" in rep.reason


def test_implausible_boxes_are_named() -> None:
    from tools.perception.detect import implausible

    rng = np.random.default_rng(3)
    gray = rng.integers(0, 255, (512, 640)).astype(float)
    gray[100:200, 100:200] = 90.0  # a flat patch
    frame = (0, 0, 640, 512)
    tile = (0, 0, 300, 300)

    def why(box: list[float], view: tuple = frame, from_tile: bool = False, gsd: float | None = None) -> str | None:
        return implausible(Detection("person", 0.5, box), view, from_tile, gray, gsd)

    assert "whole detector view" in why([2, 0, 639, 512])
    assert why([0, 0, 639, 200]) is None  # wide but not the whole view
    assert "whole tile" in why([10, 0, 60, 290], tile, from_tile=True)
    assert why([10, 0, 60, 290]) is None  # the same box from the whole-frame pass
    assert "uniform" in why([120, 120, 180, 180])
    assert "larger than a person" in why([300, 300, 400, 360], gsd=0.05)  # 5 m on the ground
    assert why([300, 300, 340, 360], gsd=0.05) is None  # 3 m tall box of a lying person: 40 x 60 px at 5 cm


def test_mcp_detect_reports_labels_reliability_and_rejections(shared_data: Path, tmp_path: Path) -> None:
    import anyio
    import cv2

    from mcp_server.client import call_full, connect

    cv2.imwrite(str(tmp_path / "grey.png"), np.full((480, 640, 3), 128, np.uint8))
    config = Config(allowed_roots=[str(tmp_path), str(shared_data)], call_timeout_s=180.0, detector_domain="rgb")

    async def go(path: Path) -> dict:
        async with connect(config) as session:
            return (await call_full(session, "detect", {"image": str(path), "conf": 0.05})).data

    grey = anyio.run(go, tmp_path / "grey.png")
    assert grey["detections"] == [] and grey["counts"] == {} and grey["known_labels"] == ["person"]
    assert grey["rejected"] and grey["rejected"][0]["why"].startswith("fills the whole")
    assert grey["count_reliable"] is False and grey["reason"] and grey["model"] == "rgb (best.pt)"
