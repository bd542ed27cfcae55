"""Boxes are reported at the outer edge of their drawn lines (tools.regions.edges), measured in the pixels:
minimal drawings whose drawn extent is known from how they were drawn."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tools.common import jpeg_roundtrip
from tools.regions.edges import outer_box


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
