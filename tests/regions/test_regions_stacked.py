"""Two filled labels drawn one against the other, beside stacked or crossing boxes, read apart
(tools.regions.rows.stacked_rows, tools.regions.labels). Ground truth: the label boxes benchmarks.synth.overlay drew and the boxes
it outlined, on real aerial images."""

from __future__ import annotations

import numpy as np
import pytest

from overlay_drawings import missed_ids, drawn_overlay, reads_exactly, region_style
from tools.common import load_image
from benchmarks.synth.overlay import label_box
from tools.regions.colours import colour_layers
from tools.regions.geom import iou
from tools.regions.rows import stacked_rows

RED = (255, 0, 0)


def _label_mask(img: np.ndarray, layout, style) -> np.ndarray:
    """The colour mask of ``layout`` ([(id, box)]) drawn in ``style`` on ``img`` (JPEG quality 90)."""
    drawn = drawn_overlay(img, [(rid, box, style) for rid, box in layout], 90)
    (mask, _), = colour_layers(drawn)
    return mask


@pytest.mark.parametrize("font,scale", [("dejavu_sans_bold", 0.86), ("hershey_simplex", 0.7), ("dejavu_sans", 1.0)])
def test_two_filled_labels_one_above_the_other_are_split_between_them(shared_data, font, scale):
    img = load_image(shared_data / "open3d-vqa" / "images" / "rgb_5.png")
    style = region_style(RED, 2, "outside_left", "{id}", scale, font, True)
    size = (img.shape[1], img.shape[0])
    top = (5, [174.0, 115.0, 217.0, 197.0])
    a = label_box(top[1], "5", style, size)
    low = (12, [175.0, 115.0 + a[3] - a[1], 310.0, 243.0])   # its label starts where the first one ends
    b = label_box(low[1], "12", style, size)
    assert b[1] == a[3]
    mask = _label_mask(img, [top, low], style)
    blob = [min(a[0], b[0]), a[1], max(a[2], b[2]), b[3]]
    parts = stacked_rows(blob, mask)
    assert len(parts) == 2
    for part, drawn, other in zip(parts, (a, b), (b, a)):   # each part is about the label drawn there, and holds
        cx, cy = (part[0] + part[2]) / 2, (part[1] + part[3]) / 2   # its centre (the cut runs mid-gap)
        assert drawn[0] <= cx <= drawn[2] and drawn[1] <= cy <= drawn[3], (part, drawn)
        assert iou(part, drawn) >= 0.5 and iou(part, other) < 0.1, (part, drawn, other)


@pytest.mark.parametrize("text_id,fmt", [(8, "{id}"), (18, "Region {id}"), (20, "{id}")])
def test_a_filled_label_of_one_line_is_not_split(shared_data, text_id, fmt):
    img = load_image(shared_data / "open3d-vqa" / "images" / "rgb_5.png")
    style = region_style(RED, 3, "above", fmt, 0.9, "dejavu_sans", True)
    box = [200.0, 200.0, 400.0, 300.0]
    mask = _label_mask(img, [(text_id, box)], style)
    label = label_box(box, fmt.format(id=text_id), style, (img.shape[1], img.shape[0]))
    assert stacked_rows(list(label), mask) == [list(label)]


def test_stacked_filled_labels_in_a_benchmark_overlay_are_read_apart(shared_data):
    # unseen overlay 121:73: "5" left of its box sits on "2" left of the box below it; read as one label, "3"
    img = load_image(shared_data / "open3d-vqa" / "images" / "rgb_5.png")
    style = region_style(RED, 2, "outside_left", "{id}", 0.86080937895051, "dejavu_sans_bold", True)
    layout = [(10, [425, 241, 570, 336]), (7, [43, 264, 87, 372]), (13, [246, 7, 286, 80]), (4, [283, 337, 349, 376]),
              (5, [174, 115, 217, 197]), (2, [175, 141, 310, 243]), (20, [418, 97, 591, 228]),
              (1, [373, 262, 435, 359]), (6, [430, 48, 528, 177]), (19, [463, 101, 599, 217])]
    assert {5, 2}.isdisjoint(missed_ids(img, style, [(rid, [float(v) for v in box]) for rid, box in layout], 95))


