"""A stroke label's letter taken for a small box (tools.regions_places.letter_boxes). Ground truth: the boxes
tools.draw outlined on real aerial images, in layouts where the reader lost a region on the overlay benchmark's
dev draws (their styles)."""

from __future__ import annotations

import numpy as np

from tests.test_regions_hidden import _overlay, _read, _style
from tools.common import load_image
from tools.regions import Region
from tools.regions_places import letter_boxes


def test_a_stroke_zero_above_its_box_names_the_box(shared_data):
    # a thin "0" drawn above its box closes a small upright rectangle; its strokes were erased as that rectangle's
    # outline, and the rectangle took the label read there
    img = load_image(shared_data / "deepforest_neon" / "OSBS_029.png")
    style = _style((255, 255, 0), 5, "above", "{id}", 1.0289, "hershey_simplex", False)
    layout = [(10, [19.0, 128.0, 52.0, 159.0]), (20, [70.0, 336.0, 151.0, 389.0]), (17, [165.0, 12.0, 207.0, 128.0]),
              (0, [98.0, 59.0, 216.0, 94.0]), (1, [113.0, 271.0, 226.0, 342.0])]
    drawn = _overlay(img, [(rid, b, style) for rid, b in layout], 95)
    assert all(_read(drawn, rid, b) for rid, b in layout)


def test_a_small_box_keeps_the_label_drawn_above_it():
    # a small box whose label sits above it, not on its text line, is a box: it keeps its label
    small = Region(10, [19.0, 128.0, 52.0, 159.0], "10", 0.99, True, [25, 89, 61, 116])
    big = Region(-1, [60.0, 125.0, 200.0, 220.0], "", 0.0)
    out = letter_boxes(np.zeros((300, 300, 3), np.uint8), [small, big], None, 3.0, 0.3)
    assert [(r.id, r.bbox) for r in out] == [(10, small.bbox), (-1, big.bbox)]
