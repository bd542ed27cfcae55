"""Boxes are reported at the outer edge of their drawn lines (tools.regions.edges), measured in the pixels:
minimal drawings whose drawn extent is known from how they were drawn."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tools.common import jpeg_roundtrip
from tools.regions.edges import off_glued_labels, outer_box


def _picture(seed: int = 0, size: tuple[int, int] = (240, 320)) -> np.ndarray:
    """A textured grey-green picture (smoothed noise), not flat: a line's edge is told from real surroundings."""
    rng = np.random.default_rng(seed)
    noise = rng.integers(60, 170, (size[0] // 8, size[1] // 8, 3)).astype(np.uint8)
    return cv2.resize(noise, (size[1], size[0]), interpolation=cv2.INTER_LINEAR)


def _drawn_extent(shape: tuple[int, ...], corners: tuple[tuple[int, int], tuple[int, int]], thickness: int
                  ) -> list[float]:
    """Inclusive extent of the pixels ``cv2.rectangle`` paints for ``corners`` in an image of ``shape``."""
    mask = np.zeros(shape[:2], np.uint8)
    cv2.rectangle(mask, corners[0], corners[1], 1, thickness)
    ys, xs = np.nonzero(mask)
    return [float(xs.min()), float(ys.min()), float(xs.max()), float(ys.max())]


@pytest.mark.parametrize("thickness", [1, 2, 3, 4, 6])
def test_a_box_found_at_its_line_centres_moves_to_the_outer_edge(thickness):
    img = _picture(thickness)
    cv2.rectangle(img, (80, 60), (200, 150), (255, 0, 255), thickness)
    truth = _drawn_extent(img.shape, ((80, 60), (200, 150)), thickness)
    found = outer_box(jpeg_roundtrip(img, 85), [80, 60, 200, 150])
    # JPEG keeps colour at half resolution: a 1 px line and the pixel beside it can come out alike, either side
    assert np.abs(np.subtract(found, truth)).max() <= (1 if thickness == 1 else 0)


def test_a_box_given_at_its_outer_edge_stays_there():
    img = _picture(1)
    cv2.rectangle(img, (80, 60), (200, 150), (0, 255, 255), 3)
    truth = _drawn_extent(img.shape, ((80, 60), (200, 150)), 3)
    assert outer_box(jpeg_roundtrip(img, 85), truth) == truth


def test_a_neighbour_drawn_against_a_side_does_not_widen_the_box():
    img = _picture(2)
    colour = (255, 255, 0)
    cv2.rectangle(img, (60, 60), (150, 150), colour, 3)
    cv2.rectangle(img, (155, 70), (250, 140), colour, 3)   # its left line runs against the first box's right one
    found = outer_box(jpeg_roundtrip(img, 90), [60, 60, 150, 150])
    assert found == _drawn_extent(img.shape, ((60, 60), (150, 150)), 3)


def test_a_box_cut_by_the_image_border_ends_on_it():
    img = _picture(3)
    cv2.rectangle(img, (-20, 100), (120, 260), (255, 0, 0), 3)   # left and bottom sides outside the image
    found = outer_box(jpeg_roundtrip(img, 90), [0, 100, 120, 239])
    assert found == _drawn_extent(img.shape, ((-20, 100), (120, 260)), 3)


def test_a_box_with_no_drawn_line_stays_where_it_was_found():
    img = _picture(4)
    assert outer_box(img, [50, 50, 150, 120]) == [50.0, 50.0, 150.0, 120.0]


@pytest.mark.parametrize("thickness,tag_width", [(1, 90), (2, 40), (3, 25), (2, 18)])
def test_a_tag_glued_on_the_top_line_is_cut_off_the_box(thickness, tag_width):
    """A filled tag drawn on the box's top-left corner, outside, in the line colour, with white text: a box found
    from the tag's top to the box's bottom ends at the box's own top line."""
    img = _picture(10 + thickness)
    colour = (255, 40, 0)
    corners = ((100, 120), (100 + 2 * tag_width // 3, 200))
    truth = _drawn_extent(img.shape, corners, thickness)
    top = int(truth[1])
    cv2.rectangle(img, (int(truth[0]), top - 22), (int(truth[0]) + tag_width, top - 1), colour, -1)
    cv2.putText(img, "7", (int(truth[0]) + 3, top - 5), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (255, 255, 255), 2)
    cv2.rectangle(img, *corners, colour, thickness)
    found = off_glued_labels(jpeg_roundtrip(img, 85), [truth[0], top - 22, truth[2], truth[3]])
    assert abs(found[1] - truth[1]) <= 1 and found[3] == truth[3]


def test_a_label_of_letters_just_below_the_box_is_cut_off_it():
    img = _picture(21)
    colour = (255, 0, 255)
    cv2.rectangle(img, (60, 40), (150, 120), colour, 2)
    truth = _drawn_extent(img.shape, ((60, 40), (150, 120)), 2)
    cv2.putText(img, "Region 4", (40, int(truth[3]) + 15), cv2.FONT_HERSHEY_SIMPLEX, 0.6, colour, 2)   # 2 px off
    found = off_glued_labels(jpeg_roundtrip(img, 85), [truth[0], truth[1], truth[2], truth[3] + 17])
    assert found == truth


def test_a_box_crossed_by_another_boxs_line_keeps_its_top():
    img = _picture(22)
    colour = (0, 255, 255)
    cv2.rectangle(img, (60, 40), (200, 180), colour, 2)
    cv2.rectangle(img, (20, 80), (260, 220), colour, 2)   # its top line crosses the first box's inside
    truth = _drawn_extent(img.shape, ((60, 40), (200, 180)), 2)
    assert off_glued_labels(jpeg_roundtrip(img, 85), truth) == truth


def test_a_dark_shadow_beside_a_bright_line_on_light_ground_is_no_line():
    # a bright cyan 2 px box on light grey ground with a dark band against its outer sides: the band is nearer the
    # line's colour than the ground's in RGB, but its brightness is the ground's opposite, so it is no line
    img = np.full((200, 240, 3), 235, np.uint8)
    img[40:160, 60:180] = 50   # the shadow, 4 px past the box on each side
    img[44:156, 64:176] = 170
    cv2.rectangle(img, (64, 44), (175, 155), (40, 215, 240), 2)
    truth = _drawn_extent(img.shape, ((64, 44), (175, 155)), 2)
    found = outer_box(jpeg_roundtrip(img, 80), [64.5, 44.5, 174.5, 154.5])
    assert np.abs(np.subtract(found, truth)).max() <= 1
