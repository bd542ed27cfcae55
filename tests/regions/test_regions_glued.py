"""A box glued to another box's outline where a label would go, a long label background in a tight padding, a
filled label glued to its box's line, and two boxes drawn edge to edge (tools.regions.prune, tools.regions.labels,
tools.regions.lines, tools.regions.pipeline). Ground truth: the boxes benchmarks.synth.overlay outlined on real aerial images, in layouts
where the reader lost a region on the overlay benchmark's dev draws (their styles)."""

from __future__ import annotations

import cv2
import numpy as np

from overlay_drawings import WHITE, missed_ids, drawn_overlay, reads_exactly, region_style
from tools.common import load_image


def test_an_empty_box_glued_under_another_where_its_label_would_go_is_a_box(shared_data):
    # box 11's top line is box 9's bottom line, and it lies where a label drawn below box 9 would: a rectangle
    # there was taken for a label glued to box 9's outline, though nothing is drawn inside it
    img = load_image(shared_data / "open3d-vqa" / "images" / "rgb_8.png")
    style = region_style((128, 0, 255), 3, "above", "{id}", 0.64, "dejavu_sans_bold", True)
    box = [437.0, 322.0, 477.0, 374.0]
    layout = [(9, [446.0, 216.0, 562.0, 321.0], style), (11, box, style)]
    assert reads_exactly(drawn_overlay(img, layout, 85), 11, box)


def test_a_long_label_background_in_a_tight_padding_is_read_whole(shared_data):
    # "Region 20" in bold 1080p letters: its background is five times as wide as it is tall, as elongated as a
    # piece of an outline; read as a piece, only the "0"'s hole was left to read
    photo = sorted((shared_data / "dji_survey_dev" / "images").glob("*.JPG"))[0]
    img = cv2.resize(load_image(photo), (1920, 1080), interpolation=cv2.INTER_AREA)
    style = region_style((255, 0, 0), 3, "inside_center", "Region {id}", 0.968, "dejavu_sans_bold", True, WHITE)
    box = [896.0, 573.0, 1183.0, 802.0]
    layout = [(20, box, style), (2, [392.0, 184.0, 666.0, 310.0], style)]
    assert reads_exactly(drawn_overlay(img, layout, 91), 20, box)


def test_a_rectangle_where_a_label_goes_is_a_label_only_with_something_drawn_inside():
    from tools.regions.prune import drop_glued_labels

    box, glued = [100.0, 100.0, 300.0, 250.0], [100.0, 76.0, 122.0, 100.0]   # on box's top line, at its left end
    rects = [(box, 3.0), (glued, 3.0)]
    mask, filled = np.zeros((480, 640), bool), np.zeros((480, 640), np.uint8)
    assert [b for b, _ in drop_glued_labels(rects, (640, 480), mask, filled)] == [box, glued]
    filled[80:97, 104:119] = 1                                               # a label background found filled
    assert [b for b, _ in drop_glued_labels(rects, (640, 480), mask, filled)] == [box]
    filled[:] = 0
    mask[84:93, 108:111] = mask[84:93, 113:116] = True                       # letters in strokes ("11")
    assert [b for b, _ in drop_glued_labels(rects, (640, 480), mask, filled)] == [box]


def test_two_boxes_drawn_edge_to_edge_make_no_third_around_them(shared_data):
    # box 0 ends 3 px above box 17's top: their lines close a rectangle around both, which took box 17's label
    img = load_image(shared_data / "hit_uav_thermal" / "images" / "1_100_60_0_05188.jpg")
    style = region_style((255, 0, 128), 5, "below", "{id}", 0.88, "hershey_simplex", False)
    upper, lower = [531.0, 286.0, 599.0, 379.0], [525.0, 382.0, 601.0, 472.0]
    drawn = drawn_overlay(img, [(17, lower, style), (0, upper, style)], 67)
    assert reads_exactly(drawn, 17, lower) and reads_exactly(drawn, 0, upper)



