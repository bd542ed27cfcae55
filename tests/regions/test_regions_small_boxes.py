"""Small boxes next to labels, and labels whose edges close rectangles:

- a small box drawn just right of its label is no "0" of that label when it is taller than the label's letters
  (tools.regions.labels.RECT_GLYPH_HEIGHT);
- a found box where another box's label was read is that label (tools.regions.places.labels_only);
- a small box with its own filled label centred in it, glued below a larger box, is a box, not that box's label
  (tools.regions.prune.LABEL_SPAN).

Ground truth is the geometry we draw (benchmarks.synth.overlay via the region benchmark's generator, on real aerial images of
../shared/data); never the output of the code under test.
"""

from __future__ import annotations

import numpy as np
import pytest

import tools.regions.pipeline as regions_module
import tools.regions.detect as detect_module
import tools.regions.labels as labels_module
import tools.regions.prune as prune_module
from benchmarks.region_overlays import nth_overlay, recovered
from tools.regions.pipeline import Region, read_regions
from tools.regions.labels import GLYPH_HEIGHT, RECT_GLYPH_HEIGHT, next_letter
from tools.regions.ocr import LabelBlob
from tools.regions.places import labels_only
from tools.regions.prune import drop_glued_labels


def _hits(inst: np.ndarray, regions, ids: list[int]) -> int:
    found = read_regions(inst)
    return sum(recovered(found, i, box) for i, box in regions if i in ids)


@pytest.mark.parametrize("seed,k,ids", [(702, 12, [12]), (702, 41, [13]), (708, 95, [9, 13])])
def test_a_small_box_just_right_of_its_label_is_no_letter_of_it(seed, k, ids, monkeypatch):
    # benchmark overlays: a 20-34 px box a few px right of "Region 12" (702:12), of "13" (702:41), of bold
    # "Region 9" and "Region 13" (708:95) closes a rectangle where the label's next letter would go
    inst, regions = nth_overlay(seed, k)
    assert _hits(inst, regions, ids) == len(ids)
    monkeypatch.setattr(labels_module, "RECT_GLYPH_HEIGHT", GLYPH_HEIGHT)   # as loose as a letter's height
    assert _hits(inst, regions, ids) < len(ids)


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


def test_a_small_box_glued_below_another_with_its_filled_label_centred_in_it_is_a_box(monkeypatch):
    # benchmark overlay 710:45: box 2 (62 x 40 px) drawn edge to edge below box 1, its filled "2" centred in it: it
    # sits where box 1's label would go and has something drawn inside, as a label glued to box 1 would
    inst, regions = nth_overlay(710, 45)
    assert _hits(inst, regions, [2]) == 1
    monkeypatch.setattr(prune_module, "LABEL_SPAN", 0.0)   # any label background inside made it a label
    assert _hits(inst, regions, [2]) == 0


def test_a_rectangle_glued_below_a_box_is_a_label_when_its_background_fills_it():
    box, below = [100.0, 100.0, 300.0, 250.0], [100.0, 250.0, 162.0, 290.0]   # sharing box's bottom line
    mask, filled = np.zeros((480, 640), bool), np.zeros((480, 640), np.uint8)
    filled[254:287, 121:142] = 1                                   # a filled label a third as wide, centred
    assert [b for b, _ in drop_glued_labels([(box, 3.0), (below, 3.0)], (640, 480), mask, filled)] == [box, below]
    filled[254:287, 104:159] = 1                                   # a label background filling the rectangle
    assert [b for b, _ in drop_glued_labels([(box, 3.0), (below, 3.0)], (640, 480), mask, filled)] == [box]


def test_a_label_centred_across_both_sides_of_a_narrow_box_is_read_whole(monkeypatch):
    # benchmark overlay 703:112: "Region 16" centred in a 46 px wide box runs across both its sides; read past the
    # right side only, "gion 16" read "916". The text detector's two lines on the row ("Regi", "n 16"),
    # read as one, read it too: each path alone reads it, neither misses it
    inst, regions = nth_overlay(703, 112)
    assert _hits(inst, regions, [16]) == 1
    monkeypatch.setattr(labels_module, "centred_across", lambda blob, rect, past: past)
    assert _hits(inst, regions, [16]) == 1
    monkeypatch.setattr(detect_module, "_with_joined", lambda lines: lines)
    assert _hits(inst, regions, [16]) == 0


def test_centred_across_widens_only_a_label_in_the_middle_rows_that_starts_at_the_left_side():
    rect = ([268.0, 63.0, 314.0, 172.0], 4.0)
    past = LabelBlob((274, 114, 323, 126), False)            # widened a digit past the right side
    middle = LabelBlob((274, 114, 306, 126), False)          # the letters left between the sides, mid-height
    assert labels_module.centred_across(middle, rect, past).box == (259, 114, 323, 126)   # 268 + 314 - 323
    top_left = LabelBlob((274, 68, 306, 80), False)          # the same letters inside the top-left corner
    assert labels_module.centred_across(top_left, rect, past) is past
    inner = LabelBlob((290, 114, 306, 126), False)           # starting well inside the box: not across its left
    assert labels_module.centred_across(inner, rect, past) is past
