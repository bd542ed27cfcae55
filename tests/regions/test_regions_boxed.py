"""tools.regions.boxed: a small box inside its own stroke label (drawn in its top-left corner, larger than the box)
is found from the blob the two make, and the label read.

Ground truth is the geometry we draw (benchmarks.synth.overlay, cv2) on a real orthophoto of ../shared/data; never the output of
the code under test.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

import tools.regions.pipeline as regions_module
from benchmarks.region_overlays import nth_overlay, score
from tools.common import jpeg_roundtrip, load_image
from benchmarks.synth.overlay import RegionStyle, draw_regions
from tools.regions.pipeline import read_regions
from tools.regions.boxed import _box_at_corner

# three small boxes whose bold labels run across their right and bottom sides, and a large one
REGIONS = [(12, [262.0, 149.0, 289.0, 188.0]), (8, [100.0, 60.0, 125.0, 86.0]), (4, [300.0, 300.0, 324.0, 323.0]),
           (15, [60.0, 250.0, 200.0, 350.0])]
STYLE = RegionStyle(color=(255, 255, 0), line_width=2, label_format="{id}", label_position="inside_top_left",
                    font_scale=1.07, label_background=False, label_color=(255, 255, 0), font="dejavu_sans_bold")


@pytest.fixture(scope="module")
def overlay(shared_data) -> np.ndarray:
    img = load_image(shared_data / "deepforest_neon" / "OSBS_029.png")
    return jpeg_roundtrip(draw_regions(img, REGIONS, [STYLE] * len(REGIONS)), 85)


def test_small_boxes_inside_their_own_bold_labels_are_read(overlay, monkeypatch):
    assert score(read_regions(overlay), REGIONS) == (len(REGIONS), 0)
    # without the pass, the small boxes' lines, cut by the letters touching them, close no rectangle
    monkeypatch.setattr(regions_module, "boxed_labels", lambda *args: [])
    assert score(read_regions(overlay), REGIONS)[0] < len(REGIONS)


def test_small_boxes_inside_their_labels_are_read_where_their_colour_closes_no_other_box(shared_data):
    # only the three small boxes: the rectangle search finds no box of their colour at all
    img = load_image(shared_data / "deepforest_neon" / "OSBS_029.png")
    small = REGIONS[:3]
    overlay = jpeg_roundtrip(draw_regions(img, small, [STYLE] * len(small)), 85)
    assert score(read_regions(overlay), small) == (len(small), 0)


def _drawn(text: str, box: tuple[int, int, int, int], thick: int = 2) -> np.ndarray:
    mask = np.zeros((120, 160), np.uint8)
    cv2.rectangle(mask, box[:2], box[2:], 1, thick)
    cv2.putText(mask, text, (box[0] + 4, box[1] + 26), cv2.FONT_HERSHEY_DUPLEX, 1.0, 1, 3)
    return mask > 0


def test_the_box_starts_at_the_blobs_top_left_corner_and_ends_where_its_lines_do():
    box = (20, 30, 44, 58)
    mask = _drawn("17", box)
    ys, xs = np.nonzero(mask)
    blob = (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1)
    fit = _box_at_corner(mask, blob, 12.0)
    assert fit is not None
    found, letters = fit
    assert np.allclose(found, box, atol=1.0)
    cols = np.flatnonzero(letters.any(axis=0)) + blob[0]
    assert cols.min() > box[0] + 1 and cols.max() > box[2] + 5   # inside the left side; on past the right side


def test_an_empty_outline_is_no_box_inside_its_label():
    empty = np.zeros((120, 160), np.uint8)
    cv2.rectangle(empty, (20, 30), (60, 70), 1, 2)
    assert _box_at_corner(empty > 0, (19, 29, 62, 72), 12.0) is None


@pytest.mark.parametrize("fmt,font,size", [("Region {id}", "dejavu_sans_bold", 1.2), ("{id}", "hershey_duplex", 1.2)])
def test_a_filled_label_whose_box_is_not_drawn_is_no_box_where_labels_sit_above_their_boxes(shared_data, fmt, font,
                                                                                             size):
    # a filled label's padding looks like an outline around its letters; labels drawn above their boxes are no
    # boxes' insides
    img = load_image(shared_data / "deepforest_neon" / "OSBS_029.png")
    style = RegionStyle(color=(255, 0, 0), line_width=3, label_format=fmt, label_position="above", font_scale=size,
                        label_background=True, label_color=(255, 255, 255), font=font)
    regions = [(3, [40.0, 60.0, 160.0, 170.0]), (5, [220.0, 80.0, 360.0, 200.0]), (9, [60.0, 250.0, 200.0, 360.0])]
    drawn = draw_regions(img, regions, [style] * 3)
    x1, y1, x2, y2 = (int(v) for v in regions[2][1])
    erased = drawn.copy()   # box 9's outline erased, its label left
    erased[y1 - 1:y2 + 3, x1 - 3:x2 + 3] = img[y1 - 1:y2 + 3, x1 - 3:x2 + 3]
    found = read_regions(jpeg_roundtrip(erased, 90))
    assert all(r.id != 9 for r in found) and score(found, regions[:2])[0] == 2


@pytest.mark.parametrize("seed,k", [
    pytest.param(161, 33, marks=pytest.mark.xfail(strict=True, reason=(
        "box 7 (25 px, 2 px line) now takes the thin-outline pass's box, read 2 px off the generator's centre-line "
        "box (IoU < 0.9): the box-edge convention of thin lines is open (issue #49)"))),
    (141, 34)])
def test_a_small_box_nearly_filled_by_its_centred_stroke_label_is_read(seed, k, monkeypatch):
    # overlays of the region benchmark's generator (ground truth: the drawn layout): a bold "6" centred in a 35 px
    # box whose colour's other labels sit below their boxes (161:33), and "Region 20" centred in a box barely
    # larger (141:34). The letters touch the outline, so box and label make one blob that no found box takes
    inst, regions = nth_overlay(seed, k)
    assert score(read_regions(inst), regions) == (len(regions), 0)
    original = regions_module.boxed_labels
    monkeypatch.setattr(regions_module, "boxed_labels", lambda *args: [] if args[-1] is True else original(*args))
    assert score(read_regions(inst), regions)[0] < len(regions)


def test_all_round_padding_tells_a_box_around_centred_letters_from_a_filled_label():
    box = (20, 30, 70, 62)
    mask = np.zeros((120, 160), np.uint8)
    cv2.rectangle(mask, box[:2], box[2:], 1, 2)
    cv2.putText(mask, "17", (28, 56), cv2.FONT_HERSHEY_DUPLEX, 0.9, 1, 2)   # centred, clear of the outline
    ys, xs = np.nonzero(mask)
    blob = (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1)
    fit = _box_at_corner(mask > 0, blob, 12.0, all_round=True)
    assert fit is not None and np.allclose(fit[0], box, atol=1.0)
    # a filled label whose letters reach up to its top edge: background shows under its top "line" only
    filled = np.zeros((120, 160), np.uint8)
    cv2.rectangle(filled, box[:2], box[2:], 1, -1)
    filled[box[1] + 2:box[1] + 5, box[0] + 3:box[2] - 2] = 0
    blob = (box[0] - 1, box[1] - 1, box[2] + 2, box[3] + 2)
    assert _box_at_corner(filled > 0, blob, 12.0) is not None   # passes the top-left corner label's test
    assert _box_at_corner(filled > 0, blob, 12.0, all_round=True) is None
