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
edge of a line blurred by JPEG) and, where line and background differ in brightness, its brightness is nearer the
line's (JPEG keeps brightness at full resolution and colour at half, so a thin line's colour spreads a column
further than its brightness; and a dark shadow beside a bright line on light ground is nearer the line's colour than
the ground's, but not its brightness); walking inward by colour alike gives the inner edge. A side whose outward
walk is longer than its inward walk + 1 has something of its colour glued outside it (a filled tag, a neighbouring
box's line): its outer edge is put one line width (the median over the box's sides) out from its inner edge.
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
    # each side: (its coordinate, the strip's rows along it, +1 when outward is increasing x/y, transposed)
    ys = _middle(y1, y2, h)
    xs = _middle(x1, x2, w)
    # inward, the background is sampled short of the box's middle (a small box's opposite line lies within REACH)
    across_x, across_y = max(1, int((x2 - x1) / 2) - 1), max(1, int((y2 - y1) / 2) - 1)
    walks = [
        _walk(rgb, x1, ys, -1, False, w, across_x),
        _walk(rgb, y1, xs, -1, True, h, across_y),
        _walk(rgb, x2, ys, +1, False, w, across_x),
        _walk(rgb, y2, xs, +1, True, h, across_y),
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


def _walk(rgb: np.ndarray, pos: float, along: np.ndarray, sign: int, rows: bool, size: int,
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
    # (columns, rows, 3) float32: only the strip is converted (a whole 1080p image costs ~10 ms a side)
    strip = (rgb[lo:hi + 1, along] if rows else rgb[along, lo:hi + 1].transpose(1, 0, 2)).astype(np.float32)
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
        while (lo <= c <= hi and (far is None or abs(c - best) < reach) and _is_line(strip, c - lo, colour, far, lo)
               and not (direction == sign and far is not None
                        and _brighter_spread(strip, best - lo, c - lo, far - lo))):
            n += 1
            c += direction
        counts.append(n)
    return float(best), float(counts[0]), float(counts[1])


def _brighter_spread(strip: np.ndarray, line: int, last: int, far: int) -> bool:
    """Column ``last`` is nearer the background's brightness (column ``far``) than the line's (``line``), where the
    two differ by LUMA_CONTRAST: no longer line, however near the line's colour (:func:`_walk`)."""
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


FULL_ROW = 0.8     # share of a row across a box in its line colour from which the row is line (or a label's fill)
GLUED_SHARE = 0.15  # least mean share of a label's rows in the line colour
MIN_KEPT = 12      # px, least height of a box whose glued label is cut off
MAX_THICK = 10     # px, thickest line measured
SAME_COLOUR = 60.0  # RGB distance within which a pixel is in a line's colour (a filled label keeps it too)
LABEL_GAP = 3      # px, widest gap between a line and the label glued to it (letters drawn just off the line)
START_GAP = 6      # px, widest gap between a line and the first row of its label's ink (lower-case letters of a
#                    label below a box begin a cap height less an x-height below its top)
LABEL_REACH = 40   # px beyond a box looked at for the rest of a label glued to it
MIN_LABEL = 6      # px, least height of a label
HUE_COS = 0.95     # least cosine between the chroma parts (RGB less its mean) of two pixels of one hue
INK_SHARE = 0.05   # least share of a label's row in its colour (white letters on a tag leave little)


def off_glued_labels(rgb: np.ndarray, box: Sequence[float]) -> list[float]:
    """``box`` (outer edges, inclusive px) without a label of its colour glued above or below it.

    A box's four lines are drawn equally thick. A tag filled in the line colour (or a label's letters) that
    touches the top or bottom line makes that line look as thick as line and label together, and a finder that
    follows the sides' colour takes the label in. The line thickness t is measured on the left and right lines
    (their middle half); from the middle of the box, rows are followed up and down through the picture to the
    first t rows that are line across the box's width: the top and bottom lines' inner edges. What lies beyond one
    line width from there, in the line colour (GLUED_SHARE), is a label glued on, cut off."""
    h, w = rgb.shape[:2]
    x1, y1, x2, y2 = (int(round(v)) for v in box)
    x1, y1, x2, y2 = max(0, x1), max(0, y1), min(w - 1, x2), min(h - 1, y2)
    if x2 - x1 < 8 or y2 - y1 < MIN_KEPT + 4:
        return [float(v) for v in box]
    patch = rgb[y1:y2 + 1, x1:x2 + 1]
    ys = _middle(0, y2 - y1, y2 - y1 + 1)
    sides = np.concatenate([patch[ys, :3].reshape(-1, 3), patch[ys, -3:].reshape(-1, 3)]).astype(np.float32)
    chroma = sides.max(axis=1) - sides.min(axis=1)
    if len(sides) < 4 or chroma.max() < MIN_CHROMA:
        return [float(v) for v in box]
    colour = np.median(sides[chroma >= np.percentile(chroma, 75)], axis=0)
    near = np.linalg.norm(patch.astype(np.float32) - colour, axis=2) <= SAME_COLOUR
    cols = near[ys].mean(axis=0) >= FULL_ROW   # columns of the middle rows in the colour
    xs = _middle(0, x2 - x1, x2 - x1 + 1)
    full = near[:, xs].mean(axis=1) >= FULL_ROW   # rows of the middle columns in the colour
    runs = [r for r in (_run(cols), _run(cols[::-1]), _run(full), _run(full[::-1])) if r > 0]
    if not runs:
        return [float(v) for v in box]
    t = int(np.median(runs))   # a side with a label glued on runs longer; JPEG may grey one side's line
    if t > MAX_THICK or x2 - x1 + 1 <= 2 * t + 2:
        return [float(v) for v in box]
    rows = near[:, t:-t].mean(axis=1) >= FULL_ROW
    mid = (y2 - y1) // 2
    if rows[mid]:
        return [float(v) for v in box]
    top, bottom = _line_from(rows, mid, -1, t), _line_from(rows, mid, +1, t)
    # each row's share in the colour across the box, from LABEL_REACH px above the box to as far below it
    above, below = min(y1, LABEL_REACH), min(h - 1 - y2, LABEL_REACH)
    wide = rgb[y1 - above:y2 + below + 1, x1 + t:x2 - t + 1].astype(np.float32)
    share = _ink(wide, colour).mean(axis=1)
    out = [float(v) for v in box]
    if top is not None and top - t + 1 > 0 and _glued(share[:above + top - t + 1][::-1]):
        out[1] = float(y1 + top - t + 1)
    if bottom is not None and bottom + t - 1 < y2 - y1 and _glued(share[above + bottom + t:]):
        out[3] = float(y1 + bottom + t - 1)
    if out[3] - out[1] + 1 < MIN_KEPT:
        return [float(v) for v in box]
    return out


def _ink(pixels: np.ndarray, colour: np.ndarray) -> np.ndarray:
    """Which ``pixels`` (float RGB) may be a label's ink drawn in a line's ``colour``: within SAME_COLOUR of it, or
    of its hue (chroma parts within HUE_COS) and at least as chromatic: JPEG greys a thin line, not its filled tag."""
    pc = pixels - pixels.mean(axis=-1, keepdims=True)
    cc = colour - colour.mean()
    pn, cn = np.linalg.norm(pc, axis=-1), float(np.linalg.norm(cc))
    same_hue = (pc @ cc >= HUE_COS * pn * cn) & (pn >= cn)
    return (np.linalg.norm(pixels - colour, axis=-1) <= SAME_COLOUR) | same_hue


def _glued(share: np.ndarray) -> bool:
    """The rows beyond a line (``share``: each row's share in the line colour, nearest the line first) hold a label
    glued to it: its colour within START_GAP rows of the line, over MIN_LABEL rows with no gap wider than LABEL_GAP
    and GLUED_SHARE of their pixels (a line's JPEG fringe is a row or two; the inside of a box whose line was
    crossed by another's is picture before it meets the box's own line)."""
    ink = share >= INK_SHARE
    start = np.flatnonzero(ink[:START_GAP + 1])
    if not len(start):
        return False
    ink = ink[int(start[0]):]
    off = np.flatnonzero(np.convolve(~ink, np.ones(LABEL_GAP + 1), "valid") >= LABEL_GAP + 1)
    end = int(off[0]) if len(off) else len(ink)
    return end >= MIN_LABEL and float(share[int(start[0]):int(start[0]) + end].mean()) >= GLUED_SHARE


def _run(flags: np.ndarray) -> int:
    """Length of the run of True at the start of ``flags``."""
    off = np.flatnonzero(~flags)
    return int(off[0]) if len(off) else len(flags)


def _line_from(rows: np.ndarray, start: int, step: int, t: int) -> int | None:
    """The first row (index) of ``t`` consecutive line rows met going from ``start`` by ``step``: the line's inner
    edge; None when none is met."""
    i, n = start, 0
    while 0 <= i < len(rows):
        n = n + 1 if rows[i] else 0
        if n >= t:
            return i - step * (t - 1)
        i += step
    return None
