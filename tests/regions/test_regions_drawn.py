"""tools.regions.pipeline on drawings made in the test: crossing, touching, stacked and border-cut boxes, labels read
two ways, letters that close rectangles, labels crossed by lines. Ground truth is the geometry drawn here."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from benchmarks.synth.overlay import RegionStyle, draw_regions, label_box
from tools.regions.pipeline import Region, read_regions
from tools.regions.lines import iou
from tools.regions.prune import _clean_corners, drop_glued_labels
from overlay_drawings import BOLD_STROKES, DATA, jpeg, recovered


def plain_ground(h: int = 480, w: int = 640, seed: int = 0) -> np.ndarray:
    """A smooth random grey ground (no overlay colours), deterministic."""
    rng = np.random.default_rng(seed)
    g = cv2.GaussianBlur(rng.integers(60, 190, (h, w)).astype(np.uint8), (7, 7), 0)
    return np.dstack([g, g, g])


@pytest.mark.parametrize("quality", [75, 90])
def test_a_box_crossed_by_same_colour_boxes_is_kept_whole(quality):
    """Three same-colour boxes whose lines cross: the piece of box 17 cut off by box 7's left side is no region."""
    style = RegionStyle(color=(255, 128, 0), line_width=5, label_format="{id}", label_position="inside_center",
                        font_scale=0.65, label_background=True, label_color=(0, 0, 0), font="hershey_duplex")
    regions = [(17, [183.0, 50.0, 369.0, 102.0]), (7, [353.0, 5.0, 478.0, 117.0]), (18, [259.0, 58.0, 418.0, 147.0])]
    found = read_regions(jpeg(draw_regions(plain_ground(), regions, style), quality))
    assert recovered(found, regions) == 3, found


def test_real_corners_are_told_from_crossings():
    """A drawn rectangle's lines end at its corners; a piece cut out of two crossing boxes has crossings there."""
    mask = np.zeros((200, 300), np.uint8)
    cv2.rectangle(mask, (20, 20), (150, 120), 1, 3)
    cv2.rectangle(mask, (100, 60), (250, 180), 1, 3)
    mask = mask.astype(bool)
    assert _clean_corners([20.0, 20.0, 150.0, 120.0], 3.0, mask) == 4
    assert _clean_corners([100.0, 60.0, 250.0, 180.0], 3.0, mask) == 4
    assert _clean_corners([100.0, 60.0, 150.0, 120.0], 3.0, mask) == 2    # the overlap: two corners are crossings
    assert _clean_corners([20.0, 20.0, 100.0, 120.0], 3.0, mask) == 2    # cut off by b's left side


def test_a_rectangle_where_a_label_goes_is_dropped_a_separate_box_kept():
    box = [100.0, 100.0, 300.0, 250.0]
    label_above = [100.0, 76.0, 122.0, 100.0]        # glued on the top line, at its left end
    apart = [400.0, 76.0, 422.0, 100.0]              # same size, elsewhere
    kept = drop_glued_labels([(box, 3.0), (label_above, 3.0), (apart, 3.0)], (640, 480))
    assert [b for b, _ in kept] == [box, apart]


def test_a_label_read_two_ways_agrees_or_the_picture_wins_unless_unsure():
    from tools.regions.ids import combine_reads

    mask, picture = (7, "7", 0.9), (2, "2", 0.6)
    assert combine_reads(mask, picture) == picture              # they differ: the picture's number
    assert combine_reads((2, "2", 0.5), (2, "2", 0.8)) == (2, "2", 0.8)   # they agree: the surer confidence
    assert combine_reads(mask, (None, "", 0.0)) == mask        # no digits in the picture: the mask's read
    assert combine_reads((None, "", 0.0), picture) == picture
    assert combine_reads(mask, picture, allowed={7}) == mask   # the picture reads an id the caller ruled out
    assert combine_reads((None, "", 0.0), (None, "x", 0.0))[0] is None
    assert combine_reads((4, "4", 0.99), (2, "2", 0.05)) == (4, "4", 0.99)   # an unsure picture read does not win