BLACK = (0, 0, 0)


@pytest.mark.parametrize("picture,layout,style,quality", [
    # a box across the middle of another, each labelled left of it: "10" sits on "17", staggered (read "38")
    ("deepforest_neon/SOAP_061.png", [(10, [108.0, 164.0, 177.0, 238.0]), (17, [88.0, 188.0, 197.0, 213.0])],
     region_style((255, 128, 0), 5, "outside_left", "{id}", 0.8123, "dejavu_sans", True, BLACK), 75),
    # "10" sits on "5", which the crossing box's lines close a square of picture beside (read "89")
    ("hit_uav_thermal/images/0_130_30_0_05549.jpg", [(10, [252.0, 107.0, 368.0, 193.0]),
                                                     (5, [232.0, 135.0, 388.0, 163.0])],
     region_style((0, 255, 255), 4, "outside_left", "{id}", 1.0323, "dejavu_sans_bold", True, BLACK), 65),
])
def test_staggered_filled_labels_of_crossing_boxes_are_read_apart(shared_data, picture, layout, style, quality):
    assert missed_ids(load_image(shared_data / picture), style, layout, quality) == []


def test_stroke_text_whose_letters_hold_two_rows_of_holes_is_not_split(shared_data):
    # unseen overlay 171:56: "Region 3" in thick strokes, centred across a narrow box's sides; the counters of "R",
    # "e", "g", "o" and the loop of the "g" below them are two rows of holes as tall as each other, with letters, not
    # a solid background, between them (split, the "3" was read "0")
    img = load_image(shared_data / "hit_uav_thermal" / "images" / "0_130_90_0_09869.jpg")
    layout = [(6, [267, 279, 431, 363], region_style((0, 255, 0), 2, "above", "Region {id}", 0.6081, "hershey_duplex", False)),
              (19, [544, 358, 619, 437], region_style((128, 0, 255), 5, "outside_left", "{id}", 0.7524, "hershey_duplex", True)),
              (9, [120, 276, 306, 422], region_style((0, 255, 0), 2, "inside_center", "{id}", 0.7446, "dejavu_sans_bold", True)),
              (3, [405, 37, 477, 187], region_style((255, 255, 0), 5, "inside_center", "Region {id}", 0.8952, "dejavu_sans",
                                              False)),
              (17, [371, 240, 442, 347], region_style((255, 0, 128), 4, "above", "Region {id}", 0.9495, "hershey_simplex",
                                                True)),
              (15, [219, 334, 338, 444], region_style((0, 200, 100), 3, "below", "Region {id}", 0.6244, "dejavu_sans", False))]
    drawn = drawn_overlay(img, [(rid, [float(v) for v in box], st) for rid, box, st in layout], 70)
    assert reads_exactly(drawn, 3, [405.0, 37.0, 477.0, 187.0])


@pytest.mark.parametrize("text_id,font,scale", [(8, "dejavu_sans_bold", 1.2), (88, "dejavu_sans_bold", 1.0),
                                                (8, "hershey_duplex", 1.2), (18, "dejavu_sans", 1.2)])
def test_an_eight_written_in_strokes_is_not_split_between_its_loops(shared_data, text_id, font, scale):
    # the loops of an "8" are two rows of holes as tall as each other, its waist drawn across between them
    img = load_image(shared_data / "open3d-vqa" / "images" / "rgb_5.png")
    style = region_style((255, 0, 255), 3, "above", "{id}", scale, font, False)
    box = [200.0, 200.0, 400.0, 300.0]
    mask = _label_mask(img, [(text_id, box)], style)
    label = list(label_box(box, str(text_id), style, (img.shape[1], img.shape[0])))
    assert stacked_rows(label, mask) == [label]
