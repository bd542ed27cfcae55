"""A stroke label's letter taken for a small box (tools.regions.places.letter_boxes). Ground truth: the boxes
benchmarks.synth.overlay outlined on real aerial images, in layouts where the reader lost a region on the overlay benchmark's
dev draws (their styles)."""

from __future__ import annotations

import numpy as np

from overlay_drawings import missed_ids, drawn_overlay, reads_exactly, region_style, survey_1080p
from tools.common import load_image
from tools.regions.pipeline import Region
import tools.regions.places as places
from tools.regions.places import letter_boxes


def test_a_stroke_zero_above_its_box_names_the_box(shared_data):
    # a thin "0" drawn above its box closes a small upright rectangle; its strokes were erased as that rectangle's
    # outline, and the rectangle took the label read there
    img = load_image(shared_data / "deepforest_neon" / "OSBS_029.png")
    style = region_style((255, 255, 0), 5, "above", "{id}", 1.0289, "hershey_simplex", False)
    layout = [(10, [19.0, 128.0, 52.0, 159.0]), (20, [70.0, 336.0, 151.0, 389.0]), (17, [165.0, 12.0, 207.0, 128.0]),
              (0, [98.0, 59.0, 216.0, 94.0]), (1, [113.0, 271.0, 226.0, 342.0])]
    assert missed_ids(img, style, layout, 95) == []


def test_a_letter_box_names_its_host_unless_its_label_is_not_on_its_text_line(monkeypatch):
    # every picture read is a sure "7" (so the test does not depend on the recognizer); the small box sits where a
    # label left of the larger unlabeled box goes
    monkeypatch.setattr(places, "read_pictures", lambda rgb, blobs: [(7, "7", 0.99)] * len(blobs))
    image = np.zeros((300, 300, 3), np.uint8)

    def regions(label_box):
        small = Region(-1 if label_box is None else 10, [19.0, 128.0, 52.0, 159.0], "", 0.99, True, label_box)
        return [small, Region(-1, [60.0, 125.0, 200.0, 220.0], "", 0.0)]

    lone = letter_boxes(image, regions(None), None, 3.0, 0.3)               # a letter with no label of its own
    assert [(r.id, r.bbox) for r in lone] == [(7, [60.0, 125.0, 200.0, 220.0])]
    above = letter_boxes(image, regions([25, 89, 61, 116]), None, 3.0, 0.3)   # its label above it: a box
    assert [r.id for r in above] == [10, -1]


def test_the_zero_of_region_0_a_word_space_after_region_is_a_letter_not_a_box(shared_data):
    # the "0" of "Region 0" below box 0 closes a 12 x 17 px rectangle 18 px (a Hershey word space) past "Region":
    # taken for a box, it took the label, and box 0 read the rest as "Region 10" (dev seed 21, overlay 45)
    img = load_image(shared_data / "open3d-vqa" / "images" / "rgb_4.png")
    style = region_style((0, 255, 255), 4, "below", "Region {id}", 0.9853615567411221, "hershey_duplex", False)
    layout = [(18, [383.0, 11.0, 426.0, 51.0]), (0, [220.0, 301.0, 274.0, 345.0]), (3, [530.0, 230.0, 611.0, 281.0])]
    assert missed_ids(img, style, layout, 75) == []


def test_a_bold_label_whose_letters_closed_a_box_names_the_box_beside_it(shared_data):
    # "17" in bold strokes left of its box: its letters closed a small "box" inside the label, and the text
    # detector, run around the real box, missed the line at its crop's edge; the line found around the letter
    # "box" names the real one
    img = load_image(shared_data / "hit_uav_thermal" / "images" / "0_100_60_0_08194.jpg")
    layout = [(7, [270.0, 332.0, 425.0, 469.0], region_style((255, 0, 0), 5, "inside_top_left", "{id}", 0.6031206665831784,
                                                       "dejavu_sans", True)),
              (17, [216.0, 155.0, 275.0, 294.0], region_style((128, 0, 255), 5, "outside_left", "{id}", 0.932938817574238,
                                                        "dejavu_sans_bold", False)),
              (5, [27.0, 100.0, 193.0, 220.0], region_style((255, 128, 0), 5, "inside_center", "Region {id}",
                                                      0.5886715549360756, "dejavu_sans", True, (0, 0, 0))),
              (3, [331.0, 137.0, 511.0, 180.0], region_style((0, 255, 0), 2, "below", "{id}", 0.8074496078928524,
                                                       "dejavu_sans", False))]
    assert reads_exactly(drawn_overlay(img, layout, 91), 17, [216.0, 155.0, 275.0, 294.0])


def test_a_letter_box_just_after_a_read_label_is_its_last_digit(shared_data):
    # the "0" of "Region 20" closed a small upright rectangle: the label read "Region 2" and the "0" stayed a box
    img = survey_1080p(shared_data, "DJI_0020.JPG")
    style = region_style((255, 0, 255), 2, "inside_center", "Region {id}", 1.0095368496838297, "hershey_simplex", False)
    layout = [(10, [905.0, 455.0, 1126.0, 777.0]), (4, [1056.0, 487.0, 1551.0, 609.0]),
              (8, [440.0, 748.0, 755.0, 1019.0]), (20, [957.0, 581.0, 1307.0, 904.0]),
              (0, [1439.0, 426.0, 1826.0, 637.0]), (15, [1494.0, 554.0, 1766.0, 692.0]),
              (6, [57.0, 416.0, 512.0, 501.0])]
    assert 20 not in missed_ids(img, style, layout, 86)


def test_a_lone_stroke_zero_outside_its_box_names_it_before_a_window_at_the_siblings_place_is_read(shared_data):
    # "0" (its only letter) above box 0 closes a small rectangle that takes no label, and box 0 is left unlabeled;
    # the window at the place the other labels ("14", "15", "19") take, sized from them, cut the "0" and read "9"
    # surely, which took the box before the letter was read where it is drawn
    img = load_image(shared_data / "hit_uav_thermal" / "images" / "1_100_60_0_05188.jpg")
    style = region_style((255, 0, 255), 4, "above", "{id}", 1.0423182681360752, "hershey_duplex", False)
    layout = [(14, [442.0, 116.0, 619.0, 160.0]), (15, [147.0, 267.0, 189.0, 337.0]),
              (0, [451.0, 421.0, 553.0, 458.0]), (19, [319.0, 230.0, 377.0, 313.0])]
    assert 0 not in missed_ids(img, style, layout, 78)
