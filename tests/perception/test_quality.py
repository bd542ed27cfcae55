"""tools.perception.quality: indicators on known synthetic signals, labels on real held-out images with known
degradations."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from benchmarks.quality_sets import (CALIBRATION_IMAGES, DATA, HELD_OUT_IMAGES, HELD_OUT_SEVERITIES,
                                     THERMAL_CALIBRATION, THERMAL_HELD_OUT, best_threshold, clean_image, degrade,
                                     occluder_mask as synth_occluder)  # fmt: skip
from tools.common import ToolError
from tools.perception.quality import (CALIBRATED_THRESHOLDS, CALIBRATED_THRESHOLDS_GREY, LABELS, QualityReport,
                                      assess_quality, blur_effect, haze_ratio, noise_sigma, quality_score,
                                      white_noise_sigma)  # fmt: skip

# Held-out (never used for calibration) real images: one real DJI survey photo, one open3d-vqa render.
TEST_IMAGES = ["dji_survey_dev/images/DJI_0035.JPG", "open3d-vqa/images/rgb_9.png"]


@pytest.fixture(scope="module")
def cleans() -> dict[str, np.ndarray]:
    if not DATA.exists():
        pytest.skip(f"shared data not found at {DATA}")
    return {rel: clean_image(rel) for rel in TEST_IMAGES}


def test_test_images_are_held_out():
    assert set(TEST_IMAGES) <= set(HELD_OUT_IMAGES) and not set(TEST_IMAGES) & set(CALIBRATION_IMAGES)


def test_noise_estimate_recovers_known_sigma_on_flat_and_textured_images():
    rng = np.random.default_rng(1)
    flat = np.full((256, 256), 128, np.float32)
    for sigma in (5.0, 10.0, 20.0):
        assert noise_sigma(flat + rng.normal(0, sigma, flat.shape).astype(np.float32)) == pytest.approx(sigma, rel=0.2)
    # Smooth texture (σ = 4 px Gaussian-filtered noise, strong amplitude) alone reads as almost noise-free ...
    texture = cv2.GaussianBlur(rng.normal(0, 400, (256, 256)).astype(np.float32), (0, 0), 4) + 128
    assert white_noise_sigma(texture) < 2.0
    # ... and added white noise is found on top of it.
    noisy = texture + rng.normal(0, 12, texture.shape).astype(np.float32)
    assert white_noise_sigma(noisy) == pytest.approx(12, rel=0.25)


def test_blur_effect_rises_with_known_blur_and_is_contrast_invariant():
    rng = np.random.default_rng(2)
    img = cv2.GaussianBlur(rng.uniform(0, 255, (200, 200)).astype(np.float32), (0, 0), 1.0)
    values = [blur_effect(cv2.GaussianBlur(img, (0, 0), s)) for s in (0.5, 2.0, 4.0)]
    assert values[0] < values[1] < values[2] <= 1.0
    assert blur_effect(0.3 * img + 100) == pytest.approx(blur_effect(img), abs=1e-6)
    assert blur_effect(np.full((50, 50), 7.0)) == 1.0


def test_haze_ratio_grows_as_transmission_falls(cleans):
    img = cleans[TEST_IMAGES[0]].astype(np.float32)
    ratios = [haze_ratio(np.clip(img * t + 230 * (1 - t), 0, 255).astype(np.uint8)) for t in (1.0, 0.6, 0.3)]
    assert ratios[0] < ratios[1] < ratios[2]


def test_clipped_fraction_and_occluded_fraction_match_the_known_masks(cleans):
    img = cleans[TEST_IMAGES[1]]
    bright = img.copy()
    bright[: img.shape[0] // 2] = 255  # exactly half the frame clipped
    assert assess_quality(bright).indicators["overexposure"] == pytest.approx(0.5, abs=0.03)
    mask = synth_occluder(img.shape[:2], 0.3, np.random.default_rng(3))
    blob = (img * (1 - mask[..., None]) + 30 * mask[..., None]).astype(np.uint8)
    assert assess_quality(blob).indicators["occlusion"] == pytest.approx(float((mask > 0.5).mean()), abs=0.05)


def test_clean_held_out_images_get_no_label_and_the_top_score(cleans):
    for rel, img in cleans.items():
        rep = assess_quality(img)
        assert rep.labels == [], (rel, rep.indicators)
        assert rep.score == 5


@pytest.mark.parametrize("kind", [k for k in HELD_OUT_SEVERITIES if k[0] is not None], ids=str)
def test_each_known_degradation_gets_exactly_its_label(cleans, kind):
    rng = np.random.default_rng(4)
    for rel, img in cleans.items():
        rep = assess_quality(degrade(img, kind, rng))
        assert rep.labels == [kind[0]], (rel, kind, rep.indicators)
        assert 1 <= rep.score <= 4


def test_stronger_degradation_never_scores_higher(cleans):
    img = cleans[TEST_IMAGES[0]]
    rng = np.random.default_rng(5)
    for mild, strong in [(("noise", "gaussian", 8), ("noise", "gaussian", 40)), (("fog", "t", 0.5), ("fog", "t", 0.1)),
                         (("low_light", "gamma", 2.5), ("low_light", "gamma", 6.0))]:  # fmt: skip
        assert assess_quality(degrade(img, strong, rng)).score <= assess_quality(degrade(img, mild, rng)).score
    both = degrade(degrade(img, ("blur", "gaussian", 5.0), rng), ("low_light", "gamma", 5.0), rng)
    rep = assess_quality(both)
    assert {"blur", "low_light"} <= set(rep.labels) and rep.score <= 2


def test_report_shape_and_threshold_override(cleans):
    rep = assess_quality(cleans[TEST_IMAGES[1]])
    assert isinstance(rep, QualityReport) and set(rep.indicators) == set(LABELS) and rep.modality == "rgb"
    assert rep.thresholds == CALIBRATED_THRESHOLDS
    strict = assess_quality(cleans[TEST_IMAGES[1]], {"blur": 0.0})  # every image is "blurrier" than 0
    assert "blur" in strict.labels and strict.thresholds["blur"] == 0.0
    with pytest.raises(ToolError, match="unknown quality thresholds"):
        assess_quality(cleans[TEST_IMAGES[1]], {"blurr": 0.5})


def test_score_mapping():
    assert quality_score([], []) == 5
    assert quality_score(["blur"], []) == 4
    assert quality_score(["blur"], ["blur"]) == 3
    assert quality_score(list(LABELS), list(LABELS)) == 1


def test_thermal_images_use_grey_thresholds_and_stay_grey_when_degraded():
    rel = THERMAL_HELD_OUT[0]
    assert rel in THERMAL_HELD_OUT and rel not in THERMAL_CALIBRATION
    img = clean_image(rel)
    rep = assess_quality(img)
    assert rep.modality == "grey" and rep.thresholds == CALIBRATED_THRESHOLDS_GREY
    rng = np.random.default_rng(6)
    for kind in [("noise", "gaussian", 15), ("low_light", "gamma", 4.0), ("occlusion", "blob", 0.4)]:
        degraded = assess_quality(degrade(img, kind, rng))
        assert degraded.modality == "grey" and kind[0] in degraded.labels, (kind, degraded.indicators)


def test_paths_and_bad_input(tmp_path, cleans):
    path = tmp_path / "clean.png"
    cv2.imwrite(str(path), cv2.cvtColor(cleans[TEST_IMAGES[1]], cv2.COLOR_RGB2BGR))
    assert assess_quality(str(path)).labels == assess_quality(cleans[TEST_IMAGES[1]]).labels
    with pytest.raises(ToolError, match="not found"):
        assess_quality(tmp_path / "missing.png")
    (tmp_path / "junk.png").write_bytes(b"not an image")
    with pytest.raises(ToolError, match="not a readable image"):
        assess_quality(tmp_path / "junk.png")
    with pytest.raises(ToolError, match="too small"):
        assess_quality(np.zeros((8, 8, 3), np.uint8))
    grey = cv2.cvtColor(cleans[TEST_IMAGES[1]], cv2.COLOR_RGB2GRAY)
    assert assess_quality(grey).score >= 1  # grey input is expanded to RGB


def test_calibration_threshold_separates_and_respects_direction():
    pos, neg = np.array([5.0, 6.0, 7.0]), np.array([1.0, 2.0, 3.0])
    assert best_threshold(pos, neg, lower_is_worse=False) == pytest.approx(4.0)
    assert best_threshold(neg, pos, lower_is_worse=True) == pytest.approx(4.0)
