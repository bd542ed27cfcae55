"""Each side of a found box checked against its corners, and moved where the box's own lines say it lies:

- out, when the box's top and bottom lines (for a left or right side) run on past the side to a common end where
  a line spans the whole side, and the side found is no corner: its line leaves a gap between the corners, or runs
  on past both (another box's line crossing this box);
- in, when the top and bottom lines both stop short of the side at a common end where a line spans the whole
  side (the side found is another box's line further on);
- to the image border, when the side is drawn on it and the border hides part of its line: half a line's width in
  from the edge the line shows.

Each side is looked at as the right side of a flipped or transposed view of the mask, so one set of helpers serves
all four. :func:`label_side` then moves a side out to where the box's label says it lies, and :func:`off_label_below`
(:func:`off_label_above`) moves the bottom (top) of a box that took in a filled label glued to it and as wide as it
back to the box's own line."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from tools.regions.geom import ABOVE, BELOW, CENTRED, INSIDE_TOP_LEFT, LEFT, true_runs
from tools.regions.prune import LABEL_MAX_H

LINE_SHARE = 0.5    # least drawn share across a line's width for a pixel along it to count as drawn
SIDE_SHARE = 0.85   # least drawn share along a side for a line there to span it
BAND_SHARE = 0.2    # least drawn share across a box's inside of a filled label's row (a filled "11" below a 38 px box leaves 0.43)
CORNER_GAP = 3      # px, shortest undrawn run along a side that ends it before a corner (JPEG blurs a line's ends
#                     by about a pixel, so a corner never shows one)

Box = tuple[float, float, float, float]


def refit_sides(box: Sequence[float], thick: float, mask: np.ndarray) -> list[float]:
    """``box`` [x1, y1, x2, y2] (px, outline ``thick`` px wide) with each side moved as the module docstring says;
    ``mask``: the overlay colour's pixels (bool, H x W). Sides with no such evidence stay where they are."""
    h_img, w_img = mask.shape
    x1, y1, x2, y2 = (float(v) for v in box)
    views: list[tuple[np.ndarray, Box, Callable[[float], tuple[int, float]]]] = [
        (mask, (x1, y1, x2, y2), lambda v: (2, v)),
        (mask[:, ::-1], (w_img - 1 - x2, y1, w_img - 1 - x1, y2), lambda v: (0, w_img - 1 - v)),
        (mask.T, (y1, x1, y2, x2), lambda v: (3, v)),
        (mask.T[:, ::-1], (h_img - 1 - y2, x1, h_img - 1 - y1, x2), lambda v: (1, h_img - 1 - v)),
    ]
    out = [x1, y1, x2, y2]
    for view, seen, back in views:
        pos = _far_side(view, seen, thick)
        if pos is None:
            pos = _border_side(view, seen, thick)
        if pos is None:
            pos = _near_side(view, seen, thick)
        if pos is not None:
            k, v = back(pos)
            out[k] = v
    return out


def _far_side(m: np.ndarray, box: Box, t: float) -> float | None:
    """Where the right side of ``box`` belongs when its top and bottom lines run on past it to a common end and
    the side found is no corner (:func:`_no_corner`); None when it stays."""
    x1, y1, x2, y2 = box
    h, w = t / 2, m.shape[1]
    start = int(x2 + h) + 1
    if start >= w or not _no_corner(m, x2, y1, y2, t):
        return None
    top, bottom = (_ends(_along(m, y, t, start, w), t) for y in (y1, y2))
    for end in top:   # nearest first: the first common end where a line spans the side
        common = [min(end, e) for e in bottom if abs(e - end) <= t + 1]
        if common and common[0] >= 2 * t + 2:
            found = _spanned(m, start + common[0] - (t - 1) / 2, y1, y2, t)   # an end is the far side's outer edge
            if found is not None:
                return found
    return None


