"""Perception figures: ground-plane distance ranking on exact renders, detector speed, thermal person recall.

Run: ``.venv/bin/python -m benchmarks.measure.bench_perception [--scenes 300] [--speed-runs 10]``; prints the figures
and writes ``docs/figures/perception.json``.

1. Ranking: random cameras (pitch −90…−20 deg, roll ±5 deg, altitude 20–150 m, f = 1000 px, 1280x720) look at
   6 random cuboid objects (people 0.6x0.6x1.7 m, cars 4.5x1.9x1.5 m, random yaw) on flat ground. Each object's box
   is the exact bounding box of its 8 projected corners (``benchmarks/synth/camera.py``), i.e. what a perfect
   detector would draw; a second run jitters every box edge by N(0, 5 % of the box size) like a real detector.
   Truth: horizontal distance from the drone's nadir point to the object's footprint centre. Score: fraction of
   object pairs put in the true order. Also: the same with the altitude unknown (must be identical), and with the
   pitch unknown (the documented default assumed).
2. Detector speed: bundled YOLOv8s person detector, 640x640 input, CPU, median of timed runs after a warm-up;
   wall time and process CPU time (both threads), with the machine's load average (the machine is shared).
3. Recall on the real Person boxes of ``../shared/data/hit_uav_thermal`` (IoU >= 0.5 and >= 0.3).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import time
from itertools import combinations
from pathlib import Path

import numpy as np

from benchmarks.synth.camera import PinholeCamera
from benchmarks.measure.bench_detect import iou, person_boxes
from tools.geometry.ground import CameraGeometry, rank_by_distance

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data" / "hit_uav_thermal"
OBJECTS = {"person": (0.6, 0.6, 1.7), "car": (4.5, 1.9, 1.5)}  # length, width, height in metres
MAX_RANGE_M = 300.0


def cuboid_corners(x: float, y: float, yaw: float, size: tuple[float, float, float]) -> np.ndarray:
    """(8, 3) world corners of an object standing on the ground at (x, y), heading ``yaw`` radians."""
    length, width, height = size
    c, s = math.cos(yaw), math.sin(yaw)
    pts = []
    for dl in (-length / 2, length / 2):
        for dw in (-width / 2, width / 2):
            for z in (0.0, height):
                pts.append([x + dl * s + dw * c, y + dl * c - dw * s, z])
    return np.array(pts)


def random_scene(rng: np.random.Generator, n_objects: int = 6) -> tuple[PinholeCamera, list, list[float]]:
    """A camera and up to ``n_objects`` fully visible objects: (camera, boxes, true horizontal distances)."""
    cam = PinholeCamera(x=0.0, y=0.0, altitude=float(rng.uniform(20, 150)), yaw_deg=float(rng.uniform(0, 360)),
                        pitch_deg=float(rng.uniform(-90, -20)), roll_deg=float(rng.uniform(-5, 5)))
    boxes, dists = [], []
    for _ in range(200):
        if len(boxes) == n_objects:
            break
        px = np.array([[rng.uniform(0, cam.width), rng.uniform(0, cam.height)]])
        xy = cam.image_to_ground(px)[0]
        dist = float(np.hypot(*(xy - [cam.x, cam.y])))
        if not np.isfinite(dist) or dist > MAX_RANGE_M:
            continue
        kind = "person" if rng.random() < 0.5 else "car"
        uv, z = cam.project(cuboid_corners(xy[0], xy[1], rng.uniform(0, 2 * math.pi), OBJECTS[kind]))
        if (z <= 0).any():
            continue
        box = [uv[:, 0].min(), uv[:, 1].min(), uv[:, 0].max(), uv[:, 1].max()]
        if box[0] < 0 or box[1] < 0 or box[2] > cam.width or box[3] > cam.height:
            continue
        boxes.append([float(v) for v in box])
        dists.append(dist)
    return cam, boxes, dists


def jitter(boxes: list, rng: np.random.Generator, frac: float = 0.05) -> list:
    out = []
    for x1, y1, x2, y2 in boxes:
        w, h = x2 - x1, y2 - y1
        n = rng.normal(0, frac, 4) * [w, h, w, h]
        a, b, c, d = x1 + n[0], y1 + n[1], x2 + n[2], y2 + n[3]
        out.append([min(a, c), min(b, d), max(a, c), max(b, d)])
    return out


def pair_accuracy(order: list[int], dists: list[float]) -> tuple[int, int]:
    """(correct pairs, pairs) of a predicted nearest-first order against true distances."""
    rank = {i: r for r, i in enumerate(order)}
    pairs = list(combinations(range(len(dists)), 2))
    ok = sum((rank[i] < rank[j]) == (dists[i] < dists[j]) for i, j in pairs)
    return ok, len(pairs)


def ranking_figures(n_scenes: int, seed: int = 7) -> dict:
    rng = np.random.default_rng(seed)
    tallies = {k: [0, 0] for k in ("exact", "jittered", "altitude_unknown", "pitch_unknown", "confident_exact")}
    full_order, same_without_alt, confident_scenes, scenes = 0, 0, 0, 0
    for _ in range(n_scenes):
        cam, boxes, dists = random_scene(rng)
        if len(boxes) < 2:
            continue
        scenes += 1
        regions = list(enumerate(boxes))
        geo = CameraGeometry(cam.altitude, cam.pitch_deg, cam.focal_px, cam.width / 2, cam.height / 2, cam.roll_deg)
        hfov = math.degrees(2 * math.atan(cam.width / 2 / cam.focal_px))
        no_alt = CameraGeometry.assumed_for(cam.width, cam.height, pitch_deg=cam.pitch_deg, hfov_deg=hfov,
                                            roll_deg=cam.roll_deg)
        no_pitch = CameraGeometry.assumed_for(cam.width, cam.height, altitude_m=cam.altitude, hfov_deg=hfov,
                                              roll_deg=cam.roll_deg)
        exact = rank_by_distance(regions, geo)
        runs = {"exact": exact, "jittered": rank_by_distance(list(enumerate(jitter(boxes, rng))), geo),
                "altitude_unknown": rank_by_distance(regions, no_alt),
                "pitch_unknown": rank_by_distance(regions, no_pitch)}
        for name, res in runs.items():
            ok, n = pair_accuracy(res.ids, dists)
            tallies[name][0] += ok
            tallies[name][1] += n
        ok, n = pair_accuracy(exact.ids, dists)
        full_order += ok == n
        same_without_alt += runs["altitude_unknown"].ids == exact.ids
        if exact.confident:
            confident_scenes += 1
            tallies["confident_exact"][0] += ok
            tallies["confident_exact"][1] += n
    out = {f"pair_order_accuracy_{k}": (v[0] / v[1] if v[1] else None) for k, v in tallies.items()}
    out.update(scenes=scenes, pairs=tallies["exact"][1], scenes_fully_ordered_exact=full_order / scenes,
               scenes_same_order_without_altitude=same_without_alt / scenes,
               scenes_confident=confident_scenes / scenes, target_pair_order_accuracy=0.95)
    return out


def detector_figures(speed_runs: int) -> dict:
    import cv2

    from tools.common import load_image
    from tools.perception.detect import detect

    frames = sorted(p.stem for p in (DATA / "images").glob("*.jpg"))
    first = load_image(DATA / "images" / f"{frames[0]}.jpg")
    square = cv2.resize(first, (640, 640))
    for _ in range(2):
        detect(square, tile=None)  # warm-up (model load, first-run allocations)
    times, cpu = [], []
    for _ in range(speed_runs):
        t0, c0 = time.perf_counter(), time.process_time()
        detect(square, tile=None)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    # Wall time depends on how busy the shared machine is; process CPU time (all threads) does not.
    out: dict = {"detector_s_per_640_median": statistics.median(times), "detector_s_per_640_min": min(times),
                 "detector_cpu_s_per_640_median": statistics.median(cpu), "detector_speed_runs": speed_runs,
                 "detector_target_s": 0.5, "cpu_count": os.cpu_count(), "load_average_1min": os.getloadavg()[0]}
    settings = {"conf0.25": dict(conf=0.25, tile=None, scale=1), "conf0.05": dict(conf=0.05, tile=None, scale=1),
                "conf0.05_x3_tiled": dict(conf=0.05, tile="auto", scale=3)}
    for label, s in settings.items():
        n_gt = hits50 = hits30 = n_det = tp50 = 0
        for name in frames:
            gt = person_boxes(name)
            if len(gt) == 0:
                continue
            img = load_image(DATA / "images" / f"{name}.jpg")
            if s["scale"] != 1:
                img = cv2.resize(img, None, fx=s["scale"], fy=s["scale"], interpolation=cv2.INTER_CUBIC)
            dets = detect(img, conf=s["conf"], tile=s["tile"])
            pred = np.array([d.bbox for d in dets]).reshape(-1, 4) / s["scale"]
            iou = iou(gt, pred) if len(pred) else np.zeros((len(gt), 0))
            n_gt += len(gt)
            n_det += len(pred)
            hits50 += int((iou.max(axis=1, initial=0) >= 0.5).sum())
            hits30 += int((iou.max(axis=1, initial=0) >= 0.3).sum())
            tp50 += int((iou.max(axis=0, initial=0) >= 0.5).sum()) if len(pred) else 0
        out[f"thermal_person_{label}"] = {"person_boxes": n_gt, "detections": n_det, "recall_iou50": hits50 / n_gt,
                                          "recall_iou30": hits30 / n_gt,
                                          "precision_iou50": (tp50 / n_det) if n_det else None}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=300)
    parser.add_argument("--speed-runs", type=int, default=10)
    parser.add_argument("--skip-detector", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("YOLO_OFFLINE", "true")
    os.environ.setdefault("YOLO_CONFIG_DIR", str(ROOT / ".cache" / "ultralytics"))
    figures: dict = {"ranking": ranking_figures(args.scenes)}
    if not args.skip_detector:
        figures["detector"] = detector_figures(args.speed_runs)
    text = json.dumps(figures, indent=2)
    print(text)
    out = ROOT / "docs" / "figures" / "perception.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
