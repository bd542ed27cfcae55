"""Choosing among candidate rectangles of one overlay colour (:mod:`tools.regions.lines` finds them): duplicates,
pieces cut out of crossing boxes, rectangles two boxes drawn edge to edge close around them, and labels glued to an
outline that close a rectangle with it (or that cut a box into a box and a label between the same two lines) are
dropped.
Boxes are [x1, y1, x2, y2] in px at the centre of the drawn outline; masks are (H, W) bool."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tools.regions.geom import inside_outline, match_limit, placement_cost, true_runs, within

UNIQUE_MIN = 0.2   # least share of a box's drawn outline that no other box explains
CORE = 3           # px, width of the outline band compared between boxes
CORNER_REACH = 8   # px beyond a corner looked at to tell a line's end from a crossing
DUP_TOL = 3        # px, sides of one box found twice lie this close
LABEL_MAX_H = 64   # px, tallest label a rectangle glued to a larger box's outline is taken for
LABEL_MAX_W = 12   # widest label, in label heights
LABEL_AREA = 0.25  # most area of such a label, as a share of the box's area
# least share of drawn pixels inside such a rectangle (its outline's band cut off) for it to be taken for a label:
# a label background is solid; stroke letters cover 12 % of a label's inside or more (median 33 %; benchmarks.synth.overlay's four
# fonts, both formats, ids 1-17, scales 0.55-1.1, lines 1-5 px); a box is empty there
LABEL_INK = 0.05
# and a label background (with its text) spans this share of the inside's width or more, between its paddings; a
# box with its own filled label centred in it (a small box glued below another) may hold a narrower one
LABEL_SPAN = 0.5
# px, longest undrawn run along a side of a drawn box: an outline is drawn whole (a later box or label hiding part of
# it counts as drawn), so a longer gap is a side closed across something else (letters, a line ending short); JPEG
# may wash a line's colour out over part of one 8 px block. Dev seeds 1/11/21/41/51: 4,449 -> 4,451 exact, 3 -> 8 px
# gaps: 4,446 (real boxes on bright ground show 4-7 px gaps)
SIDE_GAP = 8
DIVIDER_COVER = 0.85  # least drawn share along a line across a box for it to divide the box
REACHES = 4           # px next to each side over which such a line is drawn whole: it reaches that side
BROKEN = 4         # a side's background run this many line widths long (and SIDE_GAP px) breaks it


def drop_glued_labels(rects: list[tuple[list[float], float]], size: tuple[int, int], mask: np.ndarray | None = None,
                      filled: np.ndarray | None = None) -> list[tuple[list[float], float]]:
    """Drop small rectangles that sit where a label of a larger one goes and share one of its lines: a label
    background (or a letter) glued to an outline closes a rectangle with it; the label reader reads it instead.
    ``size``: image (W, H). ``mask``, ``filled``: the colour's mask and filled label areas; given, a rectangle with
    less than LABEL_INK of them inside is a box, whatever its place, and so is one holding a filled label that spans
    less than LABEL_SPAN of its width (its own label)."""
    def glued(box: list[float], t: float, other: list[float]) -> bool:
        w, h = box[2] - box[0], box[3] - box[1]
        if h > LABEL_MAX_H or w * h > LABEL_AREA * (other[2] - other[0]) * (other[3] - other[1]):
            return False
        tol = t / 2 + 1
        shares = (any(abs(box[i] - other[j]) <= tol for i in (1, 3) for j in (1, 3))
                  and min(box[2], other[2]) > max(box[0], other[0])) or \
                 (any(abs(box[i] - other[j]) <= tol for i in (0, 2) for j in (0, 2))
                  and min(box[3], other[3]) > max(box[1], other[1]))
        return shares and not _crossed(box, other, tol) and placement_cost(box, other, t, size) <= match_limit(box)

    def inked(box: list[float], t: float) -> bool:   # drawn inside, off the outline's band
        if mask is None or filled is None:
            return True
        rows, cols = inside_outline(box, t, 2)
        fill = filled[rows, cols] > 0
        inside = mask[rows, cols] | fill
        if inside.size == 0:
            return True
        # where a filled label is inside, what is drawn there spans a label background's width; narrower, it is a
        # box's own label (centred in a small box glued below another)
        return float(inside.mean()) >= LABEL_INK and (not fill.any() or _drawn_across(inside) >= LABEL_SPAN)

    return [(b, t) for b, t in rects if not (any(glued(b, t, o) for o, _ in rects if o is not b) and inked(b, t))]


def _drawn_across(drawn: np.ndarray) -> float:
    """Share of the columns from the first drawn one to the last (0 when nothing is drawn)."""
    cols = np.flatnonzero(drawn.any(axis=0))
    return (cols[-1] - cols[0] + 1) / drawn.shape[1] if cols.size else 0.0


def _crossed(box: list[float], other: list[float], tol: float) -> bool:
    """A side of ``other`` runs across ``box`` from edge to edge, more than ``tol`` px in from its sides: ``box``
    straddles that box's outline, as a box crossing it does; a label is drawn beside its box's lines or inside
    them, never across one."""
    x1, y1, x2, y2 = box
    return (any(x1 + tol < x < x2 - tol for x in (other[0], other[2])) and other[1] <= y1 + tol and other[3] >= y2 - tol
            or any(y1 + tol < y < y2 - tol for y in (other[1], other[3])) and other[0] <= x1 + tol
            and other[2] >= x2 - tol)


def outline_index(box: Sequence[float], shape: tuple[int, int]) -> np.ndarray:
    """Flat indices of the pixels within CORE // 2 px of a box's outline (centre line), clipped to the image."""
    h, w = shape
    x1, y1, x2, y2 = (int(round(v)) for v in box)
    d = np.arange(-(CORE // 2), CORE // 2 + 1)
    xs, ys = np.arange(x1, x2 + 1), np.arange(y1, y2 + 1)
    rows = [(np.repeat(y + d, len(xs)), np.tile(xs, len(d))) for y in (y1, y2)]
    cols = [(np.tile(ys, len(d)), np.repeat(x + d, len(ys))) for x in (x1, x2)]
    yy = np.concatenate([r for r, _ in rows + cols])
    xx = np.concatenate([c for _, c in rows + cols])
    ok = (yy >= 0) & (yy < h) & (xx >= 0) & (xx < w)
    return np.unique(yy[ok] * w + xx[ok])


def explain_away(rects: list[tuple[list[float], float]], mask: np.ndarray,
                 hidden: np.ndarray | None = None) -> list[tuple[list[float], float]]:
    """Drop rectangles that other rectangles explain: one at a time, the rectangle with the smallest share of its
    drawn outline (``mask``: outline pixels, filled labels left out) that lies on no other rectangle's outline,
    while that share is below UNIQUE_MIN.

    A sub-rectangle cut out of overlapping boxes, or a duplicate of a box off by a few px, is made of other boxes'
    lines; every real box has some outline of its own. Outlines are taken as a band of CORE px along the centre
    line (anti-aliased edges would make two copies of one line look different). Of the explained ones, one with a
    side not drawn whole (``hidden``: the colour's pixels with what may hide them, see :func:`_gapped`) goes first.
    """
    if len(rects) < 2:
        return rects
    h, w = mask.shape
    own = mask.ravel()
    pix = []
    for box, _ in rects:
        idx = outline_index(box, (h, w))
        pix.append(idx[own[idx]])
    count = np.zeros(h * w, np.int32)
    for idx in pix:
        count[idx] += 1
    corners = [_clean_corners(box, t, mask) for box, t in rects]
    gapped = [hidden is not None and _gapped(box, hidden) for box, _ in rects]
    alive = list(range(len(rects)))
    while len(alive) > 1:
        unique = [float((count[pix[i]] == 1).mean()) if len(pix[i]) else 0.0 for i in alive]
        weak = [j for j in range(len(alive)) if unique[j] < UNIQUE_MIN]
        if not weak:
            break
        # of the explained ones, the one with the fewest real corners goes first (a piece cut out of crossing boxes
        # has crossings for corners); ties: the more explained, then the less supported
        k = min(weak, key=lambda j: (not gapped[alive[j]], corners[alive[j]], unique[j], len(pix[alive[j]])))
        count[pix[alive[k]]] -= 1
        del alive[k]
    return [rects[i] for i in alive]


def drop_broken(rects: list[tuple[list[float], float]], hidden: np.ndarray) -> list[tuple[list[float], float]]:
    """Drop rectangles with a side broken by a run of background BROKEN x their line width long that hold another
    rectangle in one of their corners (``hidden``: the colour's pixels and what may hide them): two boxes side by
    side, their tops and bottoms about level, close one around both. (A thin line JPEG paled may show such gaps
    too, so a broken rectangle on its own stays.)"""
    def cornered(box: list[float], t: float) -> bool:
        tol = t + DUP_TOL
        return any(r is not box and within(r, box, -tol)
                   and any(abs(r[i] - box[i]) <= tol and abs(r[j] - box[j]) <= tol for i in (0, 2) for j in (1, 3))
                   for r, _ in rects)

    return [(b, t) for b, t in rects if not (_gapped(b, hidden, max(SIDE_GAP, BROKEN * t)) and cornered(b, t))]


def drop_split_unions(rects: list[tuple[list[float], float]], mask: np.ndarray,
                      thin: np.ndarray) -> list[tuple[list[float], float]]:
    """Drop a rectangle with four clean corners that two others tile, sharing a line of its own (``thin``: the
    colour's pixels off filled labels, drawn along DIVIDER_COVER of it) that stops at its outline at both ends: two
    boxes drawn edge to edge (neighbouring objects), whose outer lines close a third rectangle around both. A line
    running on past the outline is another box's side crossing one box, which cuts pieces out of it instead, and a
    crossing box leaves corners that are no corners (``mask``: the colour's pixels)."""
    def split(box: list[float], t: float) -> bool:
        return any(_divides(box, at, t, beside, mask, thin) for at, beside, _, _ in _tilings(box, t, rects))

    return [(b, t) for b, t in rects if not (split(b, t) and _clean_corners(b, t, mask) == 4)]


def _divides(box: list[float], at: float, thick: float, upright: bool, mask: np.ndarray, thin: np.ndarray) -> bool:
    """The line at ``at`` (x when ``upright``, else y) across ``box`` is drawn (``thin``, within 1 px) along
    DIVIDER_COVER of it, reaches both sides (drawn whole over REACHES px next to each) and ends there: the mask is
    mostly undrawn from 2 to 4 px past the outline's line along it (the image border counts as undrawn)."""
    m, th = (mask, thin) if upright else (mask.T, thin.T)
    x1, y1, x2, y2 = box if upright else (box[1], box[0], box[3], box[2])
    h, w = m.shape
    x, r = int(round(at)), int(np.ceil(thick / 2))
    cols = slice(max(0, x - 1), min(w, x + 2))
    rows = slice(max(0, int(round(y1)) + r), max(0, int(round(y2)) - r))
    inner, ends = th[rows, cols].any(axis=1), m[rows, cols].any(axis=1)
    if inner.size < 2 * REACHES or inner.mean() < DIVIDER_COVER or not (ends[:REACHES].all() and ends[-REACHES:].all()):
        return False   # a line ending short of a side is a side of a box inside, not a divider
    for y, dy in ((y1, -1), (y2, 1)):
        ys = int(round(y)) + dy * np.arange(r + 2, r + 5)
        ys = ys[(ys > 0) & (ys < h - 1)]
        if ys.size and m[ys, cols].mean() >= 0.5:
            return False
    return True


def _gapped(box: list[float], drawn: np.ndarray, gap: float = SIDE_GAP) -> bool:
    """A side of ``box`` has an undrawn run of ``gap`` px or more along its centre line (a pixel counts as drawn
    when ``drawn`` is set within 1 px across the line)."""
    h, w = drawn.shape
    x1, y1, x2, y2 = (int(round(v)) for v in box)
    x1, x2, y1, y2 = max(0, x1), min(w - 1, x2), max(0, y1), min(h - 1, y2)
    for y in (y1, y2):
        if any(b - a + 1 >= gap for a, b in true_runs(~drawn[max(0, y - 1):y + 2, x1:x2 + 1].any(axis=0))):
            return True
    for x in (x1, x2):
        if any(b - a + 1 >= gap for a, b in true_runs(~drawn[y1:y2 + 1, max(0, x - 1):x + 2].any(axis=1))):
            return True
    return False


def _clean_corners(box: list[float], thick: float, mask: np.ndarray) -> int:
    """How many of a box's corners are real corners: both lines stop there (``mask`` mostly undrawn from 2 to
    CORNER_REACH px beyond the outline along each of them; the image border counts as undrawn)."""
    h, w = mask.shape
    r = int(np.ceil(thick / 2))
    x1, y1, x2, y2 = (int(round(v)) for v in box)
    n = 0
    for cx, dx in ((x1, -1), (x2, 1)):
        for cy, dy in ((y1, -1), (y2, 1)):
            xs = np.clip(cx + dx * np.arange(r + 2, r + CORNER_REACH + 1), 0, w - 1)
            ys = np.clip(cy + dy * np.arange(r + 2, r + CORNER_REACH + 1), 0, h - 1)
            inside_x = (xs > 0) & (xs < w - 1)
            inside_y = (ys > 0) & (ys < h - 1)
            along_row = mask[max(0, cy - 1):cy + 2][:, xs[inside_x]]
            along_col = mask[ys[inside_y]][:, max(0, cx - 1):cx + 2]
            ends_row = along_row.size == 0 or along_row.mean() < 0.5
            ends_col = along_col.size == 0 or along_col.mean() < 0.5
            n += int(ends_row and ends_col)
    return n


def _tilings(box: list[float], t: float, rects: list[tuple[list[float], float]]):
    """Ways two of ``rects`` tile ``box`` (outline ``t`` px), one above the other or side by side, each a line
    thickness plus DUP_TOL px from its sides: yields (where they meet: x when side by side, else y; whether side by
    side; their two outlines' thicknesses)."""
    reach = max((tr for _, tr in rects), default=0.0) + DUP_TOL
    inside = [(r, tr) for r, tr in rects if r is not box and box[0] - reach <= r[0] and r[2] <= box[2] + reach
              and box[1] - reach <= r[1] and r[3] <= box[3] + reach]
    for a, ta in inside:
        for b, tb in inside:
            if a is b:
                continue
            tol = max(t, ta, tb) + DUP_TOL
            for lo, hi, across in ((1, 3, (0, 2)), (0, 2, (1, 3))):   # a above b, then a left of b
                if (abs(a[lo] - box[lo]) <= tol and abs(b[hi] - box[hi]) <= tol and abs(a[hi] - b[lo]) <= tol
                        and all(abs(r[i] - box[i]) <= tol for r in (a, b) for i in across)):
                    yield (a[hi] + b[lo]) / 2, lo == 0, ta, tb


def dedupe(rects: list[tuple[list[float], float]]) -> list[tuple[list[float], float]]:
    """The first of rectangles whose sides all lie within DUP_TOL px of each other (one box found twice). A box
    cut short by another box's line is no duplicate: :func:`explain_away` keeps the one with an outline of its own."""
    out: list[tuple[list[float], float]] = []
    for box, t in rects:
        if all(max(abs(a - b) for a, b in zip(box, o)) > DUP_TOL for o, _ in out):
            out.append((box, t))
    return out


def drop_label_splits(rects: list[tuple[list[float], float]], row_cs: np.ndarray, reach: int,
                      solid: float) -> list[tuple[list[float], float]]:
    """Among boxes on the same two vertical lines, drop those made by a filled label's edge.

    Two such boxes that differ by a mostly drawn strip are one box and its label (a strip at the bottom:
    :func:`drop_glued_below`, run over the boxes of both passes). A strip at the top is a label above the inner
    box or inside the top of the outer one: the true top line is the one with the longer fully drawn run of rows
    (line plus the label's padding, against the padding alone on the label's far edge). ``row_cs``: cumulative
    sums of the colour mask along rows; ``reach``: rows looked at on each side of a line for its fully drawn run
    (``solid``: the share of a row that counts as fully drawn).
    """
    def share(box: list[float], lo: int, hi: int) -> np.ndarray:
        xa, xb = int(round(box[0])), int(round(box[2]))
        return (row_cs[lo:hi, xb + 1] - row_cs[lo:hi, xa]) / (xb - xa + 1)

    def drawn(box: list[float], a: float, b: float, t: float) -> bool:
        lo, hi = int(round(a + t / 2)) + 1, int(round(b - t / 2))
        return hi - lo >= 2 and float(share(box, lo, hi).mean()) >= 0.5

    def solid_run(box: list[float], y: float) -> int:
        c = int(round(y))
        rows = share(box, max(0, c - reach), min(row_cs.shape[0], c + reach + 1)) >= solid
        k = c - max(0, c - reach)
        if not rows[k]:
            return 0
        up = k - (np.flatnonzero(~rows[:k])[-1] if (~rows[:k]).any() else -1)
        down = (np.flatnonzero(~rows[k:])[0] if (~rows[k:]).any() else len(rows) - k)
        return int(up + down - 1)

    def inside(a: list[float], b: list[float]) -> bool:
        return b[1] <= a[1] + 1 and b[3] >= a[3] - 1

    def split(box: list[float], t: float, o: list[float]) -> bool:
        if inside(o, box) and drawn(box, box[1], o[1], t):            # label above o, or inside box's top
            return solid_run(box, box[1]) < solid_run(box, o[1])
        if inside(box, o) and drawn(box, o[1], box[1], t):
            return solid_run(box, box[1]) < solid_run(box, o[1])
        return False

    return [(box, t) for box, t in rects if not any(split(box, t, o) for o, _ in rects if o is not box)]


def drop_glued_below(rects: list[tuple[list[float], float]], row_cs: np.ndarray) -> list[tuple[list[float], float]]:
    """Drop a box that is another one on the same sides and top with a label glued below it (:func:`_label_below`;
    no renderer puts labels inside a box's bottom): a filled label as wide as its box runs on its sides, so a
    rectangle closes at the label's bottom edge (``row_cs``: cumulative sums of the colour mask along rows)."""
    def under(box: list[float], t: float, o: list[float]) -> bool:
        return (abs(o[0] - box[0]) <= DUP_TOL and abs(o[2] - box[2]) <= DUP_TOL and abs(o[1] - box[1]) <= 1
                and o[3] < box[3] - t and _label_below(row_cs, box, t, o[3]))

    return [(box, t) for box, t in rects if not any(under(box, t, o) for o, _ in rects if o is not box)]


def _label_below(row_cs: np.ndarray, box: list[float], t: float, inner_bottom: float) -> bool:
    """The rows of ``box`` between ``inner_bottom`` and its own bottom line (outline ``t`` px) are a filled label:
    drawn over half the width on average, and every one drawn inside the sides (at least at the label's padding;
    a label centred in the box leaves empty rows under it)."""
    lo, hi = int(round(inner_bottom + t / 2)) + 1, int(round(box[3] - t / 2))
    xa, xb, r = int(round(box[0])), int(round(box[2])), int(np.ceil(t / 2))
    share = (row_cs[lo:hi, xb + 1] - row_cs[lo:hi, xa]) / (xb - xa + 1)
    inside = row_cs[lo:hi, xb - r] - row_cs[lo:hi, xa + r + 1]
    return hi - lo >= 2 and float(share.mean()) >= 0.5 and bool((inside > 0).all())