def _near_side(m: np.ndarray, box: Box, t: float) -> float | None:
    """Where the right side of ``box`` belongs when its top and bottom lines both stop short of it, more than a
    line's width before it, at a common end, and are mostly undrawn from there on; None when it stays."""
    x1, y1, x2, y2 = box
    h = t / 2
    first, stop = int(round(x1 + h)) + 1, int(round(x2 - h))   # the columns between the sides' lines
    if stop - first < 4 * t:
        return None
    ends = []
    for y in (y1, y2):
        drawn = _along(m, y, t, first, stop)
        reach = _ends(drawn, t)
        if not reach or reach[-1] >= stop - first - 2 - t:   # stops no more than a line (+ a blurred px) short
            return None
        if drawn[reach[-1] + 1:].mean() >= LINE_SHARE:   # goes on past a gap (a label's letters drawn over it)
            return None
        ends.append(first + reach[-1])
    pos = max(ends) - (t - 1) / 2   # the ends are the near side's outer edge
    if abs(ends[0] - ends[1]) > t + 1 or pos - x1 < 2 * t:
        return None
    return _spanned(m, pos, y1, y2, t)


def _border_side(m: np.ndarray, box: Box, t: float) -> float | None:
    """Where the right side of ``box`` belongs when it is drawn on the image's right border, which hides part of its
    line: half a line's width in from the edge the line shows, past the last column where the line's centre lies
    beyond the image (a box around an object the frame cuts, x2 = image width; the last column before it
    would cost 1 px of a small box's IoU); None when the side is away from the border or shows its whole width."""
    x1, y1, x2, y2 = box
    w = m.shape[1]
    if x2 + t / 2 < w - 1:
        return None
    c0 = max(0, int(x2 - t))
    runs = true_runs(m[max(0, int(round(y1))):int(round(y2)) + 1, c0:].mean(axis=0) >= SIDE_SHARE)
    if not runs or runs[-1][1] != w - 1 - c0 or w - (c0 + runs[-1][0]) >= t:
        return None
    return float(c0 + runs[-1][0] + (t - 1) / 2)


def _ends(drawn: np.ndarray, t: float) -> list[int]:
    """Where a line that starts at index 0 or 1 of ``drawn`` may end: the last index of each of its drawn runs up
    to its first gap wider than ``t`` px (narrower gaps: the letter holes of a label drawn over it, a crossing
    line's JPEG edge). Nearest first; [] when the line does not start there."""
    runs = true_runs(drawn)
    if not runs or runs[0][0] > 1:
        return []
    out = [runs[0][1]]
    for (_, prev_end), (a, b) in zip(runs, runs[1:]):
        if a - prev_end - 1 > t:
            break
        out.append(b)
    return out


def _along(m: np.ndarray, y: float, t: float, a: int, b: int) -> np.ndarray:
    """Which columns a..b-1 of the line of ``t`` px centred on row ``y`` are drawn."""
    r0, r1 = max(0, int(round(y - t / 2))), min(m.shape[0], int(round(y + t / 2)) + 1)
    if r0 >= r1:   # the line lies outside the image
        return np.zeros(max(0, min(b, m.shape[1]) - max(0, a)), bool)
    return m[r0:r1, a:b].mean(axis=0) >= LINE_SHARE


def _column(m: np.ndarray, x: float, t: float, a: int, b: int) -> np.ndarray:
    """Which rows a..b-1 of the line of ``t`` px centred on column ``x`` are drawn."""
    c0, c1 = max(0, int(round(x - t / 2))), min(m.shape[1], int(round(x + t / 2)) + 1)
    if c0 >= c1:   # the line lies outside the image
        return np.zeros(max(0, min(b, m.shape[0]) - max(0, a)), bool)
    return m[max(0, a):b, c0:c1].mean(axis=1) >= LINE_SHARE


def _spanned(m: np.ndarray, x: float, y1: float, y2: float, t: float) -> float | None:
    """``x`` when a line there spans the side from y1 to y2, else None."""
    return float(x) if _column(m, x, t, int(y1), int(y2) + 1).mean() >= SIDE_SHARE else None


