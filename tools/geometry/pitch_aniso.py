"""Foreshortening term of the single-image pitch estimate (:mod:`tools.geometry.pitch`): vertical vs. horizontal texture
scale within each strip.

Model. At image row ``v`` (px below the principal point) the ray's depression angle is ``φ(v) = δ + atan(v / f)``.
Along the row the ground is magnified by ``m_x ∝ √(f² + v²) / r`` (``r`` the range); down the column by
``m_y = m_x · A(v)`` with ``A(v) = sin φ(v) · √(f² + v²) / f``: the ground is foreshortened vertically by A ≤ 1.
For ground texture that is statistically isotropic, the 1-D power spectra of a strip's row profiles ``X(l)`` and
column profiles ``Y(l)`` (log power over log frequency ``l``) are then one function seen through two stretches:
``X(l) − Y(l − ln A) + ln A = 0`` (the projection of an elliptically stretched 2-D spectrum onto either axis; the
``+ ln A`` is the level the stretch moves, and both axes share the strip's contrast, so no free offset is left).
That holds for a pure power-law texture too (its level, not its shape, then carries ln A), which is why this term
constrains the pitch where the scale gradient down the rows (tools/geometry/pitch.py) cannot: there each strip's
contrast is a free offset, so only departures from a power law help.

Measurement: square TILE_PX tiles (the same window length along both axes keeps the two spectra comparable),
per tile the mean row-profile and column-profile spectra, log-binned, median over the tiles of a strip.

Failure mode: ground texture that is anisotropic over the whole frame (crop rows, one road direction) reads as a
wrong φ; the cost's depth and the two tile halves' agreement (tools/geometry/pitch.py) are what flag it.
"""

from __future__ import annotations

import math

import numpy as np

TILE_PX = 64  # square tile side; 64 gives 8 strips on a 540-row frame (96 tried on dev renders: similar, fewer strips)
N_BINS = 12  # log-spaced frequency bins between the 2nd FFT frequency and F_HI
F_HI = 0.45  # cycles/px, as the row-scale term


def tile_spectra(gray: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Strip centre rows (px from the top), bin centres ``log_f`` (ln cycles/px), and the row-profile ``X`` and
    column-profile ``Y`` log power spectra per strip and tile, each (S, T, B)."""
    h, w = gray.shape
    n_strips, n_tiles = h // TILE_PX, w // TILE_PX
    y0, x0 = (h - n_strips * TILE_PX) // 2, (w - n_tiles * TILE_PX) // 2
    block = gray[y0:y0 + n_strips * TILE_PX, x0:x0 + n_tiles * TILE_PX].reshape(n_strips, TILE_PX, n_tiles, TILE_PX)
    block = block - block.mean(axis=(1, 3), keepdims=True)
    win = np.hanning(TILE_PX).astype(np.float32)
    px = (np.abs(np.fft.rfft(block * win, axis=3)) ** 2).mean(axis=1)  # (S, T, F): along rows
    py = (np.abs(np.fft.rfft(block * win[None, :, None, None], axis=1)) ** 2).mean(axis=3)  # (S, F, T): down columns
    freqs = np.fft.rfftfreq(TILE_PX)
    edges = np.unique(np.round(np.geomspace(2.0, F_HI * TILE_PX, N_BINS + 1)).astype(int))
    log_f = np.log(np.array([freqs[a:b].mean() for a, b in zip(edges[:-1], edges[1:])]))

    def binned(p: np.ndarray) -> np.ndarray:
        return np.log(np.stack([p[..., a:b].mean(axis=-1) for a, b in zip(edges[:-1], edges[1:])], axis=-1) + 1e-6)

    rows = y0 + TILE_PX * (np.arange(n_strips) + 0.5)
    return rows, log_f, binned(px), binned(np.moveaxis(py, 1, 2))


def log_foreshortening(v: np.ndarray, focal_px: float, pitch_deg: float) -> np.ndarray | None:
    """ln A(v) = ln(m_y / m_x) at rows ``v`` (px below the principal point); None when a row looks at or above the
    horizon."""
    alpha = math.radians(-pitch_deg) + np.arctan(v / focal_px)
    if (alpha <= 0).any():
        return None
    return np.log(np.sin(alpha) * np.sqrt(focal_px ** 2 + v ** 2) / focal_px)


def aniso_cost_curve(v: np.ndarray, log_f: np.ndarray, x: np.ndarray, y: np.ndarray, focal_px: float,
                     pitch_grid: np.ndarray) -> np.ndarray:
    """Mean squared ``X(l) − Y(l − ln A) + ln A`` over strips and overlapping bins, per candidate pitch (``x``,
    ``y``: (S, B) strip spectra); inf where a row would look above the horizon."""
    costs = np.full(len(pitch_grid), np.inf)
    for k, pitch in enumerate(pitch_grid):
        la = log_foreshortening(v, focal_px, float(pitch))
        if la is None:
            continue
        # Y sampled at l − ln A (a higher image frequency: the vertical is compressed); NaN off the measured band.
        ys = np.stack([np.interp(log_f - a, log_f, yy, left=np.nan, right=np.nan) for a, yy in zip(la, y)])
        d = x - ys + la[:, None]
        ok = np.isfinite(d)
        if ok.any():
            costs[k] = float((d[ok] ** 2).mean())
    return costs


def spectral_slope(log_f: np.ndarray, x: np.ndarray, y: np.ndarray) -> float:
    """The flatter of the row and column spectra's log-log slopes (mean over strips, median over tiles): about 0
    for pixel noise, which is isotropic in the image whatever the pitch, so the foreshortening term would read it
    as nadir; real drone photos measure −1.2 … −2.2, renders −1.6 … −4."""
    return float(max(np.polyfit(log_f, np.median(s, axis=1).mean(axis=0), 1)[0] for s in (x, y)))
