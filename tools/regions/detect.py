"""Labels that the mask pipeline of :mod:`tools.regions.pipeline` could not read, or read unsurely, looked for by the OCR
engine's text detector around their boxes."""

from __future__ import annotations

import itertools
import re
from typing import TYPE_CHECKING

import numpy as np

from tools.regions.label_reader import is_id
from tools.regions.geom import iou, match_limit, placement_cost, union_box, within
from tools.regions.ocr import OCR, LabelBlob
from tools.regions.ids import free_id, take_read

if TYPE_CHECKING:
    from tools.regions.region import Region

DET_PAD = 50                 # px around an unlabeled box searched by the text detector
DET_RECHECK, DET_REPLACE = 0.7, 0.9  # reads less sure than this are checked by detection; replaced if this sure
JOIN_GAP = 0.5               # most gap (line heights) between two detected lines read as one label
ROW_OVERLAP = 0.7            # least shared height (of the lower line) of two lines on one row
SAME_CROP = 0.7              # IoU above which two boxes' search crops are one: the first crop's text lines serve both
_LABEL_TEXT = re.compile(r"(?:[A-Za-z]*\s*)?(\d+)")   # "Region 3", "3" (OCR may drop or garble the word)


def label_by_detection(rgb: np.ndarray, regions: list[Region], allowed: set[int] | None,
                       thick: float) -> list[Region]:
    """Labels the mask pipeline could not read, or read unsurely (confidence below DET_RECHECK), from the OCR
    engine's text detector run on a crop around the box: a number is taken when its text line sits where a label
    of this box goes, closer to this box's label places than to any other box's (a box inside the line is none: its
    letters closed into a rectangle), and no other region has its id.
    An unsure read is replaced only by a sure detection (DET_REPLACE), and confirmed by an equal one. ``thick``: px,
    the outline width assumed when placing a detected label."""
    taken = {r.id for r in regions if r.id >= 0}
    h, w = rgb.shape[:2]
    searched: list[tuple[tuple[int, int, int, int], list[tuple[str, float, tuple[int, int, int, int]]]]] = []
    for reg in (r for r in regions if r.id < 0 or r.confidence < DET_RECHECK):
        x1, y1, x2, y2 = (int(round(v)) for v in reg.bbox)
        crop = (max(0, x1 - DET_PAD), max(0, y1 - DET_PAD), min(w, x2 + DET_PAD), min(h, y2 + DET_PAD))
        best: tuple[float, int, str, float, tuple[int, int, int, int]] | None = None
        for text, conf, box in _with_joined(_text_lines(rgb, crop, searched)):
            m = _LABEL_TEXT.fullmatch(text.strip())
            rid = int(m.group(1)) if m and is_id(m.group(1)) else None
            if not free_id(rid, reg.id, taken, allowed):
                continue
            blob = LabelBlob(box, True)
            # a "box" inside the text line is its own letters' strokes closed into a rectangle: no label's box
            costs = [np.inf if within(o.bbox, box, -thick) else placement_cost(blob.box, o.bbox, thick, (w, h))
                     for o in regions]
            own = costs[regions.index(reg)]
            if own <= match_limit(blob.box) and own <= min(costs) and (best is None or own < best[0]):
                best = (own, rid, text.strip(), conf, blob.box)
        if best is None or (reg.id >= 0 and best[1] != reg.id and best[3] < DET_REPLACE):
            continue
        if best[1] == reg.id:
            reg.confidence = round(max(reg.confidence, best[3]), 3)
            continue
        take_read(reg, best[1:4], best[4], taken)
    return regions


def _with_joined(lines: list[tuple[str, float, tuple[int, int, int, int]]]
                 ) -> list[tuple[str, float, tuple[int, int, int, int]]]:
    """``lines`` and each two of them on one row, one right after the other (gap at most JOIN_GAP line heights),
    the first one text without digits, read as one: a box's side crossing a "Region N" label splits it into two
    lines ("Regi", "n14"); two numbers side by side are two labels, and a line read as nothing is no word."""
    joined = []
    for (ta, ca, a), (tb, cb, b) in itertools.permutations(lines, 2):
        if not ta.strip() or any(c.isdigit() for c in ta):
            continue
        h = min(a[3] - a[1], b[3] - b[1])
        overlap = min(a[3], b[3]) - max(a[1], b[1])
        if overlap >= ROW_OVERLAP * h and -h * JOIN_GAP <= b[0] - a[2] <= JOIN_GAP * h:
            joined.append((ta + tb, min(ca, cb), tuple(union_box(a, b))))
    return lines + joined


def _text_lines(rgb: np.ndarray, crop: tuple[int, int, int, int],
                searched: list[tuple[tuple[int, int, int, int], list[tuple[str, float, tuple[int, int, int, int]]]]]
                ) -> list[tuple[str, float, tuple[int, int, int, int]]]:
    """The text detector's lines (text, confidence, image px box) in ``crop`` (x1, y1, x2, y2); a crop about the
    same as one in ``searched`` (IoU > SAME_CROP: nested or duplicate boxes) takes that crop's lines lying in it
    instead of running the detector again (~0.08 s a crop); lines of earlier crops lying in this one are added."""
    for done, lines in searched:
        if iou(done, crop) > SAME_CROP:
            return [ln for ln in lines if within(ln[2], crop, margin=-2)]
    x1, y1, x2, y2 = crop
    lines = [(text, conf, (a + x1, b + y1, c + x1, d + y1))
             for text, conf, (a, b, c, d) in OCR.find_lines(rgb[y1:y2, x1:x2])]
    searched.append((crop, lines))
    # the detector may miss a line at the crop's edge that another crop held whole
    seen = [ln for _, found in searched[:-1] for ln in found if within(ln[2], crop)
            and not any(iou(ln[2], own[2]) > SAME_CROP for own in lines)]
    return lines + seen