def _no_corner(m: np.ndarray, x: float, y1: float, y2: float, t: float) -> bool:
    """The line at ``x`` is no corner of the side from y1 to y2: it leaves a gap (CORNER_GAP or more) between
    them, or runs on past both for more than a line's width (a longer line crossing the box)."""
    h = t / 2
    side = _column(m, x, t, int(round(y1)), int(round(y2)) + 1)   # from line centre to line centre: gaps as drawn
    if any(b - a + 1 >= CORNER_GAP for a, b in true_runs(~side)):
        return True
    reach = int(t) + 1
    top, bottom = int(round(y1 - h)), int(round(y2 + h)) + 1
    if top < reach or bottom + reach > m.shape[0]:
        return False
    return bool(_column(m, x, t, top - reach, top).all() and _column(m, x, t, bottom, bottom + reach).all())


# where a box's left side lies, from its label's edge (label_anchors' places: above, below, left, inside the top-left
# corner), in px relative to that edge + or - half a line: a label box's text starts past its padding and a letter's
# side bearing, so the letters found begin up to LABEL_INSET px right of where the label box does
LABEL_INSET = 6
CENTRE_TOL = 3    # px, how far a centred label's letters may sit off its box's centre (side bearings, rounding)


def label_side(box: Sequence[float], label: Sequence[float], thick: float, place: int,
               mask: np.ndarray) -> list[float]:
    """``box`` [x1, y1, x2, y2] (px, outline ``thick`` px wide) with its left side, or any side of a box whose label
    sits at its centre, moved to where the label says it lies, when that is not where it was found: renderers align
    a label above, below or inside the top-left corner with the box's left side, end one left of the box at it and
    centre one in the box (a centred label wider than its box cuts both its sides, and the box closes at its edge:
    seeds 121-191 and 701-710, +6 exact regions, -6 extra, no overlay worse; fresh 601-691 +1, 1 worse).
    ``place``: the label's place (:func:`tools.regions.geom.label_anchors` index, e.g. ``ABOVE``); ``label``: the
    label's letters [x1, y1, x2, y2]. A side moves only outwards, to a line that spans it and that the box's other
    lines reach (another box's line inside the box was found as this side)."""
    x1, y1, x2, y2 = (float(v) for v in box)
    h = thick / 2
    out = [x1, y1, x2, y2]
    if place in (ABOVE, BELOW):
        out[0] = _out_to(mask, out, label[0] + h - LABEL_INSET, label[0] + h + 1, thick)
    elif place == INSIDE_TOP_LEFT:
        out[0] = _out_to(mask, out, label[0] - h - LABEL_INSET, label[0] - h + 1, thick)
    elif place == LEFT:
        out[0] = _out_to(mask, out, label[2] + h - 1, label[2] + h + LABEL_INSET, thick)
    elif place == CENTRED:   # each side where the other one and the label's centre put it
        out[0], out[2] = _centred(mask, out, (label[0] + label[2]) / 2, thick)
        # the top and bottom alike, on the box turned on its side: a label wider than its box is drawn across both
        # its sides, and the rectangle closes at the label's edge
        out[1], out[3] = _centred(mask.T, [out[1], out[0], out[3], out[2]], (label[1] + label[3]) / 2, thick)
    return out


def _centred(m: np.ndarray, box: Sequence[float], c: float, thick: float) -> tuple[float, float]:
    """Left and right sides of ``box`` (x1, y1, x2, y2 px on ``m``) whose label is centred on column ``c``: each
    where the other side and that centre put it, looked at as a left side (:func:`_out_to`; the right one on the
    image flipped)."""
    w = m.shape[1]
    x1 = _out_to(m, box, 2 * c - box[2] - CENTRE_TOL, 2 * c - box[2] + CENTRE_TOL, thick)
    flipped = [w - 1 - box[2], box[1], w - 1 - x1, box[3]]
    fc = w - 1 - c
    x2 = w - 1 - _out_to(m[:, ::-1], flipped, 2 * fc - flipped[2] - CENTRE_TOL, 2 * fc - flipped[2] + CENTRE_TOL,
                         thick)
    return x1, x2


