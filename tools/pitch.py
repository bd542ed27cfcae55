"""Camera pitch of one downward-looking image over roughly flat ground, from the vertical gradient of texture scale.

Model (pinhole, roll ≈ 0, conventions of :mod:`tools.ground`: pitch −90 = nadir, 0 = horizon). A ground point seen
at image row ``v`` (pixels below the principal point) lies at depth ``Z(v) ∝ 1 / (v − v_h)`` with the horizon row
``v_h = −f·tan(δ)``, ``δ = −pitch`` the depression angle. The horizontal magnification of the ground along a row
is ``f / Z(v) ∝ v − v_h``: linear in the row and constant along it. So the texture of a horizontal strip at row
``v`` is the texture at the reference row ``v₀`` stretched horizontally by ``m(v) = (v − v_h) / (v₀ − v_h)``.

Measurement. Each horizontal strip gets a row-wise 1-D power spectrum of its horizontal intensity profile (median
over column tiles, robust to drawn overlays), log-binned in frequency. Stretching by ``m`` shifts the log
spectrum by ``ln m`` along log frequency and by ``ln m`` in level; contrast differences add a free offset per
strip. For every candidate pitch the strips' spectra are moved back to the reference scale and their disagreement
(mean squared residual after removing each strip's offset, over overlapping frequencies) is the cost; the estimate
is the cost minimum. Information comes from the spectrum's departures from a pure power law (characteristic sizes
of ground features, the resolution of the ground texture); a texture without them gives a flat cost and hence a
wide interval. The uncertainty combines the cost curve's width with the disagreement of two independent halves of
the column tiles.

Written by hand (numpy FFT) because no library estimates pitch from texture scale; the steps are a few array ops.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import cv2
import numpy as np

from tools.common import ToolError
from tools.ground import DEFAULT_HFOV_DEG

MAX_WIDTH_PX = 1024  # larger images are area-downsampled to this width first (focal length scaled alike)
N_STRIPS = 8  # horizontal strips whose texture scale is compared
TILE_PX = 128  # column tile width (pixels) of the row spectra
N_BINS = 20  # log-spaced frequency bins
F_LO, F_HI = 3.0 / TILE_PX, 0.45  # frequency band, cycles per pixel (the top avoids JPEG/noise floors)
PITCH_GRID_DEG = np.arange(-90.0, -19.5, 1.0)  # candidate pitches, −90 = nadir
MIN_OVERLAP_BINS = 4  # a strip pair is compared only over at least this many shared log-frequency bins
COST_REL_TOL = 0.07  # pitches whose cost is within this fraction of the minimum's excess over the floor count
# Set on development renders (seeds 7, 11 of benchmarks/bench_pitch.py), not on the benchmark suite:
MAX_DEPTH_RATIO = 0.65  # cost minimum / median cost above this: too shallow a minimum to trust (not confident)
INTERVAL_MARGIN_DEG = 7.0  # added on each side of the interval (then ~92 % of confident dev renders covered)


@dataclass
class PitchEstimate:
    """Estimated pitch (deg, −90 = nadir) with a 1-sigma-like half-width ``uncertainty_deg``; ``interval_deg`` is
    (lower, upper) clipped to [−90, −20]; ``confident`` False when the image carries too little texture."""

    pitch_deg: float
    uncertainty_deg: float
    interval_deg: tuple[float, float]
    focal_px: float
    focal_assumed: bool
    confident: bool = True
    reason: str | None = None
    halves_deg: tuple[float, float] = (math.nan, math.nan)
    elapsed_s: float = 0.0
    cost: list[float] = field(default_factory=list, repr=False)

    def as_dict(self) -> dict:
        return {"pitch_deg": round(self.pitch_deg, 2), "uncertainty_deg": round(self.uncertainty_deg, 2),
                "interval_deg": [round(v, 2) for v in self.interval_deg], "focal_px": round(self.focal_px, 1),
                "focal_assumed": self.focal_assumed, "confident": self.confident, "reason": self.reason,
                "halves_deg": [round(v, 2) for v in self.halves_deg], "elapsed_s": round(self.elapsed_s, 4)}


def _gray(image: np.ndarray) -> tuple[np.ndarray, float]:
    """Float32 grey image no wider than MAX_WIDTH_PX and the factor applied to the width."""
    img = np.asarray(image)
    if img.ndim == 3:
        img = cv2.cvtColor(img[..., :3].astype(np.uint8) if img.dtype != np.uint8 else img[..., :3],
                           cv2.COLOR_RGB2GRAY)
    g = img.astype(np.float32)
    h, w = g.shape
    if w > MAX_WIDTH_PX:
        f = MAX_WIDTH_PX / w
        g = cv2.resize(g, (MAX_WIDTH_PX, max(8, round(h * f))), interpolation=cv2.INTER_AREA)
        return g, f
    return g, 1.0


def strip_spectra(gray: np.ndarray, n_strips: int = N_STRIPS) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-strip, per-tile log power in log-spaced frequency bins.

    Returns (rows (S,) strip centre rows in px from the image top, log_f (B,) bin centres in ln(cycles/px),
    logp (S, T, B) log mean power of the tile's row profiles).
    """
    h, w = gray.shape
    n_tiles = w // TILE_PX
    if n_tiles < 2 or h < 8 * n_strips:
        raise ToolError(f"image {w}x{h} too small for pitch estimation (needs >= {2 * TILE_PX} px wide)")
    x0 = (w - n_tiles * TILE_PX) // 2
    sh = h // n_strips
    y0 = (h - n_strips * sh) // 2
    block = gray[y0:y0 + n_strips * sh, x0:x0 + n_tiles * TILE_PX].reshape(n_strips, sh, n_tiles, TILE_PX)
    block = block - block.mean(axis=-1, keepdims=True)
    spec = np.abs(np.fft.rfft(block * np.hanning(TILE_PX).astype(np.float32), axis=-1)) ** 2
    power = spec.mean(axis=1)  # (S, T, F): mean over the strip's rows
    freqs = np.fft.rfftfreq(TILE_PX)
    # log-spaced bins of whole FFT indices (low-frequency bins would otherwise be empty)
    edges = np.unique(np.round(np.geomspace(F_LO * TILE_PX, F_HI * TILE_PX, N_BINS + 1)).astype(int))
    binned = np.stack([power[..., a:b].mean(axis=-1) for a, b in zip(edges[:-1], edges[1:])], axis=-1)
    log_f = np.log(np.array([freqs[a:b].mean() for a, b in zip(edges[:-1], edges[1:])]))
    rows = y0 + sh * (np.arange(n_strips) + 0.5)
    return rows, log_f, np.log(binned + 1e-6)


