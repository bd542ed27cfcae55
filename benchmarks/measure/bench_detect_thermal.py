"""The thermal detector (``Config.thermal_yolo_weights``) on real aerial thermal frames, through ``detect_report``.

Two sets, truth from HIT-UAV's Pascal VOC boxes (Person, Car, Bicycle, OtherVehicle; DontCare ignored):
- HIT-UAV's official **test** split (579 frames, never trained on; the dataset is read from a folder holding its
  ``normal_xml/``, e.g. extracted from the repository with ``git archive HEAD normal_xml``), each frame seen at the
  weights' calibrated input size (``input_px``): per class AP at IoU 0.5
  (all-point interpolated precision/recall area, detections down to ``AP_CONF``), and per frame and class the count
  error at the threshold a count question gets (the weights' calibrated per-class thresholds, else 0.25, and their
  calibrated suppression IoU): mean
  absolute error and the share of counts within ±1 or ±10 %, whichever is larger (over all frames, and over the
  frames holding the class);
- the 12 frames of ``../shared/data/hit_uav_thermal`` (whose flights were left out of training): recall at IoU 0.5
  per class and the count errors.

Run through ``python -m benchmarks.measure.bench_detect --hituav /tmp/hituav``.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

import numpy as np

from agent.config import Config
from training.thermal_data import split_stems

VOC_LABELS = {"Person": "person", "Car": "car", "Bicycle": "bicycle", "OtherVehicle": "other_vehicle"}
AP_CONF = 0.01  # lowest score kept for the precision/recall curve


def voc_truth(xml_path: Path) -> dict[str, np.ndarray]:
    """Label → (N, 4) boxes x1, y1, x2, y2 of one VOC file (our label names)."""
    out: dict[str, list[list[float]]] = defaultdict(list)
    for obj in ET.parse(xml_path).getroot().iter("object"):
        label = VOC_LABELS.get(obj.findtext("name", "").strip())
        if label:
            box = obj.find("bndbox")
            out[label].append([float(box.findtext(k)) for k in ("xmin", "ymin", "xmax", "ymax")])
    return {k: np.array(v).reshape(-1, 4) for k, v in out.items()}


def iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(N, M) intersection over union of boxes a (N, 4) and b (M, 4)."""
    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = np.prod(np.clip(rb - lt, 0, None), axis=2)
    area = lambda x: np.prod(x[:, 2:] - x[:, :2], axis=1)  # noqa: E731
    return inter / (area(a)[:, None] + area(b)[None, :] - inter)


def match(truth: np.ndarray, boxes: np.ndarray, scores: np.ndarray, thr: float = 0.5) -> np.ndarray:
    """Per detection (best score first), whether it is a true positive: greedy one-to-one matching at IoU >= thr."""
    order = np.argsort(-scores)
    hit = np.zeros(len(boxes), bool)
    if not len(truth) or not len(boxes):
        return hit
    m = iou(boxes, truth)
    taken = np.zeros(len(truth), bool)
    for i in order:
        cand = np.where(~taken & (m[i] >= thr))[0]
        if len(cand):
            taken[cand[np.argmax(m[i, cand])]] = True
            hit[i] = True
    return hit


def average_precision(scores: np.ndarray, hits: np.ndarray, n_truth: int) -> float | None:
    """Area under the all-point interpolated precision/recall curve (Pascal VOC 2010+)."""
    if n_truth == 0:
        return None
    order = np.argsort(-scores)
    tp = np.cumsum(hits[order])
    fp = np.cumsum(~hits[order])
    recall = np.concatenate([[0.0], tp / n_truth, [1.0]])
    precision = np.concatenate([[1.0], tp / np.maximum(tp + fp, 1), [0.0]])
    precision = np.maximum.accumulate(precision[::-1])[::-1]
    return float(np.sum((recall[1:] - recall[:-1]) * precision[1:]))


def within(error: int, truth: int) -> bool:
    """A count is right within ±1 or ±10 % of the true count, whichever is larger."""
    return abs(error) <= max(1.0, 0.1 * truth)


