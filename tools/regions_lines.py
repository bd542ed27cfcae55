"""Find drawn axis-aligned rectangles (region outlines) in a boolean overlay-colour mask.

Used by :mod:`tools.regions`. Conventions: masks are (H, W) bool; boxes are [x1, y1, x2, y2] in px at the centre
of the drawn outline (``cv2.rectangle`` semantics: a line of thickness t covers centre ± about t/2).

Method (why by hand: OpenCV's contour/Hough tools do not survive labels glued to or written across the outline):

1. Vertical line pieces: pixels in vertical runs >= MIN_RUN px that are not part of horizontal runs > MAX_LINE px
   (that removes filled label backgrounds and crossing horizontal lines); per piece the thickness is the median
   width over its rows, so a letter stroke touching the line does not move it. Horizontal pieces likewise.
2. For every pair of vertical lines, the rows drawn across the pair (>= SIDE_COVER of the span, both corners
   drawn) form bands; a band thicker than the line is a line glued to a filled label, and the line is the end of
   the band with the longer fully drawn run (the label's text leaves holes, the line does not).
3. A (top band, bottom band) pair closes a rectangle when both sides are drawn over >= SIDE_COVER of their
   length and no straight piece of the four lines runs on past a corner (a crossing of two overlapping boxes or
   a letter stroke, not a corner of this box).
"""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np

MIN_RUN = 10      # px, shortest straight run kept as a line piece
MAX_LINE = 10     # px, thicker than this is a filled area, not a line
SIDE_COVER = 0.75  # share of each side that must be drawn
SOLID = 0.95      # share of a row that counts as fully drawn


@dataclasses.dataclass
class Line:
    """One straight line: centre across it (y if horizontal, x if vertical), thickness and piece extents (px)."""

    pos: float
    thick: float
    spans: list[tuple[float, float]]

    def runs_on(self, a: float, b: float, tol: float) -> bool:
        """True when a piece overlapping [a, b] continues more than ``tol`` px beyond either end."""
        return any(lo < b and hi > a and (lo < a - tol or hi > b + tol) for lo, hi in self.spans)


