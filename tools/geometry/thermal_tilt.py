"""Learned camera tilt of grey/thermal frames without metadata, with the accuracy measured for such an estimate.

A thermal frame has no colour, and often no sky: the texture-scale pitch estimate (:mod:`tools.geometry.pitch`) is
not validated there. This estimate is a ridge regression of the camera tilt (deg below the horizontal, 90 = straight
down) on the row-pooled backbone features of the shipped thermal detector
(:mod:`tools.geometry.thermal_tilt_features`), fitted on HIT-UAV's aerial thermal frames (30–90 deg tilt) by
``training/thermal_tilt_train.py``. The view follows the project's convention (:func:`photo_geometry.view_of`):
nadir when the predicted tilt is at least ``90 − NADIR_TOLERANCE_DEG``.

Confidence. A regression that is right on average is wrong near the nadir/oblique boundary, so the head file carries
a calibration table: the share of held-out frames (frames of flight segments the fit never saw) whose view was
right, per bin of the signed margin ``predicted tilt − boundary``. An estimate is *confident* only where that
measured share reaches :data:`MIN_VIEW_ACCURACY`; its confidence is the share.

Head file (``Config.thermal_tilt_head``, default ``tools/weights/thermal_tilt_head.npz``): ``mean``, ``scale``
(feature standardisation), ``coef``, ``intercept`` (tilt = intercept + coef · standardised features),
``margin_edges`` (K+1 signed margins, deg, increasing; the outer ones may be ±inf), ``margin_accuracy`` (K shares,
NaN where too few frames were measured), ``backbone_sha256`` (:func:`~tools.geometry.thermal_tilt_features.backbone_digest`
of the backbone the head was fitted on),
``test_mae_deg`` and ``test_confident_accuracy`` (on HIT-UAV's test split: the tilt error, and the share of
confident estimates whose view was right; quoted in the answer's source).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from agent.config import Config
from tools.common import ToolError, file_key
from tools.geometry.people_shape import MEASURED_PRECISION, MIN_PEOPLE, people_shape
from tools.geometry.photo_geometry import NADIR_TOLERANCE_DEG
from tools.geometry.thermal_tilt_features import backbone_digest, detector_layers, tilt_features

MIN_VIEW_ACCURACY = 0.9  # an estimate is used only where its measured view accuracy reaches this share
BOUNDARY_TILT_DEG = 90.0 - NADIR_TOLERANCE_DEG  # tilt at and above which the view is nadir
TILT_RANGE_DEG = (0.0, 90.0)  # predictions are clipped to tilts a camera looking at the ground can have
HEAD_KEYS = ("mean", "scale", "coef", "intercept", "margin_edges", "margin_accuracy", "backbone_sha256",
             "test_mae_deg", "test_confident_accuracy")


@dataclass(frozen=True)
class TiltHead:
    """A fitted tilt regression with its calibration (see the module doc for the fields)."""

    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float
    margin_edges: np.ndarray
    margin_accuracy: np.ndarray
    backbone_sha256: str
    test_mae_deg: float
    test_confident_accuracy: float


@dataclass(frozen=True)
class TiltEstimate:
    """``tilt_deg`` below the horizontal (90 = straight down; NaN: no estimate), its ``view`` ("nadir"/"oblique"),
    the measured share of held-out frames with this margin whose view was right (``accuracy``, None: not measured),
    whether it may be used (``confident``), where it came from (``source``) and why it may not (``reason``)."""

    tilt_deg: float
    view: str | None
    accuracy: float | None
    confident: bool
    source: str | None = None
    reason: str | None = None

    @property
    def pitch_deg(self) -> float:
        """The camera pitch of :mod:`tools.geometry.photo_geometry` (−90 = nadir, 0 = horizon)."""
        return -self.tilt_deg

    @classmethod
    def unavailable(cls, reason: str) -> "TiltEstimate":
        """No estimate could be made (missing or mismatched weights): ``reason`` says why."""
        return cls(float("nan"), None, None, False, None, reason)


def load_head(path: str) -> TiltHead:
    """The head in the ``.npz`` file at ``path`` (cached per file version); ToolError when unreadable."""
    key = file_key(path) if Path(path).is_file() else None
    if key is None:
        raise ToolError(f"thermal tilt head {path} is not a file")
    return _read_head(key)


@lru_cache(maxsize=4)
def _read_head(key: tuple[str, int, int]) -> TiltHead:
    """The head of one version of a file (its :func:`tools.common.file_key`)."""
    path = key[0]
    try:
        with np.load(path, allow_pickle=False) as doc:
            missing = [k for k in HEAD_KEYS if k not in doc.files]
            if missing:
                raise ValueError(f"missing {', '.join(missing)}")
            head = TiltHead(*(doc[k] for k in HEAD_KEYS[:3]), float(doc["intercept"]),
                            doc["margin_edges"].astype(float), doc["margin_accuracy"].astype(float),
                            str(doc["backbone_sha256"]), float(doc["test_mae_deg"]),
                            float(doc["test_confident_accuracy"]))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ToolError(f"unreadable thermal tilt head {path}: {exc}") from exc
    if not head.mean.shape == head.scale.shape == head.coef.shape or head.coef.ndim != 1:
        raise ToolError(f"thermal tilt head {path}: mean, scale and coef must be vectors of one length")
    if len(head.margin_edges) != len(head.margin_accuracy) + 1 or np.any(np.diff(head.margin_edges) <= 0):
        raise ToolError(f"thermal tilt head {path}: margin_edges must be increasing, one more than margin_accuracy")
    return head


def predict_tilt(head: TiltHead, features: np.ndarray) -> float:
    """Tilt (deg below the horizontal) the head predicts for one frame's features, clipped to TILT_RANGE_DEG."""
    x = np.asarray(features, dtype=float)
    if x.shape != head.coef.shape:
        raise ToolError(f"the thermal tilt head expects {head.coef.shape[0]} features, got shape {x.shape}")
    raw = head.intercept + float(((x - head.mean) / head.scale) @ head.coef)
    return float(np.clip(raw, *TILT_RANGE_DEG))


