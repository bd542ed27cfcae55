"""Camera pitch of one downward-looking image over roughly flat ground, from two texture cues: the gradient of
texture scale down the rows, and the foreshortening (vertical vs horizontal texture scale) within each strip.

Model (pinhole, roll ≈ 0, conventions of :mod:`tools.geometry.ground`: pitch −90 = nadir, 0 = horizon).
A ground point seen at image row ``v`` (pixels below the principal point) lies at depth ``Z(v) ∝ 1 / (v − v_h)``
with the horizon row ``v_h = −f·tan(δ)``, ``δ = −pitch`` the depression angle. The horizontal magnification of
the ground along a row is ``f / Z(v) ∝ v − v_h``: linear in the row and constant along it. So the texture of a
horizontal strip at row ``v`` is the texture at the reference row ``v₀`` stretched horizontally by
``m(v) = (v − v_h) / (v₀ − v_h)``.

Scale-gradient cue. Each horizontal strip gets a row-wise 1-D power spectrum of its horizontal intensity profile
(median over column tiles, robust to drawn overlays), log-binned in frequency. Stretching by ``m`` shifts the log
spectrum by ``ln m`` along log frequency and by ``ln m`` in level; contrast differences add a free offset per
strip. For every candidate pitch the strips' spectra are moved back to the reference scale and their disagreement
(mean squared residual after removing each strip's offset, over overlapping frequencies) is the cost. Information
comes from the spectrum's departures from a pure power law (characteristic sizes of ground features).

Foreshortening cue (:mod:`tools.geometry.pitch_aniso`). Isotropic ground texture seen along a ray of depression φ(v) is
compressed vertically by ``sin φ(v) · √(f² + v²) / f`` relative to horizontally; a strip's row and column spectra
share its contrast, so their relation fixes φ(v) even for a pure power-law texture. The two costs are added; the
estimate is the minimum of the sum.

Interval and confidence. The interval is the run of candidate pitches whose cost stays within COST_REL_TOL of the
minimum, widened to the estimates of two independent halves of the column tiles, and by INTERVAL_MARGIN_STEEP_DEG /
INTERVAL_MARGIN_OBLIQUE_DEG; with the focal length unknown, to the estimates made with the ends of
ASSUMED_HFOV_RANGE_DEG. ``confident`` is False for a shallow minimum, for grey/thermal frames, for noise-like
spectra (image noise is isotropic, so it reads as nadir) and when the two cues' own minima disagree (texture that
is anisotropic on the ground, or no flat ground: a street-level facade view).

Limits (``docs/figures/pitch.json``, ``benchmarks/measure/bench_pitch.py``): measured on renders of real orthophotos,
whose spectra are steeper than real photos' (upsampled textures); oblique views are biased toward nadir by the
image-fixed blur/noise; ground texture anisotropic over the whole frame (crop rows) fools the foreshortening cue
and is only mostly caught by the disagreement check. On the 12 real HIT-UAV thermal frames (30–90° tilt) and 5 real
nadir DJI photos it is not informative and says so (no confident estimate).

Written by hand (numpy FFT) because no library estimates pitch from texture scale; the steps are a few array ops.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import cv2
import numpy as np

from tools.common import ToolError
from tools.geometry.ground import DEFAULT_HFOV_DEG
from tools.geometry.pitch_aniso import aniso_cost_curve, spectral_slope, tile_spectra

MAX_WIDTH_PX = 1024  # larger images are area-downsampled to this width first (focal length scaled alike)
N_STRIPS = 8  # horizontal strips whose texture scale is compared
TILE_PX = 96  # column tile width (pixels) of the row spectra
N_BINS = 20  # log-spaced frequency bins
F_HI = 0.45  # top of the frequency band, cycles per pixel (the bottom is the 3rd FFT frequency of a window)
# Profiles of the scale-gradient cue: along rows. Column profiles compared across strips with free offsets ("y")
# were tried on the development renders: more confidently wrong estimates (interval coverage 0.79 instead of 0.89),
# so they enter only through the foreshortening cue, where a strip's row and column spectra share its contrast.
AXES: tuple[str, ...] = ("x",)
PITCH_GRID_DEG = np.arange(-90.0, -19.5, 1.0)  # candidate pitches, −90 = nadir
MIN_OVERLAP_BINS = 4  # a strip pair is compared only over at least this many shared log-frequency bins
COST_REL_TOL = 0.3  # candidate pitches whose cost is within this fraction above the minimum's stay in the interval
# Set on development renders (seeds 7, 11, 23 of benchmarks/measure/bench_pitch.py), never on the benchmark suite:
MAX_DEPTH_RATIO = 0.6  # summed cost minimum / median above this: too shallow a minimum to trust (not confident)
# The two cues' own minima farther apart than this: not confident. On the flat-ground dev renders 1 of 111 confident
# estimates exceeds it; a real street-level facade view (shared/data/open3d-vqa rgb_3) was confidently −90 without it.
MAX_TERM_DISAGREEMENT_DEG = 20.0
# Spectra flatter than this (log-log slope, see pitch_aniso.spectral_slope) are noise-like: not confident. Between
# white noise (0) and the flattest real photo measured (−1.2, shared/data DJI); not tuned on renders (all < −1.5).
MAX_SPECTRAL_SLOPE = -0.6
# Added below/above the interval: asymmetric because oblique estimates are biased toward nadir (image-fixed blur and
# noise pull the foreshortening toward isotropy); with these ~93–100 % of confident dev renders per seed are covered.
INTERVAL_MARGIN_STEEP_DEG = 2.0
INTERVAL_MARGIN_OBLIQUE_DEG = 6.0
# Unknown focal: the interval is widened to hold the estimates made with these horizontal FOVs (common drone lenses:
# 24 mm-equivalent ≈ 74°, wide modes up to ~85°, zoom ~60°). Not their whole cost runs: the foreshortening at the
# centre row gives δ whatever the focal, and on the dev renders the runs' union only widened the interval (by 4–5°).
ASSUMED_HFOV_RANGE_DEG = (60.0, 85.0)
# Grey / thermal frames: on the development renders of HIT-UAV thermal textures 1 of 5 confident intervals held
# (scale-gradient cue alone; RGB: 71 of 75), and the real thermal obliques fail with both cues (three of them would
# pass every other check while 29–56° off), so single-channel images are never confident.
GREY_CHANNEL_DIFF = 8  # a pixel is grey when its RGB channels differ by at most this (JPEG chroma noise)
GREY_SHARE = 0.9  # an image is single-channel when at least this share of its pixels is grey (overlays aside)


@dataclass
class PitchEstimate:
    """Estimated pitch (deg, −90 = nadir); ``interval_deg`` (lower, upper) clipped to [−90, −20] should hold the
    true pitch (~90 % of confident renders); ``uncertainty_deg`` is its larger half-width; ``confident`` False when
    the texture does not constrain the pitch (``reason`` says why); ``halves_deg`` are the two tile-half estimates."""

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


def is_single_channel(image: np.ndarray) -> bool:
    """True for grey or thermal frames: 2-D, or RGB whose channels agree on most pixels (drawn overlays aside)."""
    img = np.asarray(image)
    if img.ndim == 2 or img.shape[2] == 1:
        return True
    sub = img[::4, ::4, :3].astype(np.int16)
    return float(((sub.max(axis=2) - sub.min(axis=2)) <= GREY_CHANNEL_DIFF).mean()) >= GREY_SHARE


def _gray(image: np.ndarray) -> tuple[np.ndarray, float]:
    """Float32 grey image no wider than MAX_WIDTH_PX and the factor applied to the width."""
    img = np.asarray(image, np.float32)
    g = img[..., :3] @ np.array([0.299, 0.587, 0.114], np.float32) if img.ndim == 3 and img.shape[2] >= 3 else img
    g = g.reshape(g.shape[:2])
    h, w = g.shape
    if w > MAX_WIDTH_PX:
        f = MAX_WIDTH_PX / w
        g = cv2.resize(g, (MAX_WIDTH_PX, max(8, round(h * f))), interpolation=cv2.INTER_AREA)
        return g, f
    return g, 1.0


@dataclass(frozen=True)
class Spectra:
    """Log power of strip profiles along one image axis: ``logp`` (S strips, T tiles, B bins) at bin centres
    ``log_f`` (ln cycles/px), ``weight`` (B,) FFT frequencies per bin."""

    axis: str  # "x": row profiles (horizontal texture scale), "y": column profiles within a strip (vertical scale)
    log_f: np.ndarray
    logp: np.ndarray
    weight: np.ndarray


def _binned(power: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean power (..., n//2+1 FFT frequencies of an n-sample window) in log-spaced bins of whole FFT indices
    (finer bins would be empty at low frequency): (log_f, log power, FFT frequencies per bin)."""
    freqs = np.fft.rfftfreq(n)
    edges = np.unique(np.round(np.geomspace(3.0, F_HI * n, N_BINS + 1)).astype(int))
    binned = np.stack([power[..., a:b].mean(axis=-1) for a, b in zip(edges[:-1], edges[1:])], axis=-1)
    log_f = np.log(np.array([freqs[a:b].mean() for a, b in zip(edges[:-1], edges[1:])]))
    return log_f, np.log(binned + 1e-6), np.diff(edges).astype(float)


