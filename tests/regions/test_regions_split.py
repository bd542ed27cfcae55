"""Two labels drawn side by side, read as one number, and a letter left beside a label (tools.regions.split).
Ground truth: the boxes benchmarks.synth.overlay outlined on real aerial images, in layouts where the reader lost a region on the
overlay benchmark's dev draws (their styles)."""

from __future__ import annotations

import numpy as np
import pytest

from overlay_drawings import BLACK, missed_ids, drawn_overlay, reads_exactly, region_style, survey_1080p
from tools.common import load_image
from tools.regions.ocr import LabelBlob
from tools.regions.split import _halves, _joined, own_letters_only, shared_letters


def test_a_label_just_left_of_the_next_boxs_label_is_read_apart(shared_data):
    # "19" above its box ends 20 px before "17" above the next box: both labels' letters formed one blob, "1917"
    img = load_image(shared_data / "open3d-vqa" / "images" / "rgb_5.png")
    style = region_style((255, 128, 0), 3, "above", "{id}", 1.0719169804070168, "dejavu_sans", False)
    layout = [(12, [440.0, 203.0, 598.0, 235.0]), (9, [495.0, 154.0, 621.0, 257.0]),
              (15, [125.0, 269.0, 237.0, 367.0]), (19, [375.0, 277.0, 493.0, 314.0]), (1, [139.0, 8.0, 233.0, 140.0]),
              (17, [438.0, 273.0, 594.0, 396.0])]
    assert missed_ids(img, style, layout, 67) == []


def test_labels_below_two_neighbouring_boxes_are_read_apart(shared_data):
    # "20" below one box touches "8" below the box beside it (read "208")
    img = load_image(shared_data / "hit_uav_thermal" / "images" / "1_60_30_0_00011.jpg")
    style = region_style((0, 255, 0), 4, "below", "{id}", 0.6313456869656989, "hershey_duplex", False)
    layout = [(0, [406.0, 370.0, 495.0, 466.0]), (5, [153.0, 282.0, 289.0, 398.0]), (15, [446.0, 323.0, 615.0, 396.0]),
              (8, [54.0, 250.0, 227.0, 363.0]), (20, [21.0, 283.0, 168.0, 367.0]), (10, [323.0, 88.0, 403.0, 201.0]),
              (3, [398.0, 140.0, 531.0, 249.0]), (2, [484.0, 276.0, 585.0, 374.0])]
    assert 20 not in missed_ids(img, style, layout, 81)


def test_a_label_whose_letters_touch_a_lower_boxs_top_line_is_read_apart_from_its_neighbour(shared_data):
    # "4" above its box, 4 px lower than "15" above the box beside it, touches that box's top line, which takes its
    # lowest rows: the "4" part measured 10 px high, the "15" 14 px, and was placed as a label that short (read "154")
    img = load_image(shared_data / "hit_uav_thermal" / "images" / "1_80_50_0_01223.jpg")
    style = region_style((0, 0, 255), 2, "above", "{id}", 0.7100395879227439, "dejavu_sans_bold", False)
    layout = [(17, [532, 341, 606, 409]), (15, [310, 229, 452, 289]), (4, [343, 233, 517, 321]),
              (7, [374, 114, 564, 222]), (6, [191, 129, 312, 260]), (12, [63, 145, 192, 245]),
              (9, [140, 448, 204, 486]), (5, [330, 131, 468, 178])]
    assert 15 not in missed_ids(img, style, layout, 74)


def test_filled_labels_glued_across_a_gap_are_read_apart(shared_data):
    # "7" inside its box's top-left corner, "19" inside the next box's, their backgrounds joined over the top
    # outline: the blob's box cuts the letters' tops, whose holes are enclosed only by the background above it
    img = load_image(shared_data / "open3d-vqa" / "images" / "rgb_11.png")
    style = region_style((0, 200, 100), 2, "inside_top_left", "{id}", 0.8595244503156682, "hershey_duplex", True)
    layout = [(19, [296.0, 211.0, 478.0, 278.0]), (18, [7.0, 90.0, 142.0, 235.0]), (8, [462.0, 391.0, 538.0, 462.0]),
              (7, [263.0, 211.0, 367.0, 353.0]), (16, [275.0, 276.0, 379.0, 366.0]), (0, [100.0, 21.0, 242.0, 127.0])]
    assert missed_ids(img, style, layout, 76) == []


