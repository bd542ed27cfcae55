"""Box sides checked against their corners (tools.regions_sides). Ground truth: the boxes tools.draw outlined on
real aerial images; the wrong fits handed in are the ones the rectangle search made on such overlays (a side on
another box's line)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tools.common import jpeg_roundtrip, load_image
from tools.draw import RegionStyle, draw_regions
from tools.regions import colour_layers, iou, read_regions
from tools.regions_sides import refit_sides


def _style(line_width: int, position: str = "below") -> RegionStyle:
    return RegionStyle(color=(255, 0, 128), line_width=line_width, label_format="{id}", label_position=position,
                       font_scale=0.7, label_background=True, label_color=(255, 255, 255), font="dejavu_sans")


def _drawn(shared_data, boxes: list[list[float]], style: RegionStyle, labels: bool = True) -> np.ndarray:
    """The boxes (ids 1, 2, ...) outlined on a real orthophoto (JPEG q80); without ``labels``, the outlines alone."""
    img = load_image(shared_data / "deepforest_neon" / "OSBS_029.png")
    regions = list(zip(range(1, len(boxes) + 1), boxes))
    if labels:
        return jpeg_roundtrip(draw_regions(img, regions, style), 80)
    out = img.copy()
    for x1, y1, x2, y2 in boxes:
        cv2.rectangle(out, (int(x1), int(y1)), (int(x2), int(y2)), style.color, style.line_width)
    return jpeg_roundtrip(out, 80)


def _mask(drawn: np.ndarray) -> np.ndarray:
    layers = colour_layers(drawn)
    assert len(layers) == 1
    return layers[0][0]


def _close(a, b, tol: float = 1.0) -> bool:
    return all(abs(u - v) <= tol for u, v in zip(a, b))


@pytest.mark.parametrize("wrong, true", [
    # another box's side crosses this box, leaving gaps near its corners: the right side goes out to the corner
    ([56.0, 174.0, 131.0, 262.0], [56.0, 174.0, 163.0, 262.0]),
    # a longer line runs through this box past both corners: the left side goes out to the corner
    ([60.0, 300.0, 96.0, 352.0], [20.0, 300.0, 96.0, 352.0]),
    # another box's bottom line further down: the bottom goes up to where the sides end
    ([200.0, 290.0, 330.0, 385.0], [200.0, 290.0, 330.0, 340.0]),
])
def test_a_side_on_another_boxs_line_moves_to_the_corner(shared_data, wrong, true):
    boxes = [[56.0, 174.0, 163.0, 262.0], [131.0, 185.0, 310.0, 255.0],   # the first case's pair
             [20.0, 300.0, 96.0, 352.0], [60.0, 280.0, 150.0, 380.0],     # the second's: a side through the box
             [200.0, 290.0, 330.0, 340.0], [180.0, 320.0, 385.0, 385.0]]  # the third's: a bottom line below
    mask = _mask(_drawn(shared_data, boxes, _style(3), labels=False))
    assert _close(refit_sides(wrong, 3.0, mask), true)
    for box in boxes:   # every drawn box stays as it is
        assert _close(refit_sides(box, 3.0, mask), box, 0.0), box


def test_a_side_on_the_image_border_is_placed_half_a_line_in_from_the_edge_it_shows(shared_data):
    box = [306.0, 84.0, 400.0, 170.0]       # OSBS_029 is 400 px wide: the right side is drawn on the border
    mask = _mask(_drawn(shared_data, [box], _style(5), labels=False))
    found = [306.0, 84.0, 398.5, 170.0]     # the centre of the two columns the line shows
    refit = refit_sides(found, 5.0, mask)
    assert refit[2] == 399.0 and refit[:2] + refit[3:] == found[:2] + found[3:]


def test_a_label_glued_beside_a_box_is_not_taken_in(shared_data):
    """A filled label left of its box, taller than the box: the box's top and bottom lines run into the label, but
    the box's own left side is whole, so it stays."""
    box = [120.0, 150.0, 260.0, 170.0]
    drawn = _drawn(shared_data, [box], _style(3, "outside_left"))
    assert _close(refit_sides(box, 3.0, _mask(drawn)), box, 0.0)


def test_a_box_crossed_by_its_neighbours_side_is_read_whole(shared_data):
    """The overlay the first case above comes from, with its labels: the box is read with its own right side."""
    boxes = [[56.0, 174.0, 163.0, 262.0], [131.0, 185.0, 310.0, 255.0], [170.0, 160.0, 297.0, 297.0]]
    found = read_regions(_drawn(shared_data, boxes, _style(3)))
    for rid, box in enumerate(boxes, start=1):
        assert any(r.id == rid and iou(r.bbox, box) >= 0.9 for r in found), (rid, found)
