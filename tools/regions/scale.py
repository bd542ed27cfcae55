"""The scales an overlay is read at: the overlay line thickness sets the scale the reader works at, and a second
read at other scales (:func:`second_look`) outvotes the first where two more reads agree against it.

:func:`tools.regions.read_regions` finds lines, labels and boxes with pixel constants set for outlines 2-5 px
wide (the widths overlay renderers use at the benchmarks' resolutions; :data:`tools.regions.geom.MAX_LINE`: a
thicker run is a filled area). A 4K frame annotated in proportion draws them twice as thick, where outlines read
as filled areas: overlays drawn at twice the benchmark's scale (lines 4-10 px, fonts twice as large) read
373/431 and 390/449 regions exactly (seeds 211/201, 100 overlays each), 10 px lines 38/74 and 61/105. Such an
image is read scaled down until its lines are WORK_THICK px thick, and the boxes are scaled back: 425/449 and
411/431 (10 px lines 94/105 and 69/74); overlays at the benchmark's own scale never measure SCALE_FROM (800 dev
overlays read identically).

The thickness is the most common length of the runs across long straight strokes of the overlay mask (runs of
overlay pixels across rows where they lie on a horizontal run of LONG_RUN px or more, and likewise across
columns): outlines outnumber the filled labels there. Drawn widths 2 / 3-4 / 6 / 8 / 10 px measure 3 / 5 / 7 /
9-10 / 11-12 px after JPEG (dev overlays, seed 201), up to 3 px more on a flat grey picture.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import cv2
import numpy as np

from tools.common import downscale, to_full_res
from tools.regions.label_reader import READER
from tools.regions.geom import SAME_BOX, iou, share_within, within

REST_BOX = 0.7      # IoU from which a box of the first read lies in the rest of a box beside a piece
PIECE_LABEL = 0.1   # most share of a piece's label box in the rest of the box (a label there was taken in)
PIECE_SIDES = 3.0   # px, a side of a scaled read within this of the first read's side is on it

LONG_RUN = 41        # px, shortest straight stroke whose thickness is measured
MIN_RUNS = 50        # fewest measured runs for a thickness (fewer: too little overlay to tell)
# measured thickness (px) from which an image is read scaled down: the benchmark's widest outlines (5 px) measure
# up to 7 px, and outlines measured at 11-12 px (drawn 10 px wide) are lost to MAX_LINE
SCALE_FROM = 9
WORK_THICK = 5       # px, measured thickness an image is scaled down to (the benchmark's 3-4 px outlines)
# the two more reads of :func:`second_look`, at these scales of the first. Dev overlays (seeds 1-41 and 201-231,
# 1,600 overlays, 7,061 regions), exact regions: 6,889 read once; the vote of reads at 0.8 and 0.67: 6,932 (extra
# regions 126 -> 97); 0.8 and 1.25 or 0.67 and 1.25 (seeds 201/211): 12 and 14 gained against 18 (1.25 costs 1.56
# reads); taken wherever the first read holds an unconfirmed label (27 % of the overlays) rather than only where it
# is also less sure than 0.9: 13 more (an unsure-only vote 6,919; the earlier second look, which took a confirmed
# 0.8 read where the first had an unlabeled box or an unsure label: 6,900); refused where it outvotes a confirmed
# first read: 13 fewer
LOOKS = (0.8, 0.67)


def stroke_thickness(mask: np.ndarray) -> int | None:
    """Most common thickness (px) of the long straight strokes of a boolean overlay ``mask``; None when it has
    fewer than MIN_RUNS of them."""
    u8 = mask.astype(np.uint8)
    # every other column of the horizontal strokes (and row of the vertical ones) measures them alike at half the cost
    half = LONG_RUN // 2 + 1
    rows = cv2.morphologyEx(u8[:, ::2], cv2.MORPH_OPEN, np.ones((1, half), np.uint8))   # horizontal strokes
    cols = cv2.morphologyEx(u8[::2], cv2.MORPH_OPEN, np.ones((half, 1), np.uint8))      # vertical strokes
    runs = np.concatenate([_run_lengths(rows), _run_lengths(cols.T)])
    runs = runs[(runs >= 2) & (runs < LONG_RUN)]   # 1 px: JPEG fringe; LONG_RUN and more: a filled area
    if runs.size < MIN_RUNS:
        return None
    return int(np.argmax(np.bincount(runs)))


def _run_lengths(m: np.ndarray) -> np.ndarray:
    """Lengths of the vertical runs of nonzero pixels of ``m``, every column."""
    m = m[:, np.flatnonzero(m.any(axis=0))]   # the columns with any (most have none)
    edges = np.diff(np.pad((m > 0).astype(np.int8), ((1, 1), (0, 0))), axis=0).T   # one row per column
    return np.flatnonzero(edges == -1) - np.flatnonzero(edges == 1)


def working_scale(mask: np.ndarray) -> float:
    """Factor (<= 1) an image with overlay ``mask`` is read at: WORK_THICK / thickness for lines of SCALE_FROM px
    or more, else 1."""
    thick = stroke_thickness(mask)
    return WORK_THICK / thick if thick is not None and thick >= SCALE_FROM else 1.0


def read_scaled(rgb: np.ndarray, scale: float, read: Callable[[np.ndarray, float], list[Any]]) -> list[Any]:
    """``read(image, s)`` on ``rgb`` scaled down by ``scale`` (s: the scale it came out at), the regions' ``bbox``
    and ``label_box`` (px) mapped back on ``rgb``; ``read(rgb, 1.0)`` as it is when ``scale`` is 1."""
    small, s = downscale(rgb, round(max(rgb.shape[:2]) * scale))
    regions = read(small, s)
    if s == 1.0:
        return regions
    for reg in regions:
        reg.bbox = [round(float(v), 1) for v in to_full_res(reg.bbox, s).ravel()]
        if reg.label_box is not None:
            reg.label_box = [round(float(v)) for v in to_full_res(reg.label_box, s).ravel()]
    return regions


def second_look(rgb: np.ndarray, regions: list[Any], scale: float,
                read: Callable[[np.ndarray, float], list[Any]]) -> list[Any]:
    """``regions`` (:class:`tools.regions.Region`, unlabeled ones too) read by ``read`` at ``scale``, outvoted where
    two more reads agree against it. Where the first read left a box unlabeled or a label unconfirmed (its mask
    and picture reads disagreed), the image is read again at LOOKS[0] of ``scale``; where that read holds a
    labelled region the first does not, a third read at LOOKS[1] settles it: the regions the two other reads agree
    on (same id, IoU >= SAME_BOX) stand (:func:`outvote`), but one that relabels a labelled box only where its
    label box reads as its id at the image's own scale (:func:`seen_alike`), and none that is a piece of the box the
    first read gave its id (:func:`_piece_of_own`). Read at another scale, the fragile labels (letters on lines,
    glued labels) come out otherwise, and rarely the same way wrong twice."""
    if all(r.id >= 0 and r.confirmed is True for r in regions):
        return regions
    # an id the first read found on two boxes and gave to neither: a read that misses one of them settles nothing
    contested = {r.contested for r in regions if r.contested is not None} - {r.id for r in regions}
    second = [r for r in read_scaled(rgb, scale * LOOKS[0], read)
              if r.id >= 0 and r.id not in contested and not any(_same(r, f) for f in regions)]
    if not second:   # nothing to vote on: the first read stands wherever the second could outvote it
        return regions
    third = read_scaled(rgb, scale * LOOKS[1], read)
    agreed = [r for r in second if any(_same(r, t) for t in third) and not _piece_of_own(r, regions)]
    return outvote(regions, seen_alike(rgb, regions, agreed))


def _piece_of_own(reg: Any, first: list[Any]) -> bool:
    """``reg`` (read at the other scales) is a piece of the box the first read gave its id: inside it, on three of
    its sides (within PIECE_SIDES px), its fourth side on a side of another box the first read found that runs
    across that box, its label clear of the rest of that box (share_within <= PIECE_LABEL), where the first read
    found no box: that box's side crossed by another box's line, which the scaled reads took for the fourth side
    (the full-scale read tells the lines apart better). A fourth side on no other box's line is the first read's
    box closed on a line beyond its own (631:93); a label in the rest is one the first read's box took in (a glued
    label, 141:46); a box the first read found there too (unlabeled, 121:178), or in the rest (702:86), makes its
    labelled box two boxes taken as one."""
    if reg.label_box is None or any(iou(f.bbox, reg.bbox) >= SAME_BOX for f in first):
        return False
    for f in first:
        if f.id != reg.id or not within(reg.bbox, f.bbox, -PIECE_SIDES):
            continue
        off = [k for k in range(4) if abs(f.bbox[k] - reg.bbox[k]) > PIECE_SIDES]
        if len(off) == 1:
            k = off[0]   # the rest of the box: between the piece's fourth side and the box's
            rest = list(f.bbox)
            rest[(k + 2) % 4] = reg.bbox[k]
            others = [g.bbox for g in first if g is not f]
            return (_on_crossing_line(reg.bbox[k], k % 2, f.bbox, others)
                    and share_within(reg.label_box, rest) <= PIECE_LABEL
                    and not any(iou(g, rest) >= REST_BOX for g in others))
    return False


def _on_crossing_line(at: float, axis: int, box: Sequence[float], others: list[Sequence[float]]) -> bool:
    """A side of one of ``others`` lies within PIECE_SIDES px of coordinate ``at`` (axis 0: x, a vertical side;
    1: y, a horizontal one), and that box runs across ``box`` (x1, y1, x2, y2 px) along the side."""
    return any(min(abs(o[axis] - at), abs(o[axis + 2] - at)) <= PIECE_SIDES
               and o[1 - axis] < box[3 - axis] and o[3 - axis] > box[1 - axis] for o in others)


def seen_alike(rgb: np.ndarray, first: list[Any], agreed: list[Any]) -> list[Any]:
    """``agreed`` without the regions that would relabel a labelled box of ``first`` (at IoU >= SAME_BOX) but
    whose label box, read at the image's own scale by the label recognizer, does not read as their id: both scaled
    reads misread it alike (a digit lost on a line, an "18" read as 8, or one gained, a "1" as 15). Measured on seeds
    1/11/121/141/161/181/201/211 (1,600 overlays): +4 exact regions, -3 extra, 5 overlays better and 1 worse (a
    "0" the recognizer reads as no number at full scale); fresh seeds 301/311: 1 overlay worse, none better.
    Nor those whose label box reads as their id less surely than the label box of the box they would relabel
    reads as that box's own id (:func:`surer_first`)."""
    relabelled = [[f for f in first if f.id >= 0 and f.id != a.id and iou(f.bbox, a.bbox) >= SAME_BOX] for a in agreed]
    disputed = [k for k, a in enumerate(agreed) if a.label_box is not None and relabelled[k]]
    if not disputed:
        return agreed
    rivals = [[f for f in relabelled[k] if f.label_box is not None] for k in disputed]
    # one recognizer call: the disputed regions' label boxes, then their rivals' in turn
    reads = READER.read(rgb, [agreed[k].label_box for k in disputed] + [f.label_box for fs in rivals for f in fs])
    theirs = iter(reads[len(disputed):])
    wrong = set()
    for k, (rid, _, conf), fs in zip(disputed, reads, rivals):
        own = [next(theirs) for _ in fs]
        if rid != agreed[k].id or surer_first(agreed[k].id, conf, fs, own):
            wrong.add(k)
    return [a for k, a in enumerate(agreed) if k not in wrong]


