"""Real images with known synthetic degradations: the ground truth of the image-quality labels.

Every real image is downscaled (area) to a long side of ``CLEAN_LONG_SIDE`` px: that is the clean image (label-free
ground truth). Each degradation is applied to it with known parameters, so its label is known:

- ``blur``: Gaussian blur (σ px) or motion blur (line kernel of L px at a random angle);
- ``noise``: additive Gaussian noise (σ grey levels);
- ``low_light``: gamma darkening I' = 255·(I/255)^γ;
- ``overexposure``: gain g then clip at 255;
- ``fog``: atmospheric scattering I = J·t + A(1−t), airlight A (grey levels), transmission t;
- ``occlusion``: an opaque, smooth, dark blob (ellipse union, feathered edges) entering from a frame border and
  covering the given fraction of the frame.

Sets (images are disjoint, and the evaluation severities differ from the calibration ones):
- calibration: ``CALIBRATION_IMAGES`` x ``CALIBRATION_SEVERITIES`` (thresholds are fitted here);
- held-out RGB: ``HELD_OUT_IMAGES`` x ``HELD_OUT_SEVERITIES`` (the reported accuracy);
- thermal (grey, HIT-UAV), a separate group with its own thresholds: ``THERMAL_CALIBRATION`` (every other file)
  x ``CALIBRATION_SEVERITIES`` to fit, ``THERMAL_HELD_OUT`` (the rest) x ``HELD_OUT_SEVERITIES`` to evaluate.

Used by :mod:`benchmarks.measure.bench_quality` (calibration and accuracy) and the quality tests.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from tools.common import load_image
from tools.perception.quality import is_greyscale

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
CLEAN_LONG_SIDE = 640  # px

CALIBRATION_IMAGES = ["dji_survey_dev/images/DJI_0018.JPG", "dji_survey_dev/images/DJI_0019.JPG",
                      "deepforest_neon/OSBS_029.png", "open3d-vqa/images/rgb_3.png", "open3d-vqa/images/rgb_4.png",
                      "open3d-vqa/images/rgb_5.png"]  # fmt: skip
HELD_OUT_IMAGES = ["dji_survey_dev/images/DJI_0020.JPG", "dji_survey_dev/images/DJI_0034.JPG",
                   "dji_survey_dev/images/DJI_0035.JPG", "deepforest_neon/SOAP_061.png",
                   "deepforest_neon/2019_YELL_2_541000_4977000_image_crop.png",
                   "deepforest_neon/AWPE Pigeon Lake 2020 DJI_0005.JPG", "open3d-vqa/images/rgb_6.png",
                   "open3d-vqa/images/rgb_7.png", "open3d-vqa/images/rgb_8.png", "open3d-vqa/images/rgb_9.png",
                   "open3d-vqa/images/rgb_10.png", "open3d-vqa/images/rgb_11.png"]  # fmt: skip
THERMAL_IMAGES = sorted(str(p.relative_to(DATA)) for p in (DATA / "hit_uav_thermal" / "images").glob("*.jpg"))
THERMAL_CALIBRATION, THERMAL_HELD_OUT = THERMAL_IMAGES[::2], THERMAL_IMAGES[1::2]

# (label, kind, parameter); label None = clean
Degradation = tuple[str | None, str, float]
CALIBRATION_SEVERITIES: list[Degradation] = [
    (None, "clean", 0), ("blur", "gaussian", 2.5), ("blur", "gaussian", 4.0), ("blur", "motion", 9),
    ("noise", "gaussian", 12), ("noise", "gaussian", 25), ("low_light", "gamma", 2.5), ("low_light", "gamma", 3.5),
    ("overexposure", "gain", 1.8), ("overexposure", "gain", 2.5), ("fog", "t", 0.5), ("fog", "t", 0.3),
    ("occlusion", "blob", 0.25), ("occlusion", "blob", 0.35)]  # fmt: skip
HELD_OUT_SEVERITIES: list[Degradation] = [
    (None, "clean", 0), ("blur", "gaussian", 3.0), ("blur", "gaussian", 5.0), ("blur", "motion", 13),
    ("noise", "gaussian", 15), ("noise", "gaussian", 30), ("low_light", "gamma", 2.8), ("low_light", "gamma", 4.0),
    ("overexposure", "gain", 2.0), ("overexposure", "gain", 3.0), ("fog", "t", 0.45), ("fog", "t", 0.25),
    ("occlusion", "blob", 0.2), ("occlusion", "blob", 0.4)]  # fmt: skip


def clean_image(rel: str) -> np.ndarray:
    """The clean reference: a real image (relative to the shared data folder), long side ≤ CLEAN_LONG_SIDE."""
    rgb = load_image(DATA / rel)
    s = CLEAN_LONG_SIDE / max(rgb.shape[:2])
    if s < 1:
        rgb = cv2.resize(rgb, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
    return rgb


def motion_kernel(length: int, angle_deg: float) -> np.ndarray:
    """Normalised line kernel of ``length`` px at ``angle_deg`` (image x axis, clockwise)."""
    k = np.zeros((length, length), np.float32)
    c = (length - 1) / 2
    dx, dy = np.cos(np.radians(angle_deg)) * c, np.sin(np.radians(angle_deg)) * c
    cv2.line(k, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 1)
    return k / k.sum()


def occluder_mask(shape: tuple[int, int], fraction: float, rng: np.random.Generator) -> np.ndarray:
    """Float mask in [0, 1] of a smooth blob entering from a random border, covering ≈ ``fraction`` of the frame."""
    h, w = shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    side = rng.integers(4)
    cx, cy = [(rng.uniform(0.2, 0.8) * w, 0.0), (w, rng.uniform(0.2, 0.8) * h),
              (rng.uniform(0.2, 0.8) * w, h), (0.0, rng.uniform(0.2, 0.8) * h)][side]  # fmt: skip
    aspect = rng.uniform(0.7, 1.4)
    dist = np.hypot((xx - cx) / aspect, (yy - cy) * aspect)
    radius = np.quantile(dist, fraction)  # the blob is {dist ≤ radius}, which covers `fraction` of the frame
    mask = (dist <= radius).astype(np.float32)
    return cv2.GaussianBlur(mask, (0, 0), 0.01 * max(h, w))


def degrade(rgb: np.ndarray, kind: Degradation, rng: np.random.Generator) -> np.ndarray:
    """Apply one known degradation (see the module docstring) to a clean RGB uint8 image."""
    label, how, p = kind
    f = rgb.astype(np.float32)
    channels = 1 if is_greyscale(rgb) else 3  # grey (thermal) images stay grey: one noise field, a grey occluder
    if label is None:
        out = f
    elif label == "blur" and how == "gaussian":
        out = cv2.GaussianBlur(f, (0, 0), p)
    elif label == "blur":
        out = cv2.filter2D(f, -1, motion_kernel(int(p), rng.uniform(0, 180)))
    elif label == "noise":
        out = f + rng.normal(0, p, (*f.shape[:2], channels))
    elif label == "low_light":
        out = 255.0 * (f / 255.0) ** p
    elif label == "overexposure":
        out = f * p
    elif label == "fog":
        airlight = rng.uniform(200, 240)
        out = f * p + airlight * (1 - p)
    elif label == "occlusion":
        m = occluder_mask(rgb.shape[:2], p, rng)[..., None]
        colour = rng.uniform(10, 60, channels).astype(np.float32)
        shade = np.linspace(0.8, 1.2, rgb.shape[0], dtype=np.float32)[:, None, None]
        out = f * (1 - m) + colour * shade * m
    else:
        raise ValueError(f"unknown degradation {kind}")
    return np.clip(np.round(out), 0, 255).astype(np.uint8)


def samples(images: list[str], severities: list[Degradation], seed: int, repeats: int = 1):
    """Yield (image, degradation, degraded RGB) for every image x severity x random draw, reproducibly.

    The random parts (noise, motion angle, airlight, blob shape and place) differ between the ``repeats`` draws."""
    rng = np.random.default_rng(seed)
    for rel in images:
        clean = clean_image(rel)
        for kind in severities:
            for _ in range(1 if kind[0] is None else repeats):
                yield rel, kind, degrade(clean, kind, rng)


def best_threshold(pos: np.ndarray, neg: np.ndarray, lower_is_worse: bool) -> float:
    """Threshold maximising balanced accuracy, midway between neighbouring values (ties: the widest gap)."""
    sign = -1.0 if lower_is_worse else 1.0
    p, n = sign * pos, sign * neg
    vals = np.unique(np.concatenate([p, n]))
    cands = (vals[:-1] + vals[1:]) / 2
    gaps = vals[1:] - vals[:-1]
    bal = np.array([(p > c).mean() + (n <= c).mean() for c in cands])
    best = np.flatnonzero(bal >= bal.max() - 1e-12)
    return float(sign * cands[best[np.argmax(gaps[best])]])
