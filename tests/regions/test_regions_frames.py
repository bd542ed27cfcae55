"""Outlines drawn around their own filled label (tools.regions.frames). Ground truth: the boxes, ids and label
boxes benchmarks.synth.overlay placed on a real orthophoto."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.region_overlays import framed_box
from overlay_drawings import missed_ids, region_style, survey_1080p
from tools.common import jpeg_roundtrip, load_image
from benchmarks.synth.overlay import RegionStyle, draw_regions, label_box
from tools.regions.pipeline import iou, read_regions
from tools.regions.frames import frame_around

STYLE = RegionStyle(color=(255, 255, 0), line_width=4, label_format="{id}", label_position="inside_center",
                    font_scale=0.9, label_background=True, label_color=(0, 0, 0), font="hershey_duplex")


def _framed(shared_data, rid: int, gap_x: int, gap_y: int, style: RegionStyle = STYLE):
    """A box drawn ``gap_x``/``gap_y`` px of background away from its centred label (JPEG q70): image, box."""
    img = load_image(shared_data / "deepforest_neon" / "OSBS_029.png")
    box = framed_box(rid, style, gap_x, gap_y)
    return jpeg_roundtrip(draw_regions(img, [(rid, box)], style), 70), box


@pytest.mark.parametrize("rid, gap_x, gap_y", [(20, 3, 3), (11, 2, 4), (7, 0, 3), (10, 9, 0), (16, 5, 0)])
def test_a_box_drawn_around_its_own_filled_label_is_found(shared_data, rid, gap_x, gap_y):
    # gap_x 0: the label touches the left and right sides; gap_y 0: the lines above and below it
    drawn, box = _framed(shared_data, rid, gap_x, gap_y)
    found = read_regions(drawn)
    assert [r.id for r in found] == [rid]
    assert iou(found[0].bbox, box) >= 0.9


@pytest.mark.parametrize("font, font_scale, line_width, gap_x, gap_y",
                         [("hershey_duplex", 0.63, 3, 3, 3), ("dejavu_sans", 0.63, 3, 4, 3),
                          ("hershey_simplex", 0.55, 4, 5, 4)])
def test_a_thin_framed_13_is_found(shared_data, font, font_scale, line_width, gap_x, gap_y):
    # white "13" on red: the "1" leaves a strip of the label's background left of it, which a profile across the
    # label's middle takes for the frame's left line (the box was found from inside the label, IoU 0.74-0.76); at
    # font scale 0.55 the letters are so thin that the label, joined by the closing to its outline on three sides,
    # held too few letter pixels for a background of that size (nothing was found)
    style = RegionStyle(color=(255, 0, 0), line_width=line_width, label_format="{id}",
                        label_position="inside_center", font_scale=font_scale, label_background=True,
                        label_color=(255, 255, 255), font=font)
    drawn, box = _framed(shared_data, 13, gap_x, gap_y, style)
    found = read_regions(drawn)
    assert [r.id for r in found] == [13]
    assert iou(found[0].bbox, box) >= 0.9


@pytest.mark.parametrize("line_width", [3, 4])
def test_a_framed_box_leaves_the_gap_it_is_asked_for(line_width):
    # the benchmark's geometry, measured on the drawing (no JPEG): background between label and outline
    style = RegionStyle(color=(255, 0, 0), line_width=line_width, label_format="{id}",
                        label_position="inside_center", font_scale=0.63, label_background=True,
                        label_color=(255, 255, 255), font="hershey_simplex")
    box = framed_box(13, style, 5, 3)
    drawn = draw_regions(np.zeros((300, 300, 3), np.uint8), [(13, box)], style).any(axis=2)
    row, col = drawn[int((box[1] + box[3]) / 2)], drawn[:, int((box[0] + box[2]) / 2)]
    assert [len(run) for run in np.split(row, np.flatnonzero(np.diff(row)) + 1)][2] == 5
    assert [len(run) for run in np.split(col, np.flatnonzero(np.diff(col)) + 1)][2] == 3


def test_a_plain_filled_label_has_no_frame(shared_data):
    style = RegionStyle(color=(255, 255, 0), line_width=4, label_format="{id}", label_position="above",
                        font_scale=0.9, label_background=True, label_color=(0, 0, 0), font="hershey_duplex")
    img = load_image(shared_data / "deepforest_neon" / "OSBS_029.png")
    box = [150.0, 120.0, 260.0, 210.0]
    drawn = jpeg_roundtrip(draw_regions(img, [(11, box)], style), 70)
    from tools.regions.pipeline import colour_layers

    mask = colour_layers(drawn)[0][0]
    x1, y1, x2, y2 = label_box(box, "11", style, (drawn.shape[1], drawn.shape[0]))
    assert frame_around(mask, (x1, y1, x2 - x1, y2 - y1)) is None
    found = read_regions(drawn)
    assert [r.id for r in found] == [11] and iou(found[0].bbox, box) >= 0.9


def test_the_holes_of_a_stroke_letter_frame_no_label():
    mask = np.zeros((60, 60), bool)
    mask[10:40, 20:36] = True          # a bold "8": strokes around two holes
    mask[14:22, 24:32] = False
    mask[27:36, 24:32] = False
    assert frame_around(mask, (20, 10, 16, 30)) is None


def test_the_gaps_between_a_wide_labels_letters_frame_nothing(shared_data):
    # "Region 18" in filled Hershey letters: the single stroke of its "1" and the gaps beside the letters make
    # columns as tall as the label with background-coloured gaps beside them, but the label's top and bottom pads
    # run on past them (no box corner there); a dev layout where such a frame cost two regions
    img = survey_1080p(shared_data, "DJI_0018.JPG")
    style = RegionStyle(color=(255, 0, 128), line_width=5, label_format="Region {id}", label_position="inside_center",
                        font_scale=1.0051, label_background=True, label_color=(255, 255, 255), font="hershey_simplex")
    layout = [(6, [614, 365, 964, 624]), (15, [1293, 140, 1772, 438]), (14, [434, 622, 724, 915]),
              (10, [494, 562, 1015, 809]), (16, [1130, 285, 1418, 538]), (7, [273, 606, 709, 674]),
              (18, [130, 400, 582, 524]), (9, [1011, 501, 1292, 771]), (4, [949, 752, 1210, 860]),
              (1, [1573, 245, 1888, 435])]
    found = read_regions(jpeg_roundtrip(draw_regions(img, layout, style), 60))
    assert [rid for rid, box in layout if not any(r.id == rid and iou(r.bbox, box) >= 0.9 for r in found)] == []


def test_a_box_whose_inside_is_mostly_its_filled_label_is_found(shared_data):
    # "Region 1" in bold, filled, centred in a box 35 px tall drawn 5 px thick: the label covers most of the
    # box's inside and both its top and bottom lines, with background left and right of it
    img = load_image(shared_data / "open3d-vqa" / "images" / "rgb_5.png")
    style = region_style((0, 255, 255), 5, "inside_center", "Region {id}", 0.6117405185978476, "dejavu_sans_bold", True,
                   (0, 0, 0))
    assert missed_ids(img, style, [(19, [314.0, 275.0, 485.0, 406.0]), (1, [68.0, 380.0, 187.0, 415.0])], 75) == []


def test_a_frame_whose_label_another_boxs_line_crosses_is_found(shared_data):
    # "14" fills most of its small box, and the bottom line of box 9 runs across the label and the gaps beside it:
    # the gaps left and right of the label hold that line's pixels, and the outline is found only without them
    img = load_image(shared_data / "hit_uav_thermal" / "images" / "0_60_30_0_01609.jpg")
    style = region_style((255, 255, 0), 5, "inside_center", "{id}", 0.8573996836109061, "hershey_simplex", True, (0, 0, 0))
    layout = [(9, [123.0, 133.0, 290.0, 283.0]), (17, [140.0, 311.0, 245.0, 385.0]), (14, [168.0, 261.0, 229.0, 309.0])]
    assert missed_ids(img, style, layout, 95) == []
