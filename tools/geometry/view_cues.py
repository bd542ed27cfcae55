"""Whether one image shows sky above a horizon: a photo that does is an oblique view, whatever its metadata lacks.

Sky is found as pixels (of the frame downscaled to 320 px wide) that are brighter than the frame's median and smooth
for their colour: blue pixels (blue channel above red by :data:`BLUE_MARGIN` and at least green) whose local texture
is under :data:`SMOOTH_BLUE` of the frame's median texture (clouds and haze leave blue sky some texture), and
near-neutral pixels (white, grey overcast; saturation under :data:`NEUTRAL_SATURATION`) under :data:`SMOOTH_NEUTRAL`
of it (white roofs, concrete and snow are neutral too, so they must be smoother). Only the candidate regions that
touch the top border count as sky: sky lies above everything else. Sky is seen when it covers at least
:data:`MIN_TOP_SKY` of the top quarter of the frame, reaches at most :data:`MAX_BOTTOM_SKY` of the bottom quarter
(a horizon lies between: a frame smooth from top to bottom is a uniform surface, not sky over ground), and is
:data:`MIN_BRIGHTNESS_STEP` grey levels brighter than the bottom quarter. Buildings or trees may cut into the top
edge (a street view whose top is half facades, half sky): the cue measures the top band, not the top row. The cue
is one-sided: its absence says nothing (a steep oblique view shows no sky), so it only ever answers "oblique".

Measured on the shared data (tests/geometry/test_view_cues.py): it fires on 9 of the 13 oblique Open3D-VQA/OpenCV
aerial frames (the top-row block rule it replaced: 4) and on none of the 18 nadir DJI, Sequoia and NEON photos or the
HIT-UAV nadir thermal frames; the largest top-band share among those nadir photos is 0.07.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from tools.common import ToolError

WIDTH = 320  # px of the downscaled frame
TEXTURE_WINDOW = 7  # px (of the downscaled frame) over which the gradient magnitude is averaged
SMOOTH_NEUTRAL = 0.3  # of the frame's median texture: the most a white/grey sky pixel may have
SMOOTH_BLUE = 1.0  # of the frame's median texture: the most a blue sky pixel may have
BLUE_MARGIN = 15.0  # grey levels (0-255) by which blue must exceed red for a pixel to be sky-blue
NEUTRAL_SATURATION = 0.15  # (max - min) / max of RGB under which a pixel is white/grey
BAND = 4  # the top and bottom bands are a quarter of the frame each
MIN_TOP_SKY = 0.15  # share of the top band that must be sky (nadir photos of the shared data: at most 0.07)
MAX_BOTTOM_SKY = 0.2  # share of the bottom band the top-connected sky may reach
MIN_BRIGHTNESS_STEP = 20.0  # grey levels by which the sky outshines the bottom band


@dataclass(frozen=True)
class SkyCue:
    """Shares of the top and bottom bands covered by top-connected sky, the brightness step from the sky to the
    bottom band (grey levels), and the verdict."""

    top_fraction: float
    bottom_fraction: float
    brightness_step: float
    sky_visible: bool


def _frame(image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(RGB float, grey float) of the image at :data:`WIDTH` px wide; a ToolError for what is not an image."""
    img = np.asarray(image)
    if img.dtype != np.uint8 or img.ndim not in (2, 3) or (img.ndim == 3 and img.shape[2] != 3) \
            or img.shape[0] < 24 or img.shape[1] < 32:
        raise ToolError(f"expected a uint8 RGB or grey image of at least 32 x 24 pixels, got {img.dtype} {img.shape}")
    rgb = img if img.ndim == 3 else cv2.cvtColor(img, cv2.COLOR_GRAY2RGB)
    size = (WIDTH, max(2 * BAND, round(img.shape[0] * WIDTH / img.shape[1])))
    small = cv2.resize(rgb, size, interpolation=cv2.INTER_AREA)
    return small.astype(np.float64), cv2.cvtColor(small, cv2.COLOR_RGB2GRAY).astype(np.float64)


def sky_mask(image: np.ndarray) -> np.ndarray:
    """Boolean mask (of the frame at :data:`WIDTH` px wide) of the sky-like regions that touch the top border."""
    rgb, grey = _frame(image)
    mag = np.hypot(cv2.Sobel(grey, cv2.CV_64F, 1, 0), cv2.Sobel(grey, cv2.CV_64F, 0, 1))
    texture = cv2.blur(mag, (TEXTURE_WINDOW, TEXTURE_WINDOW))
    typical = max(float(np.median(texture)), 1e-6)
    red, green, blue = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    saturation = (rgb.max(-1) - rgb.min(-1)) / np.maximum(rgb.max(-1), 1.0)
    sky_blue = (blue >= red + BLUE_MARGIN) & (blue >= green) & (texture < SMOOTH_BLUE * typical)
    sky_grey = (saturation < NEUTRAL_SATURATION) & (texture < SMOOTH_NEUTRAL * typical)
    candidate = (grey > np.median(grey)) & (sky_blue | sky_grey)
    _, labels = cv2.connectedComponents(candidate.astype(np.uint8), connectivity=4)
    touching = np.unique(labels[0][candidate[0]])
    return np.isin(labels, touching) & candidate


def sky_at_top(image: np.ndarray) -> SkyCue:
    """Look for sky along the top of an RGB (or grey) ``uint8`` image; see the module doc."""
    sky = sky_mask(image)
    grey = _frame(image)[1]
    band = sky.shape[0] // BAND
    top, bottom = float(sky[:band].mean()), float(sky[-band:].mean())
    step = float(grey[sky].mean() - grey[-band:].mean()) if sky.any() else 0.0
    visible = top >= MIN_TOP_SKY and bottom <= MAX_BOTTOM_SKY and step >= MIN_BRIGHTNESS_STEP
    return SkyCue(top, bottom, step, visible)
