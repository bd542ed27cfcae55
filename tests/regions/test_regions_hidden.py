"""Boxes partly hidden under other overlay colours, or whose lines JPEG widens unevenly (tools.regions.lines,
tools.regions.geom.occluders). Ground truth: the boxes benchmarks.synth.overlay outlined on real aerial images, in three layouts
where the rectangle search lost a box on the overlay benchmark's dev draws (their styles, font sizes
included: the fits are that close)."""

from __future__ import annotations

import cv2
import numpy as np

from tools.common import jpeg_roundtrip, load_image
from benchmarks.synth.overlay import RegionStyle, draw_regions
from tools.regions.pipeline import CORE_MIN, iou, read_regions
from overlay_drawings import BLACK, drawn_overlay, reads_exactly, region_style


def test_a_red_box_whose_vertical_lines_jpeg_widens_on_a_dark_picture(shared_data):
    # dark pixels beside a red line take its chroma: 5 px lines measure 8 px across vertically but 6 px
    # horizontally, too thin a band for the vertical pass; the pass across horizontal lines closes the box
    img = load_image(shared_data / "hit_uav_thermal" / "images" / "0_130_30_0_05549.jpg")
    box = [167.0, 123.0, 312.0, 245.0]
    layout = [(15, [158.0, 250.0, 260.0, 379.0], region_style((0, 0, 255), 4, "inside_center", "Region {id}", 0.9176,
                                                        "dejavu_sans", False)),
              (9, [138.0, 384.0, 312.0, 470.0], region_style((255, 255, 0), 2, "inside_center", "Region {id}", 0.5611,
                                                       "hershey_simplex", True, BLACK)),
              (16, box, region_style((255, 0, 0), 5, "inside_center", "Region {id}", 0.7021, "dejavu_sans", True))]
    assert reads_exactly(drawn_overlay(img, layout, 68), 16, box)


def test_a_corner_under_another_colours_label_with_big_letters(shared_data):
    # the green label's white letters are wider than the closing that finds a label filled: they hide the orange
    # box's top-right corner as the label does
    img = load_image(shared_data / "open3d-vqa" / "images" / "rgb_5.png")
    box = [71.0, 291.0, 238.0, 432.0]
    layout = [(1, box, region_style((255, 128, 0), 3, "below", "{id}", 0.9705, "dejavu_sans_bold", True, BLACK)),
              (16, [192.0, 243.0, 319.0, 355.0], region_style((0, 200, 100), 4, "inside_center", "Region {id}", 1.0609,
                                                        "hershey_duplex", True))]
    assert reads_exactly(drawn_overlay(img, layout, 60), 1, box)


def test_a_bottom_half_hidden_under_another_colours_line(shared_data):
    # the blue box's top line hides half of the pink box's bottom line: only the pass across horizontal lines closes
    # the pink box, whose vertical sides both have line pieces
    img = load_image(shared_data / "hit_uav_thermal" / "images" / "0_60_90_0_01830.jpg")
    box = [392.0, 37.0, 473.0, 141.0]
    layout = [(18, [367.0, 135.0, 523.0, 175.0], region_style((0, 0, 255), 5, "below", "{id}", 0.8182, "dejavu_sans", True)),
              (9, box, region_style((255, 0, 128), 4, "above", "{id}", 0.9060, "dejavu_sans_bold", True))]
    assert reads_exactly(drawn_overlay(img, layout, 95), 9, box)


def test_a_thin_yellow_outline_that_jpeg_desaturated_beside_a_thick_red_one(shared_data):
    # a 2 px yellow line on a bright thermal picture keeps too few pixels at S >= 230 once re-saved as JPEG, while the
    # 5 px red outline does: the yellow is looked for at the lower saturation levels too, among bright pixels
    img = load_image(shared_data / "hit_uav_thermal" / "images" / "1_80_50_0_01223.jpg")
    yellow = region_style((255, 255, 0), 2, "outside_left", "{id}", 0.85, "hershey_simplex", False)
    red = region_style((255, 0, 0), 5, "above", "Region {id}", 0.8, "dejavu_sans", True)
    box = [530.0, 352.0, 622.0, 411.0]
    drawn = drawn_overlay(img, [(6, [257.0, 39.0, 399.0, 161.0], red), (2, box, yellow)], 77)
    saturated = cv2.cvtColor(drawn, cv2.COLOR_RGB2HSV)[..., 1] >= 230
    assert saturated[348:416, 526:627].sum() < CORE_MIN   # too few near-pure pixels left to make a colour
    assert reads_exactly(drawn, 2, box)


