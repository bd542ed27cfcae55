"""Small boxes next to labels, and labels whose edges close rectangles:

- a small box drawn just right of its label is no "0" of that label when it is taller than the label's letters
  (tools.regions.labels.RECT_GLYPH_HEIGHT);
- a found box where another box's label was read is that label (tools.regions.places.labels_only);
- a small box with its own filled label centred in it, glued below a larger box, is a box, not that box's label
  (tools.regions.prune.LABEL_SPAN).

Ground truth is the geometry we draw (benchmarks.synth.overlay, on real aerial images of
../shared/data); never the output of the code under test.
"""

from __future__ import annotations

import numpy as np
import pytest

import tools.regions.pipeline as regions_module
import tools.regions.detect as detect_module
import tools.regions.labels as labels_module
import tools.regions.prune as prune_module
from benchmarks.region_overlays import recovered
from overlay_drawings import drawn_overlay, missed_ids, region_style
from tools.common import load_image
from tools.regions.pipeline import Region, read_regions
from tools.regions.labels import GLYPH_HEIGHT, RECT_GLYPH_HEIGHT, next_letter
from tools.regions.ocr import LabelBlob
from tools.regions.places import labels_only
from tools.regions.prune import drop_glued_labels


def _hits(inst: np.ndarray, regions, ids: list[int]) -> int:
    found = read_regions(inst)
    return sum(recovered(found, i, box) for i, box in regions if i in ids)


# a small box a few px right of its stroke label, where the label's next letter would go: "Region 12" beside a
# 26 x 39 px box, "13" beside a 20 x 26 px one, "Region 9" and "Region 13" beside 28 x 33 and 28 x 35 px ones
GLYPH_CASES = [
    (("deepforest_neon", "OSBS_029.png"), 62, [12], [(12, [263.0, 243.0, 289.0, 282.0])],
     region_style((255, 0, 0), 3, "outside_left", "Region {id}", 1.065175088293763, "hershey_duplex", False)),
    (("deepforest_neon", "2019_YELL_2_541000_4977000_image_crop.png"), 81, [13], [(13, [248.0, 690.0, 268.0, 716.0])],
     region_style((0, 255, 255), 4, "outside_left", "{id}", 0.8977818456578593, "hershey_simplex", False)),
    (("deepforest_neon", "2019_YELL_2_541000_4977000_image_crop.png"), 89, [9, 13],
     [(9, [452.0, 228.0, 480.0, 261.0]), (10, [635.0, 126.0, 660.0, 161.0]), (18, [145.0, 889.0, 168.0, 917.0]),
      (16, [849.0, 597.0, 898.0, 644.0]), (13, [612.0, 69.0, 640.0, 104.0]), (8, [279.0, 207.0, 325.0, 249.0]),
      (7, [705.0, 23.0, 749.0, 71.0]), (5, [888.0, 96.0, 929.0, 124.0])],
     region_style((255, 255, 0), 2, "outside_left", "Region {id}", 0.7815544564438955, "hershey_duplex", False)),
]


@pytest.mark.parametrize("image,quality,ids,layout,style", GLYPH_CASES)
def test_a_small_box_just_right_of_its_label_is_no_letter_of_it(shared_data, image, quality, ids, layout, style,
                                                                monkeypatch):
    img = load_image(shared_data.joinpath(*image))
    assert [i for i in missed_ids(img, style, layout, quality) if i in ids] == []
    monkeypatch.setattr(labels_module, "RECT_GLYPH_HEIGHT", GLYPH_HEIGHT)   # as loose as a letter's height
    assert [i for i in missed_ids(img, style, layout, quality) if i in ids] != []


def test_a_rectangle_beside_a_word_is_its_next_letter_only_when_no_taller_than_its_letters():
    word = [100, 50, 210, 76]          # "Region 9": capitals 20 px, the "g" 6 px lower
    zero = (214, 51, 228, 74)          # a "0" closed as a rectangle, its outer edges: as tall as the capitals
    box = (214, 48, 245, 85)           # a 28 x 33 px box (3 px lines) drawn 4 px after the label
    assert next_letter(zero, [word], 3.0, heights=RECT_GLYPH_HEIGHT)
    assert not next_letter(box, [word], 3.0, heights=RECT_GLYPH_HEIGHT)
    assert next_letter(box, [word], 3.0, heights=GLYPH_HEIGHT)   # the looser bound took the box for a letter