def strip_spectra(gray: np.ndarray, n_strips: int = N_STRIPS) -> tuple[np.ndarray, list[Spectra]]:
    """Strip centre rows (px from the image top) and the strips' row-profile and column-profile spectra per
    column tile of TILE_PX pixels."""
    h, w = gray.shape
    n_tiles = w // TILE_PX
    sh = h // n_strips
    if n_tiles < 2 or sh < 16:
        raise ToolError(f"image {w}x{h} too small for pitch estimation (needs >= {2 * TILE_PX}x{16 * n_strips} px)")
    x0, y0 = (w - n_tiles * TILE_PX) // 2, (h - n_strips * sh) // 2
    block = gray[y0:y0 + n_strips * sh, x0:x0 + n_tiles * TILE_PX].reshape(n_strips, sh, n_tiles, TILE_PX)
    rows_ = block - block.mean(axis=-1, keepdims=True)
    px = (np.abs(np.fft.rfft(rows_ * np.hanning(TILE_PX).astype(np.float32), axis=-1)) ** 2).mean(axis=1)
    out = [Spectra("x", *_binned(px, TILE_PX))]
    if "y" in AXES:
        cols = block - block.mean(axis=1, keepdims=True)
        win = np.hanning(sh).astype(np.float32)[None, :, None, None]
        py = (np.abs(np.fft.rfft(cols * win, axis=1)) ** 2).mean(axis=-1)  # (S, F, T)
        out.append(Spectra("y", *_binned(np.moveaxis(py, 1, -1), sh)))
    return y0 + sh * (np.arange(n_strips) + 0.5), out