def test_of_boxes_reading_the_same_id_the_one_both_reads_confirm_keeps_it():
    from tools.regions.ids import unique_ids as _unique_ids

    blank = np.zeros((60, 60, 3), np.uint8)
    sure, unsure = Region(1, [0, 0, 10, 10], "1", 0.9, True), Region(1, [20, 0, 30, 10], "1", 0.99, False)
    other = Region(2, [40, 0, 50, 10], "2", 0.8, False)
    assert _unique_ids(blank, [sure, unsure, other]) == []   # settled: nothing left contested
    assert [r.id for r in (sure, unsure, other)] == [1, -1, 2]
    both = [Region(3, [0, 0, 10, 10], "3", 0.9, True), Region(3, [20, 0, 30, 10], "3", 0.9, True)]
    assert len(_unique_ids(blank, both)) == 1
    assert [r.id for r in both] == [-1, -1]



@pytest.mark.parametrize(("font", "line_width"), [("hershey_simplex", 3), ("hershey_duplex", 4)])
def test_a_zero_drawn_in_strokes_is_a_letter_not_a_box(font, line_width):
    """The "0" of a label "20" / "10" in thick Hershey strokes closes a small upright rectangle; it is read as the
    label's last digit, not returned as a box that takes the label."""
    style = RegionStyle(color=(0, 255, 255), line_width=line_width, label_format="{id}", label_position="above",
                        font_scale=1.0, label_background=False, label_color=(0, 255, 255), font=font)
    regions = [(20, [100.0, 120.0, 260.0, 260.0]), (10, [360.0, 150.0, 520.0, 300.0])]
    found = read_regions(jpeg(draw_regions(plain_ground(), regions, style), 85), include_unlabeled=True)
    assert recovered(found, regions) == 2 and len(found) == 2, found


@pytest.mark.parametrize("quality", [70, 85])
def test_a_bold_zero_whose_hole_closes_is_a_letter_of_its_label(quality):
    """Bold stroke "10": the "0", its hole closed by JPEG, looks like a small label background; next to the "1" it
    is a letter of the same label ("10", not "1")."""
    style = RegionStyle(color=(255, 0, 128), line_width=5, label_format="{id}", label_position="below",
                        font_scale=0.7, label_background=False, label_color=(255, 0, 128), font="dejavu_sans_bold")
    regions = [(10, [100.0, 120.0, 260.0, 260.0]), (20, [360.0, 150.0, 520.0, 300.0])]
    found = read_regions(jpeg(draw_regions(plain_ground(), regions, style), quality), include_unlabeled=True)
    assert recovered(found, regions) == 2 and len(found) == 2, found


def test_an_unsettled_label_is_read_off_the_picture_when_another_box_reads_its_id():
    """Two sure mask reads of "3" left unsettled: once their pictures are read, the label drawn "3" keeps the id (both
    reads agree) and the one drawn "8" takes the picture's number, as when a label is read twice from the start."""
    from tools.regions.ids import unique_ids as _unique_ids

    style = BOLD_STROKES
    drawn = [(3, [60.0, 80.0, 200.0, 200.0]), (8, [320.0, 90.0, 480.0, 220.0])]
    img = jpeg(draw_regions(plain_ground(), drawn, style), 85)
    size = (img.shape[1], img.shape[0])
    read = [Region(3, box, "3", 0.995, None, label_box(box, str(rid), style, size)) for rid, box in drawn]
    _unique_ids(img, read)
    assert [(r.id, r.confirmed) for r in read] == [(3, True), (8, False)]


