"""The scales an overlay is read at: the overlay line thickness sets the scale the reader works at, and a second
read at another scale (:func:`second_look`) reads anew the labels the first left unread or unsure.

:func:`tools.regions.read_regions` finds lines, labels and boxes with pixel constants set for outlines 2-5 px
wide (the widths overlay renderers use at the benchmarks' resolutions; :data:`tools.regions_geom.MAX_LINE`: a
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

from collections.abc import Callable
from typing import Any

import cv2
import numpy as np

from tools.common import downscale, to_full_res
from tools.regions_geom import NEAR_BOX, SAME_BOX, iou

LONG_RUN = 41        # px, shortest straight stroke whose thickness is measured
MIN_RUNS = 50        # fewest measured runs for a thickness (fewer: too little overlay to tell)
# measured thickness (px) from which an image is read scaled down: the benchmark's widest outlines (5 px) measure
# up to 7 px, and outlines measured at 11-12 px (drawn 10 px wide) are lost to MAX_LINE
SCALE_FROM = 9
WORK_THICK = 5       # px, measured thickness an image is scaled down to (the benchmark's 3-4 px outlines)
# the second look (:func:`second_look`): the scale of the second read, relative to the first. On dev overlays it
# gained as many exact regions at 0.8 as at 1.25 (seeds 201/211: 4 and 2, one region apart) and at 0.67 (seeds
# 1-41 and 201-231: 11 and 10); 0.8 costs 0.64 of a read and keeps small labels larger than 0.67 does
SECOND_LOOK = 0.8


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


def second_look(rgb: np.ndarray, regions: list[Any], scale: float, read: Callable[[np.ndarray, float], list[Any]],
                unsure: float) -> list[Any]:
    """``regions`` (:class:`tools.regions.Region`, unlabeled ones too) read by ``read`` at ``scale``, reconciled
    with a second read at SECOND_LOOK times that where the first left a box unlabeled or read a label unconfirmed
    (its mask and picture reads disagreed) and less sure than ``unsure``: read at another scale, the fragile labels
    (letters on lines, glued labels) come out otherwise. Dev overlays (seeds 1-41 and 201-251, 2,000 overlays),
    exact regions gained: 14 (extra regions -6), the second look taken on 191 overlays; taken wherever a label is
    unconfirmed, 17 on 543 overlays; where a box is unlabeled, 9 on 140."""
    if all(r.id >= 0 and (r.confirmed is True or r.confidence >= unsure) for r in regions):
        return regions
    return reconcile(regions, read_scaled(rgb, scale * SECOND_LOOK, read))


def reconcile(first: list[Any], second: list[Any]) -> list[Any]:
    """``first`` with the confirmed labels of ``second`` that it holds nowhere (surest first): a box of
    ``second`` that no box of ``first`` overlaps is added; one that overlaps only unlabeled boxes replaces the
    most overlapping of them; one that is the same box (IoU >= SAME_BOX) as the only labelled box there, whose
    label is unconfirmed, replaces it."""
    out = list(first)
    for other in sorted(second, key=lambda r: -r.confidence):
        if other.id < 0 or other.confirmed is not True or any(r.id == other.id for r in out):
            continue
        near = [k for k, r in enumerate(out) if iou(r.bbox, other.bbox) >= NEAR_BOX]
        if not near:
            out.append(other)
            continue
        best = max(near, key=lambda k: iou(out[k].bbox, other.bbox))
        labelled = [k for k in near if out[k].id >= 0]
        if (not labelled or (labelled == [best] and out[best].confirmed is not True
                             and iou(out[best].bbox, other.bbox) >= SAME_BOX)):
            out[best] = other
    return out