def test_a_box_a_wide_label_cuts_in_two_is_kept_whole(shared_data):
    # the bold "10" is wider than its narrow box: the label's edges and the box's sides close two rectangles that
    # tile the box
    img = load_image(shared_data / "hit_uav_thermal" / "images" / "1_130_30_0_03841.jpg")
    style = region_style((128, 0, 255), 5, "inside_center", "{id}", 0.99, "dejavu_sans_bold", True)
    box = [370.0, 159.0, 410.0, 295.0]
    drawn = drawn_overlay(img, [(5, [281.0, 193.0, 406.0, 315.0], style), (10, box, style)], 69)
    assert reads_exactly(drawn, 10, box)


def test_a_filled_label_glued_below_its_box_leaves_the_bottom_line_where_it_is(shared_data):
    # "Region 10" filled and glued under the bottom line: with the letter holes counted as drawn the line and the
    # label are one solid band, and the box's bottom went to the label's bottom edge (IoU 0.84)
    img = load_image(shared_data / "hit_uav_thermal" / "images" / "1_80_50_0_01223.jpg")
    box = [502.0, 101.0, 569.0, 252.0]
    layout = [(10, box, region_style((128, 0, 255), 2, "below", "Region {id}", 0.892, "dejavu_sans", True)),
              (8, [110.0, 366.0, 156.0, 438.0], region_style((0, 0, 255), 2, "below", "{id}", 0.929, "dejavu_sans_bold",
                                                       False))]
    assert reads_exactly(drawn_overlay(img, layout, 87), 10, box)


def test_a_label_below_wider_than_its_box_with_a_deep_bottom_padding_leaves_the_line_where_it_is(shared_data):
    # "14" in Hershey under a narrow box: the label's padding below its digits is thicker than the line and the
    # padding above them, so the longest fully drawn run is the label's bottom; its rows run on past the box's side
    img = load_image(shared_data / "deepforest_neon" / "OSBS_029.png")
    style = region_style((0, 200, 100), 3, "below", "{id}", 0.994, "hershey_duplex", True)
    box = [316.0, 174.0, 346.0, 214.0]
    assert reads_exactly(drawn_overlay(img, [(3, [120.0, 153.0, 160.0, 192.0], style), (14, box, style)], 83), 14, box)


def test_the_line_of_a_band_glued_to_a_label_is_at_the_end_fully_drawn_in_its_own_colour():
    from tools.regions.lines import _band_centres

    # rows 1-20 drawn across (letter holes counted); the box's inside, its sides drawn, lies above the band
    cover = np.array([0.1] + [1.0] * 20 + [0.0])
    label_below = np.array([0.1] + [1.0] * 5 + [0.6] * 13 + [1.0] * 2 + [0.0])   # 3 px line + 2 px padding first
    assert _band_centres(cover, 1, 20, 3.0, own=label_below) == [2.0]
    label_above = np.array([0.0] + [1.0] * 2 + [0.6] * 13 + [1.0] * 5 + [0.1])   # the line at the band's end
    assert _band_centres(cover[::-1].copy(), 1, 20, 3.0, own=label_above) == [19.0]
    # rows drawn past the box's sides are the label's, whatever the runs say
    past = np.array([False] * 11 + [True] * 11)   # the bottom half of the band and the row below it
    assert _band_centres(cover, 1, 20, 3.0, own=label_above, beyond=lambda: past) == [2.0]
    assert _band_centres(cover, 1, 20, 3.0, own=label_below, beyond=lambda: past[::-1].copy()) == [19.0]


def test_a_filled_label_as_wide_as_its_box_glued_below_it_is_no_part_of_the_box(shared_data):
    # "11" below a 34 px wide box: the label runs on the box's sides, and the pass across horizontal lines closed
    # the box at the label's bottom edge (a box with nothing to read), where the upright pass had it right
    img = load_image(shared_data / "deepforest_neon" / "SOAP_061.png")
    style = region_style((0, 200, 100), 4, "below", "{id}", 0.995, "dejavu_sans_bold", True)
    assert missed_ids(img, style, [(11, [218.0, 69.0, 252.0, 164.0])], 89) == []