def test_sure_stroke_labels_are_read_twice_and_say_where_they_were_read():

    style = BOLD_STROKES
    drawn = [(4, [60.0, 80.0, 200.0, 200.0]), (7, [320.0, 90.0, 480.0, 220.0])]
    img = jpeg(draw_regions(plain_ground(), drawn, style), 90)
    found = read_regions(img)
    assert recovered(found, drawn) == 2, found
    size = (img.shape[1], img.shape[0])
    for reg, (rid, box) in zip(found, drawn):
        assert reg.confidence >= 0.99 and reg.confirmed   # the mask's and the picture's reads agree
        assert iou(reg.label_box, label_box(box, str(rid), style, size)) >= 0.5


@pytest.mark.parametrize("line_width", [3, 5])
def test_boxes_cut_by_the_image_border_are_found(line_width):
    """Real objects run out of the frame: a box on each border, its outer side half drawn or not drawn at all."""
    style = RegionStyle(color=(0, 200, 255), line_width=line_width, label_format="{id}", label_position="inside_center",
                        font_scale=0.7, label_background=True, label_color=(0, 0, 0), font="dejavu_sans")
    regions = [(3, [560.0, 150.0, 640.0, 260.0]), (8, [200.0, 400.0, 330.0, 479.0]),
               (12, [0.0, 40.0, 90.0, 130.0]), (15, [300.0, 0.0, 420.0, 70.0])]
    found = read_regions(jpeg(draw_regions(plain_ground(), regions, style), 85))
    assert recovered(found, regions) == 4, found


@pytest.mark.parametrize("quality", [75, 90])
def test_neighbouring_boxes_whose_sides_merge_into_one_band_are_both_found(quality):
    """Boxes around objects side by side and one above the other: their facing sides, 6 px apart at 5 px width,
    merge into a single band thicker than any line; each box keeps its own side."""
    style = RegionStyle(color=(255, 0, 255), line_width=5, label_format="{id}", label_position="inside_center",
                        font_scale=0.7, label_background=False, label_color=(255, 0, 255), font="hershey_simplex")
    regions = [(10, [200.0, 150.0, 260.0, 300.0]), (2, [254.0, 140.0, 330.0, 290.0]),
               (6, [420.0, 100.0, 540.0, 180.0]), (14, [410.0, 186.0, 550.0, 260.0])]
    found = read_regions(jpeg(draw_regions(plain_ground(seed=3), regions, style), quality))
    assert recovered(found, regions) == 4, found
    for rid, box in regions:   # each side where it was drawn, not on the neighbour's side next to it
        got = next(r.bbox for r in found if r.id == rid)
        assert max(abs(a - b) for a, b in zip(got, box)) <= 2, (rid, got, box)


@pytest.mark.parametrize(("line_width", "offset"), [(2, 4), (3, 3), (4, 4)])
def test_boxes_whose_facing_sides_touch_as_one_double_line_are_both_found(line_width, offset):
    """Neighbouring boxes whose facing sides lie about a line width apart draw one line up to twice as thick as the
    others; each box takes one edge of it (labels on the corners hide part of the other sides)."""
    style = RegionStyle(color=(0, 255, 0), line_width=line_width, label_format="{id}", label_position="inside_top_left",
                        font_scale=0.8, label_background=True, label_color=(255, 255, 255), font="dejavu_sans")
    right = 300.0
    regions = [(8, [100.0, 180.0, right, 330.0]), (7, [right - offset, 150.0, 480.0, 300.0])]
    found = read_regions(jpeg(draw_regions(plain_ground(seed=5), regions, style), 80))
    assert recovered(found, regions) == 2, found


@pytest.mark.parametrize("line_width", [3, 4])
def test_stacked_boxes_whose_facing_sides_overlap_are_both_found(line_width):
    """A box drawn 3 px above the bottom side of a narrower one: their sides make one band, fully drawn only in
    the rows of the wider box's line (the other covers part of its width); that line still closes the box."""
    style = RegionStyle(color=(0, 255, 0), line_width=line_width, label_format="{id}", label_position="above",
                        font_scale=0.8, label_background=True, label_color=(255, 255, 255), font="dejavu_sans")
    regions = [(8, [100.0, 100.0, 300.0, 250.0]), (7, [130.0, 247.0, 330.0, 400.0])]
    found = read_regions(jpeg(draw_regions(plain_ground(seed=5), regions, style), 80))
    assert recovered(found, regions) == 2, found


