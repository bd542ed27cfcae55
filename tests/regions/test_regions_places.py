"""Unlabeled boxes: their labels are read off the picture where the image's read labels sit
(tools.regions.places.label_by_siblings). Ground truth: the label boxes and ids benchmarks.synth.overlay placed."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np

import tools.regions.places as places_module
from overlay_drawings import missed_ids, reads_exactly, region_style
from overlay_drawings import drawn_overlay as _drawn
from tools.common import jpeg_roundtrip, load_image
from benchmarks.synth.overlay import RegionStyle, draw_regions, label_box
from tools.regions.pipeline import DET_THICK, SIBLING_SURE, Region, iou, read_regions
from tools.regions.geom import INSIDE_TOP_LEFT, LEFT
from tools.regions.places import _widest_read, label_by_siblings


def drawn_overlay(shared_data, positions: list[str]):
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


def _label_by_siblings(rgb, regions: list[Region], allowed, contested, unsure: float = 0.0) -> list[Region]:
    return label_by_siblings(rgb, regions, allowed, contested, DET_THICK, SIBLING_SURE, unsure)


def _regions(ids, boxes, labels, unread: int) -> list[Region]:
    return [Region(-1, b, "", 0.0) if k == unread else Region(i, b, str(i), 0.99, True, lb)
            for k, (i, b, lb) in enumerate(zip(ids, boxes, labels))]


def test_an_unread_label_is_read_where_the_other_labels_sit(shared_data):
    drawn, ids, boxes, labels = drawn_overlay(shared_data, ["above"] * 3)
    regions = _label_by_siblings(drawn, _regions(ids, boxes, labels, unread=2), None, set())
    assert regions[2].id == 9


def test_an_id_held_contested_or_ruled_out_is_not_taken(shared_data):
    drawn, ids, boxes, labels = drawn_overlay(shared_data, ["above"] * 3)
    assert _label_by_siblings(drawn, _regions(ids, boxes, labels, unread=2), None, {9})[2].id == -1
    assert _label_by_siblings(drawn, _regions(ids, boxes, labels, unread=2), {6, 14}, set())[2].id == -1
    blank = np.full_like(drawn, 128)        # nothing drawn where the label goes: nothing is read
    assert _label_by_siblings(blank, _regions(ids, boxes, labels, unread=2), None, set())[2].id == -1


def test_an_unsure_read_is_read_again_where_the_other_labels_sit_and_the_surer_read_stands(shared_data):
    from tools.regions.pipeline import UNSURE_READ

    drawn, ids, boxes, labels = drawn_overlay(shared_data, ["above"] * 3)
    unsure = _regions(ids, boxes, labels, unread=-1)
    unsure[2].relabel(19, "19", UNSURE_READ - 0.2, labels[2])          # a misread, unsure: read again as the 9 drawn
    assert _label_by_siblings(drawn, unsure, None, set(), UNSURE_READ)[2].id == 9
    sure = _regions(ids, boxes, labels, unread=-1)
    sure[2].relabel(19, "19", UNSURE_READ, labels[2])                  # sure enough: left as it is
    assert _label_by_siblings(drawn, sure, None, set(), UNSURE_READ)[2].id == 19
    blank = np.full_like(drawn, 128)        # nothing drawn where the label goes: the unsure read stays
    unsure[2].relabel(19, "19", UNSURE_READ - 0.2, labels[2])
    assert _label_by_siblings(blank, unsure, None, set(), UNSURE_READ)[2].id == 19
    # the unsure box holds the unread box's id: the unread box gets it once the unsure one reads its own, 9
    swapped = _regions(ids, boxes, labels, unread=1)
    swapped[2].relabel(14, "14", UNSURE_READ - 0.2, labels[2])
    assert [r.id for r in _label_by_siblings(drawn, swapped, None, set(), UNSURE_READ)] == ids
    # an unsure box whose own label place shows nothing keeps its id, and no other box takes it meanwhile
    hidden = drawn.copy()
    x1, y1, x2, y2 = labels[2]
    hidden[y1 - 4:y2 + 4, x1 - 4:x2 + 4] = 128
    kept = _regions(ids, boxes, labels, unread=1)
    kept[2].relabel(14, "14", UNSURE_READ - 0.2, labels[2])
    assert [r.id for r in _label_by_siblings(hidden, kept, None, set(), UNSURE_READ)] == [6, -1, 14]


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


def _read_one(shared_data, box: list[float], rid: int, style: RegionStyle, quality: int) -> list[Region]:
    img = load_image(shared_data / "deepforest_neon" / "SOAP_061.png")
    return read_regions(jpeg_roundtrip(draw_regions(img, [(rid, box)], [style]), quality), include_unlabeled=True)


def test_a_label_wider_than_its_box_is_read_across_the_side_it_crosses(shared_data):
    """"14" inside a 25 px box: its "4" lies on the box's right side, which is erased with the letters under it."""
    style = RegionStyle(color=(128, 0, 255), line_width=4, label_format="{id}", label_position="inside_top_left",
                        font_scale=0.66, label_background=False, label_color=(128, 0, 255), font="dejavu_sans")
    found = _read_one(shared_data, [101.0, 96.0, 126.0, 124.0], 14, style, 69)
    assert [r.id for r in found] == [14]