def test_a_label_read_over_the_next_boxs_first_letter_is_read_apart(shared_data):
    # "16" inside its box's top-left corner touches "13" inside the next box's, below and right of it: read "163"
    img = load_image(shared_data / "hit_uav_thermal" / "images" / "1_130_30_0_03841.jpg")
    style = region_style((255, 0, 128), 4, "inside_top_left", "{id}", 0.8801802668309804, "dejavu_sans_bold", False)
    layout = [(2, [235.0, 245.0, 415.0, 370.0]), (10, [490.0, 220.0, 604.0, 306.0]), (13, [128.0, 400.0, 233.0, 437.0]),
              (5, [516.0, 403.0, 564.0, 459.0]), (4, [116.0, 218.0, 225.0, 331.0]), (0, [420.0, 83.0, 531.0, 202.0]),
              (8, [180.0, 378.0, 364.0, 505.0]), (16, [84.0, 388.0, 182.0, 506.0]), (19, [352.0, 27.0, 540.0, 180.0]),
              (17, [283.0, 296.0, 368.0, 329.0])]
    assert missed_ids(img, style, layout, 65) == []


def test_two_filled_labels_glued_into_one_dense_blob_are_read_apart(shared_data):
    # "5" left of its box ends where "14" left of the next box begins, and the first box's side runs through the
    # join: the blob passed for stroke text, whose strokes leave no gap ("514")
    img = survey_1080p(shared_data, "DJI_0019.JPG")
    style = region_style((0, 0, 255), 2, "outside_left", "{id}", 0.9116310996546703, "hershey_simplex", True)
    layout = [(14, [1470.0, 805.0, 1642.0, 1062.0]), (5, [1427.0, 808.0, 1895.0, 1054.0]),
              (9, [731.0, 310.0, 1144.0, 503.0])]
    assert missed_ids(img, style, layout, 69) == []


def test_two_labels_read_as_the_last_number_of_both_are_read_apart(shared_data):
    # "0" left of its box, "20" left of the next box over it: the blob of both was read "0 20", as 20
    img = load_image(shared_data / "hit_uav_thermal" / "images" / "0_80_50_0_06967.jpg")
    style = region_style((255, 128, 0), 2, "outside_left", "{id}", 1.0251460072717102, "dejavu_sans_bold", False)
    layout = [(0, [27.0, 179.0, 68.0, 248.0]), (14, [218.0, 28.0, 246.0, 63.0]), (18, [88.0, 431.0, 138.0, 510.0]),
              (20, [87.0, 168.0, 141.0, 243.0]), (17, [604.0, 371.0, 639.0, 456.0]), (1, [54.0, 261.0, 101.0, 322.0]),
              (15, [526.0, 98.0, 585.0, 182.0]), (3, [351.0, 131.0, 403.0, 208.0])]
    assert missed_ids(img, style, layout, 74) == []


def test_a_bold_zero_that_looks_filled_a_word_gap_after_region_is_its_number(shared_data):
    # "Region 0" in bold strokes inside its box's top-left corner (no room above it): the "0" looked like a small
    # filled label, and "Region" alone was read "Region 10" by the mask and no number off the picture
    img = load_image(shared_data / "hit_uav_thermal" / "images" / "1_60_30_0_00011.jpg")
    style = region_style((128, 0, 255), 2, "above", "Region {id}", 0.6559724345927919, "dejavu_sans_bold", False)
    layout = [(19, [353.0, 61.0, 485.0, 118.0]), (4, [5.0, 205.0, 147.0, 316.0]), (15, [345.0, 342.0, 495.0, 466.0]),
              (0, [202.0, 14.0, 356.0, 158.0]), (2, [26.0, 50.0, 92.0, 116.0]), (17, [150.0, 333.0, 268.0, 395.0])]
    assert 0 not in missed_ids(img, style, layout, 73)


