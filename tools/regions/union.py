"""Add the thin rectangles that the colour-level pass of :func:`tools.regions.read_regions` missed.

The colour-level pass (:mod:`tools.regions.colours` and what follows it) finds outlines whose pixels stay near-pure
after JPEG; thin (1-3 px) outlines lose their saturation to chroma subsampling and are found by their line profile
instead (:mod:`tools.regions.thin`), their labels by where renderers put them (:mod:`tools.regions.marks`). A
thin rectangle's read is taken where the first pass has no labelled box there and its id is not taken (or held by
one unconfirmed read less sure than it, which gives it up): it labels an unlabeled box found there, or comes in as
a new region. Reads whose id is held wait for the others, which may relabel the holder's box.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tools.regions.geom import iou
from tools.regions.marks import letter_of, read_marks
from tools.regions.thin import Rect, find_thin_rects

SURE = 0.95        # recognizer confidence from which a thin rectangle's read overrules an unconfirmed first read
SIDE_TOL = 3.0     # px within which two boxes' sides are one line
INSIDE_SHARE = 0.8  # share of a box's area inside another from which it may be a piece of it
THIN_EDGE = 2      # px: a labelled box found on an outline this thin takes the thin finder's outer edge
UNSURE_GAP = 0.05  # confidence by which a sure thin read outreads an unconfirmed holder of its id
SAME_PLACE = 0.7   # IoU from which a thin rectangle and a box of the first pass are one box
ENCLOSE_TOL = 1.0  # px a first-pass box's side may lie outside a thin rectangle whose box it takes (_encloses)


def with_thin_rects(rgb: np.ndarray, regions: list[Any], allowed: set[int] | None,
                    make: Callable[..., Any]) -> list[Any]:
    """``regions`` (the first pass's, unlabeled ones with ``id = -1``) with the thin rectangles' reads added;
    ``make(id, bbox, label_text, confidence, confirmed, label_box)`` builds a region."""
    rects = find_thin_rects(rgb)
    if not rects:
        return regions
    marks = read_marks(rgb, rects)
    # a box of the first pass lying in the word of a read label is one of its letters closed into a rectangle,
    # which may have taken the label for its own
    words = [(rect.box, m.label_box) for rect, m in zip(rects, marks) if m is not None and m.id is not None]
    out = [r for r in regions if not any(letter_of(r.bbox, label) and iou(r.bbox, box) < SAME_PLACE
                                         for box, label in words)]
    taken = {r.id for r in out if r.id >= 0}
    for rect in rects:
        _outer_edge(rect, out)
    pending = [(rect, mark) for rect, mark in zip(rects, marks)
               if mark is not None and mark.id is not None and (allowed is None or mark.id in allowed)]
    # a read whose id an unsure first read holds waits for the other reads, one of which may take that box
    for rect, mark in pending + pending:
        same = [r for r in out if iou(r.bbox, rect.box) >= SAME_PLACE]
        # a read that finds only some of the digits another read found there read a label cut short
        if any(r.id >= 0 and (r.confirmed or mark.confidence < SURE or _cut_short(mark.id, r, out)) for r in same):
            continue
        if mark.id in taken and not _outread(mark, [r for r in out if r.id == mark.id], same):
            continue
        others = [r for r in out if all(r is not o for o in same)]
        if _label_taken(mark.label_box, others) or _piece_of_other(rect.box, others):
            continue
        for r in same:   # an unconfirmed first read gives way to a sure one
            taken.discard(r.id)
        box = [float(v) for v in rect.box]
        taken.add(mark.id)
        if same:
            same[0].relabel(mark.id, mark.text, mark.confidence, mark.label_box)
            same[0].bbox = box
        else:
            out.append(make(mark.id, box, mark.text, round(mark.confidence, 3), None, list(mark.label_box)))
    return out


def _cut_short(rid: int, reg: Any, regions: list[Any]) -> bool:
    """``rid``'s digits are a part of ``reg``'s id ("7" of "17"), an id no larger than another region's of the
    image (renderers number regions from 0 or 1 up: a longer read far above them, "92" of "2", read noise)."""
    others = [r.id for r in regions if r.id >= 0 and r is not reg]
    return rid != reg.id and str(rid) in str(reg.id) and bool(others) and reg.id <= max(others)


def _outread(mark: Any, holders: list[Any], same: list[Any]) -> bool:
    """An id is one box's: a sure read takes it from the one other box that holds it by a read UNSURE_GAP less
    sure and unconfirmed (two labels read as one number; the other box is left unlabeled)."""
    if len(holders) != 1 or any(h is r for h in holders for r in same):
        return False
    holder = holders[0]
    if holder.confirmed or mark.confidence < SURE or holder.confidence > mark.confidence - UNSURE_GAP:
        return False
    holder.relabel(-1, "", 0.0, None)
    return True


def _outer_edge(rect: Rect, regions: list[Any]) -> None:
    """A labelled region whose outline the thin finder found, THIN_EDGE px thin at most, takes the finder's box:
    the colour-level pass keeps JPEG's blurred fringe of a thin line out and ends its box a pixel or two inside
    (for an outline that thin the line's outer edge and its centre are within a pixel)."""
    if rect.thick > THIN_EDGE:
        return
    for r in regions:
        # an outer edge never lies inside the line's centre: a box found within is another shape
        if r.id >= 0 and iou(r.bbox, rect.box) >= SAME_PLACE and _encloses(rect.box, r.bbox):
            r.bbox = [float(v) for v in rect.box]


def _encloses(outer: Any, inner: Any) -> bool:
    """``outer`` holds ``inner`` to half a pixel, or to ENCLOSE_TOL px where each side of ``outer`` is ``inner``'s
    line (within SIDE_TOL): the colour pass's box, moved to its lines' outer edges (:mod:`tools.regions.edges`),
    may take a pixel of JPEG's fringe of a thin line in. A rectangle reaching further out on a side ends there on
    another line (a straight edge of the picture beyond the box), and takes the box only when it holds it whole."""
    def holds(t: float) -> bool:
        return (outer[0] <= inner[0] + t and outer[1] <= inner[1] + t and outer[2] >= inner[2] - t
                and outer[3] >= inner[3] - t)
    return holds(0.5) or (holds(ENCLOSE_TOL) and all(abs(a - b) <= SIDE_TOL for a, b in zip(outer, inner)))


def _label_taken(label: Any, regions: list[Any]) -> bool:
    """The label lies on another region's label: a label belongs to one box."""
    return any(r.id >= 0 and r.label_box is not None and _overlap(label, r.label_box) > 0 for r in regions)


def _piece_of_other(box: Any, regions: list[Any]) -> bool:
    """Two or more of ``box``'s sides lie on a labelled region's sides, the box within it: a piece that crossing
    outlines cut out of that region, not a box of its own."""
    for r in regions:
        if r.id < 0 or _overlap(box, r.bbox) < INSIDE_SHARE * _area(box):
            continue
        shared = sum(abs(box[k] - r.bbox[k]) <= SIDE_TOL for k in range(4))
        if shared >= 2:
            return True
    return False


def _area(b: Any) -> float:
    return max(0.0, b[2] - b[0] + 1) * max(0.0, b[3] - b[1] + 1)


def _overlap(a: Any, b: Any) -> float:
    """Area (px) of the intersection of two inclusive boxes."""
    return _area((max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])))
