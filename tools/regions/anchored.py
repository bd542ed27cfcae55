"""Boxes found from their labels (used by :mod:`tools.regions.pipeline`): a filled label that no found box took, read the
same by the mask and the picture, is where the labels of this colour go beside their boxes (the usual place,
:func:`tools.regions.places.image_place`); that place fixes one corner of its box (above, below or left of the box,
inside its top-left corner) or its centre, and the box's other sides are this colour's lines that close a rectangle
with it. Crowded boxes of one colour whose lines run into each other hide boxes from the rectangle search
(:mod:`tools.regions.lines`); a box its own label anchors is found among far fewer candidates. Where no label of
the colour was matched (its only box was not found), the label's place is the one place where exactly one box closes
around it.

Conventions: masks are (H, W) bool; label boxes (x1, y1, x2, y2) end-exclusive px; boxes [x1, y1, x2, y2] at the
centres of their outlines (px), as in :mod:`tools.regions.lines`.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from tools.regions.geom import ABOVE, BELOW, CENTRED, INSIDE_TOP_LEFT, LEFT, components, enclosed, iou
from tools.regions.pieces import line_pieces
from tools.regions.lines import SIDE_COVER
from tools.regions.prune import UNIQUE_MIN, outline_index

SNAP = 2.0          # px beyond half a line a label's own side may lie from where its label puts it
CENTRE_TOL = 2.0    # px, most a centred label's centre lies off its box's centre (rounding of both)
# px looked at past a corner for lines running on: near, for crowded boxes whose parallel lines are drawn a few px
# apart (tools.regions.prune._clean_corners looks 2-8 px past the centre line's band: on dev overlays it lost 1:82,
# a box whose right side is drawn against its neighbour's left side)
RUN_ON = 3
MIN_CORNERS = 2     # real corners a box needs (another box's line crossing a side may run on past one)
USED = 0.3          # IoU with a matched label's box above which a filled label is that label


def orphan_labels(filled: np.ndarray, used: Sequence[Sequence[float]], mask: np.ndarray, height: float | None,
                  thick: float) -> list[tuple[int, int, int, int]]:
    """Boxes (x1, y1, x2, y2, end-exclusive) of the filled label backgrounds (``filled`` > 0, see
    :func:`tools.regions.fill.filled_areas`) that no matched label box (``used``) overlaps and that look like one
    label ``height`` px tall drawn with lines ``thick`` px wide: as tall, or a line taller where the background is
    glued to a line and found with it (any height when None), with its letters (the holes in ``mask``) in the
    middle, or a line off it (two labels drawn over each other make one background with the letters off to one
    side)."""
    n, _, stats = components((filled > 0).astype(np.uint8))
    out = []
    for x, y, w, h, _ in stats[1:n]:
        box = (int(x), int(y), int(x + w), int(y + h))
        if ((height is None or height - SNAP <= h <= height + thick + SNAP) and all(iou(box, u) <= USED for u in used)
                and _letters_centred(mask, box, thick + SNAP)):
            out.append(box)
    return out


def _letters_centred(mask: np.ndarray, box: tuple[int, int, int, int], slack: float) -> bool:
    """The letters (holes) of the label background ``box`` in ``mask`` are centred in it within ``slack`` px."""
    x1, y1, x2, y2 = box
    ys, xs = np.nonzero(enclosed(mask[y1:y2, x1:x2]))
    return bool(len(xs)) and abs((xs.min() + xs.max() + 1 - (x2 - x1)) / 2) <= slack \
        and abs((ys.min() + ys.max() + 1 - (y2 - y1)) / 2) <= slack


def colour_lines(mask: np.ndarray) -> tuple[list[float], list[float], float | None]:
    """Centres (px) of the vertical and of the horizontal lines of ``mask`` (bands of two lines drawn against each
    other give both), and their median thickness (None without lines)."""
    upright, lying = line_pieces(mask, vertical=True, merged=True), line_pieces(mask, vertical=False, merged=True)
    thick = float(np.median([ln.thick for ln in upright + lying])) if upright or lying else None
    return [float(ln.pos) for ln in upright], [float(ln.pos) for ln in lying], thick


def explained(found: Sequence[Sequence[float]], shape: tuple[int, int]) -> np.ndarray:
    """Flat bool mask of the outline bands of the boxes ``found`` (:func:`tools.regions.prune.outline_index`)."""
    out = np.zeros(shape[0] * shape[1], bool)
    for box in found:
        out[outline_index(box, shape)] = True
    return out


def box_from_label(label: Sequence[int], place: int, thick: float, lines: tuple[list[float], list[float]],
                   mask: np.ndarray, drawn: np.ndarray, known: np.ndarray) -> list[float] | None:
    """The box whose label drawn at ``place`` (index in :func:`tools.regions.geom.label_anchors`) is ``label``:
    this colour's lines (``lines``: vertical and horizontal centres, see :func:`colour_lines`; ``mask``: their
    pixels) closing a rectangle with the sides the label fixes, each side drawn (``drawn``: this colour, what hides
    it) over SIDE_COVER of its length, at least MIN_CORNERS of its corners real (lines ending there,
    :func:`_real_corners`; beyond the label itself says nothing), and at least UNIQUE_MIN of its
    drawn outline on no found box's (``known``: :func:`explained`). Of several, the one with the most real
    corners, then the most drawn sides, then the smallest; None when none closes."""
    xs, ys = lines
    own = mask.ravel()
    best: tuple[int, float, float, list[float]] | None = None
    for box in _candidates(label, place, thick, xs, ys):
        cover, corners = _cover(drawn, box, thick), _real_corners(mask, box, thick, label)
        if cover < SIDE_COVER or corners < MIN_CORNERS:
            continue
        idx = outline_index(box, mask.shape)
        idx = idx[own[idx]]
        if not len(idx) or (~known[idx]).mean() < UNIQUE_MIN:
            continue
        key = (-corners, -cover, (box[2] - box[0]) * (box[3] - box[1]))
        if best is None or key < best[:3]:
            best = (*key, box)
    return None if best is None else best[3]


def _candidates(label: Sequence[int], place: int, thick: float, xs: list[float],
                ys: list[float]) -> list[list[float]]:
    """Boxes whose sides are lines at ``xs`` (vertical) and ``ys`` (horizontal) and that put ``label`` at
    ``place`` (the inverse of :func:`tools.regions.geom._places`): each side the label fixes within half a line
    plus SNAP of where the label puts it; a label above, below or left of its box may be glued to that side (its
    background found with the line in it), so that side may also lie a line's width inside the label's edge."""
    lx1, ly1, lx2, ly2 = label
    half, tol = thick / 2, thick / 2 + SNAP

    def near(lines: list[float], lo: float, hi: float) -> list[float]:
        return [v for v in lines if lo <= v <= hi]

    if place == CENTRED:   # the label's centre is the box's: sides in mirrored pairs around it
        cx, cy = lx1 + lx2 - 1, ly1 + ly2 - 1   # twice the centre
        left = [(a, b) for a in xs for b in xs if b - a > thick and abs(a + b - cx) <= 2 * CENTRE_TOL]
        tops = [(a, b) for a in ys for b in ys if b - a > thick and abs(a + b - cy) <= 2 * CENTRE_TOL]
        return [[x1, y1, x2, y2] for (x1, x2), (y1, y2) in itertools.product(left, tops)]
    x1s = near(xs, lx1 + half - tol, lx1 + half + tol)   # the left side, for a label above or below the box
    if place == ABOVE:
        y1s, x2s, y2s = near(ys, ly2 - thick - SNAP, ly2 + half + tol), xs, ys
    elif place == BELOW:
        y1s, x2s, y2s = ys, xs, near(ys, ly1 - half - tol, ly1 + thick + SNAP)
    elif place == LEFT:
        x1s, y1s, x2s, y2s = near(xs, lx2 - thick - SNAP, lx2 + half + tol), near(ys, ly1 + half - tol,
                                                                                  ly1 + half + tol), xs, ys
    elif place == INSIDE_TOP_LEFT:
        x1s, y1s = near(xs, lx1 - half - tol, lx1 + half + SNAP), near(ys, ly1 - half - tol, ly1 + half + SNAP)
        x2s, y2s = [x for x in xs if x >= lx2], [y for y in ys if y >= ly2]
    else:
        return []
    return [[x1, y1, x2, y2] for x1, y1, x2, y2 in itertools.product(x1s, y1s, x2s, y2s)
            if x2 - x1 > thick and y2 - y1 > thick]


def _cover(drawn: np.ndarray, box: Sequence[float], thick: float) -> float:
    """The least drawn share of the four sides of ``box`` (a column across a horizontal side counts when a pixel
    of the line's middle half is drawn: a line's JPEG-blurred edge does not make another line beside it)."""
    x1, y1, x2, y2 = box
    return min(side_drawn(drawn, y1, x1, x2, thick), side_drawn(drawn, y2, x1, x2, thick),
               side_drawn(drawn.T, x1, y1, y2, thick), side_drawn(drawn.T, x2, y1, y2, thick))


def side_drawn(m: np.ndarray, at: float, a: float, b: float, thick: float) -> float:
    """Drawn share of the horizontal line of ``m`` centred on row ``at`` from column ``a`` to ``b`` (px)."""
    r0, r1 = max(0, int(round(at - thick / 4))), min(m.shape[0], int(round(at + thick / 4)) + 1)
    c0, c1 = max(0, int(round(a))), min(m.shape[1], int(round(b)) + 1)
    band = m[r0:r1, c0:c1]
    return float(band.any(axis=0).mean()) if band.size else 0.0


def _real_corners(mask: np.ndarray, box: Sequence[float], thick: float, label: Sequence[int]) -> int:
    """How many of the box's four corners are real: its lines end at the outer edges of the lines they meet (mostly
    background RUN_ON px beyond them, both ways, over the line's width), as a box's do; a line crossing a side runs
    on. Beyond a corner where the box's own ``label`` sits, its background says nothing."""
    x1, y1, x2, y2 = box
    h = thick / 2
    lx1, ly1, lx2, ly2 = label
    out = 0
    for x, y, sx, sy in ((x1, y1, -1, -1), (x2, y1, 1, -1), (x1, y2, -1, 1), (x2, y2, 1, 1)):
        lo, hi = int(round(y - h)), int(round(y + h)) + 1          # the horizontal line's rows
        edge = int(round(x + sx * h))                              # the vertical line's outer edge
        along = (lo, hi, edge + 1, edge + 1 + RUN_ON) if sx > 0 else (lo, hi, edge - RUN_ON, edge)
        lo, hi = int(round(x - h)), int(round(x + h)) + 1
        edge = int(round(y + sy * h))
        across = (edge + 1, edge + 1 + RUN_ON, lo, hi) if sy > 0 else (edge - RUN_ON, edge, lo, hi)
        ends = []
        for r0, r1, c0, c1 in (along, across):
            under_label = c0 < lx2 and c1 > lx1 and r0 < ly2 and r1 > ly1
            beyond = mask[max(0, r0):max(0, r1), max(0, c0):max(0, c1)]
            ends.append(under_label or beyond.size == 0 or beyond.mean() < 0.5)
        out += int(all(ends))
    return out