@pytest.mark.parametrize("shift", [0, 1, 2, 3])
def test_working_on_the_drawn_part_only_changes_nothing(shift):
    """Rectangles, label backgrounds and label blobs are looked for in the part of the image a colour is drawn in:
    they come out as on the whole image, wherever that part starts (half-pixel outline centres included)."""
    from tools.regions.pipeline import colour_layers
    from tools.regions.labels import _label_blobs, label_blobs
    from tools.regions.fill import _filled_areas, filled_areas
    from tools.regions.lines import _rectangles, find_rectangles

    style = RegionStyle(color=(255, 0, 0), line_width=4, label_format="Region {id}", label_position="inside_top_left",
                        font_scale=0.7, label_background=True, font="dejavu_sans")
    regions = [(1, [101.0 + shift, 83.0 + shift, 260.0, 200.0]), (7, [330.0 + shift, 250.0, 470.0, 360.0 + shift])]
    mask = colour_layers(jpeg(draw_regions(plain_ground(), regions, style), 85))[0][0]
    u8 = mask.astype(np.uint8)
    assert np.array_equal(filled_areas(u8), _filled_areas(u8))
    filled = filled_areas(u8)
    rects = find_rectangles(mask, 12.0, filled)
    assert len(rects) == 2 and rects == drop_glued_labels(_rectangles(mask, 12.0, filled, None), (640, 480))
    blobs, letters = label_blobs(mask, rects, filled)
    whole_blobs, whole_letters = _label_blobs(mask, rects, filled)
    assert blobs == whole_blobs and np.array_equal(letters, whole_letters)


def test_components_of_a_sparse_mask_are_those_of_the_whole_mask():
    from tools.regions.geom import components

    rng = np.random.default_rng(4)
    mask = np.zeros((300, 400), np.uint8)
    for _ in range(12):   # blobs in one corner of the mask, some touching
        x, y = rng.integers(200, 380), rng.integers(150, 290)
        mask[y:y + rng.integers(2, 12), x:x + rng.integers(2, 12)] = 1
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    got_n, got_labels, got_stats = components(mask)
    assert got_n == n and np.array_equal(got_labels, labels) and np.array_equal(got_stats, stats)
    empty_n, empty_labels, empty_stats = components(np.zeros((30, 40), np.uint8))
    assert empty_n == 1 and not empty_labels.any() and empty_stats.tolist() == [[0, 0, 40, 30, 1200]]


def test_the_island_of_a_bold_zero_is_no_label_background():
    """A generator overlay (tests/data/README.md) whose region 0 is labelled with a bold "0" in 8 px strokes: the
    island inside the "0" once read as a label whose hole says "1", which took region 1's id from it too."""
    drawn = [(0, [637.63, 27.83, 767.86, 139.78]), (1, [151.59, 216.88, 359.78, 415.03]),
             (2, [741.9, 390.97, 862.43, 512.01])]
    found = read_regions(DATA / "overlay_bold_zero.jpg")
    assert recovered(found, drawn) == 3, found


@pytest.mark.parametrize("expected_ids", [None, [4], [1, 2, 3, 4, 5]])
def test_a_sure_misread_is_still_corrected_by_the_picture(expected_ids):
    """A generator overlay (tests/data/README.md) whose "4" reads off the colour mask as a sure "1": the picture read
    corrects it whether or not the caller names the ids (a "1" ruled out by ``expected_ids`` is read again)."""
    drawn = [(4, [436.7, 144.54, 498.67, 201.46]), (3, [683.7, 73.45, 743.25, 122.11]),
             (1, [476.22, 32.2, 519.84, 69.79]), (5, [498.64, 345.74, 581.87, 426.91]),
             (2, [616.73, 314.17, 714.03, 404.11])]
    wanted = [d for d in drawn if expected_ids is None or d[0] in expected_ids]
    found = read_regions(DATA / "overlay_sure_misread.jpg", expected_ids=expected_ids)
    assert recovered(found, wanted) == len(wanted), found


