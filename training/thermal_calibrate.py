"""Score thresholds per class for the thermal detector's counts, chosen on HIT-UAV's validation split.

A count is the number of detections above a score threshold; one threshold for every class over-counts the classes
the detector is unsure about and under-counts the others. For each class this picks, on the validation frames
(never the test split), the threshold whose per-frame counts are most often within ±1 or ±10 % of the VOC count
(ties: the smaller mean absolute error), and writes ``{"score_thresholds": {label: thr}, "imgsz": px, "val_counts":
{label: {"val_within_10pct_or_1": share, ...}}}`` beside the weights (``tools/weights/thermal_detector.json``), which
:func:`tools.perception.detect.detect_report` reads: the thresholds when the caller gives none, the detector input
size ``--imgsz`` the frames are seen at (the scores depend on it), the share as a count answer's confidence.

Run: ``.venv/bin/python -m training.thermal_calibrate --hituav /tmp/hituav [--weights <.pt>] [--imgsz 1280]``
(default: the shipped ``tools/weights/thermal_detector.pt``; 11 minutes at 640 px on the shared 2 cores).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from agent.config import Config
from benchmarks.measure.bench_detect_thermal import VOC_LABELS, split_frames, voc_truth, within
from training.thermal_train import SHIPPED

CANDIDATES = tuple(round(x, 2) for x in np.arange(0.05, 0.91, 0.05))
FLOOR = min(CANDIDATES)


def frame_scores(frames: list[tuple[Path, Path]], weights: Path,
                 imgsz: int = 640) -> list[dict[str, tuple[list[float], int]]]:
    """Per frame and label: the detection scores (down to FLOOR) at detector input size ``imgsz`` px and the true
    count."""
    from tools.perception.detect import detect_report

    cfg = Config(thermal_yolo_weights=str(weights), detector_domain="thermal")
    out = []
    for image, xml in frames:
        truth = voc_truth(xml)
        rep = detect_report(image, conf=FLOOR, tile=None, config=cfg, input_px=imgsz)
        out.append({label: ([d.score for d in rep.detections if d.label == label], len(truth.get(label, [])))
                    for label in VOC_LABELS.values()})
    return out


def best_threshold(per_frame: list[tuple[list[float], int]]) -> tuple[float, float, float]:
    """(threshold, share of counts within tolerance, mean absolute error) of the best candidate."""
    best: tuple[float, float, float] | None = None
    for thr in CANDIDATES:
        errors = [(sum(s >= thr for s in scores) - truth, truth) for scores, truth in per_frame]
        share = float(np.mean([within(e, t) for e, t in errors]))
        mae = float(np.mean([abs(e) for e, _ in errors]))
        if best is None or (share, -mae) > (best[1], -best[2]):
            best = (thr, share, mae)
    assert best is not None
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hituav", type=Path, required=True, help="folder holding HIT-UAV's normal_xml/")
    parser.add_argument("--weights", type=Path, default=SHIPPED)
    parser.add_argument("--imgsz", type=int, default=640, help="detector input size (px) the frames are seen at")
    args = parser.parse_args()
    scores = frame_scores(split_frames(args.hituav, "val"), args.weights, args.imgsz)
    table, report = {}, {}
    for label in VOC_LABELS.values():
        thr, share, mae = best_threshold([f[label] for f in scores])
        table[label] = thr
        report[label] = {"threshold": thr, "val_within_10pct_or_1": share, "val_count_mae": mae}
    out = args.weights.with_suffix(".json")
    out.write_text(json.dumps({"score_thresholds": table, "imgsz": args.imgsz, "calibrated_on": f"HIT-UAV val ({len(scores)} frames)",
                               "val_counts": report}, indent=2) + "\n")
    print(json.dumps(report, indent=2))
    print("wrote", out)


if __name__ == "__main__":
    main()