def test_joined_reads_may_share_letters_where_they_meet():
    assert _joined("16", "13", "1613") and _joined("16", "13", "163") and _joined("16", "13", "113")
    assert not _joined("16", "13", "13") and not _joined("16", "13", "1316") and not _joined("7", "19", "79")


def test_halves_cut_stroke_letters_at_gaps_and_backgrounds_in_their_middle():
    text = np.zeros((20, 26), bool)
    text[:, 0:6] = text[:, 8:14] = text[:, 20:26] = True   # 20 px high letters, 2 and 6 px apart (least: 4 px)
    assert _halves(LabelBlob((100, 50, 126, 70), False), text) == [((100, 50, 114, 70), (120, 50, 126, 70))]
    assert _halves(LabelBlob((100, 50, 126, 70), True), text) == [((100, 50, 117, 70), (117, 50, 126, 70))]


def test_a_one_left_beside_a_bold_eight_glued_to_the_box_is_read_with_it(shared_data):
    # "18" left of its box: the "8", touching the box's left side, looked like a filled label with two holes and
    # was read alone ("8"); the "1" beside it stayed a lone stroke blob that no box took
    img = load_image(shared_data / "open3d-vqa" / "images" / "rgb_3.png")
    box = [196.0, 105.0, 352.0, 200.0]
    layout = [(7, [358.0, 16.0, 546.0, 67.0],
               region_style((0, 255, 255), 4, "inside_top_left", "{id}", 0.8906361679597193, "dejavu_sans", False)),
              (18, box, region_style((255, 0, 0), 5, "outside_left", "{id}", 0.9211574147849229, "dejavu_sans", False)),
              (19, [192.0, 412.0, 303.0, 475.0], region_style((0, 255, 255), 3, "outside_left", "Region {id}",
                                                       0.6923454458314615, "dejavu_sans_bold", True, BLACK))]
    assert reads_exactly(drawn_overlay(img, layout, 83), 18, box)


def test_a_label_read_past_the_next_boxs_left_side_keeps_its_own_letters(shared_data):
    # "7" ends a digit before box 12's left side, so it was read on past that side, where "12" sits inside box 12:
    # read "712"; that widening takes in another box's label, so the "7" is read alone
    img = load_image(shared_data / "hit_uav_thermal" / "images" / "0_80_50_0_06967.jpg")
    style = region_style((255, 0, 0), 3, "inside_top_left", "{id}", 0.5572807497434569, "hershey_duplex", False)
    layout = [(12, [190.0, 14.0, 351.0, 135.0]), (1, [102.0, 330.0, 177.0, 405.0]), (7, [164.0, 18.0, 293.0, 102.0]),
              (3, [329.0, 41.0, 465.0, 96.0])]
    assert missed_ids(img, style, layout, 92) == []


def test_own_letters_only_reverts_a_widening_over_another_label():
    from tools.regions.pipeline import Region
    seven = Region(712, [164.0, 18.0, 293.0, 102.0], "712", 0.99, False, [169, 23, 180, 37])
    twelve = Region(12, [190.0, 14.0, 351.0, 135.0], "12", 0.98, False, [196, 23, 218, 34])
    past = {(169, 23, 180, 37): ((169, 23, 222, 37), (7, "7", 0.9))}
    out = own_letters_only([seven, twelve], past, None)
    assert [(r.id, r.label_box) for r in out] == [(7, [169, 23, 180, 37]), (12, [196, 23, 218, 34])]
    # the widening over nothing but the picture keeps the widened read
    alone = Region(17, [164.0, 18.0, 293.0, 102.0], "17", 0.99, False, [169, 23, 180, 37])
    assert own_letters_only([alone], {(169, 23, 180, 37): ((169, 23, 200, 37), (1, "1", 0.9))}, None)[0].id == 17