@pytest.mark.parametrize("font,rid", [("hershey_duplex", 16), ("hershey_duplex", 18), ("dejavu_sans", 13),
                                      ("dejavu_sans", 16), ("dejavu_sans_bold", 16)])
def test_a_stroke_label_crossed_by_another_boxs_side_is_read(font, rid):
    """The top side of another box runs through the middle of a stroke label: erasing that side cuts the digits in
    two, and the strokes are joined again across it before the label is read."""

    style = RegionStyle(color=(255, 0, 0), line_width=4, label_format="{id}", label_position="above",
                        font_scale=1.0, label_background=False, label_color=(255, 0, 0), font=font)
    box = [300.0, 200.0, 460.0, 330.0]
    lb = label_box(box, str(rid), style, (640, 480))
    mid = round((lb[1] + lb[3]) / 2)
    regions = [(rid, box), (5, [lb[0] - 120.0, mid, lb[2] + 60.0, mid + 220.0])]
    found = read_regions(jpeg(draw_regions(plain_ground(), regions, style), 85), include_unlabeled=True)
    assert recovered(found, regions) == 2, found


def test_a_label_chained_to_clutter_of_its_hue_is_still_a_label_blob():
    """Specks of the overlay's hue (a sunlit hedge) in a staircase from a label's end chain every piece into one
    group far taller than a label; its text lines, then its letters, are looked at instead, and the label is one."""
    from tools.regions.pipeline import colour_layers
    from tools.regions.labels import label_blobs
    from tools.regions.fill import filled_areas
    from tools.regions.lines import find_rectangles

    style = RegionStyle(color=(255, 255, 0), line_width=3, label_format="{id}", label_position="above",
                        font_scale=1.0, label_background=False, label_color=(255, 255, 0), font="hershey_simplex")
    box = [200.0, 200.0, 420.0, 360.0]
    img = draw_regions(plain_ground(), [(12, box)], style)
    lb = label_box(box, "12", style, (640, 480))
    x, y = lb[2] + 2, (lb[1] + lb[3]) // 2 - 2
    for _ in range(25):   # up and away from the box: each speck overlaps the next's columns and touches its rows
        cv2.rectangle(img, (x, y), (x + 7, y + 4), (255, 255, 0), -1)
        x, y = x + 6, y - 7
    (mask, _), = colour_layers(jpeg(img, 90))
    fill = filled_areas(mask.astype(np.uint8))
    blobs, _ = label_blobs(mask, find_rectangles(mask, 12.0, fill), fill)

    def holds_label(b: tuple[int, int, int, int]) -> bool:   # the label's letters, with a speck or two at most
        inter = max(0, min(b[2], lb[2]) - max(b[0], lb[0])) * max(0, min(b[3], lb[3]) - max(b[1], lb[1]))
        return inter >= 0.5 * (lb[2] - lb[0]) * (lb[3] - lb[1]) and b[3] - b[1] <= 1.5 * (lb[3] - lb[1])

    assert any(holds_label(b.box) for b in blobs), (lb, blobs)


def test_an_overlay_saved_as_jpeg_twice_is_still_read():
    """A generator overlay (JPEG q 61) saved again at q 98: its green (0, 200, 100) outlines kept 162 pixels at the
    saturation that first picks the overlay hues (3,064 before), too few for a colour; the level is lowered when
    no colour is found at all (tests/data/README.md; nothing was read before)."""
    regions = [(5, [369, 296, 435, 389]), (9, [482, 334, 574, 389]), (7, [108, 211, 179, 330]),
               (18, [331, 144, 498, 258]), (3, [17, 413, 130, 448]), (8, [568, 252, 608, 307]),
               (15, [57, 254, 239, 371]), (14, [5, 297, 150, 388]), (10, [60, 44, 143, 154])]
    assert recovered(read_regions(DATA / "overlay_resaved.jpg"), regions) >= 6


