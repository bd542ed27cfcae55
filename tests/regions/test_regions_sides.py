"""Box sides checked against their corners (tools.regions.sides). Ground truth: the boxes benchmarks.synth.overlay outlined on
real aerial images; the wrong fits handed in are the ones the rectangle search made on such overlays (a side on
another box's line)."""

from __future__ import annotations

import warnings

import cv2
import numpy as np
import pytest

from overlay_drawings import missed_ids
from overlay_drawings import region_style as style_of
from tools.common import jpeg_roundtrip, load_image
from benchmarks.synth.overlay import RegionStyle, draw_regions, label_box
from tools.regions.pipeline import colour_layers, iou, read_regions
from tools.regions.geom import BELOW, CENTRED
from tools.regions.sides import _along, _column, label_side, refit_sides


def region_style(line_width: int, position: str = "below") -> RegionStyle:
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
    mask = _mask(_drawn(shared_data, boxes, region_style(3), labels=False))
    assert _close(refit_sides(wrong, 3.0, mask), true)
    for box in boxes:   # every drawn box stays as it is
        assert _close(refit_sides(box, 3.0, mask), box, 0.0), box


def test_a_side_on_the_image_border_is_placed_half_a_line_in_from_the_edge_it_shows(shared_data):
    box = [306.0, 84.0, 400.0, 170.0]       # OSBS_029 is 400 px wide: the right side is drawn on the border
    mask = _mask(_drawn(shared_data, [box], region_style(5), labels=False))
    found = [306.0, 84.0, 398.5, 170.0]     # the centre of the two columns the line shows
    refit = refit_sides(found, 5.0, mask)
    assert box[2] - 1 <= refit[2] <= box[2] and refit[:2] + refit[3:] == found[:2] + found[3:]   # JPEG widens it
    # without JPEG the line shows exactly its inner half: the side goes back to its centre, past the last column
    clean = np.zeros((200, 400), np.uint8)
    cv2.rectangle(clean, (306, 84), (400, 170), 1, 5)   # OpenCV draws it 7 px wide: columns 397-403, 397-399 shown
    assert np.flatnonzero(clean[120, 350:]).tolist() == [47, 48, 49]
    assert refit_sides(found, 7.0, clean.astype(bool))[2] == 400.0


def test_a_label_glued_beside_a_box_is_not_taken_in(shared_data):
    """A filled label left of its box, taller than the box: the box's top and bottom lines run into the label, but
    the box's own left side is whole, so it stays."""
    box = [120.0, 150.0, 260.0, 170.0]
    drawn = _drawn(shared_data, [box], region_style(3, "outside_left"))
    assert _close(refit_sides(box, 3.0, _mask(drawn)), box, 0.0)


def test_a_box_crossed_by_its_neighbours_side_is_read_whole(shared_data):
    """The overlay the first case above comes from, with its labels: the box is read with its own right side."""
    boxes = [[56.0, 174.0, 163.0, 262.0], [131.0, 185.0, 310.0, 255.0], [170.0, 160.0, 297.0, 297.0]]
    found = read_regions(_drawn(shared_data, boxes, region_style(3)))
    for rid, box in enumerate(boxes, start=1):
        assert any(r.id == rid and iou(r.bbox, box) >= 0.9 for r in found), (rid, found)


def test_a_left_side_found_on_another_boxs_line_moves_out_to_where_its_label_begins(shared_data):
    """Box 2's left side found on box 1's right side, which crosses it: the label below box 2 begins at its own
    left side, which its top and bottom lines reach, so the side moves out there; box 1, whose label begins at its
    side, stays; no side moves in (a label's first letters may be lost on a line crossing them)."""
    boxes = [[40.0, 100.0, 160.0, 260.0], [120.0, 150.0, 300.0, 220.0]]
    drawn = _drawn(shared_data, boxes, region_style(3))
    mask = _mask(drawn)
    label = [121, 222, 140, 240]   # box 2's label's letters, as found: from its left side on
    assert _close(label_side([160.0, 150.0, 300.0, 220.0], label, 3.0, BELOW, mask), boxes[1])
    assert label_side(boxes[0], [41, 262, 60, 280], 3.0, BELOW, mask) == boxes[0]
    inward = label_side([100.0, 150.0, 300.0, 220.0], label, 3.0, BELOW, mask)
    assert inward == [100.0, 150.0, 300.0, 220.0]