def margin_accuracy(head: TiltHead, tilt_deg: float) -> float | None:
    """Measured view accuracy of the calibration bin holding ``tilt_deg − BOUNDARY_TILT_DEG`` (None: unmeasured)."""
    i = int(np.searchsorted(head.margin_edges, tilt_deg - BOUNDARY_TILT_DEG, side="right")) - 1
    if not 0 <= i < len(head.margin_accuracy) or not np.isfinite(head.margin_accuracy[i]):
        return None
    return float(head.margin_accuracy[i])


def decide(head: TiltHead, features: np.ndarray) -> TiltEstimate:
    """The tilt estimate of one frame's features and whether its measured accuracy allows using it."""
    tilt = predict_tilt(head, features)
    view = "nadir" if tilt >= BOUNDARY_TILT_DEG else "oblique"
    acc = margin_accuracy(head, tilt)
    source = source_text(head, tilt, acc)
    if acc is None:
        return TiltEstimate(tilt, view, None, False, source, f"predicted tilt {tilt:.0f} deg: no measured accuracy "
                            "there")
    if acc < MIN_VIEW_ACCURACY:
        return TiltEstimate(tilt, view, acc, False, source, f"predicted tilt {tilt:.0f} deg is near the nadir/oblique "
                            f"boundary ({BOUNDARY_TILT_DEG:.0f} deg): measured view accuracy there {acc:.0%}, under "
                            f"{MIN_VIEW_ACCURACY:.0%}")
    return TiltEstimate(tilt, view, acc, True, source)


def source_text(head: TiltHead, tilt_deg: float, accuracy: float | None) -> str:
    """Where an estimate came from and how good such estimates measured, for an answer's source (read after
    "pitch from"). It says "estimated": planners treat such a pitch as an estimate, not a tag
    (``planners.ranking_view``)."""
    measured = f"measured view accuracy {accuracy:.0%} at this margin on held-out flights" if accuracy is not None \
        else "view accuracy not measured at this margin"
    return (f"the image, estimated by the learned thermal tilt estimate (tilt {tilt_deg:.0f} deg below the "
            f"horizontal; {measured}; on HIT-UAV test its confident estimates were {head.test_confident_accuracy:.0%} "
            f"right, tilt error {head.test_mae_deg:.1f} deg)")


def estimate_thermal_tilt(rgb: np.ndarray, config: Config | None = None) -> TiltEstimate:
    """The tilt estimate of a grey/thermal frame (one pass of the detector's backbone on the whole frame).
    Raises MissingWeightsError (naming the setting) when the head or backbone weights are missing, ToolError when
    the head was fitted on other backbone weights than the configured ones."""
    cfg = config or Config.from_env()
    head = load_head(cfg.resolved_thermal_tilt_head())
    weights = cfg.resolved_thermal_yolo_weights()
    layers = detector_layers(weights)
    if _digest(file_key(weights)) != head.backbone_sha256:
        raise ToolError(f"the thermal tilt head ({cfg.resolved_thermal_tilt_head()}) was fitted on other backbone "
                        f"weights than Config.thermal_yolo_weights ({weights}): refit it with "
                        "training/thermal_tilt_train.py")
    est = decide(head, tilt_features(rgb, layers))
    return est if est.confident else _from_people(rgb, cfg, est)


def _from_people(rgb: np.ndarray, cfg: Config, unsure: TiltEstimate) -> TiltEstimate:
    """Nadir from the people's shape (:mod:`tools.geometry.people_shape`) where the head is unsure, else ``unsure``
    with the shape's reason added."""
    from tools.perception.detect import detect_report

    shape = people_shape([d.bbox for d in detect_report(rgb, labels=["person"], config=cfg).detections])
    if shape.nadir:
        return TiltEstimate(90.0, "nadir", MEASURED_PRECISION, True, shape.source())
    why = (f"{shape.people} people detected, median log(height/width) {shape.median_log_aspect:.2f}: not round "
           "enough to say straight down" if shape.people >= MIN_PEOPLE else
           f"{shape.people} people detected, too few for their shape to tell the view")
    return TiltEstimate(unsure.tilt_deg, unsure.view, unsure.accuracy, False, unsure.source,
                        f"{unsure.reason}; {why}")


@lru_cache(maxsize=4)
def _digest(key: tuple[str, int, int] | None) -> str:
    """:func:`backbone_digest` of one version of the weights file (its :func:`tools.common.file_key`), computed once
    per process."""
    if key is None:
        raise ToolError("the thermal detector weights cannot be read")
    return backbone_digest(detector_layers(key[0]))