def _cost_curve(v: np.ndarray, log_f: np.ndarray, logp: np.ndarray, focal_px: float) -> np.ndarray:
    """Disagreement of the strips' spectra after undoing the stretch predicted by each candidate pitch."""
    costs = np.full(len(PITCH_GRID_DEG), np.inf)
    ref = float(np.median(v))
    n = len(v)
    for k, pitch in enumerate(PITCH_GRID_DEG):
        vh = -math.inf if pitch <= -89.99 else -focal_px * math.tan(math.radians(-pitch))
        ratio = np.ones_like(v) if not math.isfinite(vh) else (v - vh) / (ref - vh)
        if (ratio <= 0).any():
            continue
        rho = np.log(ratio)
        # Strip i's bin at log frequency l shows the reference texture at l + rho_i: resample every strip onto
        # the reference grid log_f (NaN where a strip has no data), then compare all strip pairs.
        aligned = np.stack([np.interp(log_f, log_f + rho[i], logp[i], left=np.nan, right=np.nan)
                            for i in range(n)])
        valid = np.isfinite(aligned)
        a = np.where(valid, aligned, 0.0)
        d = a[:, None, :] - a[None, :, :]
        m = valid[:, None, :] & valid[None, :, :]
        cnt = m.sum(-1)
        use = np.triu(cnt >= MIN_OVERLAP_BINS, 1)
        if not use.any():
            continue
        mean = (d * m).sum(-1) / np.maximum(cnt, 1)
        ss = (((d - mean[..., None]) ** 2) * m).sum(-1)
        costs[k] = float(ss[use].sum() / cnt[use].sum())
    return costs


