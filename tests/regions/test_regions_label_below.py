"""A filled label glued below (above) its box and as wide as it (tools.regions.sides.off_label_below, off_label_above):
the label's edges go on along the box's sides, so a rectangle closes at the label's far edge; the box ends at its own
line.

Ground truth is the geometry we draw (cv2, benchmarks.synth.overlay) on real aerial images of
../shared/data; never the output of the code under test.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

import tools.regions.pipeline as regions_module
from benchmarks.region_overlays import recovered, score
from overlay_drawings import drawn_overlay, region_style
from tools.common import load_image
from tools.regions.pipeline import read_regions
from tools.regions.sides import off_label_above, off_label_below


# a filled "11" below a 38 px box, as wide as it; "Region 13" below an 82 px box with another box's label beside it
BELOW_CASES = [
    ("deepforest_neon/OSBS_029.png", 89, 11,
     [(11, [252.0, 89.0, 290.0, 193.0], region_style((0, 0, 255), 3, "below", "{id}", 0.955, "hershey_simplex", True))]),
    ("open3d-vqa/images/rgb_6.png", 74, 13,
     [(13, [30.0, 273.0, 112.0, 375.0], region_style((255, 0, 0), 4, "below", "Region {id}", 0.571, "dejavu_sans", True)),
      (3, [79.0, 358.0, 259.0, 431.0], region_style((255, 0, 255), 4, "above", "{id}", 0.640, "hershey_duplex", True))]),
]


@pytest.mark.parametrize("image,quality,rid,layout", BELOW_CASES)
def test_a_box_closed_at_the_bottom_of_its_glued_label_ends_at_its_own_line(shared_data, image, quality, rid, layout,
                                                                            monkeypatch):
    drawn = drawn_overlay(load_image(shared_data / image), layout, quality)
    box = next(b for i, b, _ in layout if i == rid)
    assert recovered(read_regions(drawn), rid, box)
    monkeypatch.setattr(regions_module, "off_label_below", lambda box, thick, mask: [float(v) for v in box])
    assert not recovered(read_regions(drawn), rid, box)


def test_a_box_closed_at_the_top_of_its_glued_label_ends_at_its_own_line_where_labels_sit_above(shared_data,
                                                                                                 monkeypatch):
    # four boxes labelled above on filled backgrounds; "18" is as wide as its 39 px box and glued to its top line,
    # so box and label close one rectangle and the letters sit inside its top-left corner; the image's other labels
    # sit above their boxes, so the box ends at its own top line
    img = load_image(shared_data / "open3d-vqa" / "images" / "rgb_5.png")
    style = region_style((0, 200, 100), 4, "above", "{id}", 0.91, "hershey_duplex", True)
    layout = [(18, [200.0, 196.0, 239.0, 328.0]), (12, [491.0, 242.0, 596.0, 378.0]),
              (10, [426.0, 332.0, 479.0, 435.0]), (6, [97.0, 330.0, 173.0, 387.0])]
    drawn = drawn_overlay(img, [(rid, box, style) for rid, box in layout], 69)
    assert score(read_regions(drawn), layout) == (len(layout), 0)
    monkeypatch.setattr(regions_module, "off_label_above", lambda box, thick, mask: [float(v) for v in box])
    assert score(read_regions(drawn), layout)[0] < len(layout)


def _box_with_label_below(width: int, label_h: int, thick: int = 3) -> tuple[np.ndarray, list[float], list[float]]:
    """A mask with a box outline (``thick`` px) and a filled label as wide as the box glued below it, white
    letters cut out of it; (mask, the drawn box, the rectangle the box and label close together)."""
    mask = np.zeros((200, 200), np.uint8)
    x1, y1, x2, y2 = 40, 30, 40 + width, 110
    cv2.rectangle(mask, (x1, y1), (x2, y2), 1, thick)
    half = thick // 2
    top, bottom = y2 + half + 1, y2 + half + 1 + label_h
    cv2.rectangle(mask, (x1 - half, top), (x2 + half, bottom), 1, -1)
    cv2.putText(mask, "11", (x1 + 4, bottom - 5), cv2.FONT_HERSHEY_SIMPLEX, 0.6, 0, 2)
    return mask > 0, [float(x1), float(y1), float(x2), float(y2)], [float(x1), float(y1), float(x2), float(bottom)]


def test_the_bottom_moves_up_to_the_line_the_label_is_glued_to():
    mask, box, closed = _box_with_label_below(36, 24)
    cut = off_label_below(closed, 3.0, mask)
    assert cut[:3] == closed[:3] and abs(cut[3] - box[3]) <= 1.5


def test_a_box_with_nothing_glued_below_and_a_label_reaching_both_lines_stay_whole():
    mask, box, _ = _box_with_label_below(36, 24)
    assert off_label_below(box, 3.0, mask) == box              # its bottom line alone: a band one line tall
    inside = np.zeros((200, 200), bool)
    x1, y1, x2, y2 = 40, 30, 76, 62                             # a filled label inside the box, as tall as it
    inside[y1 - 1:y2 + 2, x1 - 1:x2 + 2] = True
    inside[y1 + 6:y2 - 4, x1 + 8:x1 + 12] = False              # a letter's hole
    assert off_label_below([40.0, 30.0, 76.0, 62.0], 3.0, inside) == [40.0, 30.0, 76.0, 62.0]


def test_upside_down_the_top_moves_down_to_the_line_the_label_is_glued_to():
    mask, box, closed = _box_with_label_below(36, 24)
    h = mask.shape[0] - 1
    flipped = [closed[0], h - closed[3], closed[2], h - closed[1]]
    cut = off_label_above(flipped, 3.0, mask[::-1])
    assert cut[0] == flipped[0] and cut[2:] == flipped[2:] and abs(cut[1] - (h - box[3])) <= 1.5


def test_another_boxs_inside_along_the_bottom_is_no_label():
    # a second box as wide as the first drawn across its bottom, its top line 20 px above the first's bottom and its
    # filled label inside its top-left corner: the band between the lines holds that box's inside, a gap wider
    # than half the band is tall (no letter's counter is)
    mask = np.zeros((200, 200), np.uint8)
    cv2.rectangle(mask, (40, 30), (120, 130), 1, 3)
    cv2.rectangle(mask, (40, 110), (120, 150), 1, 3)
    cv2.rectangle(mask, (42, 112), (70, 127), 1, -1)
    box = [40.0, 30.0, 120.0, 130.0]
    assert off_label_below(box, 3.0, mask > 0) == box