def test_a_box_side_beside_a_label_is_not_read_as_one_more_digit(shared_data):
    """A "9" centred in a small box: read past the box's right side, the side itself looks like a final "1"."""
    style = RegionStyle(color=(0, 200, 100), line_width=2, label_format="{id}", label_position="inside_center",
                        font_scale=0.98, label_background=False, label_color=(0, 200, 100), font="dejavu_sans")
    found = _read_one(shared_data, [275.0, 335.0, 307.0, 368.0], 9, style, 67)
    assert [r.id for r in found] == [9]


def test_a_label_that_does_not_fit_above_is_looked_for_inside_the_box(shared_data):
    """Renderers draw a label that would leave the image inside the box's top-left corner instead (benchmarks.synth.overlay,
    ultralytics); the unread box at the top edge is read there though its siblings' labels sit above theirs."""
    img = load_image(shared_data / "deepforest_neon" / "SOAP_061.png")
    boxes = [[30.0, 150.0, 150.0, 260.0], [200.0, 160.0, 330.0, 280.0], [120.0, 6.0, 260.0, 110.0]]
    ids = [6, 14, 9]
    style = RegionStyle(color=(255, 0, 255), line_width=3, label_format="{id}", label_position="above",
                        font_scale=0.8, label_background=False, label_color=(255, 0, 255), font="dejavu_sans")
    drawn = jpeg_roundtrip(draw_regions(img, list(zip(ids, boxes)), [style] * 3), 85)
    size = (drawn.shape[1], drawn.shape[0])
    labels = [label_box(b, str(i), style, size) for i, b in zip(ids, boxes)]
    assert labels[2][1] > boxes[2][1]   # drawn inside
    regions = _label_by_siblings(drawn, _regions(ids, boxes, labels, unread=2), None, set())
    assert regions[2].id == 9


def _read_drawn(path, regions: list[tuple[int, list[float]]], style: RegionStyle, quality: int) -> list[Region]:
    drawn = jpeg_roundtrip(draw_regions(load_image(path), regions, [style] * len(regions)), quality)
    return read_regions(drawn, include_unlabeled=True)


def test_a_box_narrower_than_the_label_background_above_it_ends_at_the_label(shared_data):
    """The background covers both sides where they meet it: the box is not found reaching up to the label's top."""
    box = [330.0, 86.0, 369.0, 192.0]
    style = RegionStyle(color=(255, 0, 255), line_width=3, label_format="Region {id}", label_position="above",
                        font_scale=0.56, label_background=True, label_color=(255, 255, 255), font="hershey_simplex")
    found = _read_drawn(shared_data / "deepforest_neon" / "OSBS_029.png", [(7, box)], style, 68)
    assert [r.id for r in found] == [7] and iou(found[0].bbox, box) >= 0.9


def test_a_filled_label_left_of_a_box_as_tall_as_it_does_not_widen_the_box(shared_data):
    """"6" filled, left of a 25 px tall box and glued to its left side, sticks out only ~3 px: its text sits a line
    width nearer its left edge, so the box does not reach out to the label's left edge (seed 11 overlay 40)."""
    boxes = [[233.0, 268.0, 320.0, 351.0], [266.0, 43.0, 335.0, 68.0], [261.0, 163.0, 336.0, 255.0],
             [242.0, 81.0, 326.0, 198.0]]
    style = RegionStyle(color=(0, 200, 100), line_width=3, label_format="{id}", label_position="outside_left",
                        font_scale=0.801161540977684, label_background=True, label_color=(255, 255, 255),
                        font="hershey_simplex")
    found = _read_drawn(shared_data / "deepforest_neon" / "SOAP_061.png", list(zip([5, 6, 11, 18], boxes)), style, 85)
    assert any(r.id == 6 and iou(r.bbox, boxes[1]) >= 0.9 for r in found)


