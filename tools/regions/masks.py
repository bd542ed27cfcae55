"""Regions drawn as translucent masks (Set-of-Mark): a tinted area, often with a thin contour in the same colour,
and the region's number on a filled marker (a circle or square, in the mask's colour, white or black) at its
centre. The region's box is the extent of the drawn mask.

1. Markers (:func:`find_markers`): a number is written in black or white; its digits (pieces of dark or of light
   pixels about a label high, joined side by side) are a marker's when a ring just outside them is all one
   colour (RING_SHARE of it within MARKER_TOL) that differs from the number's (NUMBER_CONTRAST); the marker
   reaches as far as that colour does along the number's middle row and column, about as wide as high.
2. Mask (:func:`mask_box`): a translucent tint of colour C over a picture pixel P gives a*C + (1-a)*P, so a
   tinted pixel's chroma (its colour less its grey level) moves towards C's. Around the marker (WINDOW marker
   widths) each pixel's chroma along C's is measured in units of C's own (1 = C itself); for a white or black
   marker, C is the median chroma of the pixels just around the marker, and its unit what the surest pixels
   (a contour) reach. The mask is the part holding the marker of the pixels above a level, taken at the lowest
   of LEVELS from which the part stops changing (STABLE px; a level that lets the part run out of the window
   finds no mask, and so does a part covering less than MIN_FILL of its extent: the outline of a drawn box with
   its filled tag); its edge is then set half-way between the level of its rim (the contour, when drawn) and
   that of the picture just outside, where a blurred line has its edge.
3. Number: the marker is read by the label recognizer (:mod:`tools.regions.label_reader`) inside its rim
   (:func:`with_masks`); a marker that a found region already read as its label is left to that region.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import cv2
import numpy as np

EXPECTED_HEIGHT, MIN_HEIGHT = 0.015, 14.0   # label height as a share of the image height, and its least (px)
DIGIT_MIN, DIGIT_MAX = 0.3, 1.6     # label heights: the height of a marker's number
DARK_VAL = 100                     # most V (0-255) of a black number's pixels
LIGHT_MIN, LIGHT_SAT = 170, 70     # least channel and most S (0-255) of a white number's pixels
RING_GAP = 2.0                     # px out from the number where the ring of colour around it is looked at
RING_SHARE = 0.85                  # least share of that ring in the marker's colour
MARKER_TOL = 70.0                  # RGB distance within which a pixel has the marker's colour
NUMBER_CONTRAST = 90.0             # least RGB distance between a marker's colour and its number's
MARKER_ASPECT = 1.35               # most ratio of a marker's long side to its short side
MARKER_CHROMA = 60.0               # least saturation (max - min of RGB) of a coloured (not white or black) marker
WINDOW = 14.0                      # marker widths around a marker searched for its mask
FULL_PERCENTILE = 99.0             # percentile of the chroma along a neutral marker's mask colour near it: C's own
NEAR = 4.0                         # marker widths around a neutral marker where its mask colour's own chroma is found
LEVELS = tuple(float(v) for v in np.arange(0.2, 0.75, 0.05))   # tint levels tried, lowest first
STABLE = 2                         # px: most change of the part's sides between two levels for it to be the mask
EDGE_BAND = 3                      # px: the mask's rim, and the picture just outside it, where its edge is set
EDGE_SHRINK = 0.15                 # share of the mask's size that setting may move a side in
EDGE_MOVE = 2                      # px: farthest that setting moves a side out (more: the level let the mask run)
MIN_FILL = 0.4                     # least share of its extent a mask's tinted part covers
MIN_MASK = 1.2                     # a mask spans at least this many marker widths
SAME_BOX = 0.5                     # IoU from which a mask is a box another pass found (its outline and tag)
SURE = 0.5                         # least recognizer confidence of a marker's number


# the ring around a number is sampled at 48 angles (cosines and sines computed once: a page has thousands of
# digit candidates)
_RING_ANGLES = np.linspace(0, 2 * np.pi, 48, endpoint=False)
_RING_COS, _RING_SIN = np.cos(_RING_ANGLES), np.sin(_RING_ANGLES)


@dataclasses.dataclass(frozen=True)
class Marker:
    """A filled marker holding a number: its inclusive box (px) and its fill colour (RGB)."""

    box: tuple[int, int, int, int]
    colour: tuple[float, float, float]


def label_height(image_height: int) -> float:
    """Expected label (marker) height in px for an image this high."""
    return max(MIN_HEIGHT, EXPECTED_HEIGHT * image_height)


def find_markers(rgb: np.ndarray, hsv: np.ndarray) -> list[Marker]:
    """Inclusive boxes of the filled markers with a number in them (see the module's step 1)."""
    height = label_height(rgb.shape[0])
    dark = hsv[..., 2] < DARK_VAL
    r_, g_, b_ = cv2.split(rgb)
    light = (cv2.min(cv2.min(r_, g_), b_) >= LIGHT_MIN) & (hsv[..., 1] < LIGHT_SAT)   # OpenCV: numpy's min over
    # the channel axis of a whole image is many times slower
    out = []
    for ink in (dark, light):   # a number is written in black or white
        n, _, stats, _ = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)
        digits = [tuple(int(v) for v in stats[k][:4]) for k in range(1, n)
                  if DIGIT_MIN * height <= stats[k][3] <= DIGIT_MAX * height and stats[k][2] <= 1.5 * stats[k][3]]
        for x, y, w, h in _numbers(digits):
            marker = _marker_around(rgb, x, y, w, h)
            if marker is not None:
                out.append(marker)
    return out


