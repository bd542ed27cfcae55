"""Stroke labels cut by an outline crossing their letters, read past it (tools.regions.labels.across_right_side).
Ground truth: the boxes benchmarks.synth.overlay outlined on real aerial images, in layouts where the reader lost a region on the
overlay benchmark's dev draws (their styles)."""

from __future__ import annotations

import cv2

from overlay_drawings import missed_ids, drawn_overlay, reads_exactly, region_style
from tools.common import load_image


def test_a_label_whose_last_digit_lies_under_another_boxs_left_side_is_read_whole(shared_data):
    # box 17's centred "17" ends under box 7's left side: erasing that side took the "7", and the label read "1"
    photo = load_image(shared_data / "dji_survey_dev" / "images" / "DJI_0019.JPG")
    img = cv2.resize(photo, (1920, 1080), interpolation=cv2.INTER_AREA)
    style = region_style((255, 0, 255), 5, "inside_center", "{id}", 0.9160341280828077, "dejavu_sans", False)
    layout = [(17, [1029.0, 633.0, 1546.0, 714.0]), (20, [1036.0, 737.0, 1369.0, 920.0]),
              (7, [1296.0, 624.0, 1717.0, 937.0]), (6, [1031.0, 542.0, 1584.0, 632.0])]
    assert 17 not in missed_ids(img, style, layout, 63)


def test_a_label_drawn_across_its_boxs_right_side_takes_in_its_number_past_the_side(shared_data):
    # "Region 20" left of a box at the image's left edge is drawn inside it instead: "Regi" ends at the box's right
    # side and "on 20" lies past it; the label read "Regi01"
    img = load_image(shared_data / "open3d-vqa" / "images" / "rgb_9.png")
    style = region_style((128, 0, 255), 2, "outside_left", "Region {id}", 0.6451997851666503, "dejavu_sans", False)
    layout = [(20, [6.0, 75.0, 67.0, 138.0]), (7, [327.0, 98.0, 415.0, 203.0])]
    assert missed_ids(img, style, layout, 60) == []


def test_a_number_glued_to_its_boxs_right_side_is_read_a_word_gap_past_region(shared_data):
    # "Region 1" inside its box's top-left corner: the "1"'s foot touches the box's right side, so erasing the side
    # took the "1" and the label ended at "Region", a word gap before the side
    img = load_image(shared_data / "hit_uav_thermal" / "images" / "0_80_50_0_06967.jpg")
    box = [440.0, 331.0, 555.0, 410.0]
    layout = [(2, [191.0, 414.0, 249.0, 478.0], region_style((255, 0, 0), 2, "above", "{id}", 0.6537439944494574,
                                                      "hershey_duplex", False)),
              (1, box, region_style((255, 0, 0), 3, "inside_top_left", "Region {id}", 0.8637962350111307, "dejavu_sans",
                              False))]
    assert reads_exactly(drawn_overlay(img, layout, 93), 1, box)
