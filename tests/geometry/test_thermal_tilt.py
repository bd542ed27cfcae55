"""The learned thermal tilt estimate: its head's decision on features built by hand (the tilt each one predicts is
known by construction), its loading through ``Config.thermal_tilt_head``, the backbone features' pooling, and its
use by ``photo_geometry``."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from agent.config import Config, MissingWeightsError
from tools.common import ToolError
from tools.geometry.camera import CameraMetadata
from tools.geometry.photo_geometry import photo_geometry
from tools.geometry.thermal_tilt import (BOUNDARY_TILT_DEG, MIN_VIEW_ACCURACY, TiltEstimate, TiltHead, decide,
                                         estimate_thermal_tilt, load_head)
from tools.geometry.thermal_tilt_features import LAYERS, backbone_digest, backbone_input, band_means, detector_layers
from training.thermal_tilt_train import save_head

DIM = 3
# Signed margin bins (predicted tilt − 80 deg) and their measured accuracies: sure far from the boundary, unsure
# just below it, unmeasured just above it.
EDGES = np.array([-np.inf, -10.0, 0.0, 5.0, np.inf])
ACCURACY = np.array([0.97, 0.6, np.nan, 0.95])


def _head(sha: str = "x" * 64) -> TiltHead:
    """A head predicting tilt = 60 + 10 * feature[0] (mean 0, scale 1, so a feature vector f gives that tilt)."""
    return TiltHead(np.zeros(DIM), np.ones(DIM), np.array([10.0, 0.0, 0.0]), 60.0, EDGES, ACCURACY, sha, 5.0, 0.95)


def _features(tilt: float) -> np.ndarray:
    return np.array([(tilt - 60.0) / 10.0, 3.0, -2.0])


def _decide(tilt: float) -> TiltEstimate:
    return decide(_head(), _features(tilt))


@pytest.mark.parametrize("tilt, view, accuracy, confident", [
    (88.0, "nadir", 0.95, True),  # margin +8: measured 95 %
    (40.0, "oblique", 0.97, True),  # margin −40
    (76.0, "oblique", 0.6, False),  # margin −4: near the boundary, measured 60 %
    (82.0, "nadir", None, False),  # margin +2: no accuracy measured there
])
def test_decision_follows_the_measured_accuracy_of_the_margin(tilt: float, view: str, accuracy: float | None,
                                                              confident: bool) -> None:
    est = _decide(tilt)
    assert est.tilt_deg == pytest.approx(tilt) and est.pitch_deg == pytest.approx(-tilt)
    assert (est.view, est.accuracy, est.confident) == (view, accuracy, confident)
    assert (est.reason is None) == confident and "learned thermal tilt estimate" in est.source
    assert (BOUNDARY_TILT_DEG, MIN_VIEW_ACCURACY) == (80.0, 0.9)


def test_prediction_is_clipped_to_a_downward_camera() -> None:
    assert _decide(130.0).tilt_deg == 90.0


def test_head_round_trips_through_its_file_and_refuses_bad_ones(tmp_path: Path) -> None:
    path = tmp_path / "head.npz"
    save_head(_head(), path)
    est = decide(load_head(str(path)), _features(40.0))
    assert est.view == "oblique" and est.tilt_deg == pytest.approx(40.0, abs=1e-3)
    np.savez(tmp_path / "partial.npz", mean=np.zeros(3))
    with pytest.raises(ToolError, match="missing"):
        load_head(str(tmp_path / "partial.npz"))
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(ToolError, match="unreadable"):
        load_head(str(tmp_path / "junk.npz"))
    with pytest.raises(ToolError, match="expects 3 features"):
        decide(load_head(str(path)), np.zeros(4))


def test_missing_head_names_the_setting(tmp_path: Path) -> None:
    cfg = Config(thermal_tilt_head=str(tmp_path / "absent.npz"))
    with pytest.raises(MissingWeightsError, match="thermal_tilt_head|THERMAL_TILT_HEAD"):
        estimate_thermal_tilt(np.zeros((64, 80), np.uint8), cfg)


def test_band_means_pool_each_band_of_rows() -> None:
    act = np.zeros((2, 8, 5))
    act[0] = np.arange(8)[:, None]  # channel 0: the row index
    act[1] = 1.0
    # 4 bands of 2 rows: channel 0 means 0.5, 2.5, 4.5, 6.5; channel 1 is 1 everywhere
    assert band_means(act, 4).tolist() == [0.5, 1.0, 2.5, 1.0, 4.5, 1.0, 6.5, 1.0]
    with pytest.raises(ValueError):
        band_means(np.zeros((2, 3, 5)), 4)


@pytest.mark.parametrize("shape, size", [((512, 640), (512, 640)), ((720, 1280, 3), (352, 640)),
                                         ((1024, 1280, 3), (512, 640))])
def test_backbone_input_keeps_the_aspect_at_stride_multiples(shape: tuple, size: tuple) -> None:
    x = backbone_input(np.full(shape, 255, np.uint8))
    assert x.shape == (1, 3, *size) and x.dtype == np.float32 and float(x.max()) == 1.0


def test_random_head_runs_on_the_real_backbone_and_checks_its_weights(tmp_path: Path) -> None:
    """The real loading path (configured head + the thermal detector's backbone), with a random head of the
    backbone's feature size; a head fitted on other weights is refused."""
    cfg = Config.from_env()
    weights = cfg.resolved_thermal_yolo_weights()
    dim = 4 * (128 + 256 + 512)  # ROW_BANDS x the YOLOv8s channels at strides 8, 16, 32
    rng = np.random.default_rng(0)
    head = TiltHead(rng.normal(size=dim), np.ones(dim), rng.normal(size=dim) * 1e-3, 60.0, EDGES, ACCURACY,
                    backbone_digest(detector_layers(weights)), 5.0, 0.95)
    save_head(head, tmp_path / "head.npz")
    frame = rng.integers(0, 255, (512, 640), dtype=np.uint8)
    est = estimate_thermal_tilt(frame, Config.from_env(thermal_tilt_head=str(tmp_path / "head.npz")))
    # a real estimate (not the no-estimate NaN of a frame the backbone cannot take), read against the head's own
    # calibration table: its accuracy is one of the table's measured shares
    assert isinstance(est, TiltEstimate) and np.isfinite(est.tilt_deg) and est.view in ("nadir", "oblique")
    assert est.accuracy is None or any(np.isclose(est.accuracy, a) for a in ACCURACY if np.isfinite(a))
    save_head(replace(head, backbone_sha256="0" * 64), tmp_path / "other.npz")
    with pytest.raises(ToolError, match="other backbone"):
        estimate_thermal_tilt(frame, Config.from_env(thermal_tilt_head=str(tmp_path / "other.npz")))


def test_the_digest_covers_the_layers_the_features_run_and_no_others() -> None:
    """A detector retrained with its backbone frozen (a new head or neck) keeps the tilt head; a changed backbone
    weight does not."""
    import copy

    import torch

    layers = copy.deepcopy(detector_layers(Config.from_env().resolved_thermal_yolo_weights()))
    before = backbone_digest(layers)
    with torch.no_grad():
        next(p for layer in layers[max(LAYERS) + 1:] for p in layer.parameters()).add_(1.0)  # the neck
        assert backbone_digest(layers) == before
        next(layers[LAYERS[0]].parameters()).add_(1.0)
    assert backbone_digest(layers) != before


class _Texture:
    """A texture pitch estimate that is unsure (as it is on every grey/thermal frame)."""

    pitch_deg, interval_deg, confident, focal_assumed, reason = -60.0, (-70.0, -50.0), False, True, "grey frame"


def test_photo_geometry_uses_a_confident_learned_tilt_with_its_accuracy() -> None:
    est = _decide(35.0)
    geo = photo_geometry(CameraMetadata(width=640, height=512), estimate_pitch=lambda f: _Texture(),
                         learned_tilt=lambda: est)
    assert (geo.view, geo.pitch_deg, geo.view_confidence) == ("oblique", pytest.approx(-35.0), 0.97)
    assert "learned thermal tilt estimate" in geo.view_source and "view" not in geo.missing


@pytest.mark.parametrize("learned", [_decide(77.0), TiltEstimate.unavailable("no head file")])
def test_photo_geometry_abstains_on_an_unsure_learned_tilt_and_says_why(learned: TiltEstimate) -> None:
    asked = []
    geo = photo_geometry(CameraMetadata(width=640, height=512), estimate_pitch=lambda f: asked.append(f) or _Texture(),
                         learned_tilt=lambda: learned)
    assert geo.view is None and geo.pitch_deg is None and geo.view_confidence is None and asked == [None]
    assert "learned thermal tilt estimate is unsure" in geo.missing["view"] and learned.reason in geo.missing["view"]


def test_sky_and_tags_come_before_the_learned_tilt() -> None:
    est = _decide(88.0)
    sky = photo_geometry(CameraMetadata(width=640, height=512), sky_visible=lambda: True, learned_tilt=lambda: est)
    tagged = photo_geometry(CameraMetadata(width=640, height=512, camera_pitch_deg=-30.0), learned_tilt=lambda: est)
    assert sky.view == tagged.view == "oblique" and sky.view_confidence is None is tagged.view_confidence


def test_shipped_estimate_on_the_held_out_shared_frames(shared_data: Path) -> None:
    """The shipped head through the photo_geometry tool's wiring on the 12 shared HIT-UAV frames, whose flights
    were left out of fitting: every view it gives is the one in the file name (tilt 80-90: nadir), and it gives
    some (the 30 deg frames are far from the boundary), a straight-down one among them from its people's round
    shapes (:mod:`tools.geometry.people_shape`), where the head cannot tell 70 from 90 deg."""
    from mcp_server.handlers_photo import learned_thermal_tilt
    from tools.common import load_image
    from tools.geometry.camera import read_metadata

    given, nadir = 0, 0
    for path in sorted((shared_data / "hit_uav_thermal" / "images").glob("*.jpg")):
        tilt = float(path.stem.split("_")[2])
        rgb = load_image(path)
        geo = photo_geometry(read_metadata(path), learned_tilt=lambda: learned_thermal_tilt(rgb, Config.from_env()))
        if geo.view is not None:
            given += 1
            assert geo.view == ("nadir" if tilt >= 80 else "oblique"), path.name
            assert geo.view_confidence >= MIN_VIEW_ACCURACY
            assert "learned thermal tilt" in geo.view_source or "people detected" in geo.view_source
            nadir += geo.view == "nadir"
    assert given >= 1 and nadir >= 1


def test_a_frame_too_wide_for_the_bands_gets_no_estimate_and_keeps_its_other_facts(tmp_path: Path) -> None:
    """A grey strip seen under 4 strides high has too few backbone rows for the row bands: the estimate is
    unavailable (its reason in ``missing``) and the tool still gives the photo's other facts."""
    import cv2

    from mcp_server.handlers_photo import photo_geometry as photo_geometry_tool
    from mcp_server.registry import ToolContext

    with pytest.raises(ToolError, match="too wide"):
        backbone_input(np.zeros((100, 640), np.uint8))  # seen 96 px high: 3 rows at stride 32
    assert backbone_input(np.zeros((128, 640), np.uint8)).shape == (1, 3, 128, 640)
    path = tmp_path / "strip.png"
    cv2.imwrite(str(path), np.random.default_rng(1).integers(0, 255, (150, 1000), dtype=np.uint8))  # seen 96 px high
    geo = photo_geometry_tool(ToolContext(Config.from_env(allowed_roots=[str(tmp_path)])), str(path),
                              altitude_m=50.0).data
    assert (geo["width"], geo["height"], geo["altitude_m"]) == (1000, 150, 50.0) and geo["view_confidence"] is None
    assert "too wide for the learned tilt estimate" in geo["missing"]["pitch_deg"]
