"""A box glued to another box's outline where a label would go, and a long label background in a tight padding
(tools.regions_prune.drop_glued_labels, tools.regions_labels). Ground truth: the boxes tools.draw outlined on real
aerial images, in layouts where the reader lost a region on the overlay benchmark's dev draws (their styles)."""

from __future__ import annotations

import cv2
import numpy as np

from tests.test_regions_hidden import WHITE, _overlay, _read, _style
from tools.common import load_image


def test_an_empty_box_glued_under_another_where_its_label_would_go_is_a_box(shared_data):
    # box 11's top line is box 9's bottom line, and it lies where a label drawn below box 9 would: a rectangle
    # there was taken for a label glued to box 9's outline, though nothing is drawn inside it
    img = load_image(shared_data / "open3d-vqa" / "images" / "rgb_8.png")
    style = _style((128, 0, 255), 3, "above", "{id}", 0.64, "dejavu_sans_bold", True)
    box = [437.0, 322.0, 477.0, 374.0]
    layout = [(9, [446.0, 216.0, 562.0, 321.0], style), (11, box, style)]
    assert _read(_overlay(img, layout, 85), 11, box)


def test_a_long_label_background_in_a_tight_padding_is_read_whole(shared_data):
    # "Region 20" in bold 1080p letters: its background is five times as wide as it is tall, as elongated as a
    # piece of an outline; read as a piece, only the "0"'s hole was left to read
    photo = sorted((shared_data / "dji_survey_dev" / "images").glob("*.JPG"))[0]
    img = cv2.resize(load_image(photo), (1920, 1080), interpolation=cv2.INTER_AREA)
    style = _style((255, 0, 0), 3, "inside_center", "Region {id}", 0.968, "dejavu_sans_bold", True, WHITE)
    box = [896.0, 573.0, 1183.0, 802.0]
    layout = [(20, box, style), (2, [392.0, 184.0, 666.0, 310.0], style)]
    assert _read(_overlay(img, layout, 91), 20, box)


def test_a_rectangle_where_a_label_goes_is_a_label_only_with_something_drawn_inside():
    from tools.regions_prune import drop_glued_labels

    box, glued = [100.0, 100.0, 300.0, 250.0], [100.0, 76.0, 122.0, 100.0]   # on box's top line, at its left end
    drawn = np.zeros((480, 640), bool)
    assert [b for b, _ in drop_glued_labels([(box, 3.0), (glued, 3.0)], (640, 480), drawn)] == [box, glued]
    drawn[80:97, 104:119] = True                                             # a label background
    assert [b for b, _ in drop_glued_labels([(box, 3.0), (glued, 3.0)], (640, 480), drawn)] == [box]