def log_magnification(v: np.ndarray, focal_px: float, pitch_deg: float, axis: str) -> np.ndarray | None:
    """ln of the ground's image magnification at rows ``v`` (px below the principal point), up to a constant;
    None when a row looks at or above the horizon. Along x: ∝ f·sin δ + v·cos δ; along y (ground forward
    direction): ∝ sin²(α)·(f² + v²) with α = δ + atan(v / f) the ray's depression angle."""
    d = math.radians(-pitch_deg)
    if axis == "x":
        s = focal_px * math.sin(d) + v * math.cos(d)
    else:
        alpha = d + np.arctan(v / focal_px)
        s = np.where(alpha > 0, np.sin(alpha) ** 2 * (focal_px ** 2 + v ** 2), 0.0)
    s = np.asarray(s, float)
    return None if (s <= 0).any() else np.log(s)


def _pair_cost(log_f: np.ndarray, logp: np.ndarray, weight: np.ndarray, rho: np.ndarray) -> tuple[float, float]:
    """(weighted sum of squared residuals, total weight) of all strip pairs after undoing log stretches ``rho``."""
    # Strip i's bin at log frequency l shows the reference texture at l + rho_i: resample every strip onto the
    # reference grid log_f (NaN where a strip has no data), then compare all strip pairs up to an offset.
    aligned = np.stack([np.interp(log_f, log_f + r, p, left=np.nan, right=np.nan) for r, p in zip(rho, logp)])
    valid = np.isfinite(aligned)
    a = np.where(valid, aligned, 0.0)
    d = a[:, None, :] - a[None, :, :]
    m = valid[:, None, :] & valid[None, :, :]
    wm = m * weight  # a bin's log power is less noisy the more FFT frequencies it averages
    use = np.triu(m.sum(-1) >= MIN_OVERLAP_BINS, 1)
    wsum = wm.sum(-1)
    mean = (d * wm).sum(-1) / np.maximum(wsum, 1e-9)
    ss = (((d - mean[..., None]) ** 2) * wm).sum(-1)
    return float(ss[use].sum()), float(wsum[use].sum())


