"""Whether one image shows sky above a horizon: a photo that does is an oblique view, whatever its metadata lacks.

The frame (downscaled to 320 px wide, grey) is cut into a 16 x 12 grid of blocks. A block is sky-like when it is
both smooth (mean gradient magnitude under 0.3 of the median block's) and brighter than the median block. Sky is
seen when at least half of the top block row is sky-like, at most a fifth of the bottom three rows is, and the top
row is brighter than the bottom rows by :data:`MIN_BRIGHTNESS_STEP` grey levels. The cue is one-sided: its absence
says nothing (a steep oblique view shows no sky), so it only ever answers "oblique".

Measured on the shared data (tests/geometry/test_view_cues.py): it fires on 4 of the 13 oblique Open3D-VQA/OpenCV aerial
frames and on none of the 18 nadir DJI, Sequoia and NEON photos or the 12 HIT-UAV thermal frames.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from tools.common import ToolError

GRID = (12, 16)  # block rows, block columns
SMOOTH_FRACTION = 0.3  # of the median block's gradient magnitude
MIN_TOP_SKY = 0.5  # share of the top block row that must be sky-like
MAX_BOTTOM_SKY = 0.2  # share of the bottom three block rows that may be sky-like (the ground is textured)
MIN_BRIGHTNESS_STEP = 20.0  # grey levels (0-255) by which the top row outshines the bottom rows


@dataclass(frozen=True)
class SkyCue:
    """Shares of sky-like blocks at the top and bottom, the brightness step between them, and the verdict."""

    top_fraction: float
    bottom_fraction: float
    brightness_step: float
    sky_visible: bool


def sky_at_top(image: np.ndarray) -> SkyCue:
    """Look for sky along the top of an RGB (or grey) ``uint8`` image; see the module doc."""
    img = np.asarray(image)
    if img.ndim not in (2, 3) or img.shape[0] < 24 or img.shape[1] < 32:
        raise ToolError(f"expected an image of at least 32 x 24 pixels, got shape {img.shape}")
    grey = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY) if img.ndim == 3 else img
    h, w = grey.shape
    small = cv2.resize(grey, (320, max(GRID[0] * 2, round(h * 320 / w))), interpolation=cv2.INTER_AREA)
    g = small.astype(np.float64)
    mag = np.hypot(cv2.Sobel(g, cv2.CV_64F, 1, 0), cv2.Sobel(g, cv2.CV_64F, 0, 1))
    rows, cols = GRID
    bh, bw = g.shape[0] // rows, g.shape[1] // cols
    blocks = lambda a: a[: bh * rows, : bw * cols].reshape(rows, bh, cols, bw).mean(axis=(1, 3))  # noqa: E731
    texture, brightness = blocks(mag), blocks(g)
    sky = (texture < SMOOTH_FRACTION * np.median(texture)) & (brightness > np.median(brightness))
    top, bottom = float(sky[0].mean()), float(sky[-3:].mean())
    step = float(brightness[0].mean() - brightness[-3:].mean())
    visible = top >= MIN_TOP_SKY and bottom <= MAX_BOTTOM_SKY and step >= MIN_BRIGHTNESS_STEP
    return SkyCue(top, bottom, step, visible)