def test_labels_only_drops_unlabeled_boxes_on_a_read_label():
    labelled = Region(18, [37.0, 296.0, 139.0, 394.0], "Region 18", 1.0, True, [26, 327, 158, 363])
    on_label = Region(-1, [21.0, 330.0, 155.0, 359.0])
    elsewhere = Region(-1, [200.0, 300.0, 330.0, 360.0])
    assert labels_only([labelled, on_label, elsewhere]) == [labelled, elsewhere]


def test_a_small_box_glued_below_another_with_its_filled_label_centred_in_it_is_a_box(shared_data, monkeypatch):
    # box 2 (62 x 40 px) drawn edge to edge below box 1, its filled "2" centred in it: it sits where box 1's label
    # would go and has something drawn inside, as a label glued to box 1 would
    img = load_image(shared_data / "open3d-vqa" / "images" / "rgb_4.png")
    style = region_style((255, 255, 0), 3, "inside_center", "{id}", 0.6924214283364816, "hershey_simplex", True, (0, 0, 0))
    layout = [(3, [13.0, 160.0, 76.0, 240.0]), (2, [187.0, 381.0, 249.0, 421.0]), (4, [130.0, 81.0, 189.0, 213.0]),
              (18, [556.0, 5.0, 635.0, 124.0]), (0, [316.0, 89.0, 480.0, 160.0]), (15, [229.0, 73.0, 310.0, 140.0]),
              (1, [210.0, 306.0, 391.0, 380.0]), (11, [479.0, 399.0, 541.0, 436.0]), (19, [484.0, 188.0, 588.0, 221.0])]
    assert 2 not in missed_ids(img, style, layout, 87)
    monkeypatch.setattr(prune_module, "LABEL_SPAN", 0.0)   # any label background inside made it a label
    assert 2 in missed_ids(img, style, layout, 87)


def test_a_rectangle_glued_below_a_box_is_a_label_when_its_background_fills_it():
    box, below = [100.0, 100.0, 300.0, 250.0], [100.0, 250.0, 162.0, 290.0]   # sharing box's bottom line
    mask, filled = np.zeros((480, 640), bool), np.zeros((480, 640), np.uint8)
    filled[254:287, 121:142] = 1                                   # a filled label a third as wide, centred
    assert [b for b, _ in drop_glued_labels([(box, 3.0), (below, 3.0)], (640, 480), mask, filled)] == [box, below]
    filled[254:287, 104:159] = 1                                   # a label background filling the rectangle
    assert [b for b, _ in drop_glued_labels([(box, 3.0), (below, 3.0)], (640, 480), mask, filled)] == [box]


def test_a_label_centred_across_both_sides_of_a_narrow_box_is_read_whole(shared_data, monkeypatch):
    # "Region 16" centred in a 46 px wide box runs across both its sides; read past the right side only, "gion 16"
    # read "916". The text detector's two lines on the row ("Regi", "n 16"), read as one, read it too: each path
    # alone reads it, neither misses it
    img = load_image(shared_data / "hit_uav_thermal" / "images" / "0_60_90_0_01830.jpg")
    style = region_style((0, 0, 255), 4, "inside_center", "Region {id}", 0.5802972418293469, "dejavu_sans", False)
    box = [268.0, 63.0, 314.0, 172.0]
    drawn = drawn_overlay(img, [(16, box, style)], 68)
    assert recovered(read_regions(drawn), 16, box)
    monkeypatch.setattr(labels_module, "centred_across", lambda blob, rect, past: past)
    assert recovered(read_regions(drawn), 16, box)
    monkeypatch.setattr(detect_module, "_with_joined", lambda lines: lines)
    assert not recovered(read_regions(drawn), 16, box)


def test_centred_across_widens_only_a_label_in_the_middle_rows_that_starts_at_the_left_side():
    rect = ([268.0, 63.0, 314.0, 172.0], 4.0)
    past = LabelBlob((274, 114, 323, 126), False)            # widened a digit past the right side
    middle = LabelBlob((274, 114, 306, 126), False)          # the letters left between the sides, mid-height
    assert labels_module.centred_across(middle, rect, past).box == (259, 114, 323, 126)   # 268 + 314 - 323
    top_left = LabelBlob((274, 68, 306, 80), False)          # the same letters inside the top-left corner
    assert labels_module.centred_across(top_left, rect, past) is past
    inner = LabelBlob((290, 114, 306, 126), False)           # starting well inside the box: not across its left
    assert labels_module.centred_across(inner, rect, past) is past
