"""Rows of label text for :mod:`tools.regions.labels`: letters joined into text lines, and two label backgrounds
drawn one against the other told apart by their rows of letters. Boxes are (x1, y1, x2, y2) px with exclusive ends;
masks are (H, W) bool.
"""

from __future__ import annotations

import cv2
import numpy as np

from tools.regions.geom import MIN_HOLE
from tools.regions.ocr import LETTER_PAD, LabelBlob, text_mask

WORD_JOIN = 0.9              # letters this close (in letter heights) belong to one label
ROW_HEIGHT_RATIO = 1.3       # two rows of letters this close in height are two labels' (stacked_rows)
# most space (letter heights) between a hole touching an outline and its row's letters for it to be a letter: less
# than the 0.6 two digits of one number may lie apart (Hershey "11"), as picture that crossing
# boxes' lines close in lies beside their labels too (0.45 heights beside "5" in a two-box sweep overlay)
ON_OUTLINE_GAP = 0.3


def merge_letters(boxes: list[list[int]], lines_only: bool = False) -> list[list[int]]:
    """Join letter boxes into words/lines: boxes that overlap vertically and lie within WORD_JOIN x height
    (a space, or an erased outline crossing the text); unless ``lines_only``, also boxes stacked on each other
    (a letter cut in two by an erased outline)."""
    merged = True
    while merged:
        merged = False
        boxes.sort()
        for i in range(len(boxes)):
            for j in range(i + 1, len(boxes)):
                a, b = boxes[i], boxes[j]
                g = WORD_JOIN * max(a[3] - a[1], b[3] - b[1])
                if b[0] > a[2] + g:
                    break
                vert = min(a[3], b[3]) - max(a[1], b[1])
                if vert >= 0.3 * min(a[3] - a[1], b[3] - b[1]) or (not lines_only and vert > -3 and b[0] < a[2]):
                    boxes[i] = [min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])]
                    del boxes[j]
                    merged = True
                    break
            if merged:
                break
    return boxes


def stacked_rows(box: list[int], mask: np.ndarray, outlines: np.ndarray | None = None) -> list[list[int]]:
    """A filled label background (x1, y1, x2, y2, exclusive ends, px) split between two rows of letters, else
    ``[box]``. Renderers write a label on one line and draw labels after every outline, so letter holes in two rows,
    whose letters are as tall as each other (median heights within ROW_HEIGHT_RATIO) and at least both labels' pads
    apart (2 x LETTER_PAD rows; the loop of the "g" below the counters of "Region" is closer), are two labels drawn
    against each other (beside stacked or crossing boxes). Each part is cut at the middle of the rows between the two,
    and ends as far beyond its letters as the upper label's letters lie below its top (a renderer pads a label alike
    all round; at least LETTER_PAD). ``outlines``: erased outline bands (uint8); a hole one touches is a letter of a
    label drawn over an outline, or picture that outlines close in: it makes no row, and widens a part only when as
    tall as the row's letters (within ROW_HEIGHT_RATIO) and at most ON_OUTLINE_GAP letter heights beside them."""
    x1, y1, x2, y2 = (int(v) for v in box)
    clear, on_outline = _letter_holes((x1, y1, x2, y2), mask, outlines)
    rows = np.zeros(y2 - y1, bool)
    for _, top, _, height in clear:
        rows[top:top + height] = True
    runs = np.flatnonzero(np.diff(np.concatenate(([0], rows.astype(np.int8), [0]))))
    if len(runs) != 4:   # two rows of letters, no more
        return [list(box)]
    upper, upper_end, lower, lower_end = (int(v) for v in runs)
    rows_of = [[c for c in clear if (c[1] < upper_end) == above] for above in (True, False)]
    heights = [float(np.median([c[3] for c in row])) for row in rows_of]
    if max(heights) > ROW_HEIGHT_RATIO * min(heights) or lower - upper_end < 2 * LETTER_PAD:
        return [list(box)]
    cut, pad = (upper_end + lower) // 2, max(LETTER_PAD, upper)
    out = []
    for (top, end), row, size in zip([(0, cut), (cut, min(y2 - y1, lower_end + pad))], rows_of, heights):
        left, right = min(c[0] for c in row), max(c[0] + c[2] for c in row)
        beside = [c for c in on_outline if top <= c[1] + c[3] / 2 < end
                  and max(c[3], size) <= ROW_HEIGHT_RATIO * min(c[3], size)
                  and max(c[0] - right, left - c[0] - c[2]) <= ON_OUTLINE_GAP * size]
        left, right = min([left] + [c[0] for c in beside]), max([right] + [c[0] + c[2] for c in beside])
        out.append([x1 + max(0, left - pad), y1 + top, x1 + min(x2 - x1, right + pad), y1 + end])
    return out


Hole = tuple[int, int, int, int]   # (x, y, w, h) px within a label box


def _letter_holes(box: tuple[int, int, int, int], mask: np.ndarray,
                  outlines: np.ndarray | None) -> tuple[list[Hole], list[Hole]]:
    """The letters of a filled label background (:func:`tools.regions.ocr.text_mask`) at least MIN_HOLE tall:
    those clear of the ``outlines`` bands, and those touching one (a px beside a band counts, beyond the box's edge
    too)."""
    x1, y1, x2, y2 = box
    holes = text_mask(mask, LabelBlob(box, True))
    n, lab, stats, _ = cv2.connectedComponentsWithStats(holes.astype(np.uint8), connectivity=8)
    touching = set()
    if outlines is not None:
        h, w = mask.shape
        a, b = max(0, x1 - 1), max(0, y1 - 1)
        near = cv2.dilate(outlines[b:min(h, y2 + 1), a:min(w, x2 + 1)], np.ones((3, 3), np.uint8)) > 0
        touching = set(np.unique(lab[near[y1 - b:y2 - b, x1 - a:x2 - a] & holes]).tolist())
    tall = [(k, tuple(int(v) for v in stats[k][:4])) for k in range(1, n) if stats[k][3] >= MIN_HOLE]
    return [c for k, c in tall if k not in touching], [c for k, c in tall if k in touching]
