"""Overlay colours (used by :mod:`tools.regions.pipeline`, step 1 of its pipeline): hue peaks of the near-pure pixels, and one
mask per colour of the saturated, bright pixels near its hue. Images are RGB ``uint8``; hues are OpenCV's (0..179).
"""

from __future__ import annotations

import cv2
import numpy as np

from tools.regions.pieces import MIN_RUN

SAT_MIN, VAL_MIN = 120, 120   # overlay colour thresholds (OpenCV HSV, 0..255), see tools.regions.pipeline (step 1)
# near-pure overlay pixels that define the overlay hues; an image saved as JPEG more than once loses them (a green
# (0, 200, 100) outline re-saved at q98 after q61 keeps 162 px of its 14,800 at S >= 230), so lower levels are
# tried in turn when a level finds no overlay colour at all
CORE_SATS = (230, 200, 170)
CORE_MIN = 60                # px, fewest near-pure pixels of one overlay colour
# brightness (V) of the near-pure pixels of a colour found only below the first saturation level found any: an
# outline keeps its brightness when JPEG takes its saturation; brown roofs and soil as saturated are darker
RESCUE_VAL = 200
HUE_TOL = 6                  # OpenCV hue units (2 degrees each) around an overlay hue; palette hues lie ~15 apart
MAX_COLOURS = 10             # most overlay colours looked at in one image


def overlay_mask(rgb: np.ndarray, hsv: np.ndarray | None = None) -> np.ndarray:
    """Boolean mask of overlay-coloured pixels (saturated and bright), all colours together (``hsv``: the image
    in OpenCV's HSV when already converted)."""
    hsv = cv2.cvtColor(rgb, cv2.COLOR_RGB2HSV) if hsv is None else hsv
    return (hsv[..., 1] >= SAT_MIN) & (hsv[..., 2] >= VAL_MIN)


def overlay_hues(hsv: np.ndarray) -> list[int]:
    """OpenCV hues (0..179) of the overlay colours: peaks of the hue histogram of near-pure pixels
    (S >= the first of CORE_SATS that finds any), each with >= CORE_MIN pixels, at least 2 * HUE_TOL apart
    (circular); then the peaks of the bright (V >= RESCUE_VAL) ones at the lower levels, that far from those.
    Dev overlays (seeds 1/11/21/41/51/61/71): +5 exact regions, none lost; with all pixels at the lower levels
    (V >= 120), +1 and 11 extra regions (hues of roofs and soil)."""
    near_pure = (hsv[..., 1] >= CORE_SATS[-1]) & (hsv[..., 2] >= VAL_MIN)   # one pass over the image
    hue, sat, val = (hsv[..., k][near_pure] for k in range(3))
    hues = next((found for level in CORE_SATS if (found := _hue_peaks(hue[sat >= level]))), [])
    if hues:   # a thin outline re-saved as JPEG loses its near-pure pixels while thicker ones keep theirs
        for level in CORE_SATS[1:]:
            for h in _hue_peaks(hue[(sat >= level) & (val >= RESCUE_VAL)]):
                if len(hues) < MAX_COLOURS and all(abs((h - o + 90) % 180 - 90) > 2 * HUE_TOL for o in hues):
                    hues.append(h)
    return hues


def _hue_peaks(hues: np.ndarray) -> list[int]:
    """Peaks of the histogram of ``hues`` (OpenCV hues of near-pure pixels, :func:`overlay_hues`)."""
    hist = np.bincount(hues, minlength=180)[:180].astype(float)
    found: list[int] = []
    while len(found) < MAX_COLOURS:
        h = int(np.argmax(hist))
        if hist[h] < CORE_MIN:
            break
        found.append(h)
        d = np.abs((np.arange(180) - h + 90) % 180 - 90)
        hist[d <= 2 * HUE_TOL] = 0
    return found


def colour_masks(rgb: np.ndarray) -> list[np.ndarray]:
    """One boolean mask per overlay colour (see :func:`colour_layers`)."""
    return [m for m, _ in colour_layers(rgb)]


def colour_layers(rgb: np.ndarray, hsv: np.ndarray | None = None) -> list[tuple[np.ndarray, np.ndarray]]:
    """(mask, strength) per overlay colour. mask: boolean: saturated, bright pixels within HUE_TOL of an overlay hue.

    Splitting by hue keeps sunlit vegetation (saturated, but spread over yellow-green hues and rarely near
    S = 255) from drowning the outlines, and keeps boxes of different colours apart. strength: uint8
    min(S, V) of the pixels of that hue, 0 elsewhere: a grey picture of the overlay that keeps the anti-aliased
    letter edges for the OCR. ``hsv``: the image in OpenCV's HSV when already converted.
    """
    hsv = cv2.cvtColor(rgb, cv2.COLOR_RGB2HSV) if hsv is None else hsv
    hue, sat, val = cv2.split(hsv)
    base = (sat >= SAT_MIN) & (val >= VAL_MIN)
    sv = cv2.min(sat, val)
    out = []
    for h in overlay_hues(hsv):
        near = cv2.LUT(hue, _hue_lut(h))   # 255 within HUE_TOL of h (a table lookup: 3x faster than the arithmetic)
        m = base & (near > 0)
        if m.sum() >= 4 * MIN_RUN:
            out.append((m, cv2.bitwise_and(sv, near)))
    return out


def _hue_lut(h: int) -> np.ndarray:
    """uint8 lookup table over OpenCV hues: 255 for hues within HUE_TOL of ``h`` (circular), else 0."""
    lut = np.zeros(256, np.uint8)
    lut[:180][np.abs((np.arange(180) - h + 90) % 180 - 90) <= HUE_TOL] = 255
    return lut