def test_a_box_read_on_its_neighbours_side_takes_its_own_from_its_label(shared_data):
    # dev draw of the overlay benchmark (seed 61): box 10's left side was found on box 2's right side
    img = load_image(shared_data / "open3d-vqa" / "images" / "rgb_6.png")
    style = style_of((255, 0, 0), 4, "below", "{id}", 0.9004, "dejavu_sans_bold", False)
    layout = [(1, [344.0, 380.0, 515.0, 412.0]), (12, [144.0, 75.0, 320.0, 161.0]), (0, [338.0, 220.0, 419.0, 302.0]),
              (9, [57.0, 93.0, 97.0, 155.0]), (13, [11.0, 312.0, 81.0, 383.0]), (10, [264.0, 283.0, 328.0, 324.0]),
              (2, [128.0, 238.0, 272.0, 365.0])]
    assert missed_ids(img, style, layout, 92) == []


def test_a_side_of_a_box_with_its_label_at_its_centre_moves_out_to_where_the_label_puts_it(shared_data):
    # box 2's right side found on box 1's left side, which crosses it; box 2's label is centred in it
    boxes = [[200.0, 100.0, 330.0, 260.0], [60.0, 150.0, 280.0, 220.0]]
    mask = _mask(_drawn(shared_data, boxes, region_style(3, "inside_center")))
    label = [160, 177, 180, 193]   # box 2's label's letters, centred on x = 170
    assert _close(label_side([60.0, 150.0, 200.0, 220.0], label, 3.0, CENTRED, mask), boxes[1])


def test_a_box_read_across_its_neighbours_side_takes_its_own_from_its_centred_label(shared_data):
    # dev draw of the overlay benchmark (seed 51): box 10's right side was found on box 16's left side
    img = load_image(shared_data / "hit_uav_thermal" / "images" / "1_130_30_0_03841.jpg")
    style = style_of((255, 255, 0), 5, "inside_center", "{id}", 0.7567, "hershey_simplex", True, (0, 0, 0))
    layout = [(13, [138.0, 242.0, 268.0, 320.0]), (6, [515.0, 405.0, 599.0, 490.0]), (20, [355.0, 14.0, 531.0, 147.0]),
              (16, [207.0, 65.0, 384.0, 185.0]), (10, [61.0, 95.0, 219.0, 126.0]), (17, [434.0, 386.0, 604.0, 487.0]),
              (12, [48.0, 22.0, 224.0, 71.0])]
    assert missed_ids(img, style, layout, 95) == []


def test_a_box_whose_sides_run_under_its_wider_centred_label_keeps_its_bottom(shared_data):
    # "Region 16" is wider than its box and drawn across both sides: the letters' holes cut the side lines, which
    # go on below the label to the bottom line; the bottom was moved up to the label's top edge, as if the sides
    # stopped there
    img = load_image(shared_data / "hit_uav_thermal" / "images" / "1_130_30_0_03841.jpg")
    style = style_of((255, 0, 128), 3, "inside_center", "Region {id}", 0.867, "hershey_duplex", True)
    layout = [(0, [128.0, 94.0, 176.0, 233.0]), (19, [17.0, 429.0, 164.0, 505.0]), (16, [24.0, 10.0, 136.0, 105.0])]
    assert 16 not in missed_ids(img, style, layout, 83)


