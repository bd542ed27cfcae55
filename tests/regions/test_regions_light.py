"""Behaviour of the region reader on light outlines: thin (2 px) white or light grey boxes with their ids as bare
text ("3", "R5") beside a corner, on textured pictures that hold white of their own (twigs, a pale road). Such
outlines have no hue for the colour-level pass; the thin-line finder takes them by their line profile, and their
labels by how much brighter than the picture under them they are. (Pale yellow or light cyan ones keep enough hue
to be read as coloured outlines.)

Ground truth is the drawing's own geometry: boxes are the outer edges of the drawn lines (inclusive px), drawn as
filled strips; the drawing is saved as JPEG as published overlays are.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.regions.test_regions_thin import Box, assert_read, outline

FONT = cv2.FONT_HERSHEY_DUPLEX
WHITE, LIGHT_GREY = (255, 255, 255), (205, 205, 205)
BLACK = (0, 0, 0)


def foliage(width: int = 960, height: int = 540, seed: int = 0) -> np.ndarray:
    """A busy green texture like tree crowns seen from above, with white of its own: short bright twigs in every
    direction and a pale grey road band across it."""
    rng = np.random.default_rng(seed)
    noise = cv2.GaussianBlur(rng.normal(0, 45, (height, width, 3)).astype(np.float32), (0, 0), 2)
    img = np.clip(np.array([70, 110, 50], np.float32) + noise * np.array([0.8, 1.0, 0.7]), 0, 255).astype(np.uint8)
    for _ in range(160):   # twigs: 1-2 px pale strokes 8-30 px long
        x, y = int(rng.integers(0, width)), int(rng.integers(0, height))
        angle, length = rng.uniform(0, np.pi), rng.uniform(8, 30)
        end = (int(x + length * np.cos(angle)), int(y + length * np.sin(angle)))
        grey = int(rng.integers(190, 250))
        cv2.line(img, (x, y), end, (grey, grey, grey - 10), int(rng.integers(1, 3)), cv2.LINE_AA)
    road = int(0.8 * width)
    img[:, road:road + 50] = np.clip(img[:, road:road + 50] // 4 + 150, 0, 255)
    return img


def thermal(width: int = 640, height: int = 512, seed: int = 0) -> np.ndarray:
    """A grey thermal-like frame: smooth mid-grey ground with dark people-sized blobs and a few hot white ones."""
    rng = np.random.default_rng(seed)
    ground = cv2.GaussianBlur(rng.normal(0, 25, (height, width)).astype(np.float32), (0, 0), 6) + 140
    img = np.clip(ground, 0, 255).astype(np.uint8)
    for _ in range(30):
        c = (int(rng.integers(0, width)), int(rng.integers(0, height)))
        cv2.ellipse(img, c, (4, 9), float(rng.uniform(0, 180)), 0, 360, int(rng.choice([40, 235])), -1, cv2.LINE_AA)
    return cv2.cvtColor(img, cv2.COLOR_GRAY2RGB)


def label(img: np.ndarray, box: Box, text: str, colour, place: str, halo: bool = False, scale: float = 0.6) -> None:
    """``text`` in ``colour`` (bold, 2 px strokes) beside ``box``: "right" of its top-right corner, "left" of its
    top-left corner, or "above" its top-left corner; ``halo``: a dark outline drawn round the letters."""
    (w, h), _ = cv2.getTextSize(text, FONT, scale, 2)
    org = {"right": (box[2] + 5, box[1] + h), "left": (box[0] - w - 5, box[1] + h),
           "above": (box[0], box[1] - 5)}[place]
    if halo:
        cv2.putText(img, text, org, FONT, scale, BLACK, 4, cv2.LINE_AA)
    cv2.putText(img, text, org, FONT, scale, colour, 2, cv2.LINE_AA)


def draw(img: np.ndarray, boxes: dict[int, Box], colour, place: str, prefix: str = "", halo: bool = False) -> None:
    """Each box outlined 2 px thick in ``colour`` with its id (after ``prefix``) at ``place``."""
    for rid, box in boxes.items():
        outline(img, box, colour, 2)
        label(img, box, f"{prefix}{rid}", colour, place, halo)



BOXES = {0: (150, 110, 290, 210), 3: (420, 260, 520, 390), 6: (640, 90, 730, 170), 2: (200, 330, 330, 430)}


@pytest.mark.parametrize("colour", [WHITE, LIGHT_GREY])
def test_neutral_light_boxes_with_digits_right_of_the_top_right_corner(colour):
    img = foliage(seed=1)
    draw(img, BOXES, colour, "right")
    assert_read(img, BOXES)


def test_white_boxes_with_prefixed_labels_left_of_the_top_left_corner():
    """"R5"-style labels: the letter is no part of the id."""
    img = foliage(seed=2)
    boxes = {5: (200, 120, 320, 230), 1: (480, 300, 600, 420), 12: (650, 100, 740, 200)}
    draw(img, boxes, WHITE, "left", prefix="R")
    assert_read(img, boxes)


def test_white_boxes_labelled_above_beside_the_pictures_white_twigs():
    """Twigs lie inside and around the boxes but touch no label (a twig glued to a digit changes it: a "0" with a
    stroke on its left reads "6" to any reader)."""
    img = foliage(seed=4)
    draw(img, BOXES, WHITE, "above")
    assert_read(img, BOXES)


def test_white_boxes_on_a_grey_thermal_frame_with_haloed_labels():
    """White 2 px boxes on a grey frame, white digits outlined in black (the usual way to keep white text legible),
    at the frame's small label size."""
    img = thermal(seed=4)
    boxes = {0: (190, 70, 258, 156), 4: (345, 322, 425, 409), 1: (24, 357, 106, 434), 2: (226, 217, 284, 286)}
    draw(img, boxes, WHITE, "right", prefix="", halo=True)
    assert_read(img, boxes)


def test_labels_where_all_boxes_have_one_beat_white_strokes_nearer_some_boxes():
    """Two boxes have a white stroke of the picture (a twig, as tall as a digit) just left of their top-left
    corners, nearer to the corner than their own labels right of the top-right corner: labels are drawn alike, at
    the place where every box has one."""
    img = foliage(seed=5)
    draw(img, BOXES, WHITE, "right")
    for rid in (0, 3):
        x1, y1 = BOXES[rid][:2]
        cv2.line(img, (x1 - 5, y1 + 1), (x1 - 5, y1 + 13), (235, 235, 230), 2)
    assert_read(img, BOXES)


def test_a_white_stroke_beside_a_label_off_its_row_is_no_letter():
    """A white stroke of the picture (a twig) runs down-right from just beside two labels, close enough to join
    their ink: the label is read by its row of letters (a stroke touching a letter stays part of it: no random
    twig of this picture touches a label)."""
    img = foliage(seed=10)
    draw(img, BOXES, WHITE, "right")
    for rid in (0, 6):
        x2, y1 = BOXES[rid][2], BOXES[rid][1]
        (w, h), _ = cv2.getTextSize(str(rid), FONT, 0.6, 2)
        start = (x2 + 5 + w + 4, y1 + h // 2)
        cv2.line(img, start, (start[0] + 14, start[1] + 18), (235, 235, 230), 2, cv2.LINE_AA)
    assert_read(img, BOXES)