def _cost_curve(v: np.ndarray, spectra: list[tuple[Spectra, np.ndarray]], focal_px: float) -> np.ndarray:
    """Disagreement of the strips' spectra (each axis: (Spectra, (S, B) log power)) after undoing the stretch that
    each candidate pitch predicts."""
    costs = np.full(len(PITCH_GRID_DEG), np.inf)
    for k, pitch in enumerate(PITCH_GRID_DEG):
        total = weight = 0.0
        for sp, logp in spectra:
            lm = log_magnification(v, focal_px, pitch, sp.axis)
            if lm is None:
                break
            ss, w = _pair_cost(sp.log_f, logp, sp.weight, lm - np.median(lm))
            total, weight = total + ss, weight + w
        else:
            if weight > 0:
                costs[k] = total / weight
    return costs


def _best(costs: np.ndarray) -> tuple[float, float, float]:
    """(argmin pitch, low, high): the contiguous run of candidate pitches around the minimum whose cost is at most
    (1 + COST_REL_TOL) times the minimum (a sharp minimum gives a narrow run, a shallow one a wide run)."""
    k = int(np.argmin(costs))
    ok = costs <= costs[k] * (1.0 + COST_REL_TOL)
    lo = hi = k
    while lo > 0 and ok[lo - 1]:
        lo -= 1
    while hi + 1 < len(costs) and ok[hi + 1]:
        hi += 1
    return float(PITCH_GRID_DEG[k]), float(PITCH_GRID_DEG[lo]), float(PITCH_GRID_DEG[hi])


def _term_costs(v: np.ndarray, spectra: list[Spectra], aniso: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
                focal_px: float, tiles: slice = slice(None)) -> tuple[np.ndarray, np.ndarray]:
    """Per candidate pitch, over the column tiles ``tiles``: the scale-gradient cost (row spectra across strips) and
    the foreshortening cost (row vs column spectra within each strip, :mod:`tools.geometry.pitch_aniso`)."""
    scale = _cost_curve(v, [(sp, np.median(sp.logp[:, tiles], axis=1)) for sp in spectra], focal_px)
    va, log_f, x, y = aniso
    fore = aniso_cost_curve(va, log_f, np.median(x[:, tiles], axis=1), np.median(y[:, tiles], axis=1), focal_px,
                            PITCH_GRID_DEG)
    return scale, fore


def _costs(v: np.ndarray, spectra: list[Spectra], aniso: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
           focal_px: float, tiles: slice = slice(None)) -> np.ndarray:
    """Both terms added unweighted: each is a mean squared log-power residual (weights 0.5 and 2 on the
    foreshortening term were tried on the development renders: no better)."""
    scale, fore = _term_costs(v, spectra, aniso, focal_px, tiles)
    return _sum_costs(scale, fore)


def _sum_costs(scale: np.ndarray, fore: np.ndarray) -> np.ndarray:
    """The two cues' costs added; inf where either is undefined (a row at or above the horizon)."""
    return np.where(np.isfinite(scale) & np.isfinite(fore), scale + fore, np.inf)


