"""Move each found box's sides from the centre of its drawn line to the line's outer edge, measured in the pixels.

A box is reported as the OUTER edge of its drawn outline (inclusive pixels: the first and last pixel of the line
on each side), as people who draw region overlays record them; the finders locate the middle of each line. A line
is t px wide (cv2.rectangle draws ``thickness`` 2 as 3 px, 4 as 5 px; other renderers draw t px inside or around
their box), so the outer edge lies (t - 1) / 2 px out from the centre, and t is measured here on each side of each
box rather than assumed.

Per side, a strip of pixels across the line is taken along the middle half of the side (clear of the corners,
where labels and tags sit). The line's column is the most saturated one within ``SEEK`` px of the found side (the
overlay colours are saturated); its colour is the median there. A column further out is line while, on most rows,
its pixel is nearer the line's colour than the background ``REACH`` px out on that row (half-way in colour is the
edge of a line blurred by JPEG); walking inward likewise gives the inner edge. The outermost column so taken is
dropped where its brightness is nearer the background's than the line's (JPEG keeps brightness at full resolution
and colour at half: a thin line's colour spreads a column further than its brightness). A side whose outward walk is longer
than its inward walk + 1 has something of its colour glued outside it (a filled tag, a neighbouring box's line):
its outer edge is put one line width (the median over the box's sides) out from its inner edge.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

SEEK = 2          # px either side of a found side searched for the line's most saturated column
REACH = 12        # px out from the line where the background beside it is sampled (wider than any line read)
MIN_ROWS = 3      # fewest rows across a side to measure it on
LINE_SHARE = 0.5  # share of a column's rows nearer the line's colour than the background for it to be line
CONTRAST = 40.0   # least RGB distance between line and background for a row to tell them apart
LUMA = np.array([0.299, 0.587, 0.114], np.float32)   # brightness (JPEG's Y) of an RGB pixel
LUMA_CONTRAST = 20.0  # least brightness step from line to background for the line's edge to be read in it
MIN_CHROMA = 60.0  # least mean saturation (max - min of RGB) of a column taken for a drawn line


def outer_box(rgb: np.ndarray, box: Sequence[float]) -> list[float]:
    """``box`` [x1, y1, x2, y2] (line centres, px) moved out to the outer edges of its drawn lines; a side whose
    line is not found in the pixels stays where it is. The result is clipped to the image."""
    h, w = rgb.shape[:2]
    x1, y1, x2, y2 = (float(v) for v in box)
    img = rgb.astype(np.float32)
    # each side: (its coordinate, the strip's rows along it, +1 when outward is increasing x/y, transposed)
    ys = _middle(y1, y2, h)
    xs = _middle(x1, x2, w)
    # inward, the background is sampled short of the box's middle (a small box's opposite line lies within REACH)
    across_x, across_y = max(1, int((x2 - x1) / 2) - 1), max(1, int((y2 - y1) / 2) - 1)
    walks = [
        _walk(img, x1, ys, -1, False, w, across_x),
        _walk(img, y1, xs, -1, True, h, across_y),
        _walk(img, x2, ys, +1, False, w, across_x),
        _walk(img, y2, xs, +1, True, h, across_y),
    ]
    widths = [o + i + 1 for c, o, i in (wk for wk in walks if wk is not None)]
    if not widths:
        return [x1, y1, x2, y2]
    width = float(np.median(widths))
    out = [x1, y1, x2, y2]
    for k, wk in enumerate(walks):
        if wk is None:
            continue
        centre, outward, inward = wk
        sign = -1 if k < 2 else 1
        reach = outward if outward <= inward + 1 else max(0.0, width - 1 - inward)
        # the found side lies on its line, whose outer edge is never inside it
        out[k] = min(out[k], centre - reach) if sign < 0 else max(out[k], centre + reach)
    limit = [w - 1, h - 1, w - 1, h - 1]
    return [float(min(max(v, 0), lim)) for v, lim in zip(out, limit)]


def _middle(a: float, b: float, size: int) -> np.ndarray:
    """The middle half of the pixels between ``a`` and ``b`` (a side's rows or columns) inside the image."""
    lo, hi = a + (b - a) / 4, b - (b - a) / 4
    idx = np.arange(int(np.ceil(lo)), int(np.floor(hi)) + 1)
    return idx[(idx >= 0) & (idx < size)]


def _walk(img: np.ndarray, pos: float, along: np.ndarray, sign: int, rows: bool, size: int,
          inner: int) -> tuple[float, float, float] | None:
    """(the line's column, columns of line outward of it, inward of it) for the side at ``pos`` (a column; a row
    when ``rows``) over the pixels ``along`` it; ``sign``: +1 when outward is increasing; ``inner``: px inward
    at most where the background is sampled. None: no line there."""
    if along.size < MIN_ROWS:
        return None
    centre = int(round(pos))
    lo, hi = max(0, centre - REACH - SEEK), min(size - 1, centre + REACH + SEEK)
    if hi - lo < 2:
        return None
    strip = img[lo:hi + 1, along] if rows else img[along, lo:hi + 1].transpose(1, 0, 2)   # (columns, rows, 3)
    chroma = (strip.max(axis=2) - strip.min(axis=2)).mean(axis=1)
    seek = [c for c in range(centre - SEEK, centre + SEEK + 1) if lo <= c <= hi]
    if not seek:
        return None
    best = max(seek, key=lambda c: (chroma[c - lo], -abs(c - pos)))
    if chroma[best - lo] < MIN_CHROMA:
        return None
    colour = np.median(strip[best - lo], axis=0)
    counts = []
    for direction, reach in ((sign, REACH), (-sign, min(REACH, inner))):   # outward, then inward
        far = best + direction * reach
        if not lo <= far <= hi:   # the image ends before the background: the line runs to the border
            far = None
        n = 0
        c = best + direction
        while lo <= c <= hi and (far is None or abs(c - best) < reach) and _is_line(strip, c - lo, colour, far, lo):
            n += 1
            c += direction
        if direction == sign and n > 0 and far is not None and _brighter_spread(strip, best - lo, c - direction - lo,
                                                                               far - lo):
            n -= 1
        counts.append(n)
    return float(best), float(counts[0]), float(counts[1])


def _brighter_spread(strip: np.ndarray, line: int, last: int, far: int) -> bool:
    """The outermost column taken for line (``last``) is nearer the background's brightness (column ``far``) than
    the line's (``line``), where the two differ by LUMA_CONTRAST: JPEG keeps brightness at full resolution and
    colour at half, so a thin line's colour spreads a column further than its brightness."""
    luma = np.median(strip[[line, last, far]] @ LUMA, axis=1)
    contrast = abs(float(luma[2] - luma[0]))
    return contrast >= LUMA_CONTRAST and abs(float(luma[1] - luma[0])) > contrast / 2


def _is_line(strip: np.ndarray, col: int, colour: np.ndarray, far: int | None, lo: int) -> bool:
    """Column ``col`` of the strip is nearer the line's ``colour`` than the background (column ``far``) on most of
    the rows where the two differ; with no background column, nearer the line's colour than CONTRAST."""
    px = strip[col]
    to_line = np.linalg.norm(px - colour, axis=1)
    if far is None:
        return bool(np.mean(to_line < CONTRAST) >= LINE_SHARE)
    bg = strip[far - lo]
    telling = np.linalg.norm(bg - colour, axis=1) >= CONTRAST
    if telling.sum() < MIN_ROWS:
        return False
    to_bg = np.linalg.norm(px - bg, axis=1)
    return bool(np.mean((to_line < to_bg)[telling]) >= LINE_SHARE)
