"""The rule-out of line pairs before closing them (:mod:`tools.regions.crossing`): a pair it rules out is one for
which :func:`tools.regions.lines._close_pair` finds no box, on masks where both kinds of pair occur (drawn boxes,
noise blobs, lines that no row crosses, lines with rows drawn across them but not both drawn between two of those
rows)."""

from __future__ import annotations

import cv2
import numpy as np

from tools.regions.crossing import crossed
from tools.regions.geom import MaskSums
from tools.regions.lines import SIDE_COVER, _close_pair
from tools.regions.pieces import line_pieces


def _mask(seed: int) -> np.ndarray:
    """Outlined boxes, a few filled blobs and loose vertical strokes on a 240x320 mask."""
    rng = np.random.default_rng(seed)
    img = np.zeros((240, 320), np.uint8)
    for _ in range(4):
        x, y, w = int(rng.integers(5, 220)), int(rng.integers(5, 150)), int(rng.integers(30, 90))
        cv2.rectangle(img, (x, y), (x + w, y + int(rng.integers(14, 40))), 1, 3)
        img[y - 1:y + 2, x + w // 2:x + w // 2 + w // 10] = 0   # a gap of a tenth in its top side (a hidden bit)
    for _ in range(3):
        x, y = int(rng.integers(0, 300)), int(rng.integers(0, 220))
        img[y:y + int(rng.integers(5, 25)), x:x + int(rng.integers(5, 25))] = 1
    for _ in range(6):
        x, y = int(rng.integers(0, 318)), int(rng.integers(0, 200))
        img[y:y + int(rng.integers(12, 40)), x:x + 3] = 1
    return img.astype(bool)


def test_pairs_ruled_out_close_no_box_and_boxes_are_kept() -> None:
    kept = ruled_out = by_sides = 0
    for seed in range(6):
        mask = _mask(seed)
        sums = MaskSums.of(mask, mask, mask)
        xs = sorted(line_pieces(mask, vertical=True), key=lambda ln: ln.pos)
        pairs = [(a, b) for i, a in enumerate(xs) for b in xs[i + 1:] if b.pos - a.pos >= 12]
        rows_only = crossed(pairs, sums.cover[0], SIDE_COVER, 12)
        flags = crossed(pairs, sums.cover[0], SIDE_COVER, 12, sums.cover[1])
        for (a, b), ok, row_ok in zip(pairs, flags, rows_only):
            boxes = _close_pair(a, b, *sums.cover, sums.mask[0], mask, 12)
            if not ok:
                assert boxes == [], (seed, a, b)
                ruled_out += 1
                by_sides += bool(row_ok)   # rows cross the pair, but its sides are not drawn between two of them
            kept += bool(boxes)
    assert ruled_out > 0 and kept > 0 and by_sides > 0   # every kind of pair was met
