"""Places to look for a drawn box that the region reader did not return (:mod:`tools.regions.marked` refines and
scores them): straight pieces of thin line in an overlay colour.

The reader's overlay colours (:func:`tools.regions.colours.colour_layers`) are found from the image's near-pure
pixels; on ground of the outline's own hue (a red box on a false-colour near-infrared field) its masks take in so
much ground that no rectangle closes in them. A line's own colour is narrower: per overlay colour, the median of its
``STRONGEST`` most strongly coloured pixels, and the pixels near that colour (:func:`tools.regions.marked.line_pixels`).
Among those, a horizontal line is a run at most ``LINE_MAX`` px tall, at least ``MIN_SIDE`` px long and nearly
straight (a vertical one likewise); each piece is the side of a box not yet known on either side of it, a square
seed that :func:`tools.regions.marked.refine` moves onto the box's lines (it reaches out by the box's size).
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from tools.regions.colours import colour_layers
from tools.regions.marked import MIN_EVIDENCE, NEAR, Marked, line_pixels, marked_box

# px of an overlay colour whose median is taken for its line colour: a 24 px box of 2 px lines has ~190, one of 60 px
# and 4 px lines ~900; on ground of the line's hue the larger count takes in ground, the smaller one a red car
STRONGEST = (150, 1000)
LINE_MAX = 9         # px, thickest line looked for (the reader reads thicker outlines on a scaled-down copy)
MIN_SIDE = 12        # px, shortest side (the reader's smallest box side)
STRAIGHT = 0.5       # least share of a piece's bounding box its pixels fill (a line, not a scribble)
MAX_PIECES = 24      # longest pieces per colour and direction kept as seeds


Seed = tuple[list[float], tuple[np.ndarray, np.ndarray]]


def line_colours(rgb: np.ndarray) -> list[np.ndarray]:
    """RGB (float) the lines of each overlay colour may have: the median of its most strongly coloured pixels, as
    many as each of STRONGEST (one colour where they agree within half of NEAR)."""
    out: list[np.ndarray] = []
    for mask, strength in colour_layers(rgb):
        values = np.sort(strength[mask])
        if len(values) == 0:
            continue
        for count in STRONGEST:
            cut = values[max(len(values) - count, 0)]
            colour = np.median(rgb[mask & (strength >= cut)].astype(np.float32), axis=0)
            if all(np.linalg.norm(colour - c) > NEAR / 2 for c in out):
                out.append(colour)
    return out


def _pieces(near: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Horizontal pieces of thin line in ``near`` (bool): [x1, y, x2, y] at the piece's middle row, longest first."""
    tall = cv2.morphologyEx(near.astype(np.uint8), cv2.MORPH_OPEN, np.ones((LINE_MAX + 1, 1), np.uint8))
    thin = (near & (tall == 0)).astype(np.uint8)
    thin = cv2.morphologyEx(thin, cv2.MORPH_CLOSE, np.ones((1, 3), np.uint8))   # a pixel lost to JPEG: one line
    n, _, stats, _ = cv2.connectedComponentsWithStats(thin, connectivity=8)
    found = []
    for x, y, w, h, area in stats[1:n]:
        if w >= MIN_SIDE and h <= LINE_MAX + 2 and area >= STRAIGHT * w * h:
            found.append((int(x), int(y + h // 2), int(x + w - 1), int(y + h // 2)))
    return sorted(found, key=lambda p: p[0] - p[2])[:MAX_PIECES]


def _squares(piece: Sequence[int], vertical: bool) -> list[list[float]]:
    """The two square boxes a piece is a side of (below and above it; for a vertical piece, right and left)."""
    a, c, b, _ = piece
    side = b - a
    if vertical:   # the piece was found on the transposed image: (y1, x, y2)
        return [[float(c), float(a), float(c + side), float(b)], [float(c - side), float(a), float(c), float(b)]]
    return [[float(a), float(c), float(b), float(c + side)], [float(a), float(c - side), float(b), float(c)]]


def line_seeds(rgb: np.ndarray) -> list[Seed]:
    """Square seeds on both sides of every thin straight piece of each overlay colour's line pixels."""
    seeds: list[Seed] = []
    for colour in line_colours(rgb):
        near = line_pixels(rgb, colour)
        for vertical, mask in ((False, near), (True, np.ascontiguousarray(near.T))):
            for piece in _pieces(mask):
                seeds += [(box, (colour, near)) for box in _squares(piece, vertical)]
    return seeds


def find_marked_box(rgb: np.ndarray, candidates: Sequence[Sequence[float]]) -> Marked:
    """:func:`tools.regions.marked.marked_box` over ``candidates`` (the reader's boxes); where none of them is a
    drawn outline, over the line seeds as well (a box the reader missed)."""
    found = marked_box(rgb, candidates)
    if found.evidence >= MIN_EVIDENCE:   # an outline among the candidates: chosen, or two about as strong
        return found
    return marked_box(rgb, (), line_seeds(rgb), found.outlines)   # the candidates' outlines are not refined again