def _focal_for_hfov(width: int, hfov_deg: float) -> float:
    """Focal length (px) of a ``width``-pixel image with horizontal FOV ``hfov_deg``."""
    return width / 2 / math.tan(math.radians(hfov_deg) / 2)


def _confidence(img: np.ndarray, full: np.ndarray, slope: float, disagree: float) -> tuple[bool, str | None]:
    """(confident, reason when not) from the summed cost curve ``full``, the spectra's log-log ``slope`` and the
    two cues' disagreement (deg)."""
    finite = full[np.isfinite(full)]
    if not len(finite):
        return False, "no candidate pitch fits the image"
    if is_single_channel(img):
        return False, "grey/thermal image: the texture-scale pitch estimate is not validated there"
    if slope > MAX_SPECTRAL_SLOPE:
        return False, f"noise-like texture (spectral slope {slope:.1f}, limit {MAX_SPECTRAL_SLOPE}): no texture scale"
    if disagree > MAX_TERM_DISAGREEMENT_DEG:
        return False, (f"the texture-scale gradient and the foreshortening disagree on the pitch by {disagree:.0f} "
                       f"deg (limit {MAX_TERM_DISAGREEMENT_DEG:.0f}): not flat ground?")
    depth = float(finite.min() / max(float(np.median(finite)), 1e-12))
    if depth > MAX_DEPTH_RATIO:
        return False, (f"texture scale barely constrains the pitch (cost minimum {depth:.2f} of the median, limit "
                       f"{MAX_DEPTH_RATIO})")
    return True, None


def estimate_pitch(image: np.ndarray, focal_px: float | None = None, hfov_deg: float | None = None) -> PitchEstimate:
    """Camera pitch (deg, −90 = nadir) of an RGB/grey image of roughly flat ground, roll assumed ≈ 0.

    ``focal_px`` (pixels of the given image) wins over ``hfov_deg``; with neither, the 73.7° default horizontal FOV
    of :mod:`tools.geometry.ground` is assumed (``focal_assumed``) and the interval also holds the estimates made
    with the ends of ASSUMED_HFOV_RANGE_DEG. The principal point is taken at the image centre.
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
        focal_px = _focal_for_hfov(width, hfov)
    if not (math.isfinite(focal_px) and focal_px > 0):
        raise ToolError(f"focal_px must be positive, got {focal_px}")
    gray, factor = _gray(img)
    f = focal_px * factor
    rows, spectra = strip_spectra(gray)
    v = rows - gray.shape[0] / 2
    use = [sp for sp in spectra if sp.axis in AXES]
    rows_a, log_f, x, y = tile_spectra(gray)
    aniso = (rows_a - gray.shape[0] / 2, log_f, x, y)
    scale, fore = _term_costs(v, use, aniso, f)
    full = _sum_costs(scale, fore)
    pitch, lo, hi = _best(full)
    # Each cue's own minimum: on flat ground they agree (checked below for the confidence flag)
    disagree = abs(_best(scale)[0] - _best(fore)[0]) if np.isfinite(scale).any() and np.isfinite(fore).any() else 0.0
    halves = tuple(_best(_costs(v, use, aniso, f, slice(s, None, 2)))[0] for s in (0, 1))
    spread = abs(halves[0] - halves[1]) / 2
    if assumed:  # the estimates made with the other plausible lenses join the interval
        for hfov in ASSUMED_HFOV_RANGE_DEG:
            p2 = _best(_costs(v, use, aniso, _focal_for_hfov(gray.shape[1], hfov)))[0]
            lo, hi = min(lo, p2), max(hi, p2)
    lo = max(min(lo, pitch - spread) - INTERVAL_MARGIN_STEEP_DEG, -90.0)
    hi = min(max(hi, pitch + spread) + INTERVAL_MARGIN_OBLIQUE_DEG, -20.0)
    unc = max(pitch - lo, hi - pitch)
    confident, reason = _confidence(img, full, spectral_slope(log_f, x, y), disagree)
    return PitchEstimate(pitch, unc, (lo, hi), float(focal_px), assumed, confident, reason, halves,
                         time.perf_counter() - t0, full.tolist())