def test_a_stroke_label_inside_a_narrower_box_leaves_its_top_side_alone(shared_data):
    """"Region N" in bold strokes inside the top-left corner, wider than the box: the top side is the box's."""
    boxes = [[232.0, 90.0, 314.0, 134.0], [248.0, 202.0, 337.0, 261.0], [107.0, 354.0, 190.0, 404.0]]
    style = RegionStyle(color=(0, 255, 255), line_width=3, label_format="Region {id}",
                        label_position="inside_top_left", font_scale=0.85, label_background=False,
                        label_color=(0, 255, 255), font="dejavu_sans_bold")
    found = _read_drawn(shared_data / "hit_uav_thermal" / "images" / "1_130_90_0_07333.jpg",
                        list(zip([10, 19, 14], boxes)), style, 93)
    for rid, box in zip([10, 19, 14], boxes):
        assert any(r.id == rid and iou(r.bbox, box) >= 0.9 for r in found)


def _number_style(color: tuple[int, int, int], position: str, filled: bool) -> RegionStyle:
    """Bare-number labels, 3 px outlines: on a filled background in white text, or in strokes of the colour."""
    return RegionStyle(color=color, line_width=3, label_format="{id}", label_position=position, font_scale=0.8,
                       label_background=filled, label_color=(255, 255, 255) if filled else color, font="dejavu_sans")


def _four(img: np.ndarray, boxes: list[list[float]], ids: list[int], styles: list[RegionStyle]):
    """Four regions drawn on ``img`` (JPEG q85): image, labels read surely where drawn (Regions), label boxes."""
    drawn = jpeg_roundtrip(draw_regions(img, list(zip(ids, boxes)), styles), 85)
    size = (drawn.shape[1], drawn.shape[0])
    labels = [label_box(b, str(i), st, size) for i, b, st in zip(ids, boxes, styles)]
    return drawn, _regions(ids, boxes, labels, unread=-1), labels


def test_a_label_read_at_an_odd_place_is_read_again_where_the_others_sit(shared_data):
    """Four labels above their boxes; one box took a sure "1" from a bar beside it (another box's side): its label
    is read again above it, and that read names the box. A box whose label really sits elsewhere keeps its read."""
    img = load_image(shared_data / "deepforest_neon" / "SOAP_061.png")
    boxes = [[30.0, 60.0, 150.0, 170.0], [200.0, 60.0, 330.0, 180.0], [60.0, 240.0, 180.0, 350.0],
             [250.0, 250.0, 370.0, 370.0]]
    ids = [6, 14, 9, 17]
    style = _number_style((255, 0, 255), "above", filled=True)
    drawn, regions, _ = _four(img, boxes, ids, [style] * 4)
    bar = [int(boxes[3][0]) - 8, int(boxes[3][1]), int(boxes[3][0]) - 3, int(boxes[3][3])]   # left of box 17
    regions[3].relabel(1, "1", 0.99, bar)
    assert [r.id for r in _label_by_siblings(drawn, regions, None, set(), 0.9)] == ids
    # drawn left of its box (nothing above it): the read there stands
    left = dataclasses.replace(style, label_position="outside_left")
    drawn, regions, labels = _four(img, boxes, ids, [style] * 3 + [left])
    assert [r.id for r in _label_by_siblings(drawn, regions, None, set(), 0.9)] == ids
    assert regions[3].label_box == labels[3]


def test_a_label_moved_inside_because_it_does_not_fit_is_not_read_again(shared_data):
    """Labels below their boxes; the bottom box's label would leave the image, so it is drawn inside the box's
    top-left corner (benchmarks.synth.overlay): that is where it belongs, and its read stands, though a number painted in the
    scene lies where the usual place, kept inside the image, is read."""
    img = load_image(shared_data / "deepforest_neon" / "SOAP_061.png").copy()
    cv2.putText(img, "5", (254, 397), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 255, 255), 2, cv2.LINE_AA)
    boxes = [[30.0, 40.0, 150.0, 150.0], [200.0, 40.0, 330.0, 160.0], [60.0, 200.0, 180.0, 300.0],
             [250.0, 320.0, 320.0, 380.0]]
    ids = [6, 14, 9, 3]
    style = _number_style((0, 255, 0), "below", filled=False)
    drawn, regions, labels = _four(img, boxes, ids, [style] * 4)
    assert labels[3][1] > boxes[3][1]   # drawn inside
    assert [r.id for r in _label_by_siblings(drawn, regions, None, set(), 0.9)] == ids
    assert regions[3].label_box == labels[3]