def test_a_side_drawn_under_another_colours_side(shared_data):
    # the blue box's right side lies exactly under the purple box's left side (both at x = 197): no blue pixel is
    # left there, but the blue top and bottom lines end at the purple line and do not run on past it
    img = load_image(shared_data / "open3d-vqa" / "images" / "rgb_4.png")
    box = [85.0, 136.0, 197.0, 185.0]
    layout = [(20, box, region_style((0, 0, 255), 5, "below", "{id}", 0.7286, "dejavu_sans_bold", False)),
              (7, [197.0, 111.0, 354.0, 220.0], region_style((128, 0, 255), 4, "inside_center", "Region {id}", 0.9211,
                                                       "hershey_duplex", True))]
    assert reads_exactly(drawn_overlay(img, layout, 80), 20, box)


def test_a_side_that_runs_on_past_another_colours_line_ends_no_box_there(shared_data):
    # the orange box's bottom line crosses the cyan box 4 just below its top; the cyan right side and the left edge
    # of the filled label "4" both start under the orange line, but the right side runs on past it: no box ends
    # there (a box taken from the orange line down took the label from box 4)
    img = load_image(shared_data / "open3d-vqa" / "images" / "rgb_5.png")
    box = [51.0, 429.0, 183.0, 476.0]
    layout = [(14, [230.0, 178.0, 314.0, 289.0], region_style((255, 0, 255), 4, "above", "Region {id}", 0.8731,
                                                        "dejavu_sans", False)),
              (9, [423.0, 359.0, 495.0, 458.0], region_style((0, 0, 255), 5, "inside_top_left", "Region {id}", 0.7752,
                                                       "dejavu_sans", False)),
              (4, box, region_style((0, 255, 255), 3, "inside_center", "{id}", 0.8802, "hershey_simplex", True, BLACK)),
              (10, [83.0, 321.0, 198.0, 440.0], region_style((255, 128, 0), 4, "inside_top_left", "{id}", 0.8431,
                                                       "hershey_simplex", False)),
              (7, [326.0, 63.0, 427.0, 105.0], region_style((0, 0, 255), 3, "above", "Region {id}", 0.5655,
                                                      "hershey_duplex", False))]
    assert reads_exactly(drawn_overlay(img, layout, 60), 4, box)


def test_a_side_under_another_colours_line_beside_a_label_glued_to_the_corner(shared_data):
    # the blue box's right side covers the yellow box's left side below the yellow label "20", glued outside the
    # box's top-left corner: the label's letters past the yellow top line are no line running on
    img = load_image(shared_data / "hit_uav_thermal" / "images" / "1_130_90_0_07333.jpg")
    box = [339.0, 181.0, 423.0, 240.0]
    layout = [(8, [606.0, 84.0, 640.0, 120.0], region_style((255, 0, 255), 3, "outside_left", "Region {id}", 1.0163,
                                                      "hershey_simplex", False)),
              (6, [493.0, 8.0, 576.0, 63.0], region_style((0, 255, 255), 5, "outside_left", "{id}", 0.8505, "hershey_simplex",
                                                    True, BLACK)),
              (1, [107.0, 454.0, 190.0, 504.0], region_style((0, 255, 255), 2, "above", "{id}", 0.6477, "hershey_duplex",
                                                       True, BLACK)),
              (20, box, region_style((255, 255, 0), 5, "outside_left", "{id}", 0.5994, "dejavu_sans_bold", False)),
              (13, [248.0, 202.0, 337.0, 261.0], region_style((0, 0, 255), 5, "above", "{id}", 1.0994, "dejavu_sans_bold",
                                                        False)),
              (11, [232.0, 90.0, 314.0, 134.0], region_style((128, 0, 255), 5, "outside_left", "Region {id}", 0.6129,
                                                       "dejavu_sans_bold", False))]
    assert reads_exactly(drawn_overlay(img, layout, 73), 20, box)


def test_a_band_under_another_colour_closes_a_box_only_where_both_lines_end_there():
    from tools.regions.lines import _both_end
    from tools.regions.pieces import Line

    mask = np.zeros((80, 70), bool)   # rows run along the two lines, which are 3 px thick at columns 10 and 50
    mask[5:40, 9:12] = mask[5:40, 49:52] = True
    left, right = Line(10.0, 3.0, [(5.0, 39.0)]), Line(50.0, 3.0, [(5.0, 39.0)])
    assert _both_end(left, right, 40, 44, 3.0, mask)          # both end at the band, nothing past it
    assert not _both_end(left, right, 20, 24, 3.0, mask)      # a band crossing them halfway: they run on
    on = mask.copy()
    on[46:60, 49:52] = True                                    # the right line runs on past the band
    assert not _both_end(left, right, 40, 44, 3.0, on)
    letter = mask.copy()
    letter[46:60, 44:58] = True                                # a letter's stroke there, wider than a line
    assert _both_end(left, right, 40, 44, 3.0, letter)
