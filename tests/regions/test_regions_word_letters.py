"""A letter of a label's word closed into a rectangle ("o" of "Region") is no box: it takes no label of its own
(:func:`tools.regions.marks.letter_of`), and a box of the first pass found there gives way to the thin
rectangle whose label it lies in (:func:`tools.regions.union.with_thin_rects`).

Ground truth is the drawing's own geometry: a SpatialUAV box (outer edges) with "Region 2" centred above it, saved
as JPEG; the letter rectangle is the box of the word's "o", measured on the drawing.
"""

from __future__ import annotations

import numpy as np

from tools.common import jpeg_roundtrip
from tools.regions.geom import pixel_iou
from tools.regions import marks
from tools.regions.region import Region
from tools.regions.thin import Rect, find_thin_rects
from tools.regions.union import with_thin_rects
from tests.regions.test_regions_thin import MAGENTA, background, suav_boxes, text_size

BOX = (300, 220, 560, 380)


def _drawing() -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """The JPEG drawing and the box (inclusive px) of the "o" of its label's "Region"."""
    img = background(seed=5)
    suav_boxes(img, {2: BOX}, (MAGENTA,), 2)
    w, h, _ = text_size("Region 2", 0.6)
    x0 = (BOX[0] + BOX[2]) // 2 - w // 2
    ox = x0 + text_size("Regi", 0.6)[0]
    o = (ox + 1, BOX[1] - 4 - h // 2 - 3, ox + text_size("o", 0.6)[0] - 1, BOX[1] - 4)
    return jpeg_roundtrip(img, 85), o


def test_a_rectangle_inside_a_word_takes_no_label(monkeypatch):
    img, _ = _drawing()
    box = next(r for r in find_thin_rects(img) if pixel_iou(r.box, BOX) >= 0.9)
    word = [p for p in marks.ink_pieces(img, box, [box], marks.label_height(img.shape[0])) if p[3] < BOX[1]]
    assert len(word) == 1, word
    # the bowl of the "R" closes a rectangle at the word's top-left corner, where a label inside a box lies; its
    # window sees the word whole (its own lines erased from the ink cut the letters it is made of)
    x1, y1, x2, y2 = word[0]
    letter = Rect((x1, y1, x1 + (y2 - y1) // 2, y1 + (y2 - y1) // 2), MAGENTA, 1, (1.0, 1.0, 1.0, 1.0))
    monkeypatch.setattr(marks, "ink_pieces", lambda *args, **kw: list(word))
    got = marks.read_marks(img, [letter])
    assert got[0] is None, got


def test_a_first_pass_box_on_a_letter_gives_the_label_to_its_box():
    img, o = _drawing()
    assert any(pixel_iou(r.box, BOX) >= 0.9 for r in find_thin_rects(img))
    letter = Region(2, [float(v) for v in o], "n2", 0.99, True, [o[2] + 1, o[1] - 4, o[2] + 30, o[3] + 2])
    got = with_thin_rects(img, [letter], None, Region)
    assert [r.id for r in got] == [2], got
    assert pixel_iou([int(v) for v in got[0].bbox], BOX) >= 0.9, got