def _numbers(digits: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """Digits (x, y, w, h) side by side on one row, closer than half their height, joined into numbers."""
    out: list[list[int]] = []
    for x, y, w, h in sorted(digits):
        last = out[-1] if out else None
        if (last is not None and x - (last[0] + last[2]) <= 0.5 * h and abs((y + h / 2) - (last[1] + last[3] / 2))
                <= 0.25 * h and abs(h - last[3]) <= 0.3 * h):
            right = max(last[0] + last[2], x + w)
            top, bottom = min(last[1], y), max(last[1] + last[3], y + h)
            last[1:] = [top, right - last[0], bottom - top]
        else:
            out.append([x, y, w, h])
    return [(a, b, c, d) for a, b, c, d in out]


def _marker_around(rgb: np.ndarray, x: int, y: int, w: int, h: int) -> Marker | None:
    """The filled marker around the number at (x, y, w, h): the extent of the marker's colour (the median of a
    ring just outside the number; pixels within MARKER_TOL of it) along the number's middle row and column; None
    unless that colour surrounds the number all round (RING_SHARE of the ring)."""
    cy, cx = y + h // 2, x + w // 2
    r = 0.5 * max(w, h) + RING_GAP   # the marker is wider than its number by its rim
    px = np.round(cx + r * _RING_COS).astype(int)
    py = np.round(cy + r * _RING_SIN).astype(int)
    if px.min() < 0 or py.min() < 0 or px.max() >= rgb.shape[1] or py.max() >= rgb.shape[0]:
        return None
    ring = rgb[py, px].astype(np.float32)
    colour = np.median(ring, axis=0)
    number = rgb[y + h // 2, x:x + w].astype(np.float32).mean(axis=0)
    if float(np.linalg.norm(colour - number)) < NUMBER_CONTRAST or _near(ring, colour).mean() < RING_SHARE:
        return None
    row, col = _near(rgb[cy].astype(np.float32), colour), _near(rgb[:, cx].astype(np.float32), colour)
    left, right = _run_end(row, x, -1), _run_end(row, x + w - 1, +1)
    top, bottom = _run_end(col, y, -1), _run_end(col, y + h - 1, +1)
    if min(right - left, bottom - top) < max(w, h) or \
            max(right - left, bottom - top) > MARKER_ASPECT * min(right - left, bottom - top):
        return None
    return Marker((left, top, right, bottom), (float(colour[0]), float(colour[1]), float(colour[2])))


def _near(pixels: np.ndarray, colour: np.ndarray) -> np.ndarray:
    """Which ``pixels`` (..., 3) lie within MARKER_TOL of ``colour`` (RGB distance)."""
    return np.linalg.norm(pixels - colour, axis=-1) < MARKER_TOL


def _run_end(line: np.ndarray, start: int, step: int) -> int:
    """The last index of the run of colour that begins just past ``start`` going ``step`` (the number's strokes
    at ``start`` are stepped over first)."""
    i = start + step
    while 0 <= i < line.size and not line[i]:
        i += step
    while 0 <= i + step < line.size and line[i + step]:
        i += step
    return i


def mask_box(rgb: np.ndarray, marker: Marker) -> list[float] | None:
    """Inclusive extent [x1, y1, x2, y2] of the tinted mask around ``marker``; None when none is found."""
    x1, y1, x2, y2 = marker.box
    side = max(x2 - x1, y2 - y1) + 1
    h, w = rgb.shape[:2]
    reach = int(WINDOW * side)
    cx, cy = (x1 + x2) // 2, (y1 + y2) // 2
    wx1, wy1, wx2, wy2 = max(0, cx - reach), max(0, cy - reach), min(w, cx + reach + 1), min(h, cy + reach + 1)
    win = rgb[wy1:wy2, wx1:wx2].astype(np.float32)
    chroma = win - win.mean(axis=2, keepdims=True)
    colour = np.asarray(marker.colour, np.float32)
    towards = colour - colour.mean()
    if float(colour.max() - colour.min()) < MARKER_CHROMA:   # a white or black marker: the tint right around it
        yy, xx = np.mgrid[wy1:wy2, wx1:wx2]
        d = np.hypot(xx - cx, yy - cy)
        towards = np.median(chroma[(d > 0.5 * side + RING_GAP) & (d < side)], axis=0)
    towards /= max(1e-6, float(np.linalg.norm(towards)))
    along = chroma @ towards
    # the drawn colour's own chroma: the marker's, or for a neutral marker what the surest pixels (a contour) reach
    if float(colour.max() - colour.min()) >= MARKER_CHROMA:
        full = float(np.linalg.norm(colour - colour.mean()))
    else:   # the surest pixels near the marker: the mask's contour, or its tint where none is drawn
        full = float(np.percentile(along[d < NEAR * side], FULL_PERCENTILE))
    tint = along / max(1e-6, full)   # chroma along the mask's colour, 1 = the colour itself
    inner = np.zeros(tint.shape, np.uint8)
    inner[y1 - wy1:y2 - wy1 + 1, x1 - wx1:x2 - wx1 + 1] = 1
    seed = (cy - wy1, cx - wx1)
    # the window's edges that are not the image's: a part reaching them is not closed
    open_edges = (wx1 > 0, wy1 > 0, wx2 < w, wy2 < h)
    found = [_component(((tint >= t) | (inner > 0)).astype(np.uint8), seed, open_edges) for t in LEVELS]
    for a, b in zip(found, found[1:]):
        if a is None or b is None or max(abs(u - v) for u, v in zip(a[1], b[1])) > STABLE:
            continue
        part, box = a
        extent = (box[2] - box[0] + 1) * (box[3] - box[1] + 1)
        # a mask is a filled area: a drawn box's outline with its label attached is a thin ring around nothing
        if max(box[2] - box[0], box[3] - box[1]) + 1 < MIN_MASK * side or part.sum() < MIN_FILL * extent:
            return None
        # the edge: half-way between the tint along the mask's rim (its contour, when drawn) and the picture's
        # just outside it, the level where a line blurred by JPEG has its edge
        k = np.ones((2 * EDGE_BAND + 1, 2 * EDGE_BAND + 1), np.uint8)
        rim = part & (1 - cv2.erode(part, k))
        outside = cv2.dilate(part, k) & (1 - part)
        if rim.any() and outside.any():
            level = 0.5 * (float(np.percentile(tint[rim > 0], 90)) + float(np.median(tint[outside > 0])))
            edge = _component(((tint >= level) | (inner > 0)).astype(np.uint8), seed, open_edges)
            inset = -int(EDGE_SHRINK * min(box[2] - box[0], box[3] - box[1]))
            if edge is not None and _inside(edge[1], box, EDGE_MOVE) and _inside(box, edge[1], -inset):
                box = edge[1]
        return [float(wx1 + box[0]), float(wy1 + box[1]), float(wx1 + box[2]), float(wy1 + box[3])]
    return None


def _inside(a: Sequence[int], b: Sequence[int], margin: int) -> bool:
    """Box ``a`` lies within box ``b`` grown by ``margin`` px."""
    return a[0] >= b[0] - margin and a[1] >= b[1] - margin and a[2] <= b[2] + margin and a[3] <= b[3] + margin


def _component(mask: np.ndarray, seed: tuple[int, int], open_edges: tuple[bool, bool, bool, bool]
               ) -> tuple[np.ndarray, tuple[int, int, int, int]] | None:
    """``mask``'s 4-connected part holding ``seed`` (row, column; uint8 0/1) and its inclusive extent; None when
    it reaches an ``open_edges`` edge of the window (left, top, right, bottom: no closed area there)."""
    _, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
    k = int(labels[seed])
    x, y, w, h, _ = (int(v) for v in stats[k])
    reached = (x == 0, y == 0, x + w == mask.shape[1], y + h == mask.shape[0])
    if any(r and o for r, o in zip(reached, open_edges)):
        return None
    return (labels == k).astype(np.uint8), (x, y, x + w - 1, y + h - 1)


def with_masks(rgb: np.ndarray, regions: list[Any], allowed: set[int] | None, make: Callable[..., Any]) -> list[Any]:
    """``regions`` with the masks found around numbered markers added (steps 1-3 of the module): a marker that is
    no found region's label, read as an id no region has, around which a mask closes that is no found box. ``make(id, bbox,
    label_text, confidence, confirmed, label_box)`` builds a region."""
    from tools.regions.label_reader import READER
    from tools.regions.marks import _label_box

    hsv = cv2.cvtColor(rgb, cv2.COLOR_RGB2HSV)
    labels = [r.label_box for r in regions if r.label_box is not None]
    markers = [m for m in find_markers(rgb, hsv) if not any(_overlaps(m.box, b) for b in labels)]
    if not markers:
        return regions
    dark = [max(m.colour) < DARK_VAL for m in markers]   # a black marker's white number is read in negative
    reads: list[Any] = [None] * len(markers)
    for polarity in (False, True):
        idx = [k for k, d in enumerate(dark) if d == polarity]
        for k, read in zip(idx, READER.read(rgb, [_label_box(markers[k].box, True) for k in idx], invert=polarity)):
            reads[k] = read
    taken = {r.id for r in regions if r.id >= 0}
    out = list(regions)
    for marker, (rid, text, conf) in sorted(zip(markers, reads), key=lambda mr: -mr[1][2]):   # surest first
        if rid is None or conf < SURE or rid in taken or (allowed is not None and rid not in allowed):
            continue
        box = mask_box(rgb, marker)
        if box is None or any(_iou(box, r.bbox) >= SAME_BOX for r in regions):   # a found box, not a mask
            continue
        taken.add(rid)
        out.append(make(rid, box, text, round(float(conf), 3), None, list(marker.box)))
    return out


def _iou(a: Sequence[float], b: Sequence[float]) -> float:
    """IoU of two inclusive boxes."""
    w = min(a[2], b[2]) - max(a[0], b[0]) + 1
    h = min(a[3], b[3]) - max(a[1], b[1]) + 1
    if w <= 0 or h <= 0:
        return 0.0
    area = (a[2] - a[0] + 1) * (a[3] - a[1] + 1) + (b[2] - b[0] + 1) * (b[3] - b[1] + 1) - w * h
    return float(w * h / area)


def _overlaps(a: Sequence[float], b: Sequence[float]) -> bool:
    """Two inclusive boxes share a pixel."""
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]
