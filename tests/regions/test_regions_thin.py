"""Behaviour of the region reader on minimal drawings in the styles other renderers use (one per style and per hard
case): thin boxes with "Region k" in the box colour above them (SpatialUAV), filled tags with white or black text
outside or inside the top-left corner, bare digits next to a corner (BEDI), Set-of-Mark numbers in a filled circle
at the centre, id 0, two-digit ids, touching and nested boxes, a box cut by the image border.

Ground truth is the drawing's own geometry: boxes are the outer edges of the drawn lines (inclusive px), drawn as
filled strips so that the edges are exact; the drawing is saved as JPEG as published overlays are.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tools.common import jpeg_roundtrip
from tools.regions.geom import pixel_iou
from tools.regions.pipeline import read_regions
from tools.regions.region import Region
from tools.regions.thin import Rect, find_thin_rects
from tools.regions.union import _outer_edge

FONT = cv2.FONT_HERSHEY_DUPLEX
RED, BLUE, MAGENTA, YELLOW, CYAN, ORANGE = (230, 20, 20), (30, 60, 255), (255, 0, 255), (255, 230, 0), (0, 230, 255), (255, 140, 0)
WHITE, BLACK = (255, 255, 255), (0, 0, 0)
Box = tuple[int, int, int, int]


def background(width: int = 960, height: int = 540, seed: int = 0) -> np.ndarray:
    """A muted aerial-like texture: smoothed noise around a brownish grey."""
    rng = np.random.default_rng(seed)
    noise = cv2.GaussianBlur(rng.normal(0, 40, (height, width, 3)).astype(np.float32), (0, 0), 3)
    base = np.array([120, 115, 100], np.float32)
    return np.clip(base + noise, 0, 255).astype(np.uint8)


def outline(img: np.ndarray, box: Box, colour: tuple[int, int, int], thick: int) -> None:
    """Draw a rectangle whose OUTER edge is ``box`` (inclusive px) with lines ``thick`` px wide."""
    x1, y1, x2, y2 = box
    for a, b, c, d in ((x1, y1, x2, y1 + thick - 1), (x1, y2 - thick + 1, x2, y2),
                       (x1, y1, x1 + thick - 1, y2), (x2 - thick + 1, y1, x2, y2)):
        cv2.rectangle(img, (a, b), (c, d), colour, -1)


def text_size(text: str, scale: float) -> tuple[int, int, int]:
    (w, h), base = cv2.getTextSize(text, FONT, scale, 1)
    return w, h, base


def text_above_centre(img: np.ndarray, box: Box, text: str, colour, scale: float = 0.6) -> None:
    """SpatialUAV: the label in the box colour, no fill, centred above the box."""
    w, h, _ = text_size(text, scale)
    cx = (box[0] + box[2]) // 2
    cv2.putText(img, text, (cx - w // 2, box[1] - 4), FONT, scale, colour, 1, cv2.LINE_AA)


def suav_boxes(img: np.ndarray, boxes: dict[int, Box], colours, thick: int, scale: float = 0.6) -> None:
    """Each box outlined in its colour with "Region k" centred above it (the SpatialUAV style)."""
    for (rid, box), colour in zip(boxes.items(), colours):
        outline(img, box, colour, thick)
        text_above_centre(img, box, f"Region {rid}", colour, scale)


def tag(img: np.ndarray, box: Box, text: str, colour, ink, inside: bool, scale: float = 0.6) -> None:
    """A filled tag of the box colour on its top-left corner (outside above it, or inside), text in ``ink``."""
    w, h, base = text_size(text, scale)
    pad = 3
    x1 = box[0]
    y1 = box[1] if inside else box[1] - (h + base + 2 * pad)
    cv2.rectangle(img, (x1, y1), (x1 + w + 2 * pad, y1 + h + base + 2 * pad - 1), colour, -1)
    cv2.putText(img, text, (x1 + pad, y1 + pad + h), FONT, scale, ink, 1, cv2.LINE_AA)


def digits_above_right(img: np.ndarray, box: Box, text: str, colour, scale: float = 0.55) -> None:
    """BEDI: bare digits in the box colour just above its top-right corner."""
    w, _, _ = text_size(text, scale)
    cv2.putText(img, text, (box[2] - w, box[1] - 4), FONT, scale, colour, 1, cv2.LINE_AA)


def marker(img: np.ndarray, box: Box, text: str, colour, ink, scale: float = 0.5) -> None:
    """Set-of-Mark: the number in a filled circle of the box colour at the box centre."""
    w, h, _ = text_size(text, scale)
    cx, cy = (box[0] + box[2]) // 2, (box[1] + box[3]) // 2
    cv2.circle(img, (cx, cy), max(w, h) // 2 + 6, colour, -1, cv2.LINE_AA)
    cv2.putText(img, text, (cx - w // 2, cy + h // 2), FONT, scale, ink, 1, cv2.LINE_AA)


def assert_read(img: np.ndarray, truth: dict[int, Box], quality: int = 80) -> None:
    """Every drawn region comes back with its id and IoU >= 0.9 (outer edges), and nothing else."""
    got = read_regions(jpeg_roundtrip(img, quality))
    by_id = {r.id: r.bbox for r in got}
    assert set(by_id) == set(truth), f"ids {sorted(by_id)} != {sorted(truth)}"
    for rid, box in truth.items():
        assert pixel_iou(by_id[rid], box) >= 0.9, f"region {rid}: {by_id[rid]} vs {box}"


def test_suav_text_above_thin_box_id_zero():
    img = background()
    boxes = {0: (200, 200, 330, 300), 4: (560, 150, 640, 260)}
    suav_boxes(img, boxes, (MAGENTA, CYAN), 2)
    assert_read(img, boxes)


def test_one_pixel_box_is_found_with_its_outer_edge():
    img = background()
    box = (300, 200, 420, 290)
    outline(img, box, YELLOW, 1)
    found = [r.box for r in find_thin_rects(jpeg_roundtrip(img, 70))]
    assert any(pixel_iou(f, box) >= 0.9 for f in found), found


@pytest.mark.parametrize("inside,ink", [(False, WHITE), (True, BLACK)])
def test_filled_tag_on_top_left_corner(inside, ink):
    img = background(seed=1)
    boxes = {3: (150, 120, 330, 260), 12: (520, 260, 700, 420)}
    for (rid, box), colour in zip(boxes.items(), (BLUE, ORANGE)):
        outline(img, box, colour, 2)
        tag(img, box, f"Region {rid}", colour, ink, inside)
    assert_read(img, boxes)


def test_bare_digits_above_right_corner():
    img = background(seed=2)
    boxes = {1: (100, 100, 220, 190), 7: (400, 300, 470, 380), 15: (700, 120, 820, 260)}
    for rid, box in boxes.items():
        outline(img, box, YELLOW, 1)
        digits_above_right(img, box, str(rid), YELLOW)
    assert_read(img, boxes)


def test_set_of_mark_circles_at_centre():
    img = background(seed=3)
    boxes = {2: (120, 140, 260, 280), 10: (500, 200, 700, 330)}
    for (rid, box), colour in zip(boxes.items(), (RED, CYAN)):
        outline(img, box, colour, 2)
        marker(img, box, str(rid), colour, WHITE if colour == RED else BLACK)
    assert_read(img, boxes)


def test_touching_boxes_of_one_colour_and_nested_boxes():
    img = background(seed=4)
    boxes = {5: (200, 200, 320, 320), 6: (319, 200, 440, 320), 8: (600, 150, 850, 400), 9: (660, 230, 740, 320)}
    suav_boxes(img, boxes, (MAGENTA, MAGENTA, YELLOW, ORANGE), 2, 0.5)
    assert_read(img, boxes)


@pytest.mark.xfail(reason="a side overdrawn by a touching box of another colour hides the first box's line; the "
                          "thin-line finder needs all four sides in the box's colour", strict=True)
def test_touching_boxes_of_two_colours():
    img = background(seed=4)
    boxes = {5: (200, 200, 320, 320), 6: (319, 200, 440, 320)}
    suav_boxes(img, boxes, (MAGENTA, CYAN), 2, 0.5)
    assert_read(img, boxes)


def test_box_cut_by_the_left_border():
    img = background(seed=5)
    drawn = (-60, 200, 120, 330)   # continues beyond the image; its truth is clipped to the image
    outline(img[:, :], (0, 200, 120, 330), CYAN, 2)
    img[201:329, 0:2] = background(seed=5)[201:329, 0:2]   # no left side: the box goes on outside
    text_above_centre(img, (drawn[0] + 60, drawn[1], drawn[2], drawn[3]), "Region 11", CYAN)
    assert_read(img, {11: (0, 200, 120, 330)})


def test_digits_on_ground_of_their_own_hue():
    """Yellow digits and 1 px boxes on sunlit grass: the ground shares the label's hue, the letters stand out of it."""
    img = background(seed=6)
    grass = np.clip(img.astype(np.int16) + np.array([-30, 0, -60]), 0, 255).astype(np.uint8)   # yellow-green
    boxes = {2: (300, 200, 400, 320), 4: (600, 300, 730, 370)}
    for rid, box in boxes.items():
        outline(grass, box, YELLOW, 1)
        digits_above_right(grass, box, str(rid), YELLOW)
    assert_read(grass, boxes, quality=75)