def test_a_box_is_no_label_under_another_when_the_strip_between_has_empty_rows(shared_data):
    # box 17's bottom line (405) lies 5 px under box 3's (400), which crosses it: the strip between the two lines was
    # taken for a label glued below a box 17 ending on box 3's line, and box 17 was cut short there; a filled label
    # is drawn on every row, this strip is not
    img = load_image(shared_data / "hit_uav_thermal" / "images" / "1_130_30_0_03841.jpg")
    style = region_style((0, 255, 0), 3, "below", "{id}", 0.606, "dejavu_sans", True)
    layout = [(1, [413.0, 314.0, 544.0, 389.0]), (10, [545.0, 271.0, 612.0, 413.0]),
              (17, [482.0, 330.0, 547.0, 405.0]), (3, [392.0, 252.0, 575.0, 400.0])]
    assert missed_ids(img, style, layout, 67) == []


def test_two_left_sides_a_few_px_apart_under_one_label_are_two_lines(shared_data):
    # box 13's left side runs 10 px left of box 15's, both 5 px wide: the closing that finds label backgrounds
    # joined them with "Region 13" above into one solid area, and the 3 px gap between the lines, enclosed by the
    # boxes' tops and bottoms, counted as its letters; a hole longer than any label is tall is no letter
    photo = sorted((shared_data / "dji_survey_dev" / "images").glob("*.JPG"))[1]
    img = cv2.resize(load_image(photo), (1920, 1080), interpolation=cv2.INTER_AREA)
    style = region_style((255, 0, 255), 5, "above", "Region {id}", 1.070298136760088, "hershey_duplex", True)
    layout = [(18, [606.0, 495.0, 1040.0, 600.0]), (7, [872.0, 662.0, 1217.0, 787.0]),
              (13, [780.0, 148.0, 1225.0, 325.0]), (15, [790.0, 62.0, 1086.0, 331.0]),
              (8, [1324.0, 392.0, 1649.0, 576.0]), (0, [1213.0, 804.0, 1430.0, 913.0])]
    assert 13 not in missed_ids(img, style, layout, 92)


def test_a_filled_label_wider_than_its_box_glued_below_it_is_cut_off_the_box(shared_data):
    # "14" below a 21 px wide box runs 12 px past its right side, its top edge on the box's bottom line: the box
    # was found down to the label's bottom edge, with no rectangle at the true bottom to prefer (dev seed 21,
    # overlay 29); no renderer puts a label in a box's bottom, so the bottom moves up to the label's top edge
    img = load_image(shared_data / "hit_uav_thermal" / "images" / "0_130_90_0_09869.jpg")
    style = region_style((255, 0, 0), 2, "below", "{id}", 0.7306392441061935, "hershey_simplex", True)
    assert missed_ids(img, style, [(1, [355.0, 181.0, 379.0, 208.0]), (14, [271.0, 189.0, 292.0, 219.0])], 93) == []


def test_a_label_background_centred_above_a_narrower_box_and_glued_to_it_is_cut_off_the_box():
    from tools.regions.places import unglued

    drawn = np.zeros((300, 400), np.uint8)
    cv2.rectangle(drawn, (180, 120), (220, 200), 1, 2)   # a narrow box, 2 px lines
    drawn[96:121, 150:251] = 1                           # a label background centred above it, on its top line
    label = [150.0, 96.0, 251.0, 121.0]
    found = [179.0, 97.0, 221.0, 201.0]                  # the box found up to the label's top edge
    # the label then sits centred above the box: by its top side, as a label at its top-left corner does
    assert unglued(found, label, 2.0, drawn > 0) == [179.0, 120.0, 221.0, 201.0]