def test_a_label_inside_another_box_goes_to_the_box_it_sits_above(shared_data):
    """All labels above their boxes; box 5's label lies inside box 10, about as near box 10's centre as it is to
    its own box's top: the image's labels all sit above their boxes, so it is box 5's (a dev overlay's layout)."""
    regions = [(9, [141.0, 148.0, 323.0, 227.0]), (10, [263.0, 108.0, 360.0, 248.0]),
               (16, [169.0, 375.0, 325.0, 412.0]), (19, [141.0, 42.0, 273.0, 117.0]),
               (5, [292.0, 209.0, 334.0, 264.0]), (7, [228.0, 352.0, 348.0, 385.0]), (20, [342.0, 6.0, 496.0, 105.0])]
    style = RegionStyle(color=(0, 255, 255), line_width=4, label_format="{id}", label_position="above",
                        font_scale=0.99, label_background=False, label_color=(0, 255, 255), font="hershey_simplex")
    found = _read_drawn(shared_data / "hit_uav_thermal" / "images" / "0_130_30_0_05549.jpg", regions, style, 76)
    assert any(r.id == 5 and iou(r.bbox, regions[4][1]) >= 0.9 for r in found), found


def test_a_label_left_of_its_box_is_read_in_a_window_its_width(shared_data):
    # a one-digit "8" left of its box, whose siblings read "11" and "14": the window sized for three digits
    # reaches past the label onto box 14's bottom line and reads no number; the narrower windows, ending at the
    # box as the label does, read it (dev draw of the overlay benchmark, seed 71)
    img = load_image(shared_data / "open3d-vqa" / "images" / "rgb_4.png")
    style = region_style((255, 0, 0), 5, "outside_left", "{id}", 0.5737, "dejavu_sans_bold", True)
    layout = [(14, [79.0, 81.0, 235.0, 132.0]), (11, [355.0, 275.0, 423.0, 361.0]), (8, [201.0, 122.0, 372.0, 258.0])]
    assert missed_ids(img, style, layout, 70) == []


def test_the_widest_window_that_reads_a_number_stands():
    a, b = Region(-1, [100, 0, 200, 50]), Region(-1, [300, 0, 400, 50])
    jobs = [(a, (40, 0, 98, 20)), (a, (60, 0, 98, 20)), (a, (80, 0, 98, 20)), (a, (102, 2, 160, 22)),
            (b, (240, 0, 298, 20)), (b, (260, 0, 298, 20))]
    places = [LEFT, LEFT, LEFT, INSIDE_TOP_LEFT, LEFT, LEFT]
    reads = [(None, "", 0.9), (8, "8", 0.95), (3, "3", 0.99), (5, "5", 0.7), (12, "12", 0.8), (2, "2", 0.99)]
    # a: the widest window reads nothing, the next one "8": the narrowest read goes, the read at its other place
    # stays; b: the widest read stands
    assert _widest_read(jobs, places, reads) == [(None, "", 0.0), (8, "8", 0.95), (None, "", 0.0), (5, "5", 0.7),
                                                 (12, "12", 0.8), (None, "", 0.0)]


def test_a_box_with_its_filled_label_glued_above_hands_the_label_to_the_box(shared_data):
    # "18" above box 18 is as wide as the box: box and label closed one rectangle, which took the label, beside
    # the box itself, left unlabeled; the rectangle is the box and its label
    img = load_image(shared_data / "deepforest_neon" / "SOAP_061.png")
    style = region_style((255, 0, 255), 2, "above", "{id}", 1.0117710182202742, "hershey_duplex", True)
    layout = [(10, [66.0, 346.0, 165.0, 373.0]), (18, [338.0, 97.0, 379.0, 185.0]), (7, [242.0, 227.0, 322.0, 343.0])]
    assert missed_ids(img, style, layout, 94) == []


def test_a_piece_cut_out_of_crossing_boxes_hands_its_label_to_the_box_holding_it(shared_data):
    # box 10 crosses box 4 near its top-left corner: the piece their lines close there took box 4's label "4"
    img = load_image(shared_data / "open3d-vqa" / "images" / "rgb_10.png")
    style = region_style((0, 200, 100), 2, "above", "{id}", 1.0795152034692315, "hershey_simplex", True)
    layout = [(13, [56.0, 104.0, 225.0, 151.0]), (17, [220.0, 290.0, 345.0, 363.0]), (4, [104.0, 216.0, 241.0, 309.0]),
              (10, [29.0, 194.0, 185.0, 243.0])]
    assert 4 not in missed_ids(img, style, layout, 90)   # (box 10 is found cut at box 4's left side)