def evaluate(frames: list[tuple[Path, Path]], config: Config | None = None) -> dict:
    """AP50, recall at the counting threshold and count errors per class over (image, VOC xml) pairs."""
    from tools.perception.detect import DEFAULT_CONF, DETECTOR_SIZE_PX, NMS_IOU, detect_report
    from tools.perception.detector_choice import choose_detector

    cfg = config or Config.from_env(detector_domain="thermal")
    choice = choose_detector(np.zeros((8, 8, 3), np.uint8), cfg)
    calibrated = choice.score_thresholds()
    count_conf = {label: calibrated.get(label, DEFAULT_CONF) for label in VOC_LABELS.values()}
    scores: dict[str, list[float]] = defaultdict(list)
    hits: dict[str, list[bool]] = defaultdict(list)
    n_truth: dict[str, int] = defaultdict(int)
    count_err: dict[str, list[tuple[int, int]]] = defaultdict(list)
    model = ""
    for image, xml in frames:
        truth = voc_truth(xml)
        rep = detect_report(image, conf=AP_CONF, tile=None, config=cfg)
        model = rep.model
        for label in VOC_LABELS.values():
            dets = [d for d in rep.detections if d.label == label]
            gt = truth.get(label, np.zeros((0, 4)))
            s = np.array([d.score for d in dets])
            h = match(gt, np.array([d.bbox for d in dets]).reshape(-1, 4), s)
            scores[label] += list(s)
            hits[label] += list(h)
            n_truth[label] += len(gt)
            count_err[label].append((int((s >= count_conf[label]).sum()) - len(gt), len(gt)))
    out: dict = {"frames": len(frames), "model": model, "input_px": choice.input_size(DETECTOR_SIZE_PX),
                 "nms_iou": choice.nms_iou(NMS_IOU), "count_conf": count_conf, "per_class": {}}
    for label in VOC_LABELS.values():
        s, h = np.array(scores[label]), np.array(hits[label], bool)
        errs = count_err[label]
        counted = s >= count_conf[label]
        out["per_class"][label] = {
            "boxes": n_truth[label], "ap50": average_precision(s, h, n_truth[label]),
            "recall_iou50": float(h[counted].sum() / n_truth[label]) if n_truth[label] else None,
            "precision_iou50": float(h[counted].mean()) if counted.any() else None,
            "count_abs_error_mean": float(np.mean([abs(e) for e, _ in errs])),
            "count_within_10pct_or_1": float(np.mean([within(e, t) for e, t in errs])),
            # the tolerance of the outside question set: round(15 % of the true count), so exact under 4
            "count_within_15pct_where_present": _mean([abs(e) <= round(0.15 * t) for e, t in errs if t > 0]),
            # frames without the class are nearly always counted right (0): the share where it is present
            "count_within_10pct_or_1_where_present": _mean([within(e, t) for e, t in errs if t > 0]),
            "count_errors_where_present": [e for e, t in errs if t > 0] if len(frames) <= 20 else None}
    aps = [c["ap50"] for c in out["per_class"].values() if c["ap50"] is not None]
    out["map50"] = float(np.mean(aps)) if aps else None
    return out


def _mean(values: list) -> float | None:
    return float(np.mean(values)) if values else None


def split_frames(hituav: Path, split: str) -> list[tuple[Path, Path]]:
    """(image, VOC xml) pairs of one official HIT-UAV split."""
    voc = hituav / "normal_xml"
    return [(voc / "JPEGImages" / f"{n}.jpg", voc / "Annotations" / f"{n}.xml") for n in split_stems(hituav, split)]


def shared_frames(data: Path) -> list[tuple[Path, Path]]:
    """(image, VOC xml) pairs of the shared hit_uav_thermal frames."""
    return [(p, data / "annotations_voc" / f"{p.stem}.xml") for p in sorted((data / "images").glob("*.jpg"))]
