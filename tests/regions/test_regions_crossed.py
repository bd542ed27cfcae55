"""A label digit that a crossing line erases from the overlay-colour mask (tools.regions.ocr.settle_disagreements).
Ground truth: the boxes benchmarks.synth.overlay outlined on a real thermal frame, in a layout where the reader lost the digit on
the overlay benchmark's dev draws (its style)."""

from __future__ import annotations

import numpy as np

from overlay_drawings import missed_ids, drawn_overlay, reads_exactly, region_style
from tools.common import load_image


def test_a_digit_a_crossing_line_erased_from_the_mask_read_is_kept_from_the_picture(shared_data):
    # box 15's right side runs through the "0" of "20": the mask read (outlines erased) and the text-line engine read
    # "2", the label recognizer "20" surely; a picture read that only adds a digit after the first is not put to a
    # vote the mask's engine would settle alone
    img = load_image(shared_data / "hit_uav_thermal" / "images" / "1_80_50_0_01223.jpg")
    style = region_style((255, 128, 0), 5, "inside_top_left", "{id}", 1.0835, "hershey_duplex", False)
    box = [242.0, 130.0, 383.0, 187.0]
    drawn = drawn_overlay(img, [(20, box, style), (15, [156.0, 33.0, 275.0, 177.0], style)], 84)
    assert reads_exactly(drawn, 20, box)


def test_a_leading_one_or_a_digit_after_the_first_counts_as_added():
    from tools.regions.ocr import digit_added

    assert digit_added((2, "2", 0.9), (20, "20", 0.9)) and digit_added((13, "13", 0.9), (173, "173", 0.9))
    assert digit_added((7, "7", 0.9), (17, "17", 0.9))          # a narrow leading "1" both mask readers drop
    assert not digit_added((18, "18", 0.9), (918, "918", 0.9))     # in front: a neighbour's digit, or a line
    assert not digit_added((2, "2", 0.9), (35, "35", 0.9)) and not digit_added((2, "2", 0.9), (200, "200", 0.9))


def test_ones_whose_flags_the_next_boxs_top_side_hides_are_kept(shared_data):
    # box 16's top side runs through the flags of "11" above box 11: erased with it, the "1"s were lone bars
    # (dropped as outline pieces) until the flags drawn past the side were bridged (tools.regions.labels)
    img = load_image(shared_data / "open3d-vqa" / "images" / "rgb_4.png")
    style = region_style((0, 200, 100), 2, "above", "{id}", 0.5706848838290642, "hershey_simplex", False)
    layout = [(16, [214.0, 285.0, 406.0, 346.0]), (11, [371.0, 303.0, 449.0, 379.0]),
              (20, [442.0, 110.0, 621.0, 203.0]), (6, [44.0, 285.0, 176.0, 401.0]),
              (12, [438.0, 269.0, 602.0, 363.0])]
    assert 11 not in missed_ids(img, style, layout, 67)


def test_a_filled_labels_one_on_another_boxs_side_is_read_off_the_picture_too(shared_data):
    # the "1" of "13" (drawn inside box 13's top-left corner) lies on box 20's right side: the background, trimmed
    # off that side's band, starts past the "1", so the picture read "3" while the mask read "13"; the picture is
    # read over the letters cut at the background's edge (tools.regions.fill.with_cut_letters)
    img = load_image(shared_data / "open3d-vqa" / "images" / "rgb_8.png")
    style = region_style((255, 0, 255), 2, "inside_top_left", "{id}", 0.61290858358428, "dejavu_sans", True)
    layout = [(7, [268.0, 290.0, 381.0, 392.0]), (10, [28.0, 296.0, 120.0, 434.0]),
              (20, [220.0, 386.0, 352.0, 472.0]), (13, [345.0, 395.0, 480.0, 461.0])]
    assert 13 not in missed_ids(img, style, layout, 74)


def test_a_filled_labels_box_grows_over_letters_as_tall_as_its_own_only():
    from tools.regions.fill import with_cut_letters
    from tools.regions.ocr import LabelBlob

    mask = np.zeros((40, 60), bool)
    mask[10:30, 10:50] = True
    mask[13:27, 14:16] = False   # a "1" left of the trimmed box (x >= 18)
    mask[13:27, 22:28] = False   # a letter inside the box
    # grown LETTER_PAD px past the "1", at most FILL_PAD px past the box
    assert with_cut_letters(mask, LabelBlob((18, 10, 50, 30), True)).box == (14, 10, 50, 30)
    mask[13:19, 14:16] = True    # a gap half as tall: no letter
    assert with_cut_letters(mask, LabelBlob((18, 10, 50, 30), True)).box == (18, 10, 50, 30)