def surer_first(voted: int, confidence: float, rivals: list[Any], reads: list[tuple[int | None, str, float]]) -> bool:
    """A vote that reads its label box as its id ``voted`` with ``confidence`` loses to a box of the first read it
    would relabel (``rivals``) whose own label box the recognizer reads (``reads``, at the image's own scale) as that
    box's id at least as surely: the first read found that label where it is drawn, and the scaled reads' label
    box may take in lines glued to it. Not where the first id's digits are part of the voted id's: a first label
    box that cut a digit off ("13" read 3) reads the rest as surely as a whole label. Without that
    exception: seeds 701-710 (2,000 overlays) +5 exact, -1 extra, 4 overlays better and 1 worse; fresh seeds 811-818
    (1,600 overlays) +4, -2 extra, 4 better and 1 worse. The two worse ones had a first label box that cut off a
    "1"; the exception, written on them, gives both back (+6 and +5 in all) and changes nothing on seeds 819-826."""
    return any(rid == f.id and conf >= confidence and not digits_cut(f.id, voted)
               for f, (rid, _, conf) in zip(rivals, reads))


def digits_cut(first: int, voted: int) -> bool:
    """The first read's id is the voted id with digits cut off: its digits are part of the voted id's ("3" of
    "13"), as a label box that cuts a label short reads."""
    return str(first) in str(voted)


def outvote(first: list[Any], agreed: list[Any]) -> list[Any]:
    """``first`` with each region of ``agreed`` (read alike by two other reads) in place of the boxes of ``first``
    at the same place (IoU >= SAME_BOX); a box of ``first`` elsewhere with the same id is left unlabeled."""
    out = list(first)
    for reg in agreed:
        out = [r for r in out if iou(r.bbox, reg.bbox) < SAME_BOX]
        for r in out:
            if r.id == reg.id:
                r.relabel(-1, "", 0.0, None)
        out.append(reg)
    return out


def _same(a: Any, b: Any) -> bool:
    """Two reads of one labelled region: same id, boxes at IoU >= SAME_BOX."""
    return a.id == b.id and a.id >= 0 and iou(a.bbox, b.bbox) >= SAME_BOX