def test_a_label_read_over_the_next_boxs_label_keeps_the_rest(shared_data):
    # "1" below box 1 touches "8" below box 8: box 1 read "18" over the "8" that box 8 read, and took id 18 from
    # box 18; the "8" is box 8's, so box 1 keeps "1" and box 18 its own id
    img = load_image(shared_data / "hit_uav_thermal" / "images" / "1_60_90_0_07546.jpg")
    style = region_style((128, 0, 255), 4, "below", "{id}", 0.6605504599170107, "dejavu_sans", False)
    layout = [(1, [114.0, 86.0, 141.0, 147.0]), (13, [449.0, 314.0, 476.0, 376.0]), (18, [345.0, 16.0, 395.0, 84.0]),
              (11, [20.0, 62.0, 48.0, 120.0]), (5, [358.0, 223.0, 398.0, 293.0]), (15, [284.0, 218.0, 341.0, 283.0]),
              (0, [209.0, 107.0, 249.0, 175.0]), (9, [313.0, 283.0, 336.0, 339.0]), (19, [182.0, 47.0, 241.0, 93.0]),
              (8, [134.0, 92.0, 163.0, 148.0])]
    assert missed_ids(img, style, layout, 80) == []


def test_a_label_read_over_a_third_of_a_lower_neighbours_label_keeps_the_rest(shared_data):
    # "13" below its box, "17" below a box ending 11 px higher: box 13 read "1317" over a third of "17"
    img = load_image(shared_data / "hit_uav_thermal" / "images" / "0_60_90_0_01830.jpg")
    style = region_style((128, 0, 255), 2, "below", "{id}", 1.0177323052989256, "dejavu_sans_bold", False)
    layout = [(18, [74.0, 99.0, 224.0, 216.0]), (0, [32.0, 379.0, 183.0, 506.0]), (10, [417.0, 365.0, 475.0, 506.0]),
              (19, [186.0, 70.0, 265.0, 168.0]), (14, [185.0, 356.0, 339.0, 478.0]), (17, [557.0, 345.0, 623.0, 382.0]),
              (13, [495.0, 321.0, 635.0, 393.0]), (1, [387.0, 373.0, 497.0, 432.0]), (7, [480.0, 269.0, 607.0, 329.0])]
    assert 13 not in missed_ids(img, style, layout, 60)


@pytest.mark.xfail(strict=True, reason="the fine-tuned recognizer: box 12's label is now read in a window as "
                   "wide as box 9's read '912', so shared_letters finds no narrower label in it (left open)")
def test_a_label_read_over_the_next_boxs_label_and_a_line_keeps_the_rest(shared_data):
    # "9" below box 9 touches "12" below box 12, whose bottom line runs on right of it: box 9 read "912" over a box
    # whose centre lies right of the "12", so the "12" was looked for at the read's start only
    img = load_image(shared_data / "open3d-vqa" / "images" / "rgb_10.png")
    style = region_style((0, 255, 0), 3, "below", "{id}", 0.7582336636506232, "hershey_simplex", True)
    layout = [(13, [452, 365, 540, 475]), (5, [222, 60, 336, 97]), (0, [190, 76, 331, 111]), (2, [53, 231, 146, 358]),
              (9, [470, 140, 627, 256]), (15, [153, 255, 344, 378]), (1, [254, 212, 378, 307]),
              (12, [494, 225, 631, 265])]
    assert 9 not in missed_ids(img, style, layout, 72)


def test_shared_letters_keeps_the_rest_of_a_number_read_over_a_narrower_label():
    from tools.regions.pipeline import Region
    one = Region(18, [114.0, 86.0, 142.0, 147.0], "18", 0.99, True, [113, 151, 148, 169])
    eight = Region(8, [134.0, 92.0, 163.0, 148.0], "8", 1.0, False, [132, 150, 159, 164])
    shared_letters([one, eight], None)
    assert (one.id, eight.id) == (1, 8)
    # a label as wide as the reader's, or wider, is no part of it (a line piece read as "1" over "13")
    wide = Region(1, [197.0, 294.0, 283.0, 330.0], "1", 0.99, False, [158, 296, 322, 328])
    thirteen = Region(13, [197.0, 294.0, 361.0, 342.0], "13", 1.0, True, [208, 301, 351, 335])
    shared_letters([wide, thirteen], None)
    assert thirteen.id == 13