def _out_to(m: np.ndarray, box: Sequence[float], lo: float, hi: float, thick: float) -> float:
    """Where the left side of ``box`` goes when its label puts it between ``lo`` and ``hi`` (px) and it was found
    right of there (:func:`label_side`): the nearest line there that spans the side and that the top and bottom
    lines reach, at the centre of its drawn columns; else where it is."""
    x1, y1, x2, y2 = box
    if x1 <= hi + 1 or lo < 0:   # only outwards: a label's first letters may be lost on a line crossing them
        return x1
    spans = [c for c in range(int(np.ceil(lo)), int(hi) + 1) if _spanned(m, c, y1, y2, thick) is not None]
    for c in sorted(spans, key=lambda c: abs(c - (lo + hi) / 2)):
        a, b = sorted((int(round(c)), int(round(x1))))
        if all(_along(m, y, thick, a, b + 1).mean() >= SIDE_SHARE for y in (y1, y2)):
            return float(np.mean([v for v in spans if abs(v - c) <= thick]))
    return x1


def band_top(mask: np.ndarray, box: Sequence[float], thick: float, row: int) -> int:
    """Top row of the band of rows across the inside of ``box`` (x1, y1, x2, y2 px, outline ``thick`` px) that
    holds ``row``: rows at least BAND_SHARE drawn there (a filled label's letters leave holes), up to the box's top."""
    x1, y1, x2, _ = box
    a = int(x1 + thick)
    lo, top = max(int(y1), 0), min(row, mask.shape[0] - 1)
    share = mask[lo:top, a:max(int(x2 - thick), a + 1)].mean(axis=1)   # rows lo .. top - 1
    while top > max(y1, lo) and share[top - 1 - lo] >= BAND_SHARE:
        top -= 1
    return top


def off_label_below(box: Sequence[float], thick: float, mask: np.ndarray) -> list[float]:
    """``box`` (x1, y1, x2, y2 px, outline ``thick`` px) without the filled label glued below it that it took in:
    a label as wide as its box goes on along the box's sides, so the rectangle closes at the label's bottom edge.
    Read across the inside of the box, the drawn band up from the bottom line (:func:`band_top`) is then taller
    than two lines and no taller than a label (LABEL_MAX_H) and a line, starts with a line drawn across (the box's
    bottom line) and holds letters: holes, each narrower than half the band is tall (a letter's counter is; the
    inside of another box whose lines run along or across the bottom is wider), with more than two lines of
    undrawn inside above it; the box's bottom moves to the middle of that line. No renderer draws a label inside a
    box's bottom; one centred in, or inside the top-left corner of, a box barely taller than it reaches both lines,
    which leaves no inside above. Any other box comes back as it is."""
    x1, y1, x2, y2 = (float(v) for v in box)
    a, b = int(x1 + thick), int(x2 - thick)
    if b - a < 3:
        return [x1, y1, x2, y2]
    top = band_top(mask, box, thick, int(round(y2)))
    if not 2 * thick < y2 - top <= LABEL_MAX_H + thick or top - y1 <= 2 * thick:
        return [x1, y1, x2, y2]
    band = mask[top:int(round(y2 - thick)), a:b]
    gaps = [e - s + 1 for row in band for s, e in true_runs(~row)]
    if band[:int(thick)].mean() < SIDE_SHARE or not gaps or max(gaps) >= (y2 - top) / 2:
        return [x1, y1, x2, y2]
    return [x1, y1, x2, top + thick / 2]


def off_label_above(box: Sequence[float], thick: float, mask: np.ndarray) -> list[float]:
    """:func:`off_label_below` upside down: ``box`` without the filled label glued above it that it took in. Such a
    label looks like one inside the box's top-left corner as wide as the box, so this is for images whose labels
    sit above their boxes (the caller's to know)."""
    h = mask.shape[0] - 1
    x1, y1, x2, y2 = (float(v) for v in box)
    cut = off_label_below([x1, h - y2, x2, h - y1], thick, mask[::-1])
    return [x1, h - cut[3], x2, y2]