def test_thin_line_greyed_by_jpeg_on_pale_ground():
    """A 1 px yellow line on pale blue-grey ground keeps little saturation after JPEG's 4:2:0 chroma: still a box."""
    img = np.clip(background(seed=7).astype(np.int16) // 3 + np.array([120, 125, 150]), 0, 255).astype(np.uint8)
    boxes = [(250, 200, 380, 300), (600, 150, 700, 330)]
    for box in boxes:
        outline(img, box, YELLOW, 1)
    found = [r.box for r in find_thin_rects(jpeg_roundtrip(img, 70))]
    assert all(any(pixel_iou(f, box) >= 0.9 for f in found) for box in boxes), found


def test_narrow_box_under_a_wider_label():
    """"Region 2" is wider than its box and drawn just above it: the box's sides end at its top line, not in the
    letters (nor does the box swallow its label)."""
    img = background(seed=8)
    boxes = {2: (300, 250, 322, 290), 13: (600, 200, 625, 240)}
    suav_boxes(img, boxes, (YELLOW, MAGENTA), 1)
    assert_read(img, boxes)


def test_white_marker_on_pale_ground():
    # Set-of-Mark: a white circle with a black number at the centre of a thin box, on pale pavement: at the usual
    # white level the marker and the ground are one blob
    ground = background(480, 360, seed=0).astype(int) - 120
    img = np.clip(ground + np.array([222, 222, 218]), 0, 255).astype(np.uint8)
    box = (150, 100, 260, 210)
    outline(img, box, RED, 1)
    marker(img, box, "3", WHITE, BLACK)
    got = read_regions(jpeg_roundtrip(img, 80), outer_edges=True)
    assert any(r.id == 3 and pixel_iou([int(round(v)) for v in r.bbox], box) >= 0.9 for r in got), got


def test_a_labelled_box_a_pixel_outside_a_thin_outline_takes_the_outlines_outer_edge():
    rect = Rect((100, 50, 130, 80), (0.0, 200.0, 0.0), 1, (1.0, 1.0, 1.0, 1.0))
    fringe = Region(4, [99.0, 49.0, 129.5, 80.0], "4", 0.99)   # JPEG's fringe taken in on the left and top
    other = Region(5, [96.0, 46.0, 130.0, 80.0], "5", 0.99)    # a box 4 px out is another shape
    _outer_edge(rect, [fringe, other])
    assert fringe.bbox == [100.0, 50.0, 130.0, 80.0]
    assert other.bbox == [96.0, 46.0, 130.0, 80.0]


def test_a_thin_rectangle_ending_on_another_line_does_not_take_a_box_a_pixel_outside_it():
    # the thin finder followed the sides past the box's bottom to a straight edge of the picture 40 px lower: the
    # box, a pixel left of that rectangle (its left side at the image border), keeps its own bottom
    rect = Rect((1, 100, 300, 300), (0.0, 200.0, 0.0), 1, (1.0, 1.0, 1.0, 1.0))
    box = Region(6, [0.0, 100.0, 300.0, 260.0], "6", 0.99)
    _outer_edge(rect, [box])
    assert box.bbox == [0.0, 100.0, 300.0, 260.0]
