"""The detectors on real aerial thermal frames (HIT-UAV, Pascal VOC boxes), and what the plausibility filter of
``tools.perception.detect`` drops.

RGB person detector (``Config.yolo_weights``, forced with ``detector_domain="rgb"``): for each setting (confidence
threshold, whole frame or 3x upscaled and tiled) the Person boxes, the detections kept and dropped (with the
reasons), recall at IoU 0.5 and 0.3, precision at IoU 0.5, and the count error per frame (detections minus true
persons); plus whether a uniform grey frame gets any box. Ground truth: the VOC ``Person`` boxes in
``../shared/data/hit_uav_thermal/annotations_voc``.

Thermal detector (``Config.thermal_yolo_weights``, what grey/thermal frames get): per class AP50, recall and count
errors on the 12 shared frames and, with ``--hituav``, on HIT-UAV's held-out test split
(:mod:`benchmarks.measure.bench_detect_thermal`).

Usage: ``python -m benchmarks.measure.bench_detect [--hituav /tmp/hituav] [--out docs/figures/detect_thermal.json]``
"""

from __future__ import annotations

import argparse
import json
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from benchmarks.measure.bench_detect_thermal import iou

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data" / "hit_uav_thermal"
SETTINGS = {"conf0.25": dict(conf=0.25, tile=None, scale=1), "conf0.05": dict(conf=0.05, tile=None, scale=1),
            "conf0.05_x3_tiled": dict(conf=0.05, tile="auto", scale=3)}


def person_boxes(name: str) -> np.ndarray:
    root = ET.parse(DATA / "annotations_voc" / f"{name}.xml").getroot()
    return np.array([[float(o.find("bndbox").find(k).text) for k in ("xmin", "ymin", "xmax", "ymax")]
                     for o in root.iter("object") if o.find("name").text == "Person"]).reshape(-1, 4)


def run_setting(frames: list[str], conf: float, tile: str | None, scale: int) -> dict:
    from agent.config import Config
    from tools.common import load_image
    from tools.perception.detect import detect_report

    rgb_detector = Config.from_env(detector_domain="rgb")

    n_gt = hits50 = hits30 = n_det = tp50 = 0
    count_errors: list[int] = []
    reasons: Counter[str] = Counter()
    for name in frames:
        gt = person_boxes(name)
        img = load_image(DATA / "images" / f"{name}.jpg")
        if scale != 1:
            img = cv2.resize(img, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
        rep = detect_report(img, conf=conf, tile=tile, config=rgb_detector)
        reasons.update(why for _, why in rep.rejected)
        pred = np.array([d.bbox for d in rep.detections]).reshape(-1, 4) / scale
        count_errors.append(len(pred) - len(gt))
        n_gt += len(gt)
        n_det += len(pred)
        if len(gt) and len(pred):
            m = iou(gt, pred)
            hits50 += int((m.max(axis=1) >= 0.5).sum())
            hits30 += int((m.max(axis=1) >= 0.3).sum())
            tp50 += int((m.max(axis=0) >= 0.5).sum())
    return {"frames": len(frames), "person_boxes": n_gt, "detections": n_det, "rejected": dict(reasons),
            "recall_iou50": hits50 / n_gt if n_gt else None, "recall_iou30": hits30 / n_gt if n_gt else None,
            "precision_iou50": tp50 / n_det if n_det else None,
            "count_abs_error_mean": float(np.mean(np.abs(count_errors))), "count_errors": count_errors}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "figures" / "detect_thermal.json")
    parser.add_argument("--hituav", type=Path, help="folder holding HIT-UAV's normal_xml/ (adds its test split)")
    args = parser.parse_args()
    from agent.config import Config
    from benchmarks.measure import bench_detect_thermal as thermal
    from tools.perception.detect import detect_report

    frames = sorted(p.stem for p in (DATA / "images").glob("*.jpg"))
    grey = detect_report(np.full((480, 640, 3), 128, np.uint8), conf=0.05,
                         config=Config.from_env(detector_domain="rgb"))
    command = "python -m benchmarks.measure.bench_detect" + (f" --hituav {args.hituav}" if args.hituav else "")
    out: dict = {"command": command,
                 "data": "hit_uav_thermal (12 frames, VOC Person)",
                 "uniform_grey_640x480": {"detections": len(grey.detections),
                                          "rejected": [why for _, why in grey.rejected]},
                 "known_labels": grey.known_labels}
    for label, s in SETTINGS.items():
        out[label] = run_setting(frames, s["conf"], s["tile"], s["scale"])
        print(label, json.dumps({k: v for k, v in out[label].items() if k != "count_errors"}))
    out["thermal_detector"] = {"shared_frames": thermal.evaluate(thermal.shared_frames(DATA))}
    print("thermal, shared frames", json.dumps(out["thermal_detector"]["shared_frames"]))
    if args.hituav:
        out["thermal_detector"]["hituav_test"] = thermal.evaluate(thermal.split_frames(args.hituav, "test"))
        print("thermal, HIT-UAV test", json.dumps(out["thermal_detector"]["hituav_test"]))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
