"""No-reference image quality for drone imagery: six degradation indicators, labels and a 1–5 score.

Indicators (each a float; higher is worse except where ``LOWER_IS_WORSE`` says otherwise):

- ``blur``: the blur effect of Crété-Roffet et al. (2007, "The blur effect: perception and estimation with a new
  no-reference perceptual blur metric", SPIE 6492): how little of the row/column variation survives a re-blur with
  an 11-tap box filter; 0 = sharp, 1 = flat. Contrast-invariant, so fog and darkening hardly move it. Computed on the
  luminance at ``WORK_LONG_SIDE`` px (written by hand: scikit-image, which has it, is not a dependency).
- ``noise``: σ of white noise in grey levels (0–255). Immerkær's fast estimate (1996, "Fast Noise Variance
  Estimation", CVIU 64(2):300–302), σ = √(π/2)/6 · mean|I ∗ N| with N = [[1,−2,1],[−2,4,−2],[1,−2,1]], over pixels
  whose Sobel gradient is in the lower half (edges excluded, as Tai & Yang 2008 suggest), per tile, 10th percentile
  of the tiles. Fine texture also answers that filter, so it is measured at native (σ₁) and half resolution (σ₂):
  2x2 averaging halves white noise while natural texture is roughly scale-invariant, hence
  σ ≈ √(4/3 · max(0, σ₁² − σ₂²)). Native resolution (downscaling averages noise away), central crop ≤ ``NOISE_CROP``.
- ``low_light``: mean luminance in [0, 1] (Rec. 601 weights) outside the occluder region found for ``occlusion`` (so
  that a dark object against the lens does not read as a dark scene); lower is worse.
- ``overexposure``: fraction of pixels with a channel ≥ 250 (clipped highlights).
- ``fog``: median of the dark channel (He, Sun & Tang 2009, "Single image haze removal using dark channel prior",
  CVPR; 15x15 minimum filter at 512 px) divided by the RMS contrast (std of the luminance at 64 px, so that blur
  does not read as lost contrast). Haze lifts the dark channel (I = J·t + A(1−t)) and scales the contrast by t;
  brightening by gain lifts both, so the ratio separates them.
- ``occlusion``: fraction of the frame covered by the largest connected near-uniform dark region (``occluder_mask``).

Thresholds are calibrated by ``benchmarks/measure/bench_quality.py --calibrate`` on clean and degraded copies of a
calibration set of real images (held-out images and severities are evaluated separately); the values below are its
output. Overexposure takes precedence over fog (both lift the dark channel; only overexposure clips).
Score: 5 − Σ penalties (1 per label, 2 if severe, i.e. beyond its ``<label>_severe`` threshold), clipped to 1..5;
so 5 = clean, 4 = one moderate problem, 3 = one severe or two moderate ones, ...

Grey images (thermal) are inherently smoother and lower in contrast, so they get their own thresholds, calibrated
on half of the HIT-UAV thermal images (few: 6), evaluated on the other half; figures in docs/figures/quality.json.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from scipy import ndimage

from tools.common import ToolError, load_image

WORK_LONG_SIDE = 512  # px, long side for blur, exposure and fog
OCCLUSION_LONG_SIDE = 128  # px, long side for the occlusion map
NOISE_CROP = 1024  # px, side of the native-resolution central crop for the noise estimate
NOISE_BLOCK = 32  # px, tile side for the noise estimate
CLIP_LEVEL = 250  # grey level from which a channel counts as clipped
LABELS = ("blur", "noise", "low_light", "overexposure", "fog", "occlusion")

# Output of `python -m benchmarks.measure.bench_quality --calibrate` (calibration set, see that file). ``<label>`` is
# the decision threshold, ``<label>_severe`` the one for a double penalty.
CALIBRATED_THRESHOLDS: dict[str, float] = {
    "blur": 0.3451, "blur_severe": 0.7013,
    "noise": 6.4647, "noise_severe": 15.6017,
    "low_light": 0.3528, "low_light_severe": 0.1893,
    "overexposure": 0.2354, "overexposure_severe": 0.6376,
    "fog": 4.0923, "fog_severe": 11.8658,
    "occlusion": 0.1039, "occlusion_severe": 0.3091,
}  # fmt: skip
# Same, fitted on the thermal (grey) calibration images; used when all three channels are equal.
CALIBRATED_THRESHOLDS_GREY: dict[str, float] = {
    "blur": 0.4123, "blur_severe": 0.636,
    "noise": 5.7778, "noise_severe": 23.7229,
    "low_light": 0.3274, "low_light_severe": 0.1326,
    "overexposure": 0.2097, "overexposure_severe": 0.8234,
    "fog": 7.0483, "fog_severe": 21.3236,
    "occlusion": 0.1267, "occlusion_severe": 0.3068,
}  # fmt: skip


@dataclass
class QualityReport:
    """Quality verdict: ``score`` 1 (unusable) .. 5 (no degradation found), ``labels`` from ``LABELS``, the raw
    ``indicators`` (see module docstring), the ``thresholds`` they were compared with and the ``modality``."""

    score: int
    labels: list[str]
    indicators: dict[str, float]
    thresholds: dict[str, float] = field(default_factory=dict)
    modality: str = "rgb"  # "grey" when all channels are equal (e.g. thermal): grey thresholds were used


def _luminance(rgb: np.ndarray) -> np.ndarray:
    """Rec. 601 luma in grey levels (float32, 0–255)."""
    return cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY).astype(np.float32) if rgb.ndim == 3 else rgb.astype(np.float32)


def _resize_long_side(img: np.ndarray, long_side: int) -> np.ndarray:
    """Downscale (area averaging) so the longer side is at most ``long_side``; never upscales."""
    h, w = img.shape[:2]
    s = long_side / max(h, w)
    if s >= 1.0:
        return img
    return cv2.resize(img, (max(1, round(w * s)), max(1, round(h * s))), interpolation=cv2.INTER_AREA)


def blur_effect(grey: np.ndarray, h_size: int = 11) -> float:
    """Crété-Roffet blur effect of a grey image in [0, 1] (0 sharp, 1 completely blurred); max over both axes."""
    f = grey.astype(np.float64)
    values = []
    for axis in (0, 1):
        b = ndimage.uniform_filter1d(f, h_size, axis=axis)
        d_f = np.abs(np.diff(f, axis=axis))
        d_b = np.abs(np.diff(b, axis=axis))
        s_f = float(d_f.sum())
        s_v = float(np.maximum(0.0, d_f - d_b).sum())
        values.append(1.0 if s_f <= 0 else (s_f - s_v) / s_f)
    return float(max(values))


def noise_sigma(grey: np.ndarray, block: int = NOISE_BLOCK, percentile: float = 10.0) -> float:
    """Immerkær noise σ in grey levels of a grey (0–255) image: per ``block``-px tile over its non-edge, non-clipped
    pixels, then the ``percentile`` over tiles (the flattest tiles show the noise, textured ones overestimate it)."""
    if min(grey.shape) < 8:
        raise ToolError(f"image too small for a noise estimate: {grey.shape[1]}x{grey.shape[0]} px (need ≥ 8x8)")
    kernel = np.array([[1, -2, 1], [-2, 4, -2], [1, -2, 1]], np.float32)
    resp = np.abs(cv2.filter2D(grey, cv2.CV_32F, kernel, borderType=cv2.BORDER_REFLECT))
    grad = np.hypot(cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1))
    ok = (grey > 5) & (grey < CLIP_LEVEL)
    ok[[0, -1], :] = ok[:, [0, -1]] = False
    if ok.sum() < 64:
        return 0.0
    flat = ok & (grad <= np.median(grad[ok]))
    b = min(block, *grey.shape)
    h, w = (grey.shape[0] // b) * b, (grey.shape[1] // b) * b
    tiles = lambda a: a[:h, :w].reshape(h // b, b, w // b, b).sum(axis=(1, 3))  # noqa: E731
    n, total = tiles(flat.astype(np.float32)), tiles(np.where(flat, resp, 0.0))
    per_tile = total[n >= 0.1 * b * b] / n[n >= 0.1 * b * b]
    if per_tile.size == 0:
        return 0.0
    return float(np.sqrt(np.pi / 2.0) / 6.0 * np.percentile(per_tile, percentile))


def white_noise_sigma(grey: np.ndarray) -> float:
    """White-noise σ (grey levels) from the Immerkær estimate at native and half resolution (module docstring)."""
    half = cv2.resize(grey, (grey.shape[1] // 2, grey.shape[0] // 2), interpolation=cv2.INTER_AREA)
    if min(half.shape) < 8:
        return noise_sigma(grey)
    s1, s2 = noise_sigma(grey), noise_sigma(half, NOISE_BLOCK // 2)
    return float(np.sqrt(4.0 / 3.0 * max(0.0, s1 * s1 - s2 * s2)))


def haze_ratio(rgb: np.ndarray) -> float:
    """Median dark channel (0–1, 15x15 patches) over RMS contrast (0–1) of the 64-px luminance; high for haze."""
    dark = cv2.erode(rgb.min(axis=2), np.ones((15, 15), np.uint8)).astype(np.float32) / 255.0
    contrast = float(_luminance(_resize_long_side(rgb, 64)).std() / 255.0)
    return float(np.median(dark) / max(contrast, 1e-3))


def occluder_mask(rgb: np.ndarray) -> np.ndarray:
    """Boolean mask (same size as ``rgb``) of the largest connected near-uniform dark region, found at 128 px.

    Uniform: local std (5x5) of log luminance below 0.1 x its global std; dark: log luminance more than 0.25 global
    std below the median of the textured (non-uniform) pixels, i.e. darker than the scene itself (an object against
    the lens is unlit and out of focus; a uniform bright sky is not an occluder).
    Log luminance makes both tests invariant to gamma darkening.
    """
    small = _resize_long_side(rgb, OCCLUSION_LONG_SIDE)
    log_l = np.log1p(_luminance(small))
    spread = max(float(log_l.std()), 1e-6)
    mean = cv2.blur(log_l, (5, 5))
    local_std = np.sqrt(np.maximum(cv2.blur(log_l * log_l, (5, 5)) - mean * mean, 0.0))
    uniform = local_std < 0.1 * spread
    scene = log_l[~uniform] if (~uniform).sum() >= 16 else log_l
    uniform &= log_l < np.median(scene) - 0.25 * spread
    n, lab = cv2.connectedComponents(uniform.astype(np.uint8), connectivity=8)
    largest = np.zeros(small.shape[:2], np.uint8)
    if n > 1:
        largest = (lab == 1 + int(np.argmax(np.bincount(lab.ravel())[1:]))).astype(np.uint8)
    return cv2.resize(largest, (rgb.shape[1], rgb.shape[0]), interpolation=cv2.INTER_NEAREST).astype(bool)


def compute_indicators(rgb: np.ndarray) -> dict[str, float]:
    """All six raw indicators of an RGB uint8 image (see the module docstring for units)."""
    work = _resize_long_side(rgb, WORK_LONG_SIDE)
    grey = _luminance(work)
    occluded = occluder_mask(work)
    visible = grey[~occluded] if (~occluded).any() else grey
    h, w = rgb.shape[:2]
    y0, x0 = max(0, (h - NOISE_CROP) // 2), max(0, (w - NOISE_CROP) // 2)
    crop = rgb[y0:y0 + NOISE_CROP, x0:x0 + NOISE_CROP]
    return {
        "blur": blur_effect(grey),
        "noise": white_noise_sigma(_luminance(crop)),
        "low_light": float(visible.mean() / 255.0),
        "overexposure": float((work.max(axis=2) >= CLIP_LEVEL).mean()),
        "fog": haze_ratio(work),
        "occlusion": float(occluded.mean()),
    }


# label -> True when *lower* values are worse (only luminance)
LOWER_IS_WORSE: dict[str, bool] = {label: label == "low_light" for label in LABELS}


def exceeds(label: str, value: float, threshold: float) -> bool:
    """Whether ``value`` of indicator ``label`` is on the degraded side of ``threshold``."""
    return value < threshold if LOWER_IS_WORSE[label] else value > threshold


def quality_score(labels: list[str], severe: list[str]) -> int:
    """5 − (1 per label + 1 more per severe label), clipped to 1..5."""
    return int(np.clip(5 - len(labels) - len(severe), 1, 5))


def _validated(image: np.ndarray | str | Path | bytes) -> np.ndarray:
    rgb = load_image(image)
    if rgb.dtype != np.uint8:
        raise ToolError(f"image must be uint8, got {rgb.dtype}")
    if min(rgb.shape[:2]) < 16:
        raise ToolError(f"image too small for quality assessment: {rgb.shape[1]}x{rgb.shape[0]} px (need ≥ 16x16)")
    return rgb


def is_greyscale(rgb: np.ndarray) -> bool:
    """True when the three channels are identical (grey or thermal imagery expanded to RGB)."""
    return bool(np.array_equal(rgb[..., 0], rgb[..., 1]) and np.array_equal(rgb[..., 1], rgb[..., 2]))


def assess_quality(image: np.ndarray | str | Path | bytes,
                   thresholds: dict[str, float] | None = None) -> QualityReport:
    """Assess an RGB uint8 image (or a path/encoded bytes) and return labels, indicators and a 1–5 score.

    Defaults: ``CALIBRATED_THRESHOLDS`` for colour images, ``CALIBRATED_THRESHOLDS_GREY`` for grey ones (all channels
    equal, e.g. thermal); ``thresholds`` overrides single keys of those.
    """
    unknown = set(thresholds or {}) - set(CALIBRATED_THRESHOLDS)
    if unknown:
        raise ToolError(f"unknown quality thresholds {sorted(unknown)}; known: {sorted(CALIBRATED_THRESHOLDS)}")
    rgb = _validated(image)
    grey = is_greyscale(rgb)
    thr = {**(CALIBRATED_THRESHOLDS_GREY if grey else CALIBRATED_THRESHOLDS), **(thresholds or {})}
    ind = compute_indicators(rgb)
    labels = [k for k in LABELS if exceeds(k, ind[k], thr[k])]
    if "overexposure" in labels and "fog" in labels:  # gain lifts the dark channel too: clipping explains it
        labels.remove("fog")
    severe = [k for k in labels if exceeds(k, ind[k], thr[f"{k}_severe"])]
    return QualityReport(quality_score(labels, severe), labels, ind, thr, "grey" if grey else "rgb")

