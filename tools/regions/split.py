"""Labels whose letters were grouped wrong.

Two labels drawn side by side and read as one number ("19" above one box, "17" just right of it above the next,
read "1917"): the letters of neighbouring labels lie closer than the word gap that joins a label's own words
(:data:`tools.regions.rows.WORD_JOIN`), so they form one label blob. Such a blob is split at a gap in its letters
when the other part sits beside another box just as the own part sits beside its box (a renderer draws every label
of an image alike), and the two parts read as the two halves of the whole read
(:func:`split_side_by_side`). Gaps alone cannot tell: the digits of one number lie up to 0.6 letter heights apart
(Hershey's "11"), two labels' letters as little as their two paddings (4 px).

A letter left on its own beside a read label is read with it (:func:`join_lone_letters`), and a label read on past
a side that took in another box's label is read alone (:func:`own_letters_only`), as is a label read over another
box's label (:func:`shared_letters`).

Boxes are (x1, y1, x2, y2) px.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from tools.regions.label_reader import is_id
from tools.regions.geom import iou, label_anchors, placement, placement_cost, share_within, true_runs
from tools.regions.labels import is_word, next_letter
from tools.regions.rows import WORD_JOIN
from tools.regions.ocr import LabelBlob, Read, read_pictures, text_mask
from tools.regions.ids import free_id, take_read

if TYPE_CHECKING:
    from tools.regions.region import Region

SPLIT_GAP = 0.2    # least gap between two labels' letters, in letter heights (renderers pad labels >= 2 px a side)
# most difference (letter heights) between where the two parts sit at the same place of their boxes: both were
# drawn there, so only side bearings differ; a digit of the own label sits a digit's width or more off
SAME_OFFSET = 0.4
SHARED = 0.3       # least share of another label within a label read that holds its number (a label below a box
                   # and the next one's, lower down, overlap by a few rows: "13" read "1317")
GLYPH_IOU = 0.25   # a "box" this much on the other part is a letter's strokes closed into a rectangle, not its box
DENSE = 0.6        # least drawn share of a stroke-text blob that is also cut as filled backgrounds
Part = tuple[int, int, int, int]
Rect = tuple[Sequence[float], float]   # (box at the outline's centre line, outline width px)


def split_side_by_side(rgb: np.ndarray, regions: list[Region], rects: Sequence[Rect], blobs: Sequence[LabelBlob],
                       mask: np.ndarray, letters: np.ndarray) -> list[Region]:
    """Regions (one per rectangle of ``rects``) whose label blob (of ``blobs``) holds two labels side by side
    (module docstring) take their own part's read; the box beside which the other part sits takes the other read
    when it is unlabeled (or keeps it when it read it already). ``mask``: the colour's overlay mask (a filled
    label's letters are its holes); ``letters``: the mask without outlines (stroke letters)."""
    size = (mask.shape[1], mask.shape[0])
    filled = {b.box: b.filled for b in blobs}
    jobs: list[tuple[int, list[int], Part, Part]] = []   # (region, boxes the other part sits beside, own, other)
    for i, reg in enumerate(regions):
        box = tuple(reg.label_box) if reg.label_box is not None else None
        if box is None or box not in filled or len(_digits(reg)) < 2:
            continue
        whole = placement_cost(box, *rects[i], size)
        for left, right in _cuts(LabelBlob(box, filled[box]), mask, letters):
            own, other = sorted((left, right), key=lambda p: placement_cost(p, *rects[i], size))
            if placement_cost(own, *rects[i], size) > whole + SAME_OFFSET * (own[3] - own[1]):
                continue
            hosts = _beside_alike(own, other, i, rects, size)
            if hosts:
                jobs.append((i, hosts, own, other))
    if not jobs:
        return regions
    reads = read_pictures(rgb, [LabelBlob(p, filled[tuple(regions[i].label_box)]) for i, _, own, other in jobs
                                for p in (own, other)])
    done: set[int] = set()
    for n, (i, hosts, own, other) in enumerate(jobs):
        mine, theirs = reads[2 * n], reads[2 * n + 1]
        if i in done or mine[0] is None or theirs[0] is None:
            continue
        in_order = (mine, theirs) if own[0] < other[0] else (theirs, mine)
        host = [k for k in hosts if regions[k].id == theirs[0]] or [k for k in hosts if regions[k].id < 0]
        wholes = {str(regions[i].id), _digits(regions[i])}
        if not any(_joined(in_order[0][1], in_order[1][1], whole) for whole in wholes) or not host:
            continue
        regions[i].relabel(mine[0], mine[1], mine[2], own)
        if regions[host[0]].id < 0:
            regions[host[0]].relabel(theirs[0], theirs[1], theirs[2], other)
        done.add(i)
    return regions


