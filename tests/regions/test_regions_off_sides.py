"""A label box that ends on another outline's vertical side (tools.regions.geom.off_sides,
tools.regions.ids.pictures_off_sides): the picture reader reads the side as a "1" before or after the number. The
layouts are dev draws of the overlay benchmark where that happened (their styles, font sizes included); ground
truth is the drawn geometry."""

from __future__ import annotations

from overlay_drawings import missed_ids, region_style
from tools.common import load_image
from tools.regions.geom import off_sides


def test_a_label_box_is_cut_off_a_side_at_its_end_only():
    side = ([48.0, 8.0, 98.0, 118.0], 8.0)   # its left side's band: x 44..52 (JPEG blur: a px more)
    assert off_sides((44, 85, 72, 107), [side]) == (53, 85, 72, 107)
    assert off_sides((40, 85, 72, 107), [side]) == (40, 85, 72, 107)        # the side lies within: a crossed letter
    assert off_sides((44, 85, 72, 107), [([48.0, 90.0, 98.0, 118.0], 8.0)]) == (44, 85, 72, 107)   # a short side


def test_a_filled_label_beside_another_boxs_side_is_not_read_with_a_1(shared_data):
    # box 1's left side runs down just left of box 8's centred "8", glued to its background: read "18"
    img = load_image(shared_data / "hit_uav_thermal" / "images" / "1_130_30_0_03841.jpg")
    style = region_style((255, 0, 128), 5, "inside_center", "{id}", 0.6162214987913325, "dejavu_sans", True)
    layout = [(13, [88, 152, 155, 242]), (20, [170, 10, 275, 108]), (5, [335, 66, 456, 188]),
              (17, [151, 52, 308, 163]), (1, [48, 8, 161, 118]), (2, [194, 240, 365, 355]), (8, [27, 26, 98, 164]),
              (16, [253, 144, 404, 267]), (3, [321, 60, 377, 157])]
    assert 8 not in missed_ids(img, style, layout, 61)


def test_a_stroke_label_in_the_corner_is_not_read_with_its_own_left_side(shared_data):
    # box 9's "9" drawn inside its top-left corner: its blob starts on the box's left side, read "19"
    img = load_image(shared_data / "deepforest_neon" / "SOAP_061.png")
    style = region_style((0, 0, 255), 3, "inside_top_left", "{id}", 0.8581438484307267, "dejavu_sans", False)
    layout = [(2, [183, 11, 270, 49]), (10, [302, 165, 370, 233]), (9, [192, 231, 277, 348]),
              (3, [182, 123, 291, 234]), (15, [325, 284, 394, 336]), (16, [97, 54, 203, 113])]
    assert 9 not in missed_ids(img, style, layout, 63)
