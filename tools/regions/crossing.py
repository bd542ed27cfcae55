"""Which pairs of vertical lines have a row drawn across them: the rows a box's top or bottom side could lie on.

:func:`tools.regions.lines._close_pair` looks for a box's top and bottom only among rows, within a window around
the two lines' pieces, that are drawn over most of the way from one line to the other with both corners drawn. A
textured photo whose colour is near an overlay's has hundreds of line pieces and so tens of thousands of pairs,
nearly none of them crossed by such a row; :func:`crossed` tells those pairs apart for all of one line's partners
at once (one array operation instead of one call per pair), with the same arithmetic as ``_close_pair``, so a pair
it rules out is one for which ``_close_pair`` finds nothing. Of the pairs left, :func:`_sides_drawn` rules out
those where no two such rows a box's height apart have both lines drawn between them (on a textured photo nearly
all of them: rows of red texture cross a pair, but the two lines are not both drawn from one row to another).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tools.regions.geom import MAX_LINE
from tools.regions.pieces import MIN_RUN, Line


def row_window(left: Line, right: Line, height: int) -> tuple[int, int]:
    """First and last row (inclusive) looked at for the top and bottom of a box between ``left`` and ``right``:
    their pieces' extent and room for a label glued above or below (3 line widths and 60 px)."""
    spans = left.spans + right.spans
    lo = max(0, int(min(s[0] for s in spans)) - 3 * MAX_LINE - 60)
    hi = min(height - 1, int(max(s[1] for s in spans)) + 3 * MAX_LINE + 60)
    return lo, hi


def crossed(pairs: Sequence[tuple[Line, Line]], row_cs: np.ndarray, cover_min: float, min_span: float,
            col_cs: np.ndarray | None = None) -> np.ndarray:
    """For each (left, right) pair of vertical lines, whether it may close a box at least ``min_span`` px tall: rows
    of its :func:`row_window` drawn over at least ``cover_min`` of the columns from left to right (``row_cs``:
    zero-padded cumulative sums along rows, (H, W + 1), of what counts as drawn) and on the three columns around
    each line — the condition ``_close_pair`` puts on every row a box's top or bottom may lie on — lie ``min_span``
    apart or more, and each line has a piece between the first and last of them as long as ``_close_pair`` asks of
    a side's own piece (:func:`_pieces_between`). ``col_cs``: zero-padded cumulative sums along columns, (H + 1, W),
    of the same mask; when given, a pair must also have its sides drawn between two such rows (:func:`_sides_drawn`)."""
    if not pairs:
        return np.zeros(0, bool)
    h, w = row_cs.shape[0], row_cs.shape[1] - 1
    window = np.array([row_window(a, b, h) for a, b in pairs])
    top, bottom = int(window[:, 0].min()), int(window[:, 1].max())   # the rows any pair looks at
    cs = row_cs[top:bottom + 1]
    xa = np.array([int(round(a.pos)) for a, _ in pairs])
    xb = np.array([int(round(b.pos)) for _, b in pairs])
    span = cs[:, np.minimum(w, xb + 1)] - cs[:, np.maximum(0, xa)]
    rows = (span / np.maximum(1, xb - xa + 1)) >= cover_min
    for x in (xa, xb):
        rows &= (cs[:, np.minimum(w, x + 2)] - cs[:, np.maximum(0, x - 1)]) > 0
    r = np.arange(top, bottom + 1)[:, None]
    rows &= (r >= window[:, 0]) & (r <= window[:, 1])
    first = top + np.argmax(rows, axis=0)
    last = bottom - np.argmax(rows[::-1], axis=0)
    ok = rows.any(axis=0) & (last - first >= min_span)
    need = min(MIN_RUN, 0.25 * min_span)
    return np.array([bool(ok[k]) and _pieces_between(a, b, int(first[k]), int(last[k]), need)
                     and (col_cs is None or _sides_drawn(a, b, top + np.flatnonzero(rows[:, k]), col_cs, cover_min,
                                                         min_span))
                     for k, (a, b) in enumerate(pairs)], bool)


def _sides_drawn(left: Line, right: Line, ys: np.ndarray, col_cs: np.ndarray, cover_min: float,
                 min_span: float) -> bool:
    """Some two bands of the rows ``ys`` (drawn across the pair; a box's top and bottom are rounded centres of
    bands of such rows) may hold a box's top and bottom: with both lines drawn on ``cover_min`` of the rows between
    on one of the three columns around each, and a piece of each line between them (the tests ``_close_pair`` puts
    on them). Counted from the first row of the upper band to the last of the lower one, against the shortest box
    the two bands allow, so a pair ruled out here has no such top and bottom."""
    w = col_cs.shape[1]
    cols = [max(0, min(w - 1, x + d)) for x in (int(round(left.pos)), int(round(right.pos))) for d in (-1, 0, 1)]
    new = np.flatnonzero(ys[1:] - ys[:-1] > 1) + 1   # the first row of each band after the first
    starts, ends = ys[np.concatenate(([0], new))], ys[np.concatenate((new - 1, [len(ys) - 1]))]
    k = np.arange(len(starts))
    i, j = np.nonzero((ends[None, :] - starts[:, None] + 1 >= min_span) & (k[None, :] >= k[:, None]))   # upper i, lower j
    if i.size == 0:
        return False
    top, bot = starts[i], ends[j]
    shortest = np.maximum(min_span, starts[j] - ends[i] + 1)   # rows from a top in band i to a bottom in band j
    drawn = col_cs[bot + 1][:, cols] - col_cs[top][:, cols]
    enough = drawn >= cover_min * shortest[:, None] - 1e-6
    ok = enough[:, :3].any(axis=1) & enough[:, 3:].any(axis=1)
    need = np.minimum(MIN_RUN, 0.25 * (shortest - 2))
    for line in (left, right):
        spans = np.array(line.spans, float)
        overlap = np.minimum(spans[:, 1], bot[:, None] + 0.5) - np.maximum(spans[:, 0], top[:, None] - 0.5)
        ok &= (overlap >= need[:, None]).any(axis=1)
    return bool(ok.any())


def _pieces_between(left: Line, right: Line, first: int, last: int, need: float) -> bool:
    """Both lines have a piece overlapping rows first..last by ``need`` px or more. A box's top and bottom lie
    between those rows and its sides need a piece of their own overlapping it by at least ``need`` (``_supported``
    in :mod:`tools.regions.lines`: ``min(MIN_RUN, a quarter of the box's height)``)."""
    return all(any(min(b, last) - max(a, first) >= need for a, b in ln.spans) for ln in (left, right))
