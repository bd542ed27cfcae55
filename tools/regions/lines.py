"""Find drawn axis-aligned rectangles (region outlines) in a boolean overlay-colour mask.

Used by :mod:`tools.regions.pipeline`. Conventions: masks are (H, W) bool; boxes are [x1, y1, x2, y2] in px at the centre
of the drawn outline (``cv2.rectangle`` semantics: a line of thickness t covers centre ± about t/2).

Method (why by hand: OpenCV's contour/Hough tools do not survive labels glued to or written across the outline):

1. Vertical line pieces: pixels in vertical runs >= MIN_RUN px that are not part of horizontal runs > MAX_LINE px
   (that removes filled label backgrounds and crossing horizontal lines); per piece the thickness is the median
   width over its rows, so a letter stroke touching the line does not move it. Horizontal pieces likewise. A long
   solid vertical band up to two lines thick is two sides drawn against each other (neighbouring boxes): a line at
   each of its edges. Nothing beyond the image counts as drawn (a line along the border stays thin); but a box
   drawn up to the border has its side just beyond it, out of sight: a rim line there pairs as a side (everything
   beyond the image counting as hidden) where the lines crossing it run into the border.
2. For every pair of vertical lines, the rows drawn across the pair (>= SIDE_COVER of the span, both corners
   drawn) form bands; a band thicker than the line is a line glued to a filled label, and the line is the end of
   the band with the longer fully drawn run (the label's text leaves holes, the line does not). A band thinner
   than the line (JPEG-blurred edge rows, a hidden corner pixel) counts when the columns crossing it are drawn
   as high as the line is thick (a label's padding or a letter stroke is thinner). A fully drawn band up to two
   lines thick is two lines (the facing sides of stacked boxes); a band running into the image border is a line
   the border cuts, centred half a line in from its visible edge. A band drawn only in other colours where both
   lines start or end, and neither runs on past it, is a side drawn under another colour's line.
   Two vertical lines pair when about as thick; one up to twice as thick as the other may be two sides drawn
   over each other (neighbouring boxes), and each of its edges is paired.
3. A (top band, bottom band) pair closes a rectangle when both sides are drawn over >= SIDE_COVER of their
   length (pixels of another overlay colour and the letter holes of filled labels count as drawn: a later box or
   label may hide part of an outline) and the inside is neither mostly drawn (a filled label; unless that is a
   label centred in the box, with background around it: :func:`_around_label`) nor crossed by lines along its
   border.
   Steps 1-3 run again on the transposed mask (pairs of horizontal lines, the cumulative sums reused
   transposed), for boxes the vertical pass misses: a small box whose label's letters touch both its left and
   right sides, a box whose bottom line is half hidden under another colour's line or measures thinner than its
   sides (JPEG widens a red line on a dark picture across more than along); a box sharing its top and bottom with
   one found upright is a label glued beside that box, a box with its filled label glued below taken in is that
   box (:func:`tools.regions.prune.drop_glued_below`), and duplicates go in step 4. An outline drawn around its
   own filled label, with a gap the closing of letter holes bridged, is found by :mod:`tools.regions.frames`.
4. :mod:`tools.regions.prune`: duplicates, rectangles whose outline other rectangles already explain (a piece cut
   out of crossing boxes: fewest real corners first), one around two boxes side by side whose sides the background
   between them breaks, and labels glued to an outline are dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import groupby

import cv2
import numpy as np

from tools.regions.crossing import crossed, row_window
from tools.regions.fill import filled_areas
from tools.regions.frames import framed_boxes
from tools.regions.geom import (  # noqa: F401 - iou re-exported
    MAX_LINE, MaskSums, components, drawn_extent, inner_ring_drawn, interior_drawn, iou, text_shift,
    true_runs)
from tools.regions.pieces import (MIN_RUN, RIM, Line, at_border, clipped_centre, cluster, line_pieces, meets_rims,
                                 rim_lines)
from tools.regions.prune import (DUP_TOL, dedupe, drop_broken, drop_glued_below, drop_glued_labels,
                                drop_label_splits, drop_split_unions, explain_away)

SIDE_COVER = 0.85  # share of each side that must be drawn (this colour or another one on top)
SOLID = 0.95      # share of a row that counts as fully drawn
OWN_COVER = 0.5   # share of a top or bottom side drawn in the box's own colour (the rest may be hidden by others)
INTERIOR_MAX = 0.5  # most of a box's inside drawn in its colour
RING_MAX = 0.3    # most drawn share (median over sides) of the ring inside an outline, labels left out
LEFT_SHIFT = 2      # px, text offset towards a label's right that marks a side merged on its left (a thin line)
LABEL_RING_MAX = 0.6  # the same with filled labels counted (a label covers at most two sides)


def _band_centres(cover: np.ndarray, a: int, b: int, thick: float,
                  height: Callable[[int, int], float] | None = None, own: np.ndarray | None = None,
                  beyond: Callable[[], np.ndarray] | None = None) -> list[float]:
    """Centre rows of the lines in band [a, b] of row coverages ``cover`` (module docstring, step 2): one, or two
    for a band up to two lines thick fully drawn in the colour itself (``own``: its row coverages; the facing sides
    of stacked boxes drawn against each other, where a label glued to a line has letter holes); none when no end of
    the band has a fully drawn run long enough for a line (the edge of a label's padding).
    ``height``: (a, b) -> drawn height (px) of what crosses the band, checked for bands thinner than the line.
    ``beyond``: () -> rows drawn on past the box's sides (bool), asked for only for a band drawn all across."""
    seg = cover[a:b + 1] >= SOLID
    if b - a + 1 <= thick + 2:   # a plain line: every band row is drawn across
        if b - a + 1 >= thick - 1:
            return [(a + b) / 2]
        # a short band: the JPEG-blurred edge rows of a line (or a hidden corner pixel) may miss the band, while a
        # label's padding or a letter stroke is really thinner than the line; their columns tell them apart
        h = height(a, b) if height is not None else 0.0
        return [(a + b) / 2] if thick - 1 <= h <= thick + 2 else []
    if not seg.any():
        return []
    first, last = int(np.argmax(seg)), len(seg) - 1 - int(np.argmax(seg[::-1]))
    a, b, seg = a + first, a + last, seg[first:last + 1]   # anti-aliased (JPEG) edge rows are no line end
    top = int(np.argmin(seg)) if not seg.all() else len(seg)
    bot = int(np.argmin(seg[::-1])) if not seg.all() else len(seg)
    # the line end of a glued label is the line plus the label's padding; a line with another one overlapping part
    # of its width below or above it (stacked boxes) may lose its blurred edge row to the other's partial cover
    if max(top, bot) < thick - 1:
        return []
    half = (thick - 1) / 2
    if top == bot:  # all drawn
        if b - a + 1 <= 2 * thick + 2 and own is not None and bool((own[a:b + 1] >= SOLID).all()):
            return [a + half, b - half]
        # a line and a glued filled label whose letter holes count as drawn. A label outside the box is as wide as
        # the box or wider (else it would not be drawn across it): its rows go on past a side, the line's do not
        if beyond is not None:
            past = beyond()[a:b + 1]
            mid = len(past) // 2
            up, down = int(past[:mid].sum()), int(past[mid:].sum())
            if max(up, down) >= thick and 3 * min(up, down) <= max(up, down):
                return [a + half if down > up else b - half]
        # else the label's own pixels leave the holes, and the line end is the one with the longer fully drawn run
        # of the colour itself (line + padding)
        if own is not None:
            solid = own[a:b + 1] >= SOLID
            top, bot = int(np.argmin(solid)), int(np.argmin(solid[::-1]))
            if not solid.all() and top != bot and max(top, bot) >= thick - 1:
                return [a + half if top > bot else b - half]
        # otherwise the label's letters lie beyond the end whose neighbour row is drawn more
        before = cover[a - 1] if a > 0 else 0.0
        after = cover[b + 1] if b + 1 < len(cover) else 0.0
        top, bot = (1, 0) if after > before else (0, 1)
    return [a + half if top >= bot else b - half]


def _axis_thick(line: Line) -> float:
    """Drawn thickness (px) of an outline from the measured piece thickness."""
    return max(1.0, line.thick)


def find_rectangles(mask: np.ndarray, min_side: float, filled: np.ndarray | None = None,
                    occluded: np.ndarray | None = None) -> list[tuple[list[float], float]]:
    """Drawn rectangles in ``mask``: list of (bbox at line centres, line thickness px), duplicates removed.
    ``filled``: :func:`filled_areas` of the mask when already computed. ``occluded``: pixels drawn over in another
    overlay colour (a later box or label may hide part of an outline): they count as drawn when a side's coverage
    is checked, never as line pieces of this colour; so do the letter holes of this colour's filled labels."""
    filled = filled_areas(mask.astype(np.uint8)) if filled is None else filled
    extent = drawn_extent(mask)
    if extent is None:
        return []
    x0, y0, roi = extent
    borders = (x0 == 0, y0 == 0, roi[1].stop >= mask.shape[1], roi[0].stop >= mask.shape[0])
    found = _rectangles(mask[roi], min_side, filled[roi], None if occluded is None else occluded[roi], borders)
    found = [([b[0] + x0, b[1] + y0, b[2] + x0, b[3] + y0], t) for b, t in found]
    return drop_glued_labels(found, (mask.shape[1], mask.shape[0]), mask, filled)


def _rectangles(mask: np.ndarray, min_side: float, filled: np.ndarray, occluded: np.ndarray | None,
                borders: tuple[bool, bool, bool, bool] = (False,) * 4) -> list[tuple[list[float], float]]:
    """:func:`find_rectangles` within a crop, before glued labels are dropped: boxes closed across pairs of
    vertical lines, then across pairs of horizontal lines (module docstring, steps 1-3). ``borders``: which of the
    crop's left, top, right and bottom edges are the image's border (see :func:`tools.regions.pieces.rim_lines`)."""
    thin = (mask & (cv2.dilate(filled, np.ones((3, 3), np.uint8)) == 0))   # off the filled labels
    hidden = mask | (filled > 0)   # the letter holes of a filled label hide an outline as the label does
    if occluded is not None:
        hidden |= occluded
    left, top, right, bottom = (RIM if b else 0 for b in borders)
    if any(borders):   # beyond the image, everything counts as hidden
        pad = ((top, bottom), (left, right))
        mask, filled, thin = np.pad(mask, pad), np.pad(filled, pad), np.pad(thin, pad)
        hidden = np.pad(hidden, pad, constant_values=True)
    sums = MaskSums.of(mask, hidden, thin)
    pads = (left, top, right, bottom)
    found = _paired(mask, min_side, filled, thin, sums, upright=True, pads=pads)
    found = [(b, t) for b, t in found if meets_rims(b, mask, pads)] + framed_boxes(mask, filled)
    sideways = _paired(mask.T, min_side, filled.T, thin.T, sums.transposed(), upright=False,
                       pads=(top, left, bottom, right))
    found = found + [(box, t) for b, t in sideways for box in [[b[1], b[0], b[3], b[2]]]
                     if meets_rims(box, mask, pads) and not _glued_beside(box, found)]
    found = drop_broken(drop_glued_below(found, sums.mask[0]), hidden)
    found = explain_away(dedupe(drop_split_unions(found, mask, thin)), thin, hidden)
    return [([b[0] - left, b[1] - top, b[2] - left, b[3] - top], t) for b, t in found]


def _glued_beside(box: list[float], upright: list[tuple[list[float], float]]) -> bool:
    """A box closed across horizontal lines that shares its top and bottom with a box found upright: a label glued
    beside that box."""
    return any(abs(o[1] - box[1]) <= DUP_TOL and abs(o[3] - box[3]) <= DUP_TOL
               and min(o[2], box[2]) > max(o[0], box[0]) for o, _ in upright)


def _paired(mask: np.ndarray, min_side: float, filled: np.ndarray, thin: np.ndarray, sums: MaskSums,
            upright: bool, pads: tuple[int, int, int, int] = (0, 0, 0, 0)) -> list[tuple[list[float], float]]:
    """Boxes whose left and right sides are a pair of vertical lines of ``mask`` (module docstring, steps 1-3).
    ``thin``: the mask off filled labels; ``sums``: of these masks; ``upright``: the mask is the image's own (not
    transposed), where labels go above and below boxes; ``pads``: px of padding beyond the image on the left, top,
    right and bottom (:func:`tools.regions.pieces.rim_lines`)."""
    xs = line_pieces(thin, vertical=True, merged=True)
    if upright:
        xs = cluster(xs + _label_edges(filled, thin, xs, mask))   # a label edge on a found side merges into it
    # rim lines lie beyond the image, apart from the lines found in it (never merged with a cut one at the border)
    xs = sorted(xs + rim_lines(xs, mask.shape, (pads[0], pads[2])), key=lambda ln: ln.pos)
    if len(xs) < 2:
        return []
    found: list[tuple[list[float], float]] = []
    # a side cut by the border is thinner than the other
    cut = [at_border(ln, pads[0], mask.shape[1] - 1 - pads[2]) for ln in xs]
    for i, left in enumerate(xs):
        sides = [(j, a, b) for j, right in enumerate(xs[i + 1:], start=i + 1) if right.pos - left.pos >= min_side
                 for a, b in _side_pairs(left, right, cut[i] or cut[j])]
        # a pair with no row drawn across it closes no box: all of this line's partners are ruled out at once
        across = crossed([(a, b) for _, a, b in sides], sums.cover[0], SIDE_COVER, min_side, sums.cover[1])
        for _, group in groupby(zip(sides, across), key=lambda s: s[0][0]):
            pair = []
            for a, b in ((a, b) for (_, a, b), ok in group if ok):
                for box, t in _close_pair(a, b, *sums.cover, sums.mask[0], mask, min_side, upright, pads):
                    ib = tuple(int(round(v)) for v in box)
                    r = int(np.ceil(t / 2))
                    if (inner_ring_drawn(*sums.ring, ib, r) <= RING_MAX
                            and inner_ring_drawn(*sums.mask, ib, r) <= LABEL_RING_MAX
                            and (interior_drawn(sums.area, ib, r) <= INTERIOR_MAX
                                 or _around_label(ib, r, filled, sums.thin_area))):
                        pair.append((box, t))
            found += drop_label_splits(pair, sums.mask[0], 3 * MAX_LINE, SOLID) if upright else pair
    return found


def _around_label(box: tuple[int, int, int, int], r: int, filled: np.ndarray, thin_area: np.ndarray) -> bool:
    """A box whose inside is mostly a filled label centred in it: its inside is background off the label, and the
    label ends more than a line width inside both of the box's sides across one axis (a label's own edges close no
    box around it)."""
    if interior_drawn(thin_area, box, r) > INTERIOR_MAX:
        return False
    x1, y1, x2, y2 = box
    inside = filled[y1 + r + 1:y2 - r, x1 + r + 1:x2 - r] > 0
    if not inside.any():
        return False
    cols, rows = np.flatnonzero(inside.any(axis=0)), np.flatnonzero(inside.any(axis=1))
    free_x = cols[0] > r and inside.shape[1] - 1 - cols[-1] > r
    free_y = rows[0] > r and inside.shape[0] - 1 - rows[-1] > r
    return bool(free_x or free_y)


def _side_pairs(left: Line, right: Line, cut: bool) -> list[tuple[Line, Line]]:
    """The two vertical lines as sides of one box when they are about as thick (within 2 px; ``cut``: one is cut by
    the image border, any thickness). A thicker line, up to twice as thick (+1 px), may be two sides drawn over
    each other (neighbouring boxes whose sides lie less than a line width apart): each of its edges is tried."""
    if cut or abs(left.thick - right.thick) <= 2:
        return [(left, right)]
    thin, wide = sorted((left, right), key=lambda ln: ln.thick)
    if wide.thick > 2 * thin.thick + 1:
        return []
    off = (wide.thick - thin.thick) / 2
    edges = [Line(wide.pos + d, thin.thick, wide.spans) for d in (-off, off)]
    return [(thin, e) if wide is right else (e, thin) for e in edges]


def _label_edges(filled: np.ndarray, thin: np.ndarray, xs: list[Line], mask: np.ndarray) -> list[Line]:
    """Candidate left sides hidden under a label glued to the left of its box: the right edge of a filled label
    background from which a horizontal line (the box's top or bottom side) runs on to the right, as a line of the
    colour's usual thickness; its left edge instead when the label is drawn inside the box against its left side
    (:func:`_line_on_left`)."""
    n, labels, stats = components(filled)
    if n <= 1:
        return []
    ys = line_pieces(thin, vertical=False)
    thick = float(np.median([ln.thick for ln in xs])) if xs else 3.0
    out = []
    for k, (x, y, w, h, _) in enumerate(stats[1:n], start=1):
        edge = x + w - 1
        starts = [ln.pos for ln in ys if y <= ln.pos <= y + h - 1
                  and any(abs(a - edge) <= ln.thick + 3 for a, _ in ln.spans)]
        if h >= MIN_RUN and starts:
            own = labels[y:y + h, x:x + w] == k
            spans_box = min(starts) <= y + thick and max(starts) >= y + h - 1 - thick   # top and bottom run on
            inside = spans_box and _line_on_left(own & mask[y:y + h, x:x + w], own & ~mask[y:y + h, x:x + w])
            pos = float(x) + (thick - 1) / 2 if inside else float(edge) - (thick - 1) / 2
            out.append(Line(pos, thick, [(float(y), float(y + h - 1))]))
    return out


def _line_on_left(drawn: np.ndarray, holes: np.ndarray) -> bool:
    """A filled label inside its box's top-left corner, as tall as the box, merged with the box's left side: the
    blob's left edge is straight and its text sits a line width further from it than from the right edge (a
    renderer pads text evenly). ``drawn``, ``holes``: the blob's pixels drawn / not drawn in the mask (its box);
    letters: :func:`tools.regions.geom.text_shift`."""
    if drawn[:, :2].any(axis=1).mean() < SIDE_COVER:
        return False   # a letter merged with a line, not a label's straight edge
    shift = text_shift(holes)
    return shift is not None and shift >= LEFT_SHIFT


def _close_pair(left: Line, right: Line, row_cs: np.ndarray, col_cs: np.ndarray, own_cs: np.ndarray,
                mask: np.ndarray, min_side: float, upright: bool = True,
                pads: tuple[int, int, int, int] = (0, 0, 0, 0)) -> list[tuple[list[float], float]]:
    """Rectangles whose left and right sides are the given vertical lines (each with a piece of its own).
    ``upright``: the mask is the image's own, where a filled label glued to a line runs past the box's sides;
    ``pads``: its padding beyond the image (left, top, right, bottom px)."""
    h, w = mask.shape
    first_x, last_x, first_y, last_y = pads[0], w - 1 - pads[2], pads[1], h - 1 - pads[3]
    thick = max(_axis_thick(left), _axis_thick(right))
    xa, xb = int(round(left.pos)), int(round(right.pos))
    lo, hi = row_window(left, right, h)
    rows = slice(lo, hi + 1)
    span = row_cs[rows, min(w, xb + 1)] - row_cs[rows, max(0, xa)]
    cover = span / max(1, xb - xa + 1)

    def corner(x: int) -> np.ndarray:
        a, b = max(0, x - 1), min(w, x + 2)
        return (row_cs[rows, b] - row_cs[rows, a]) > 0

    own = (own_cs[rows, min(w, xb + 1)] - own_cs[rows, max(0, xa)]) / max(1, xb - xa + 1)
    good = (cover >= SIDE_COVER) & (own >= OWN_COVER) & corner(xa) & corner(xb)
    unclipped = [ln.thick for ln in (left, right) if not at_border(ln, first_x, last_x)]
    line_t = min(unclipped) if unclipped else min(left.thick, right.thick)

    def height(a: int, b: int) -> float:   # a, b: band rows within ``rows``
        return _column_height(mask, lo + a, lo + b, xa, xb, int(line_t) + 3)

    reach = int(np.ceil(line_t / 2)) + 2   # past a side and its JPEG halo

    def past(x: int) -> np.ndarray:   # rows drawn on two columns from x away from the box
        step = 1 if x > xb else -1
        if not (0 <= x < w and 0 <= x + step < w):
            return np.zeros(hi + 1 - lo, bool)
        return mask[rows, x] & mask[rows, x + step]

    def beyond() -> np.ndarray:
        return past(xa - reach) | past(xb + reach)

    centres = []
    for a, b in true_runs(good):
        found = [lo + c for c in _band_centres(cover, a, b, line_t, height, own, beyond if upright else None)]
        clipped = clipped_centre(lo + a, lo + b, line_t, first_y, last_y) if not found else None
        centres += found or ([clipped] if clipped is not None else [])
    hidden = (cover >= SIDE_COVER) & (own < OWN_COVER) & corner(xa) & corner(xb)
    under = [lo + (a + b) / 2 for a, b in true_runs(hidden)
             if b - a + 1 <= 2 * line_t + 2 and _both_end(left, right, lo + a, lo + b, line_t, mask)]
    centres = sorted(centres + under)
    # the columns of each side and its two neighbours: a side is drawn between top and bottom on one of them
    side_cs = col_cs[:, [max(0, min(w - 1, x + d)) for x in (xa, xb) for d in (-1, 0, 1)]]
    out = []
    for k, top in enumerate(centres):
        bots = [bot for bot in centres[k + 1:] if bot - top >= min_side]
        if not bots:
            continue
        ya, yb = int(round(top)), np.array([int(round(bot)) for bot in bots])
        # the share of rows top..bot drawn on each column, for every bottom at once (the many candidate pairs of a
        # textured photo made this the region reader's hottest loop, one column and one pair at a time)
        sides = (side_cs[yb + 1] - side_cs[ya]) / (yb - ya + 1)[:, None]
        closed = (sides[:, :3].max(axis=1) >= SIDE_COVER) & (sides[:, 3:].max(axis=1) >= SIDE_COVER)
        for bot in (bot for bot, ok in zip(bots, closed) if ok):
            if not (_supported(left, top, bot) and _supported(right, top, bot)):
                continue   # e.g. a side made of a filled label's edge, with no line piece of its own
            out.append(([left.pos, top, right.pos, bot], thick))
    return out


def _column_height(mask: np.ndarray, y0: int, y1: int, xa: int, xb: int, reach: int) -> float:
    """Median over the columns between xa and xb drawn on all rows y0..y1 of the height (px) of their drawn run
    through those rows, looked for up to ``reach`` px beyond; 0 when no column is drawn across."""
    top, bot = max(0, y0 - reach), min(mask.shape[0], y1 + reach + 1)
    win = mask[top:bot, xa + 1:xb]
    core = win[y0 - top:y1 - top + 1].all(axis=0)
    if not core.any():
        return 0.0
    win = win[:, core]
    stop = np.zeros((1, win.shape[1]), bool)
    up = np.argmax(~np.vstack([win[:y0 - top][::-1], stop]), axis=0)     # drawn rows just above the band
    down = np.argmax(~np.vstack([win[y1 - top + 1:], stop]), axis=0)
    return float(np.median(up + down)) + (y1 - y0 + 1)


def _both_end(left: Line, right: Line, a: int, b: int, reach: float, mask: np.ndarray) -> bool:
    """Both lines start, or both end, within ``reach`` px of the band [a, b] across them (rows of ``mask``), and
    neither runs on past it: the band is a side of their box drawn under another colour's line (a line crossing
    the pair lets them run on beyond it). A line runs on where it is drawn on half the rows from 2 px (an outline's
    JPEG halo, a thicker line's edge) to ``reach`` + 2 px past the band, and not beside it as well (that is a
    letter, such as a label's glued to the box's corner)."""
    for edge, far in ((min, -1), (max, 1)):
        ends = [edge(v for span in ln.spans for v in span) for ln in (left, right)]
        if all(a - reach <= v <= b + reach for v in ends):
            near = b + 2 if far > 0 else a - 2 - int(reach)
            rows = slice(max(0, near), max(0, near + int(reach) + 1))
            return not any(_runs_on(mask[rows], ln, reach) for ln in (left, right))
    return False


def _runs_on(window: np.ndarray, line: Line, reach: float) -> bool:
    """``line`` (a column of ``window``, its thickness across) is drawn on half the window's rows, and the columns
    just beside its thickness are not (a line, not a letter's stroke)."""
    if window.shape[0] == 0:
        return False
    c, off = int(round(line.pos)), int(np.ceil(line.thick / 2)) + 2
    drawn = window[:, max(0, c - 1):c + 2].any(axis=1).sum() >= 0.5 * (reach + 1)
    beside = [window[:, x].mean() >= 0.5 for x in (c - off, c + off) if 0 <= x < window.shape[1]]
    return drawn and not any(beside)


def _supported(line: Line, top: float, bot: float) -> bool:
    """A line piece of ``line`` between the box's top and bottom (a line clustered from pieces elsewhere on the
    same column has none there)."""
    need = min(MIN_RUN, 0.25 * (bot - top))
    return any(min(b, bot) - max(a, top) >= need for a, b in line.spans)
