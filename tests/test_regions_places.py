"""Unlabeled boxes: their labels are read off the picture where the image's read labels sit
(tools.regions._label_by_siblings). Ground truth: the label boxes and ids tools.draw placed."""

from __future__ import annotations

import numpy as np

from tools.common import jpeg_roundtrip, load_image
from tools.draw import RegionStyle, draw_regions, label_box
from tools.regions import Region, _label_by_siblings, iou, read_regions


def _overlay(shared_data, positions: list[str]):
    """Three boxes with filled labels on a real orthophoto (JPEG q85): image, ids, boxes, label boxes."""
    img = load_image(shared_data / "deepforest_neon" / "SOAP_061.png")
    boxes = [[30.0, 60.0, 150.0, 170.0], [200.0, 60.0, 330.0, 180.0], [60.0, 240.0, 220.0, 360.0]]
    ids = [6, 14, 9]
    styles = [RegionStyle(color=(255, 0, 255), line_width=3, label_format="{id}", label_position=p,
                          font_scale=0.8, label_background=True, label_color=(255, 255, 255), font="dejavu_sans")
              for p in positions]
    drawn = jpeg_roundtrip(draw_regions(img, list(zip(ids, boxes)), styles), 85)
    size = (drawn.shape[1], drawn.shape[0])
    labels = [label_box(b, str(i), st, size) for i, b, st in zip(ids, boxes, styles)]
    return drawn, ids, boxes, labels


def _regions(ids, boxes, labels, unread: int) -> list[Region]:
    return [Region(-1, b, "", 0.0) if k == unread else Region(i, b, str(i), 0.99, True, lb)
            for k, (i, b, lb) in enumerate(zip(ids, boxes, labels))]


def test_an_unread_label_is_read_where_the_other_labels_sit(shared_data):
    drawn, ids, boxes, labels = _overlay(shared_data, ["above"] * 3)
    regions = _label_by_siblings(drawn, _regions(ids, boxes, labels, unread=2), None, set())
    assert regions[2].id == 9


def test_an_id_held_contested_or_ruled_out_is_not_taken(shared_data):
    drawn, ids, boxes, labels = _overlay(shared_data, ["above"] * 3)
    assert _label_by_siblings(drawn, _regions(ids, boxes, labels, unread=2), None, {9})[2].id == -1
    assert _label_by_siblings(drawn, _regions(ids, boxes, labels, unread=2), {6, 14}, set())[2].id == -1
    blank = np.full_like(drawn, 128)        # nothing drawn where the label goes: nothing is read
    assert _label_by_siblings(blank, _regions(ids, boxes, labels, unread=2), None, set())[2].id == -1


def test_rectangles_closed_inside_a_wide_label_background_are_no_boxes(shared_data):
    """"Region N" on a filled background left of its box: the letters and the background's edges close small
    rectangles (the background, cut by them, no longer looks filled); only the three drawn boxes come back."""
    img = load_image(shared_data / "hit_uav_thermal" / "images" / "0_100_60_0_08194.jpg")
    boxes = [[190.0, 93.0, 288.0, 218.0], [232.0, 421.0, 306.0, 489.0], [267.0, 228.0, 394.0, 311.0]]
    ids = [10, 11, 4]
    style = RegionStyle(color=(0, 200, 100), line_width=3, label_format="Region {id}", label_position="outside_left",
                        font_scale=1.067, label_background=True, label_color=(255, 255, 255), font="hershey_duplex")
    drawn = jpeg_roundtrip(draw_regions(img, list(zip(ids, boxes)), [style] * 3), 86)
    found = read_regions(drawn, include_unlabeled=True)
    assert sorted(r.id for r in found) == sorted(ids)
    for r in found:
        assert iou(r.bbox, boxes[ids.index(r.id)]) >= 0.9
