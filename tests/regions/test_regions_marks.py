"""Labels of thin rectangles (:mod:`tools.regions.marks`): which box a piece of label ink may go to.

Ground truth is the drawing's own geometry (boxes at the outer edge of their lines, "Region k" in the box colour
centred above), saved as JPEG.
"""

from __future__ import annotations

from tools.common import jpeg_roundtrip
from tools.regions import marks
from tools.regions.geom import pixel_iou
from tools.regions.thin import find_thin_rects
from tests.regions.test_regions_thin import BLUE, YELLOW, background, suav_boxes, text_size


def test_a_label_part_seen_by_a_box_of_another_colour_stays_with_the_box_of_its_colour(monkeypatch):
    img = background(seed=3)
    boxes = {6: (300, 200, 560, 360), 2: (120, 120, 200, 180)}
    suav_boxes(img, boxes, (BLUE, YELLOW), 1)
    img = jpeg_roundtrip(img, 80)
    rects = find_thin_rects(img)
    blue = next(r for r in rects if pixel_iou(r.box, boxes[6]) >= 0.9)
    yellow = next(r for r in rects if pixel_iou(r.box, boxes[2]) >= 0.9)
    height = marks.label_height(img.shape[0])
    whole = [p for p in marks.ink_pieces(img, blue, rects, height) if p[3] < boxes[6][1]]
    assert len(whole) == 1, whole
    # the yellow box's ink sees the first letters of the blue label (as a greyed-yellow picture may make it):
    # a part of that label, found before the blue box's window finds it whole
    w, _, _ = text_size("Reg", 0.6)
    part = (whole[0][0], whole[0][1] + 2, whole[0][0] + w, whole[0][3] - 2)
    real = marks.ink_pieces

    def pieces(rgb, rect, all_rects, h, light=False):
        return [part] if rect is yellow else real(rgb, rect, all_rects, h, light)

    monkeypatch.setattr(marks, "ink_pieces", pieces)
    got = marks.read_marks(img, [yellow, blue])
    assert got[1] is not None and got[1].id == 6, got