def test_a_letter_closed_into_a_box_reads_no_label_around_itself(shared_data):
    # the loop of a thick Hershey "9" above its box closes a small "box": the window where labels sit above it held
    # the whole "9" and named the letter, not the box below it
    img = load_image(shared_data / "open3d-vqa" / "images" / "rgb_6.png")
    box = [60.0, 374.0, 182.0, 469.0]
    layout = [(15, [320.0, 285.0, 450.0, 323.0], region_style((255, 128, 0), 3, "inside_top_left", "{id}", 0.6135579395310857,
                                                        "hershey_duplex", True, (0, 0, 0))),
              (9, box, region_style((0, 0, 255), 5, "above", "{id}", 1.0579330402732814, "hershey_simplex", False)),
              (2, [119.0, 430.0, 255.0, 474.0], region_style((255, 0, 128), 2, "inside_center", "{id}", 0.5961770861725841,
                                                       "dejavu_sans", True)),
              (17, [499.0, 111.0, 628.0, 164.0], region_style((255, 128, 0), 5, "below", "{id}", 0.6412954291236926,
                                                        "hershey_duplex", False)),
              (16, [159.0, 156.0, 296.0, 251.0], region_style((255, 0, 0), 4, "outside_left", "Region {id}",
                                                        0.685314720768341, "dejavu_sans_bold", False)),
              (1, [150.0, 170.0, 276.0, 225.0], region_style((255, 128, 0), 5, "inside_center", "{id}", 0.9838448550974266,
                                                       "dejavu_sans", True, (0, 0, 0)))]
    assert reads_exactly(_drawn(img, layout, 74), 9, box)


def test_a_label_whose_window_holds_another_boxs_line_is_read_in_a_narrower_one(shared_data, monkeypatch):
    # filled labels left of their boxes, 5 px lines: the window sized for the image's longest number holds another
    # box's line and reads no number
    img = load_image(shared_data / "hit_uav_thermal" / "images" / "0_130_30_0_05549.jpg")
    style = region_style((255, 128, 0), 5, "outside_left", "{id}", 0.5810107271291262, "hershey_simplex", True, (0, 0, 0))
    layout = [(3, [143.0, 95.0, 206.0, 164.0]), (5, [6.0, 139.0, 143.0, 199.0]), (9, [162.0, 109.0, 323.0, 171.0]),
              (6, [263.0, 366.0, 428.0, 475.0]), (14, [494.0, 290.0, 608.0, 415.0]), (17, [485.0, 243.0, 549.0, 364.0]),
              (15, [340.0, 347.0, 396.0, 435.0]), (12, [232.0, 214.0, 317.0, 357.0]), (1, [173.0, 199.0, 327.0, 258.0])]
    assert missed_ids(img, style, layout, 85) == []
    monkeypatch.setattr(places_module, "_narrower", lambda w, digit, longest: [w])
    assert missed_ids(img, style, layout, 85) != []


def test_a_label_centred_above_a_box_narrower_than_it_is_that_boxs_label():
    # "Region k" centred above each box (as some renderers draw it): over the narrow box the label starts far left
    # of the box's left side, so only a centred place puts it there
    rng = np.random.default_rng(4)
    img = cv2.resize(rng.integers(70, 160, (40, 60, 3)).astype(np.uint8), (640, 480), interpolation=cv2.INTER_LINEAR)
    boxes = {1: (60, 120, 200, 230), 2: (300, 100, 440, 260), 3: (520, 300, 536, 330), 4: (120, 330, 260, 420)}
    for rid, (x1, y1, x2, y2) in boxes.items():
        cv2.rectangle(img, (x1, y1), (x2, y2), (0, 220, 0), 2)
        (w, _), _ = cv2.getTextSize(f"Region {rid}", cv2.FONT_HERSHEY_SIMPLEX, 0.6, 2)
        cv2.putText(img, f"Region {rid}", ((x1 + x2 - w) // 2, y1 - 10), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 220, 0), 2,
                    cv2.LINE_AA)
    found = read_regions(jpeg_roundtrip(img, 85))
    assert sorted(r.id for r in found) == [1, 2, 3, 4]
    assert all(iou(r.bbox, boxes[r.id]) >= 0.9 for r in found)