def test_a_box_drawn_up_to_the_image_border_has_its_side_just_beyond_it(shared_data):
    # boxes around objects the frame cuts end one px past the last column or row: that side is not drawn at all (a
    # 2 px line there leaves nothing in the image). Box 8 ends at x = 640 of a 640 px wide image (dev seed 1,
    # overlay 197); box 12, 8 px below the top border, keeps its top (its sides do not run into the border)
    img = load_image(shared_data / "hit_uav_thermal" / "images" / "1_130_90_0_07333.jpg")
    style = style_of((255, 255, 0), 2, "below", "Region {id}", 0.6966202672713673, "hershey_duplex", False)
    assert missed_ids(img, style, [(8, [606.0, 84.0, 640.0, 120.0]), (12, [493.0, 8.0, 576.0, 63.0])], 66) == []
    # boxes 13 and 15 end at y = 400 of a 400 px high image, boxes 7 and 4 start at x = 1 (dev seed 21, overlay 12)
    forest = load_image(shared_data / "deepforest_neon" / "OSBS_029.png")
    style = style_of((0, 255, 0), 2, "above", "Region {id}", 0.6081961202365838, "hershey_simplex", False)
    layout = [(13, [49.0, 377.0, 75.0, 400.0]), (17, [239.0, 306.0, 279.0, 342.0]), (19, [53.0, 69.0, 96.0, 117.0]),
              (15, [292.0, 367.0, 337.0, 400.0]), (7, [1.0, 13.0, 39.0, 62.0]), (4, [1.0, 218.0, 41.0, 254.0])]
    assert missed_ids(forest, style, layout, 60) == []


def test_a_box_with_sides_beyond_two_borders_is_refit_without_looking_outside_the_image():
    # a box from a rim line left of the image down to its bottom border: its left side stays at the border, and no
    # row range starts at a negative index (that wrapped round to the image's far end, an empty slice)
    mask = np.zeros((100, 100), np.uint8)
    cv2.rectangle(mask, (-1, 20), (60, 99), 1, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        refit = refit_sides([-1.0, 20.0, 60.0, 99.0], 3.0, mask.astype(bool))
    assert -1.0 <= refit[0] <= 0.0 and refit[1:3] == [20.0, 60.0] and 98.0 <= refit[3] <= 99.0, refit


def test_a_line_beyond_the_image_is_undrawn_without_warnings():
    # a side read on a scaled-down 4K frame may round to a line centre past the last row or column: it is undrawn,
    # not an empty slice averaged to NaN (a RuntimeWarning on every such box)
    mask = np.ones((60, 80), bool)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        below, right = _along(mask, 70.0, 2.0, 0, 80), _column(mask, 90.0, 2.0, 0, 60)
    assert below.shape == (80,) and not below.any() and right.shape == (60,) and not right.any()
    assert _along(mask, 30.0, 2.0, 0, 80).all()   # a line inside the image: drawn where the mask is


@pytest.mark.parametrize("cut", ["top", "bottom"])
def test_a_box_cut_in_two_by_its_centred_label_takes_the_side_beyond_it(shared_data, cut):
    # a filled label wider than its box, centred in it, is drawn across both sides: the rectangle search closes the
    # box at the label's edge (benchmark overlay 701:50, "17" in a 41 px box); the label's centre puts the other side
    box = [100.0, 100.0, 126.0, 170.0]
    style = region_style(5, "inside_center")
    lx1, ly1, lx2, ly2 = label_box(box, "17", style, (1000, 1000))
    assert lx1 < box[0] and lx2 > box[2]   # the label covers both sides
    img = load_image(shared_data / "deepforest_neon" / "OSBS_029.png")
    mask = _mask(jpeg_roundtrip(draw_regions(img, [(17, box)], style), 80))
    found = [box[0], ly2, box[2], box[3]] if cut == "top" else [box[0], box[1], box[2], ly1]
    assert _close(label_side(found, [lx1, ly1, lx2, ly2], 5.0, CENTRED, mask), box)