def line_pieces(mask: np.ndarray, vertical: bool) -> list[Line]:
    """Straight pieces along one axis (see module docstring, step 1), colinear pieces merged."""
    m = mask.T if vertical else mask          # work on horizontal lines of ``m``
    u8 = m.astype(np.uint8)
    across = cv2.morphologyEx(u8, cv2.MORPH_OPEN, np.ones((MAX_LINE + 1, 1), np.uint8))  # thick vertical runs
    along = cv2.morphologyEx(u8 & (1 - across), cv2.MORPH_OPEN, np.ones((1, MIN_RUN), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(along, connectivity=8)
    pieces = []
    for i in range(1, n):
        x, y, w, h, _ = stats[i]
        if w < MIN_RUN or h > 3 * MAX_LINE:
            continue
        sub = labels[y:y + h, x:x + w] == i
        widths = sub.sum(axis=0)                              # thickness per column along the line
        cols = widths > 0
        rows = np.arange(h)[:, None]
        centres = (sub * rows).sum(axis=0)[cols] / widths[cols]
        thick = float(np.median(widths[cols]))
        if thick <= MAX_LINE:
            pieces.append(Line(float(y + np.median(centres)), thick, [(float(x), float(x + w - 1))]))
    return _cluster(pieces)


def _cluster(lines: list[Line], tol: float = 1.5) -> list[Line]:
    """Merge pieces of one line (centres within ``tol`` px of the first piece), keeping each piece's extent."""
    out: list[Line] = []
    for ln in sorted(lines, key=lambda l: l.pos):
        if out and ln.pos - out[-1].pos <= tol:
            last = out[-1]
            k = len(last.spans)
            out[-1] = Line((last.pos * k + ln.pos) / (k + 1), max(last.thick, ln.thick), last.spans + ln.spans)
        else:
            out.append(ln)
    return out


def _runs(flags: np.ndarray) -> list[tuple[int, int]]:
    """Inclusive (start, end) index pairs of the True runs of a 1-D bool array."""
    d = np.diff(np.concatenate([[0], flags.astype(np.int8), [0]]))
    return list(zip(np.flatnonzero(d == 1), np.flatnonzero(d == -1) - 1))


def _band_centre(solid: np.ndarray, a: int, b: int, thick: float) -> float:
    """Centre row of the line in band [a, b] (see module docstring, step 2)."""
    if b - a + 1 <= thick + 2:
        return (a + b) / 2
    seg = solid[a:b + 1]
    top = int(np.argmin(seg)) if not seg.all() else len(seg)
    bot = int(np.argmin(seg[::-1])) if not seg.all() else len(seg)
    half = (thick - 1) / 2
    return a + half if top >= bot else b - half


def _axis_thick(line: Line) -> float:
    """Drawn thickness (px) of an outline from the measured piece thickness."""
    return max(1.0, line.thick)


def find_rectangles(mask: np.ndarray, min_side: float) -> list[tuple[list[float], float]]:
    """Drawn rectangles in ``mask``: list of (bbox at line centres, line thickness px), duplicates removed."""
    xs = line_pieces(mask, vertical=True)
    if len(xs) < 2:
        return []
    ys = line_pieces(mask, vertical=False)
    h, w = mask.shape
    m32 = mask.astype(np.int32)
    row_cs = np.concatenate([np.zeros((h, 1), np.int32), np.cumsum(m32, axis=1)], axis=1)   # (H, W + 1)
    col_cs = np.concatenate([np.zeros((1, w), np.int32), np.cumsum(m32, axis=0)], axis=0)   # (H + 1, W)
    found: list[tuple[list[float], float]] = []
    for i, left in enumerate(xs):
        for right in xs[i + 1:]:
            if right.pos - left.pos < min_side or abs(left.thick - right.thick) > 2:
                continue
            for box, t in _close_pair(left, right, ys, row_cs, col_cs, mask.shape, min_side):
                found.append((box, t))
    return _dedupe(found)


def _close_pair(left: Line, right: Line, ys: list[Line], row_cs: np.ndarray, col_cs: np.ndarray,
                shape: tuple[int, int], min_side: float) -> list[tuple[list[float], float]]:
    """Rectangles whose left and right sides are the given vertical lines."""
    h, w = shape
    thick = max(_axis_thick(left), _axis_thick(right))
    r = int(np.ceil(thick / 2))
    xa, xb = int(round(left.pos)), int(round(right.pos))
    lo = max(0, int(min(s[0] for s in left.spans + right.spans)) - 3 * MAX_LINE - 60)
    hi = min(h - 1, int(max(s[1] for s in left.spans + right.spans)) + 3 * MAX_LINE + 60)
    rows = slice(lo, hi + 1)
    span = row_cs[rows, min(w, xb + 1)] - row_cs[rows, max(0, xa)]
    cover = span / max(1, xb - xa + 1)
    solid = cover >= SOLID

    def corner(x: int) -> np.ndarray:
        a, b = max(0, x - 1), min(w, x + 2)
        return (row_cs[rows, b] - row_cs[rows, a]) > 0

    good = (cover >= SIDE_COVER) & corner(xa) & corner(xb)
    centres = [lo + _band_centre(solid, a, b, thick) for a, b in _runs(good)]
    out = []
    for k, top in enumerate(centres):
        for bot in centres[k + 1:]:
            if bot - top < min_side:
                continue
            ya, yb = int(round(top)), int(round(bot))
            sides = [(col_cs[yb + 1, max(0, min(w - 1, x + d))] - col_cs[ya, max(0, min(w - 1, x + d))]) / (yb - ya + 1)
                     for x in (xa, xb) for d in (-1, 0, 1)]
            if max(sides[:3]) < SIDE_COVER or max(sides[3:]) < SIDE_COVER:
                continue
            tol = thick + 3
            if left.runs_on(top, bot, tol) or right.runs_on(top, bot, tol):
                continue
            if any(abs(y.pos - p) <= max(1.5, r) and y.runs_on(left.pos, right.pos, tol)
                   for y in ys for p in (top, bot)):
                continue
            out.append(([left.pos, top, right.pos, bot], thick))
    return out


def iou(a, b) -> float:
    """Intersection over union of two [x1, y1, x2, y2] boxes."""
    iw = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    ih = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = iw * ih
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def _dedupe(rects: list[tuple[list[float], float]]) -> list[tuple[list[float], float]]:
    out: list[tuple[list[float], float]] = []
    for box, t in rects:
        if all(iou(box, o) < 0.9 for o, _ in out):
            out.append((box, t))
    return out
