"""Small boxes inside their own label (used by :mod:`tools.regions.pipeline`): a stroke label drawn inside a box's top-left
corner and larger than the box runs across its right or bottom side. Its letters touch the outline, so the line
pieces of the rectangle search (:mod:`tools.regions.lines`) come out too short for a side, and box and label make
one blob of the colour that no found box lies near (or the colour closes no rectangle at all), which is never read.
Such a blob's top-left corner is the box's: its top and left lines start there and end where the box's right and
bottom sides are, which must be drawn (letters crossing them count); what is left off the outline is the label,
read off the mask and off the picture. A label centred in a box it nearly fills makes such a blob too; then the
padding shows inside all four lines, on average (``all_round``).

Conventions: masks are (H, W) bool; blob boxes (x1, y1, x2, y2) end-exclusive px; boxes [x1, y1, x2, y2] at the
centres of their outlines (px), as in :mod:`tools.regions.lines`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np

from tools.regions.anchored import side_drawn
from tools.regions.geom import MAX_LINE, iou, true_runs
from tools.regions.labels import OUTLINE_HALO
from tools.regions.lines import SIDE_COVER
from tools.regions.ocr import LabelBlob, read_labels, read_pictures

GAP = 2           # px of background that end a line (a JPEG-blurred line keeps no longer gap)
LINE_ROWS = 0.9   # share of a line's length its rows (columns) are drawn over
CORNER = 3        # px of a line's start left out and of background allowed before it (JPEG rounds corners)
PAD_DRAWN = 0.5   # most drawn share of the padding inside a box's top or left line (all round: on average)


Box = tuple[int, int, int, int]   # x1, y1, x2, y2 px, end-exclusive


def boxed_labels(rgb: np.ndarray, mask: np.ndarray, strength: np.ndarray, blobs: Sequence[LabelBlob],
                 regions: Sequence[Any], min_side: float, allowed: set[int] | None,
                 all_round: bool = False) -> list[tuple[list[float], tuple[int, str, float], Box]]:
    """(box, read, label box) of each blob of the colour ``mask`` that no label of ``regions`` (this colour's, so
    far) overlaps and that is a box of at least ``min_side`` px with its label's letters inside it, the label read
    alike off the mask and off the picture (``strength``: the colour's grey picture,
    :func:`tools.regions.colour_layers`) as an id that no region holds (and one of ``allowed`` when given).
    ``all_round``: the padding must show inside all four lines on average (a label centred in a box it nearly
    fills touches some), not only inside the top or the left one (a label in the box's top-left corner, as large
    as the box)."""
    taken = {r.id for r in regions}
    found = []
    for blob in blobs:
        if any(r.label_box is not None and iou(r.label_box, blob.box) > 0 for r in regions):
            continue
        fit = _box_at_corner(mask, blob.box, min_side, all_round)
        if fit is None:
            continue
        box, letters = fit
        x1, y1, x2, y2 = blob.box
        own = np.zeros_like(mask)   # the blob's letters, off the outline
        own[y1:y2, x1:x2] = letters
        ys, xs = np.nonzero(letters)
        label = LabelBlob((x1 + int(xs.min()), y1 + int(ys.min()), x1 + int(xs.max()) + 1, y1 + int(ys.max()) + 1),
                          False)
        (mask_read,), (picture_read,) = read_labels([(own, label, np.where(own, strength, 0).astype(np.uint8))]), \
            read_pictures(rgb, [label])
        rid = mask_read[0]
        if rid is None or rid != picture_read[0] or rid in taken or (allowed is not None and rid not in allowed):
            continue
        taken.add(rid)
        found.append((box, (rid, mask_read[1], max(mask_read[2], picture_read[2])), label.box))
    return found


def _box_at_corner(mask: np.ndarray, blob: Box, min_side: float,
                   all_round: bool = False) -> tuple[list[float], np.ndarray] | None:
    """The box whose outline starts at the blob's top-left corner, and the blob's letters off that outline (bool,
    the blob's size; they may run across its right or bottom side), when its sides are drawn, the padding shows
    inside its top or left line (``all_round``: inside all four on average), and letters lie inside it; else None."""
    bx1, by1, bx2, by2 = blob
    part = mask[by1:by2, bx1:bx2]
    top, left = _line(part, min_side), _line(part.T, min_side)
    if top is None or left is None or max(top[1], left[1]) > MAX_LINE:
        return None
    (ty, th, t_end), (lx, lw, l_end) = top, left
    # the top line ends at the right side's outer edge, the left line at the bottom side's
    x1, y1, x2, y2 = lx, ty, t_end - (lw + 1) / 2, l_end - (th + 1) / 2
    if x2 - x1 < min_side or y2 - y1 < min_side:
        return None
    if side_drawn(part.T, x2, y1, y2, lw) < SIDE_COVER or side_drawn(part, y2, x1, x2, th) < SIDE_COVER:
        return None
    # the padding a renderer leaves between the outline and the label: background along the inside of the top or
    # the left line (a filled label's background is drawn there; a bold letter may touch the top line)
    pads = [_inner(part, y1 + th / 2, x1 + lw / 2, x2 - lw / 2),
            _inner(part.T, x1 + lw / 2, y1 + th / 2, y2 - th / 2)]
    if all_round:   # and inside the bottom and right lines (the part flipped: they become top and left ones)
        h, w = part.shape
        pads += [_inner(part[::-1], h - 1 - (y2 - th / 2), x1 + lw / 2, x2 - lw / 2),
                 _inner(part.T[::-1], w - 1 - (x2 - lw / 2), y1 + th / 2, y2 - th / 2)]
    if (float(np.mean(pads)) if all_round else min(pads)) > PAD_DRAWN:
        return None
    outline = np.zeros(part.shape, np.uint8)   # erased as tools.regions.labels erases outlines to read letters
    cv2.rectangle(outline, (round(x1), round(y1)), (round(x2), round(y2)), 1, round(max(th, lw)) + OUTLINE_HALO)
    letters = part & (outline == 0)
    ys, xs = np.nonzero(letters)
    if not ((xs < x2) & (ys < y2)).any():   # no letters inside the box
        return None
    return [round(float(v), 1) for v in (bx1 + x1, by1 + y1, bx1 + x2, by1 + y2)], letters


def _line(part: np.ndarray, min_side: float) -> tuple[float, float, float] | None:
    """(centre row, thickness, end column, exclusive) of the line along the top rows of ``part`` from its left
    edge: the first rows drawn over LINE_ROWS of the first ``min_side`` columns; it ends where GAP columns of them
    are undrawn. None when the top rows hold no such line."""
    n = int(np.ceil(min_side))
    if part.shape[1] < n:
        return None
    rows = part[:, CORNER:n].mean(axis=1) >= LINE_ROWS   # JPEG rounds the corner
    runs = true_runs(rows)
    if not runs or runs[0][0] > CORNER:
        return None
    a, b = runs[0]
    drawn = part[a:b + 1].any(axis=0)
    gaps = [s for s, e in true_runs(~drawn) if e - s + 1 >= GAP or e == len(drawn) - 1]
    end = gaps[0] if gaps else len(drawn)
    return (a + b) / 2, float(b - a + 1), float(end)


def _inner(part: np.ndarray, edge: float, a: float, b: float) -> float:
    """Least drawn share of the two rows of ``part`` just below row ``edge`` (a line's inner edge), columns
    ``a``..``b`` (the line's inner edges across)."""
    r, c0, c1 = int(np.floor(edge)) + 1, int(np.ceil(a)) + 1, int(np.floor(b))
    rows = part[r:r + 2, c0:c1]
    return float(rows.mean(axis=1).min()) if rows.size else 1.0
