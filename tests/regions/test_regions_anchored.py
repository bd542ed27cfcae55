"""Boxes found from their own labels (tools.regions.anchored). Ground truth: the boxes benchmarks.synth.overlay placed (dev
overlays redrawn on real images) or drew on a blank mask."""

from __future__ import annotations

import cv2
import numpy as np

from overlay_drawings import BLACK, missed_ids, drawn_overlay, reads_exactly, region_style
from overlay_drawings import CROWDED_ABOVE, CROWDED_ABOVE_STYLE
from tools.common import load_image
from tools.regions.anchored import box_from_label, colour_lines, explained
from tools.regions.geom import ABOVE, CENTRED
from tools.regions.pipeline import iou


def _outlines(boxes: list[list[int]], thick: int, size: tuple[int, int] = (400, 300)) -> np.ndarray:
    mask = np.zeros(size[::-1], np.uint8)
    for x1, y1, x2, y2 in boxes:
        cv2.rectangle(mask, (x1, y1), (x2, y2), 1, thick)
    return mask > 0


def _anchored(label: tuple[int, int, int, int], place: int, mask: np.ndarray) -> list[float] | None:
    """The box :func:`box_from_label` finds for ``label`` at ``place`` on a mask of 3 px outlines, none found yet."""
    return box_from_label(label, place, 3.0, colour_lines(mask)[:2], mask, mask, explained([], mask.shape))


def test_a_label_above_fixes_its_boxs_top_left_corner_among_crossing_boxes():
    # the label sits on the top-left corner of box a; box b crosses a's right half, box c shares a's bottom line
    # and runs on past it: the lines closing a rectangle with the corner the label fixes are a's own
    a, b, c = [100, 120, 220, 200], [180, 60, 300, 160], [60, 200, 340, 260]
    mask = _outlines([a, b, c], 3)
    label = (99, 96, 125, 119)   # x1 - half, up to the line (y1 - half - 1), end-exclusive
    assert iou(_anchored(label, ABOVE, mask), a) >= 0.95


def test_a_centred_label_wider_than_its_box_gives_the_box_its_lines_close():
    a, other = [150, 100, 190, 160], [60, 40, 250, 230]
    mask = _outlines([a, other], 3)
    label = (140, 120, 201, 141)   # centred on a, wider than a
    mask[label[1]:label[3], label[0]:label[2]] = True
    assert iou(_anchored(label, CENTRED, mask), a) >= 0.95


def test_no_box_closes_where_the_lines_run_on_past_every_corner():
    # a grid of lines crossing everywhere: no corner is a box's corner
    mask = np.zeros((300, 400), bool)
    for v in range(40, 400, 60):
        mask[:, v - 1:v + 2] = True
    for v in range(40, 300, 60):
        mask[v - 1:v + 2, :] = True
    assert _anchored((99, 76, 125, 99), ABOVE, mask) is None


def test_a_filled_label_above_a_crowded_box_finds_its_box(shared_data):
    # dev overlay: box 20's top line lies 4 px from box 17's bottom line; its label is glued to its top line
    img = load_image(shared_data / "open3d-vqa" / "images" / "rgb_5.png")
    assert missed_ids(img, CROWDED_ABOVE_STYLE, CROWDED_ABOVE, 87) == []


def test_a_filled_label_inside_a_corner_crossed_by_other_boxes_finds_its_box(shared_data):
    # dev overlay: box 2's right side is drawn against box 20's left side (one band two lines thick), and its label
    # is glued inside its top-left corner
    img = load_image(shared_data / "hit_uav_thermal" / "images" / "0_130_30_0_05549.jpg")   # 0_130_30_0_05549, q 95
    style = region_style((0, 255, 255), 4, "inside_top_left", "{id}", 0.6858421626041833, "dejavu_sans", True, (0, 0, 0))
    layout = [(9, [445.0, 306.0, 631.0, 376.0]), (5, [113.0, 109.0, 209.0, 173.0]),
              (20, [296.0, 141.0, 469.0, 263.0]), (0, [9.0, 230.0, 150.0, 374.0]), (4, [303.0, 321.0, 362.0, 471.0]),
              (10, [477.0, 4.0, 555.0, 116.0]), (3, [80.0, 37.0, 180.0, 126.0]), (6, [224.0, 26.0, 407.0, 172.0]),
              (1, [36.0, 86.0, 213.0, 144.0]), (2, [225.0, 170.0, 291.0, 220.0])]
    assert missed_ids(img, style, layout, 95) == []


def test_a_centred_label_over_its_small_box_finds_the_box(shared_data):
    # dev overlay: the filled "6" covers its 20 x 22 px box but for the outline's outer rim, taken in with the label
    img = load_image(shared_data / "deepforest_neon" / "SOAP_061.png")   # SOAP_061, q 63
    style = region_style((0, 255, 255), 3, "inside_center", "{id}", 0.8078671191206472, "dejavu_sans_bold", True, (0, 0, 0))
    layout = [(11, [1.0, 328.0, 81.0, 400.0]), (15, [20.0, 148.0, 59.0, 203.0]), (5, [95.0, 91.0, 131.0, 140.0]),
              (6, [279.0, 113.0, 299.0, 135.0]), (14, [262.0, 149.0, 289.0, 188.0]),
              (3, [48.0, 226.0, 120.0, 306.0]), (13, [275.0, 335.0, 307.0, 368.0]),
              (20, [230.0, 356.0, 251.0, 379.0])]
    assert 6 not in missed_ids(img, style, layout, 63)


def test_the_only_box_of_its_colour_is_found_from_its_filled_label(shared_data):
    # dev overlay: a magenta box 2 px thick whose top third lies under a blue box; no box of its colour is found, so
    # no label tells where labels go: "19" below its box is the one place where a box closes around it
    img = load_image(shared_data / "hit_uav_thermal" / "images" / "0_60_90_0_01830.jpg")
    layout = [(19, [295.0, 209.0, 349.0, 309.0],
               region_style((255, 0, 255), 2, "below", "{id}", 0.6303114656132435, "dejavu_sans_bold", True)),
              (7, [53.0, 60.0, 208.0, 130.0],
               region_style((255, 128, 0), 4, "inside_top_left", "Region {id}", 1.0818527125479687, "dejavu_sans", False)),
              (8, [245.0, 205.0, 431.0, 248.0],
               region_style((0, 0, 255), 5, "inside_center", "{id}", 0.7667414499209038, "dejavu_sans", True)),
              (14, [313.0, 49.0, 470.0, 173.0],
               region_style((255, 255, 0), 4, "outside_left", "{id}", 0.9267722446598148, "hershey_simplex", True, BLACK))]
    assert reads_exactly(drawn_overlay(img, layout, 73), 19, [295.0, 209.0, 349.0, 309.0])