def test_boxes_whose_label_spans_their_width_are_found():
    """Small boxes labelled inside: the label's letters touch or cross both vertical sides, which then have no
    straight piece of their own; such a box is closed across its top and bottom sides instead (5 of 27 were found
    before)."""
    size, hits, total = (640, 480), 0, 0
    for font in ["dejavu_sans_bold", "hershey_duplex", "dejavu_sans"]:
        style = RegionStyle(color=(255, 128, 0), line_width=3, label_format="Region {id}", font_scale=0.8,
                            label_position="inside_top_left", label_background=False, label_color=(255, 128, 0),
                            font=font)
        for dx, dy in [(-3, 0), (-6, 2), (2, 2)]:   # right and bottom sides against the label's edges
            regions = []
            for rid, (x1, y1) in zip([11, 8, 16], [(60.0, 60.0), (330.0, 150.0), (120.0, 330.0)]):
                lab = label_box([x1, y1, x1 + 400, y1 + 100], f"Region {rid}", style, size)
                regions.append((rid, [x1, y1, float(lab[2] + dx), float(lab[3] + dy)]))
            hits += recovered(read_regions(jpeg(draw_regions(plain_ground(seed=5), regions, style), 85)), regions)
            total += len(regions)
    assert hits >= total // 2, hits


@pytest.mark.parametrize("rid", [17, 13])
def test_a_label_background_drawn_across_another_box_side_is_read_whole(rid):
    """A label above its box, drawn across the right side of a box beside it: the side is erased from the mask
    where the background piece left of it ("1") is too narrow to be found as a background; that piece joins the
    background right of the side instead of being read alone as "1"."""
    style = RegionStyle(color=(0, 255, 255), line_width=4, label_format="{id}", label_position="above",
                        font_scale=1.0, label_background=True, label_color=(0, 0, 0), font="dejavu_sans_bold")
    regions = [(4, [140.0, 76.0, 213.0, 178.0]), (rid, [196.0, 123.0, 311.0, 228.0])]
    found = read_regions(jpeg(draw_regions(plain_ground(seed=2), regions, style), 85))
    assert recovered(found, regions) == 2, found


def test_an_unread_label_is_looked_for_where_the_images_other_labels_sit():
    """A dev overlay (tests/data/README.md) whose label "11", above its box, merges with other outlines into no
    label blob; the other labels sit above their boxes too, so the picture is read there, at their size."""
    regions = [(10, [231, 137, 285, 271]), (3, [57, 154, 202, 277]), (15, [475, 257, 626, 338]),
               (1, [249, 249, 310, 290]), (4, [326, 328, 433, 454]), (12, [181, 72, 361, 162]),
               (18, [261, 345, 408, 446]), (11, [279, 125, 379, 212]), (19, [295, 178, 401, 258])]
    found = read_regions(DATA / "overlay_sibling_labels.jpg", include_unlabeled=True)
    assert recovered(found, [(11, [279, 125, 379, 212])]) == 1, found
    assert recovered(found, regions) >= 8


def test_mask_sums_transposed_are_the_sums_of_the_transposed_masks():
    """The search across horizontal lines reuses the upright pass's sums transposed instead of summing again."""
    from tools.regions.geom import MaskSums

    rng = np.random.default_rng(0)
    mask, hidden, thin = (rng.random((37, 53)) < p for p in (0.3, 0.5, 0.2))
    want, got = MaskSums.of(mask.T, hidden.T, thin.T), MaskSums.of(mask, hidden, thin).transposed()
    for a, b in [(want.mask, got.mask), (want.cover, got.cover), (want.ring, got.ring), ((want.area,), (got.area,))]:
        assert all(np.array_equal(x, y) for x, y in zip(a, b))
