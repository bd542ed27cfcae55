"""The one marked box of a photo among a reader's candidates (:mod:`tools.regions.marked`), on scenes drawn here:
a thin red outline on reddish ground texture, with scene structure of a near colour as the other candidates (a red
field patch, a field edge, a piece of ground at the image border), a piece cut off the outline itself, or no
candidate at all (a box the reader missed). The truth is where the outline was drawn."""

from __future__ import annotations

import warnings

import cv2
import numpy as np
import pytest
from photo_like import textured_photo

from tools.common import jpeg_roundtrip
from tools.regions.marked import MIN_EVIDENCE, marked_box
from tools.regions.marked_seeds import find_marked_box
from tools.regions.pipeline import iou

RED = (235, 45, 50)            # the drawn line, close in hue to the ground
GROUND = (130, 60, 70)         # reddish ground (a false-colour near-infrared field)
MARK = (400, 260, 480, 340)    # the drawn box at its line's centres, px
PATCH = (40, 40, 260, 300)     # a red field patch (filled, not outlined)
EDGE_X = 300                   # a field edge: brighter ground right of this column, above PATCH's bottom


def scene(seed: int, marks: tuple[tuple[int, int, int, int], ...] = (MARK,)) -> np.ndarray:
    img = textured_photo(480, 640, GROUND, 22.0, seed)
    img[:200, EDGE_X:] = np.clip(img[:200, EDGE_X:].astype(np.int16) + 45, 0, 255).astype(np.uint8)
    patch = textured_photo(PATCH[3] - PATCH[1], PATCH[2] - PATCH[0], (205, 45, 45), 6.0, seed + 1)
    img[PATCH[1]:PATCH[3], PATCH[0]:PATCH[2]] = patch
    for x1, y1, x2, y2 in marks:
        cv2.rectangle(img, (x1, y1), (x2, y2), RED, 3)
    return jpeg_roundtrip(img, 85)


STRUCTURE = [list(map(float, PATCH)), [EDGE_X - 2.0, 20.0, 380.0, 190.0], [520.0, 0.0, 580.0, 12.0]]


def test_the_thin_outline_is_chosen_over_scene_structure_of_a_near_colour():
    for seed in (1, 2, 3):
        img = scene(seed)
        found = marked_box(img, STRUCTURE + [[399.0, 259.0, 481.0, 341.0]])
        assert found.bbox is not None, (seed, found.reason)
        assert iou(found.bbox, MARK) >= 0.85, (seed, found.bbox)


def test_scene_structure_alone_is_no_marked_box():
    found = marked_box(scene(4, marks=()), STRUCTURE)
    assert found.bbox is None and "no drawn outline" in (found.reason or "")
    assert all(o.evidence < MIN_EVIDENCE for o in found.outlines)


def test_a_piece_of_the_outline_grows_back_to_the_box_it_was_cut_from():
    """The reader may return only the right side of a box (its left part taken for a label): the piece's own lines
    lead to the rest of the outline."""
    for seed in (5, 6):
        img = scene(seed)
        found = marked_box(img, [[465.0, 259.0, 481.0, 341.0], [520.0, 0.0, 580.0, 12.0]])
        assert found.bbox is not None, (seed, found.reason)
        assert iou(found.bbox, MARK) >= 0.85, (seed, found.bbox)


def test_two_outlines_drawn_alike_leave_the_marked_one_open():
    other = (120, 360, 200, 440)
    img = scene(7, marks=(MARK, other))
    found = marked_box(img, [list(map(float, MARK)), list(map(float, other))] + STRUCTURE)
    assert found.bbox is None and "two drawn outlines" in (found.reason or "")


# --- a box the reader missed: found along its own lines ---------------------------------------------------------
@pytest.mark.parametrize("line, side", [(3, 60), (6, 60), (2, 200), (4, 30)])
def test_a_box_the_reader_returned_nothing_for_is_found_along_its_lines(line, side):
    """Red lines on reddish ground: the reader's colour mask takes in the ground (here it is given no candidate at
    all); the straight thin pieces of the line's own colour lead to the box."""
    box = (450, 200, 450 + side, 200 + side)
    img = textured_photo(480, 760, GROUND, 22.0, 1)
    cv2.rectangle(img, box[:2], box[2:], RED, line)
    found = find_marked_box(jpeg_roundtrip(img, 90), [])
    assert found.bbox is not None, found.reason
    assert max(abs(f - b) for f, b in zip(found.bbox, box)) <= line, found.bbox   # each side on the drawn line


def test_ground_of_the_overlay_hue_alone_has_no_marked_box():
    for seed in (1, 2, 3):
        found = find_marked_box(jpeg_roundtrip(textured_photo(480, 760, GROUND, 22.0, seed), 90), [])
        assert found.bbox is None, (seed, found.bbox)


def test_candidates_off_the_image_or_without_area_are_no_marked_box():
    img = scene(8, marks=())
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # no empty-slice arithmetic on the way
        found = marked_box(img, [[1e6, 1e6, 1e6 + 5, 1e6 + 5], [-50.0, -50.0, -10.0, -10.0], [50.0, 50.0, 50.0, 90.0]])
    assert found.bbox is None and "no drawn outline" in (found.reason or "")


def test_a_white_outline_is_chosen_over_scene_structure():
    """A white line has no hue: its colour is the brightest of what runs along the box."""
    img = textured_photo(480, 640, GROUND, 22.0, 9)
    patch = textured_photo(PATCH[3] - PATCH[1], PATCH[2] - PATCH[0], (235, 230, 225), 6.0, 10)
    img[PATCH[1]:PATCH[3], PATCH[0]:PATCH[2]] = patch   # a white roof
    cv2.rectangle(img, MARK[:2], MARK[2:], (255, 255, 255), 3)
    found = marked_box(jpeg_roundtrip(img, 85), STRUCTURE + [[399.0, 259.0, 481.0, 341.0]])
    assert found.bbox is not None, found.reason
    assert iou(found.bbox, MARK) >= 0.85, found.bbox