def _best(costs: np.ndarray) -> tuple[float, float, float]:
    """(argmin pitch, low, high) of the pitches whose cost is within COST_REL_TOL of the minimum's excess."""
    k = int(np.argmin(costs))
    finite = costs[np.isfinite(costs)]
    floor = float(finite.min())
    span = float(np.percentile(finite, 90)) - floor
    ok = np.where(costs <= floor + COST_REL_TOL * max(span, 1e-9))[0]
    # the contiguous run of acceptable pitches around the minimum
    lo = hi = k
    while lo - 1 in ok:
        lo -= 1
    while hi + 1 in ok:
        hi += 1
    return float(PITCH_GRID_DEG[k]), float(PITCH_GRID_DEG[lo]), float(PITCH_GRID_DEG[hi])


def estimate_pitch(image: np.ndarray, focal_px: float | None = None, hfov_deg: float | None = None) -> PitchEstimate:
    """Camera pitch (deg, −90 = nadir) of an RGB/grey image of roughly flat ground, roll assumed ≈ 0.

    ``focal_px`` (pixels of the given image) wins over ``hfov_deg``; with neither, the 73.7° default horizontal FOV
    of :mod:`tools.ground` is assumed (``focal_assumed``). The principal point is taken at the image centre.
    """
    t0 = time.perf_counter()
    img = np.asarray(image)
    if img.ndim not in (2, 3) or img.size == 0:
        raise ToolError(f"expected an (H, W) or (H, W, C) image, got shape {img.shape}")
    width = img.shape[1]
    assumed = focal_px is None and hfov_deg is None
    if focal_px is None:
        hfov = DEFAULT_HFOV_DEG if hfov_deg is None else float(hfov_deg)
        if not 1.0 < hfov < 179.0:
            raise ToolError(f"hfov_deg must be in (1, 179), got {hfov}")
        focal_px = width / 2 / math.tan(math.radians(hfov) / 2)
    if not (math.isfinite(focal_px) and focal_px > 0):
        raise ToolError(f"focal_px must be positive, got {focal_px}")
    gray, factor = _gray(img)
    f = focal_px * factor
    rows, log_f, logp = strip_spectra(gray)
    v = rows - gray.shape[0] / 2
    full = _cost_curve(v, log_f, np.median(logp, axis=1), f)
    pitch, lo, hi = _best(full)
    halves = tuple(_best(_cost_curve(v, log_f, np.median(logp[:, s::2], axis=1), f))[0] for s in (0, 1))
    spread = abs(halves[0] - halves[1]) / 2
    lo, hi = min(lo, pitch - spread) - INTERVAL_MARGIN_DEG, max(hi, pitch + spread) + INTERVAL_MARGIN_DEG
    lo, hi = max(lo, -90.0), min(hi, -20.0)
    unc = max(pitch - lo, hi - pitch)
    finite = full[np.isfinite(full)]
    depth = float(finite.min() / max(float(np.median(finite)), 1e-12)) if len(finite) else 1.0
    confident, reason = True, None
    if not len(finite):
        confident, reason = False, "no candidate pitch fits the image"
    elif depth > MAX_DEPTH_RATIO:
        confident, reason = False, (f"texture scale barely constrains the pitch (cost minimum {depth:.2f} of the "
                                    f"median, limit {MAX_DEPTH_RATIO})")
    return PitchEstimate(pitch, unc, (lo, hi), float(focal_px), assumed, confident, reason, halves,
                         time.perf_counter() - t0, full.tolist())
