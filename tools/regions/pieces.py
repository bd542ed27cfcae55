"""Straight line pieces of one overlay colour (step 1 of :mod:`tools.regions.lines`), and lines at the image
border: cut by it (drawn thinner than they are) or just beyond it (rim lines, the sides of boxes drawn up to it).
Masks are (H, W) bool; lines are horizontal in the mask given (pass the transpose for vertical ones)."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np

from tools.regions.geom import MAX_LINE, open_rect

MIN_RUN = 10      # px, shortest straight run kept as a line piece
RIM = MAX_LINE + 2   # px of padding looked at beyond an image border (all of it counts as hidden)


@dataclasses.dataclass
class Line:
    """One straight line: centre across it (y if horizontal, x if vertical), thickness and piece extents (px)."""

    pos: float
    thick: float
    spans: list[tuple[float, float]]


def line_pieces(mask: np.ndarray, vertical: bool, merged: bool = False) -> list[Line]:
    """Straight pieces along one axis (:mod:`tools.regions.lines`, step 1), colinear pieces merged. ``merged``: also the
    two lines of each band where parallel lines drawn against each other merged (:func:`_merged_pairs`)."""
    m = mask.T if vertical else mask          # work on horizontal lines of ``m``
    u8 = m.astype(np.uint8)
    across = open_rect(u8, (MAX_LINE + 1, 1))  # thick vertical runs
    along = open_rect(u8 & (1 - across), (1, MIN_RUN))
    # outer contours are 8-connected components as connectedComponentsWithStats finds them, at a tenth of its cost
    # on a 1080p mask; a piece's pixels are those of ``along`` inside its contour (pieces hold no others)
    contours, _ = cv2.findContours(along, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    pieces = []
    for contour in contours:
        x, y, w, h = cv2.boundingRect(contour)
        if w < MIN_RUN or h > 3 * MAX_LINE:
            continue
        inside = np.zeros((h, w), np.uint8)
        cv2.drawContours(inside, [contour], 0, 1, thickness=cv2.FILLED, offset=(-x, -y))
        sub = (inside & along[y:y + h, x:x + w]) > 0
        widths = sub.sum(axis=0)                              # thickness per column along the line
        cols = widths > 0
        rows = np.arange(h)[:, None]
        centres = (sub * rows).sum(axis=0)[cols] / widths[cols]
        thick = float(np.median(widths[cols]))
        if thick <= MAX_LINE:
            pieces.append(Line(float(y + np.median(centres)), thick, [(float(x), float(x + w - 1))]))
    if merged and pieces:
        pieces += _merged_pairs(across, float(np.median([ln.thick for ln in pieces])))
    return cluster(pieces)


def _merged_pairs(across: np.ndarray, thick: float) -> list[Line]:
    """Two parallel lines drawn so close that they merge into one band thicker than MAX_LINE (the sides of
    neighbouring boxes): a line of the colour's usual thickness at each edge of a long, solid band (``across``:
    the thick runs of the mask, lines along its rows)."""
    band = open_rect(across, (1, 3 * MAX_LINE))
    if not band.any():
        return []
    n, _, stats, _ = cv2.connectedComponentsWithStats(band, connectivity=8)
    half = (thick - 1) / 2
    out = []
    for x, y, w, h, a in stats[1:n]:
        if MAX_LINE < h <= 2 * MAX_LINE + 2 and a >= 0.9 * w * h:
            span = [(float(x), float(x + w - 1))]
            out += [Line(y + half, thick, span), Line(y + h - 1 - half, thick, span)]
    return out


def cluster(lines: list[Line], tol: float = 1.5) -> list[Line]:
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


def rim_lines(xs: list[Line], shape: tuple[int, int], pads: tuple[int, int]) -> list[Line]:
    """Vertical lines just beyond the image's left and right border (where ``pads``, the padding there, is not 0):
    a box drawn up to the border, as boxes around objects cut by the frame are, has its side there, out of sight
    (its centre one px past the last column, as such boxes' coordinates run). As thick as the colour's lines."""
    if not any(pads) or not xs:
        return []
    thick = float(np.median([ln.thick for ln in xs]))
    span = [(0.0, float(shape[0] - 1))]
    return ([Line(pads[0] - 1.0, thick, span)] if pads[0] else []) + (
        [Line(shape[1] - pads[1] * 1.0, thick, span)] if pads[1] else [])


def meets_rims(box: list[float], mask: np.ndarray, pads: tuple[int, int, int, int]) -> bool:
    """A box with a side on a rim line (:func:`rim_lines`) has the lines that cross that side drawn into the
    border (``mask``: padded by ``pads`` px left, top, right and bottom)."""
    h, w = mask.shape
    left, top, right, bottom = pads
    first_x, last_x, first_y, last_y = left, w - right - 1, top, h - bottom - 1
    x1, y1, x2, y2 = (int(round(v)) for v in box)

    def drawn(ys: tuple[int, ...], x: int) -> bool:
        return all(mask[max(0, y - 1):y + 2, x].any() for y in ys)

    def drawn_across(xs: tuple[int, ...], y: int) -> bool:
        return all(mask[y, max(0, x - 1):x + 2].any() for x in xs)

    return ((not left or x1 >= first_x or drawn((y1, y2), first_x))
            and (not right or x2 <= last_x or drawn((y1, y2), last_x))
            and (not top or y1 >= first_y or drawn_across((x1, x2), first_y))
            and (not bottom or y2 <= last_y or drawn_across((x1, x2), last_y)))


def at_border(line: Line, first: int, last: int) -> bool:
    """A line cut by the image border (``first``, ``last``: the image's first and last px across the line): drawn
    thinner than it is."""
    return line.pos - line.thick / 2 < first + 1 or line.pos + line.thick / 2 > last - 1


def clipped_centre(a: int, b: int, thick: float, first: int, last: int) -> float | None:
    """Centre of a line of ``thick`` px whose drawn rows a..b run into the image border (``first``, ``last``: the
    image's first and last row), which hides part of it: half its thickness in from the edge it shows. None for a
    band away from the border."""
    if b - a + 1 >= thick:
        return None
    if b == last:
        return min(a + (thick - 1) / 2, float(last))
    if a == first:
        return max(b - (thick - 1) / 2, float(first))
    return None
