"""Add the thin rectangles that the colour-level pass of :func:`tools.regions.read_regions` missed.

The colour-level pass (:mod:`tools.regions_colours` and what follows it) finds outlines whose pixels stay near-pure
after JPEG; thin (1-3 px) outlines lose their saturation to chroma subsampling and are found by their line profile
instead (:mod:`tools.regions_thin`), their labels by where renderers put them (:mod:`tools.regions_marks`). A
thin rectangle's read is taken where the first pass has no labelled box there and its id is not taken: it labels
an unlabeled box found there, or comes in as a new region.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tools.regions_geom import iou
from tools.regions_marks import read_marks
from tools.regions_thin import find_thin_rects

SURE = 0.95        # recognizer confidence from which a thin rectangle's read overrules an unconfirmed first read
SAME_PLACE = 0.7   # IoU from which a thin rectangle and a box of the first pass are one box


def with_thin_rects(rgb: np.ndarray, regions: list[Any], allowed: set[int] | None,
                    make: Callable[..., Any]) -> list[Any]:
    """``regions`` (the first pass's, unlabeled ones with ``id = -1``) with the thin rectangles' reads added;
    ``make(id, bbox, label_text, confidence, confirmed, label_box)`` builds a region."""
    rects = find_thin_rects(rgb)
    if not rects:
        return regions
    marks = read_marks(rgb, rects)
    taken = {r.id for r in regions if r.id >= 0}
    out = list(regions)
    for rect, mark in zip(rects, marks):
        if mark is None or mark.id is None or (allowed is not None and mark.id not in allowed):
            continue
        same = [r for r in out if iou(r.bbox, rect.box) >= SAME_PLACE]
        if any(r.id >= 0 and (r.confirmed or mark.confidence < SURE) for r in same) or mark.id in taken:
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
