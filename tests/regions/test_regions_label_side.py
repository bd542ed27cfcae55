"""A filled label drawn inside its box's top-left corner, as tall as the box, merged with the box's left side
(tools.regions.lines._label_edges, _line_on_left). Ground truth: boxes benchmarks.synth.overlay outlined on a real aerial image,
in a layout where the reader found the box with its left side at the label's right edge on the overlay
benchmark's dev draws (its style)."""

from __future__ import annotations

import numpy as np

from overlay_drawings import BLACK, missed_ids, region_style
from tools.common import load_image
from tools.regions.lines import _line_on_left


def test_a_label_as_tall_as_its_box_inside_its_top_left_corner(shared_data):
    # "3" fills its box's height: the label, the box's left side and both its corners are one filled blob
    img = load_image(shared_data / "hit_uav_thermal" / "images" / "0_60_30_0_01609.jpg")
    style = region_style((255, 255, 0), 3, "inside_top_left", "{id}", 0.9329423255079288, "hershey_simplex", True, BLACK)
    layout = [(13, [302.0, 220.0, 453.0, 300.0]), (4, [178.0, 51.0, 360.0, 95.0]), (18, [20.0, 305.0, 181.0, 353.0]),
              (3, [112.0, 121.0, 216.0, 160.0])]
    assert missed_ids(img, style, layout, 95) == []


def test_line_on_left_needs_a_straight_left_edge_and_text_shifted_right():
    blob = np.ones((30, 40), bool)
    holes = np.zeros_like(blob)
    holes[8:22, 12:34] = True   # text 12 px from the left edge, 5 px from the right: a side merged on the left
    assert _line_on_left(blob & ~holes, holes)
    shifted = np.zeros_like(blob)
    shifted[8:22, 5:27] = True   # text closer to the left edge: a label glued outside a box's left side
    assert not _line_on_left(blob & ~shifted, shifted)
    ragged = blob & ~holes
    ragged[::2, :3] = False   # a letter's curve, not a straight line, on the left
    assert not _line_on_left(ragged, holes)