def _digits(reg: Region) -> str:
    """The digits a region's label was read as: its id's, or all those of its text when more (a read of two labels
    may keep only the last number: "0 20" read as 20)."""
    text = re.sub(r"\D", "", reg.label_text)
    return text if len(text) > len(str(reg.id)) else str(reg.id)


def _cuts(blob: LabelBlob, mask: np.ndarray, letters: np.ndarray) -> list[tuple[Part, Part]]:
    """(left, right) parts of ``blob`` cut at the gaps of its letters (:func:`_halves`, :func:`_rows_drawn`). A
    blob of two filled labels glued to an outline may pass for stroke text, whose strokes leave no gap: a stroke
    blob at least DENSE drawn is also cut as filled backgrounds."""
    x1, y1, x2, y2 = blob.box
    views = [blob] + ([LabelBlob(blob.box, True)] if not blob.filled and mask[y1:y2, x1:x2].mean() >= DENSE else [])
    out = []
    for view in views:
        crop = (mask if view.filled else letters)[y1:y2, x1:x2]
        text = text_mask(mask, view) if view.filled else crop
        out += [_rows_drawn(h, crop, blob.box) for h in _halves(view, text)]
    return out


def _joined(left: str, right: str, whole: str) -> bool:
    """``whole`` reads as ``left`` then ``right``, the two sharing up to all but one letter where they meet (a label
    drawn over the next one's first letters: "16" over "13" read "163")."""
    return any(whole in (left + right[k:], left[:len(left) - k] + right) for k in range(min(len(left), len(right))))


def _beside_alike(own: Part, other: Part, i: int, rects: Sequence[Rect], size: tuple[int, int]) -> list[int]:
    """Indices of the rectangles (not ``i``, nearest first) beside which ``other`` sits as ``own`` sits beside
    rectangle ``i``: at the same place (:func:`tools.regions.geom.label_anchors`), off it by the same offset within
    SAME_OFFSET letter heights, and not on a "box" closed by its own letters (GLYPH_IOU). Both parts are placed as
    tall as ``own``: labels drawn alike are, and a part whose letters touch a line lost those rows to it (a "4" above
    its box, glued to the top line of the box below the "15" beside it)."""
    place = placement(own, *rects[i], size)
    h = own[3] - own[1]

    def offset(part: Part, rect: Rect) -> np.ndarray:
        ax, ay = label_anchors(rect[0], part[2] - part[0], h, rect[1], size)[place]
        return np.array([part[0] - ax, part[1] - ay])

    mine = offset(own, rects[i])
    tol = SAME_OFFSET * h
    off = {k: float(np.hypot(*(offset(other, r) - mine))) for k, r in enumerate(rects)
           if k != i and iou(other, r[0]) < GLYPH_IOU}
    return sorted((k for k, d in off.items() if d <= tol), key=off.__getitem__)


def _rows_drawn(parts: tuple[Part, Part], crop: np.ndarray, box: Part) -> tuple[Part, Part]:
    """Both parts cut to the rows drawn in their columns of ``crop`` (the blob ``box``'s stroke letters or filled
    background): two labels beside boxes of other heights lie at other heights."""
    def cut(p: Part) -> Part:
        rows = np.flatnonzero(crop[:, p[0] - box[0]:p[2] - box[0]].any(axis=1))
        return p if len(rows) == 0 else (p[0], box[1] + int(rows[0]), p[2], box[1] + int(rows[-1]) + 1)

    return cut(parts[0]), cut(parts[1])


