"""Score thresholds per class for the thermal detector's counts, chosen on HIT-UAV's validation split.

A count is the number of detections above a score threshold; one threshold for every class over-counts the classes
the detector is unsure about and under-counts the others. For each class this picks, on the validation frames
(never the test split), the threshold whose per-frame counts are most often within ±1 or ±10 % of the VOC count
(ties: the smaller mean absolute error), and writes ``{"score_thresholds": {label: thr}, "imgsz": px, "val_counts":
{label: {"val_within_10pct_or_1": share, ...}}}`` beside the weights (``tools/weights/thermal_detector.json``), which
:func:`tools.perception.detect.detect_report` reads: the thresholds when the caller gives none, the detector input
size ``--imgsz`` the frames are seen at (the scores depend on it), and the share of frames counted within
tolerance by the count detected (``by_detected_count``), a count answer's confidence.

The validation frames of the shared frames' scenes (same flight, close frame index; left out of training by
:mod:`training.thermal_data`) are left out here too: 266 of the 290 frames are calibrated on.

It also picks the detector's non-maximum suppression IoU (``nms_iou``) among :data:`NMS_CANDIDATES`: the one whose
best per-class thresholds count the most validation frames within tolerance, summed over the classes (ties: the
larger IoU). The frames are run once without suppression and each candidate's suppression is applied to those boxes
(class by class, as the detector does, the boxes the tool drops as implausible suppressing before they are dropped):
each candidate sees the boxes the detector keeps at it (the weights of 2.5 CPU epochs recalibrated this way at 0.7
counted the same val frames right as their own pass at 0.7, but one of cars).

Run: ``.venv/bin/python -m training.thermal_calibrate --hituav /tmp/hituav [--weights <.pt>] [--imgsz 640]``
(default: the shipped ``tools/weights/thermal_detector.pt``; 11 minutes at 640 px on the shared 2 cores). Larger
input sizes did not help weights trained at 640 px: the shipped ones seeing the val frames at 960 px counted people
within tolerance on 66 % of frames (640 px: 70 %), cars on 80 % (81 %), and bicycles' AP50 fell from 0.37 to 0.22.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import torch
import torchvision

from agent.config import Config
from benchmarks.measure.bench_detect_thermal import VOC_LABELS, split_frames, voc_truth, within
from tools.perception.detect import MAX_DET, NMS_IOU
from training.thermal_data import FrameName, excluded, held_out_frames
from training.thermal_train import SHIPPED

CANDIDATES = tuple(round(x, 2) for x in np.arange(0.05, 0.91, 0.05))
FLOOR = min(CANDIDATES)
#: Suppression IoUs tried; ultralytics' default 0.7 among them. On HIT-UAV val with the weights of 2.5 CPU epochs,
#: 0.6 counted 3 more frames' people and 2 more frames' cars within tolerance than 0.7, and 0.8 fewer of every class.
NMS_CANDIDATES = (0.5, 0.6, NMS_IOU)
#: Detections kept per frame in the unsuppressed pass: every candidate box above FLOOR, before a candidate's
#: suppression and its own MAX_DET cut.
RAW_MAX_DET = 30000

#: One frame's unsuppressed detections: boxes (N, 4), scores (N,), labels, and whether the tool drops each one as
#: implausible (such a box still suppresses others, as in the detector), with the true count per label.
RawFrame = tuple[np.ndarray, np.ndarray, list[str], np.ndarray, dict[str, int]]
#: Least detected count of each bucket the count accuracy is measured in: a frame where the detector finds many
#: objects is a crowd, under-counted far more often than a frame with a few (HIT-UAV val, the shipped weights:
#: people counted right on 95 % of frames with none found, 56 % of frames with 6 or more).
DETECTED_BUCKETS = (0, 1, 6, 16)
MIN_BUCKET_FRAMES = 20  # a share measured on fewer frames is merged into the bucket below


def calibration_frames(hituav: Path, held_out: list[FrameName]) -> list[tuple[Path, Path]]:
    """(image, VOC xml) pairs of the validation split, less the frames of the shared frames' scenes (``held_out``:
    left out of training by :mod:`training.thermal_data`, and so out of every choice made here)."""
    return [f for f in split_frames(hituav, "val") if not excluded(f[0].name, held_out)]


def raw_detections(frames: list[tuple[Path, Path]], weights: Path, imgsz: int = 640) -> list[RawFrame]:
    """Per frame the detections down to FLOOR without suppression, at detector input size ``imgsz`` px, and the true
    counts."""
    from tools.perception.detect import detect_report

    cfg = Config(thermal_yolo_weights=str(weights), detector_domain="thermal")
    out = []
    for image, xml in frames:
        truth = voc_truth(xml)
        rep = detect_report(image, conf=FLOOR, tile=None, config=cfg, input_px=imgsz, nms_iou=1.0,
                            max_det=RAW_MAX_DET)
        dets = [(d, False) for d in rep.detections] + [(d, True) for d, _ in rep.rejected]
        out.append((np.array([d.bbox for d, _ in dets], float).reshape(-1, 4), np.array([d.score for d, _ in dets]),
                    [d.label for d, _ in dets], np.array([r for _, r in dets], bool),
                    {label: len(truth.get(label, [])) for label in VOC_LABELS.values()}))
    return out


def suppressed_scores(raw: list[RawFrame], nms_iou: float) -> list[dict[str, tuple[list[float], int]]]:
    """Per frame and label: the scores the detector keeps at suppression IoU ``nms_iou`` (the boxes the tool drops
    as implausible left out after suppressing) and the true count."""
    out = []
    for boxes, scores, labels, rejected, truth in raw:
        classes = torch.tensor([sorted(set(labels)).index(x) for x in labels], dtype=torch.long)
        keep = torchvision.ops.batched_nms(torch.tensor(boxes, dtype=torch.float32),
                                           torch.tensor(scores, dtype=torch.float32), classes,
                                           nms_iou).numpy()[:MAX_DET] if len(scores) else np.zeros(0, int)
        keep = [k for k in keep if not rejected[k]]
        out.append({label: ([float(scores[k]) for k in keep if labels[k] == label], truth[label])
                    for label in VOC_LABELS.values()})
    return out


def choose_nms_iou(raw: list[RawFrame]) -> tuple[float, dict[float, int]]:
    """The candidate suppression IoU counting the most frames within tolerance over the classes (each at its best
    threshold; ties: the larger IoU), and that number for each candidate."""
    right = {}
    for iou in NMS_CANDIDATES:
        scores = suppressed_scores(raw, iou)
        right[iou] = int(round(sum(best_threshold([f[label] for f in scores])[1] * len(scores)
                                   for label in VOC_LABELS.values())))
    return max(NMS_CANDIDATES, key=lambda iou: (right[iou], iou)), right


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


def accuracy_by_detected(per_frame: list[tuple[list[float], int]], thr: float) -> list[dict]:
    """Share of frames counted within tolerance, by the count detected at ``thr`` (what is known when answering):
    one row per bucket of :data:`DETECTED_BUCKETS` (``detected_from``: its least count) holding frames, a bucket of
    fewer than :data:`MIN_BUCKET_FRAMES` frames merged into the one below (the first into the one above)."""
    rows: list[dict] = []
    for lo, hi in zip(DETECTED_BUCKETS, DETECTED_BUCKETS[1:] + (None,)):
        hits = [within(n - truth, truth) for n, truth in ((sum(s >= thr for s in scores), truth)
                                                          for scores, truth in per_frame)
                if n >= lo and (hi is None or n < hi)]
        rows.append({"detected_from": lo, "frames": len(hits), "right": int(sum(hits))})
    merged: list[dict] = []
    for row in (r for r in rows if r["frames"]):
        if merged and row["frames"] < MIN_BUCKET_FRAMES:
            merged[-1]["frames"] += row["frames"]
            merged[-1]["right"] += row["right"]
        else:
            merged.append(dict(row))
    if len(merged) > 1 and merged[0]["frames"] < MIN_BUCKET_FRAMES:  # a small first bucket joins the next one
        first = merged.pop(0)
        merged[0].update(detected_from=first["detected_from"], frames=merged[0]["frames"] + first["frames"],
                         right=merged[0]["right"] + first["right"])
    return [{"detected_from": r["detected_from"], "frames": r["frames"], "within_10pct_or_1": r["right"] / r["frames"]}
            for r in merged]


def calibrate(scores: list[dict[str, tuple[list[float], int]]], imgsz: int, nms_iou: float | None = None) -> dict:
    """The sidecar document for per-frame ``scores`` (from :func:`suppressed_scores` on the validation split), found
    at suppression IoU ``nms_iou`` (None: the detector's default)."""
    table, report = {}, {}
    for label in VOC_LABELS.values():
        per_frame = [f[label] for f in scores]
        thr, share, mae = best_threshold(per_frame)
        table[label] = thr
        report[label] = {"threshold": thr, "val_within_10pct_or_1": share, "val_count_mae": mae,
                         "by_detected_count": accuracy_by_detected(per_frame, thr)}
    doc = {"score_thresholds": table, "imgsz": imgsz, "calibrated_on": f"HIT-UAV val ({len(scores)} frames)",
           "val_counts": report}
    if nms_iou is not None:
        doc["nms_iou"] = nms_iou
    return doc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hituav", type=Path, required=True, help="folder holding HIT-UAV's normal_xml/")
    parser.add_argument("--weights", type=Path, default=SHIPPED)
    parser.add_argument("--imgsz", type=int, default=640, help="detector input size (px) the frames are seen at")
    args = parser.parse_args()
    raw = raw_detections(calibration_frames(args.hituav, held_out_frames()), args.weights, args.imgsz)
    nms_iou, right = choose_nms_iou(raw)
    print("frames counted within tolerance (summed over the classes) by suppression IoU:", right)
    doc = calibrate(suppressed_scores(raw, nms_iou), args.imgsz, nms_iou)
    doc["val_right_by_nms_iou"] = {str(k): v for k, v in right.items()}
    out = args.weights.with_suffix(".json")
    out.write_text(json.dumps(doc, indent=2) + "\n")
    print(json.dumps(doc["val_counts"], indent=2))
    print("wrote", out)


if __name__ == "__main__":
    main()