def _halves(blob: LabelBlob, text: np.ndarray) -> list[tuple[Part, Part]]:
    """(left, right) label boxes of ``blob`` cut at each gap of its letters (``text``: bool, the blob's crop) at
    least SPLIT_GAP letter heights wide, widest first: stroke letters cut at the gap's edges, a filled background in
    the gap's middle."""
    rows = np.flatnonzero(text.any(axis=1))
    cols = text.any(axis=0)
    if len(rows) == 0:
        return []
    least = max(2.0, SPLIT_GAP * (rows[-1] - rows[0] + 1))
    drawn = np.flatnonzero(cols)
    x1, y1, x2, y2 = blob.box
    gaps = [(a, b + 1) for a, b in true_runs(~cols) if a > drawn[0] and b < drawn[-1] and b + 1 - a >= least]
    out = []
    for a, b in sorted(gaps, key=lambda g: g[0] - g[1]):   # columns [a, b) hold no letter
        cut_l, cut_r = ((a + b) // 2, (a + b) // 2) if blob.filled else (a, b)
        out.append(((x1, y1, x1 + cut_l, y2), (x1 + cut_r, y1, x2, y2)))
    return out


def join_lone_letters(rgb: np.ndarray, regions: list[Region], blobs: Sequence[LabelBlob],
                      allowed: set[int] | None) -> list[Region]:
    """A read label with a stroke letter beside it that no box took (:func:`tools.regions.labels.next_letter`:
    the "1" of an "18" whose "8", glued to the box's side, looked like a filled label), or a word ("Region") with a
    "filled" blob no wider than high a word gap after it (a bold digit), is read again off the picture over both;
    that read stands when it is an id the caller allows that no other box holds and whose digits hold the first
    read's (any id, when the label's mask and picture reads disagreed)."""
    taken = {tuple(r.label_box) for r in regions if r.label_box is not None}
    lone = [list(b.box) for b in blobs if not b.filled and tuple(b.box) not in taken]
    # a bold digit may look filled: one no wider than high, a word gap after a word ("Region"), is its number
    digits = [list(b.box) for b in blobs if b.filled and tuple(b.box) not in taken
              and b.box[2] - b.box[0] <= b.box[3] - b.box[1]]
    jobs = []
    for reg in regions:
        if reg.id < 0 or reg.label_box is None:
            continue
        side = [b for b in lone if next_letter(b, [list(reg.label_box)])]
        if is_word(reg.label_box):
            side += [b for b in digits if b[0] >= reg.label_box[2]
                     and next_letter(b, [list(reg.label_box)], gap_max=WORD_JOIN, aspect=1.0)]
        if side:
            x1, y1, x2, y2 = np.array(side + [list(reg.label_box)]).T
            jobs.append((reg, (int(x1.min()), int(y1.min()), int(x2.max()), int(y2.max()))))
    ids = {r.id for r in regions if r.id >= 0}
    for (reg, box), read in zip(jobs, read_pictures(rgb, [LabelBlob(box, False) for _, box in jobs])):
        # the read must hold the first one's digits, unless the label's two reads disagreed
        if free_id(read[0], reg.id, ids, allowed) and read[0] != reg.id and (
                str(reg.id) in str(read[0]) or reg.confirmed is False):
            take_read(reg, read, box, ids)
    return regions


def own_letters_only(regions: list[Region], past: dict[tuple[int, int, int, int], tuple[Part, Read]],
                     allowed: set[int] | None) -> list[Region]:
    """A label read on past a side (``past``: blob box -> (the widened box read, the blob's read alone); see
    :func:`tools.regions.labels.across_right_side`) whose widening took in half or more of another region's label
    takes the blob's read alone (id -1 when that names no id the caller allows): a label's letters are its own (a
    "7" that ends a digit before box 12's left side, "12" drawn just inside that side, read "712")."""
    labels = [r.label_box for r in regions if r.label_box is not None]
    for reg in regions:
        box = tuple(reg.label_box) if reg.label_box is not None else None
        if box not in past:
            continue
        (_, y1, x2, y2), alone = past[box]
        if any(o != reg.label_box and share_within(o, (box[2], y1, x2, y2)) >= 0.5 for o in labels):
            if alone[0] is not None and (allowed is None or alone[0] in allowed):
                reg.relabel(alone[0], alone[1], alone[2], box)
            else:
                reg.id, reg.confidence, reg.confirmed = -1, 0.0, False
    return regions


def shared_letters(regions: list[Region], allowed: set[int] | None) -> list[Region]:
    """A label read over SHARED or more of another region's narrower label, at its left or right end, whose read
    ends (or starts) with that label's number, keeps the rest of its number (an id the caller allows and no other
    box holds, :func:`tools.regions.places.free_id`): a label's letters are its own ("1" below one box beside "8"
    below the next, read "18" for the first box while the second read its "8"). A label within the read's columns
    is looked for at the other end too where the one its centre names does not hold it."""
    held = {r.id for r in regions if r.id >= 0}
    for reg in (r for r in regions if r.id >= 0 and r.label_box is not None):
        for other in regions:
            if (other is reg or other.id < 0 or other.label_box is None
                    or other.label_box[2] - other.label_box[0] >= reg.label_box[2] - reg.label_box[0]
                    or share_within(other.label_box, reg.label_box) < SHARED):
                continue
            right = other.label_box[0] + other.label_box[2] > reg.label_box[0] + reg.label_box[2]
            rest = _rest(str(reg.id), str(other.id), right)
            # a label within the read box's columns may lie at either end: the read box may hold a line beside the
            # labels (a blob glued to one), which moves its centre; one that sticks out of it is at that end
            if not rest and reg.label_box[0] <= other.label_box[0] and other.label_box[2] <= reg.label_box[2]:
                rest = _rest(str(reg.id), str(other.id), not right)
            rid = int(rest) if is_id(rest) else None
            if free_id(rid, reg.id, held, allowed):
                take_read(reg, (rid, rest, reg.confidence), reg.label_box, held)
                break
    return regions


def _rest(number: str, part: str, at_end: bool) -> str:
    """``number``'s digits without ``part`` at its end (``at_end``) or start; "" where it is not there."""
    if at_end:
        return number[:-len(part)] if number.endswith(part) else ""
    return number[len(part):] if number.startswith(part) else ""
