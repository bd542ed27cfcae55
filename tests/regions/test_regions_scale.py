"""tools.regions.scale: overlays drawn at high resolution (thick outlines, large fonts) are read scaled down, and
where labels are left unread or unconfirmed, two more reads at other scales may outvote the first.

Ground truth is the geometry we draw (benchmarks.synth.overlay) at the real annotated objects of deepforest_neon (Pascal VOC
boxes), enlarged with the image; never the output of the code under test.
"""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from benchmarks.region_overlays import make_instance, nth_overlays, recovered, score, shared_pool, voc_boxes
from overlay_drawings import drawn_overlay, missed_ids, region_style
from tools.common import downscale, jpeg_roundtrip, load_image
from benchmarks.synth.overlay import RegionStyle, draw_regions
import tools.regions.pipeline as regions_module
from tools.regions.pipeline import Region, overlay_mask, read_regions
import tools.regions.scale as scale_module
from tools.regions.scale import (LOOKS, WORK_THICK, outvote, read_scaled, second_look, seen_alike, surer_first,
                                 stroke_thickness, working_scale)

GREY = np.full((400, 600, 3), 120, np.uint8)


def _boxes_drawn(width: int) -> np.ndarray:
    style = RegionStyle(color=(0, 200, 255), line_width=width, label_background=True, label_color=(0, 0, 0))
    regions = [(1, [60.0, 80.0, 260.0, 300.0]), (2, [330.0, 70.0, 540.0, 330.0])]
    return jpeg_roundtrip(draw_regions(GREY, regions, [style] * 2), 90)


@pytest.mark.parametrize("width", [2, 3, 5, 8, 12, 16])
def test_stroke_thickness_measures_the_drawn_outline_width(width):
    measured = stroke_thickness(overlay_mask(_boxes_drawn(width)))
    assert measured is not None and width <= measured <= width + 3   # plus anti-aliasing and JPEG fringe


def test_outlines_of_benchmark_widths_are_read_at_full_size_and_thick_ones_scaled_down_to_work_thickness():
    assert working_scale(overlay_mask(_boxes_drawn(5))) == 1.0
    thick = _boxes_drawn(14)
    scale = working_scale(overlay_mask(thick))
    assert scale < 1.0
    small, _ = downscale(thick, round(max(thick.shape[:2]) * scale))
    assert abs(stroke_thickness(overlay_mask(small)) - WORK_THICK) <= 1   # the lines as the reader's constants want


def test_too_little_overlay_gives_no_thickness():
    assert stroke_thickness(np.zeros((200, 300), bool)) is None
    assert working_scale(np.zeros((200, 300), bool)) == 1.0


def test_boxes_read_on_a_scaled_image_map_back_to_pixel_centres():
    # pixel centre x on the full image is at (x + 0.5) * s - 0.5 on an image scaled by s
    seen = []

    def read(img: np.ndarray, s: float) -> list[Region]:
        seen.append((img.shape, s))
        reg = Region(4, [4.75, 9.75, 19.75, 29.75])
        reg.label_box = [4, 0, 10, 9]
        return [reg]

    found = read_scaled(np.zeros((200, 300, 3), np.uint8), 0.5, read)
    assert seen == [((100, 150, 3), 0.5)]
    assert found[0].bbox == [10.0, 20.0, 40.0, 60.0]
    # label boxes stay whole px: 2x + 0.5 for x = 4, 0, 10, 9, to the nearest px
    assert all(abs(v - w) <= 0.5 for v, w in zip(found[0].label_box, [8.5, 0.5, 20.5, 18.5]))
    assert read_scaled(np.zeros((200, 300, 3), np.uint8), 1.0, read)[0].bbox == [4.75, 9.75, 19.75, 29.75]


def test_a_forest_overlay_drawn_three_times_larger_is_read_exactly(shared_data, monkeypatch):
    d = shared_data / "deepforest_neon"
    boxes = [b for b in voc_boxes(d / "OSBS_029.xml") if min(b[2] - b[0], b[3] - b[1]) >= 40][:4]
    scale = 3.0
    img = cv2.resize(load_image(d / "OSBS_029.png"), None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
    regions = [(k + 2, [v * scale for v in b]) for k, b in enumerate(boxes)]
    style = RegionStyle(color=(255, 0, 255), line_width=12, label_format="{id}", font_scale=2.4,
                        label_background=True, label_color=(255, 255, 255), font="dejavu_sans_bold")
    overlay = jpeg_roundtrip(draw_regions(img, regions, [style] * len(regions)), 85)
    found = read_regions(overlay)
    assert score(found, regions) == (len(regions), 0), found
    for rid, box in regions:
        x1, y1, x2, y2 = next(r.label_box for r in found if r.id == rid)   # full-image px: just above its box
        assert box[0] - 12 <= x1 <= box[0] + 12 and y2 <= box[1] + 12 and y1 >= box[1] - 120
    # read at full size, its 12 px outlines are taken for filled areas (and without the scaled read, the two more
    # reads of the second look, at 0.8 and 0.67, outvote that read)
    monkeypatch.setattr(regions_module, "working_scale", lambda mask: 1.0)
    monkeypatch.setattr(regions_module, "second_look", lambda rgb, found, scale, read: found)
    assert score(read_regions(overlay), regions) != (len(regions), 0)


def test_scaled_benchmark_overlays_draw_the_same_layout_enlarged():
    name, img, real = shared_pool()[0]
    one = make_instance(np.random.default_rng(7), img, real)
    two = make_instance(np.random.default_rng(7), img, real, scale=2.0)
    assert two[0].shape[:2] == (2 * img.shape[0], 2 * img.shape[1])
    assert [i for i, _ in two[1]] == [i for i, _ in one[1]]
    assert [b for _, b in two[1]] == [[2 * v for v in b] for _, b in one[1]]
    assert [s.line_width for s in two[3]] == [max(1, round(2 * s.line_width)) for s in one[3]]
    assert [dataclasses.replace(s, line_width=1, font_scale=1) for s in two[3]] == \
        [dataclasses.replace(s, line_width=1, font_scale=1) for s in one[3]]


def test_nth_overlays_are_the_overlays_the_benchmark_draws_in_turn():
    """nth_overlays skips rendering the overlays before k: what it returns is still the k-th of a plain run."""
    rng, pool = np.random.default_rng(3), shared_pool()
    in_turn = [make_instance(rng, pool[j % len(pool)][1], pool[j % len(pool)][2])[:2] for j in range(5)]
    picked = nth_overlays(3, (1, 4))
    for k in (1, 4):
        assert np.array_equal(picked[k][0], in_turn[k][0]) and picked[k][1] == in_turn[k][1]


# ------------------------------------------------------------------------------------------- the second look
def _region(rid: int, box: list[float], confirmed: bool | None = True, confidence: float = 1.0) -> Region:
    return Region(rid, box, str(rid) if rid >= 0 else "", confidence, confirmed)


def test_outvote_puts_an_agreed_region_in_place_of_the_box_there_and_unlabels_its_id_elsewhere():
    first = [_region(1, [100, 100, 160, 150]), _region(5, [300, 10, 360, 60]), _region(-1, [10, 10, 60, 60])]
    agreed = [_region(2, [100, 101, 160, 150]),   # the same box read as another id: the agreed read replaces it
              _region(5, [11, 10, 60, 61])]       # id 5 read on another box: that box keeps no label
    out = outvote(first, agreed)
    assert sorted((r.id, r.bbox) for r in out) == [(-1, [300, 10, 360, 60]), (2, [100, 101, 160, 150]),
                                                   (5, [11, 10, 60, 61])]


def test_outvote_adds_an_agreed_region_where_the_first_read_has_no_box():
    first = [_region(3, [10, 10, 60, 60])]
    out = outvote(first, [_region(7, [100, 100, 160, 150])])
    assert [(r.id, r.bbox) for r in out] == [(3, [10, 10, 60, 60]), (7, [100, 100, 160, 150])]


def _reader(answers: list[list[Region]], calls: list[tuple[tuple[int, ...], float]]):
    """A stand-in for the reader: the regions it is given, one list per call in turn, each read of an image scaled
    by s holding them where they lie on it (pixel centres: (v + 0.5) * s - 0.5)."""
    def read(img: np.ndarray, scale: float) -> list[Region]:
        calls.append((img.shape, scale))
        return [dataclasses.replace(r, bbox=[(v + 0.5) * scale - 0.5 for v in r.bbox]) for r in answers[len(calls) - 1]]
    return read


def test_second_look_reads_again_only_where_a_box_is_unlabeled_or_a_label_unconfirmed():
    calls: list[tuple[tuple[int, ...], float]] = []
    rgb = np.zeros((200, 300, 3), np.uint8)
    sure = [_region(1, [10, 10, 60, 60]), _region(2, [100, 100, 160, 150])]
    assert second_look(rgb, sure, 1.0, _reader([], calls)) == sure and calls == []
    # the second read agrees with the first wherever it read a label: no third read
    unlabeled = sure + [_region(-1, [200, 20, 280, 80])]
    assert second_look(rgb, unlabeled, 1.0, _reader([sure], calls)) == unlabeled
    assert calls == [((160, 240, 3), LOOKS[0])]   # the image read at LOOKS[0] of its scale


def test_second_look_takes_what_the_two_other_reads_agree_on_and_nothing_only_one_read_holds():
    calls: list[tuple[tuple[int, ...], float]] = []
    rgb = np.zeros((200, 300, 3), np.uint8)
    first = [_region(1, [10, 10, 60, 60]), _region(4, [100, 100, 160, 150], confirmed=False)]
    second = [_region(1, [10, 10, 60, 60]), _region(9, [100, 100, 160, 150]),
              _region(6, [200, 20, 280, 80])]   # read by this read alone
    third = [_region(9, [100, 101, 160, 150])]
    out = second_look(rgb, first, 1.0, _reader([second, third], calls))
    assert [round(c[1], 2) for c in calls] == list(LOOKS)
    assert sorted((r.id, [round(v) for v in r.bbox]) for r in out) == [(1, [10, 10, 60, 60]),
                                                                         (9, [100, 100, 160, 150])]


def test_second_look_gives_no_box_an_id_the_first_read_found_on_two_boxes():
    calls: list[tuple[tuple[int, ...], float]] = []
    rgb = np.zeros((200, 300, 3), np.uint8)
    first = [_region(-1, [10, 10, 60, 60], confirmed=False), _region(-1, [100, 100, 160, 150], confirmed=False),
             _region(5, [200, 20, 280, 80])]
    for reg in first[:2]:
        reg.contested = 2   # both labels read as 2
    other = [_region(2, [10, 10, 60, 60])]   # the other reads miss the second box's label
    out = second_look(rgb, first, 1.0, _reader([other, other], calls))
    assert sorted(r.id for r in out) == [-1, -1, 5]


def test_a_vote_against_a_labelled_box_needs_the_recognizer_to_read_the_voted_label_at_full_scale(shared_data,
                                                                                                  monkeypatch):
    # three thin stroke boxes labelled inside their top-left corners: the first read labels box 16 right, and
    # without the check the scaled reads' vote relabels it
    img = load_image(shared_data / "open3d-vqa" / "images" / "rgb_9.png")
    style = region_style((255, 0, 0), 2, "inside_top_left", "{id}", 0.6174467787473956, "dejavu_sans", False)
    layout = [(8, [67.0, 255.0, 176.0, 361.0]), (16, [285.0, 426.0, 354.0, 468.0]), (5, [208.0, 310.0, 297.0, 438.0])]
    drawn = drawn_overlay(img, [(rid, box, style) for rid, box in layout], 82)
    assert recovered(read_regions(drawn), 16, layout[1][1])
    monkeypatch.setattr(scale_module, "seen_alike", lambda rgb, first, agreed: agreed)
    assert not recovered(read_regions(drawn), 16, layout[1][1])


def test_seen_alike_keeps_agreed_regions_that_relabel_no_labelled_box():
    first = [_region(-1, [10, 10, 60, 60]), _region(3, [100, 100, 160, 150])]
    agreed = [_region(4, [10, 10, 60, 60]), _region(3, [100, 102, 160, 150])]
    for reg in agreed:
        reg.label_box = [0, 0, 8, 8]   # a blank corner of the image: no read could name either id
    assert seen_alike(np.zeros((200, 300, 3), np.uint8), first, agreed) == agreed


def test_a_vote_loses_to_a_first_read_whose_label_box_reads_its_own_id_at_least_as_surely():
    rival = _region(13, [100, 100, 160, 150])
    assert surer_first(8, 0.81, [rival], [(13, "13", 1.0)])        # the first read's label is the surer read
    assert surer_first(8, 0.9, [rival], [(13, "13", 0.9)])         # a tie stands with the first read
    assert not surer_first(8, 0.97, [rival], [(13, "13", 0.9)])    # the vote's label is surer
    assert not surer_first(8, 0.5, [rival], [(18, "18", 1.0)])     # the first box's label does not read as its id
    assert not surer_first(8, 0.5, [], [])
    # a first label box that cut off the "1" of "13" reads 3 as surely as a whole label: the vote stands
    assert not surer_first(13, 0.97, [_region(3, [100, 100, 160, 150])], [(3, "3", 1.0)])


def test_a_vote_that_adds_the_digit_the_first_label_box_cut_off_stands(shared_data, monkeypatch):
    # a bold stroke "13" left of its box, 5 px lines: the first read's label box cuts off the "1" and reads 3 surely;
    # the scaled reads agree on 13, which the recognizer reads at full scale off their label box. Without the digit
    # exception the surer 3 would stand
    img = load_image(shared_data / "open3d-vqa" / "images" / "rgb_9.png")
    style = region_style((255, 255, 0), 5, "outside_left", "{id}", 0.7572079463058565, "dejavu_sans_bold", False)
    layout = [(13, [484.0, 314.0, 590.0, 357.0]), (0, [512.0, 76.0, 608.0, 117.0])]
    drawn = drawn_overlay(img, [(rid, box, style) for rid, box in layout], 69)
    assert recovered(read_regions(drawn), 13, layout[0][1])
    monkeypatch.setattr(scale_module, "digits_cut", lambda first, voted: False)
    assert not recovered(read_regions(drawn), 13, layout[0][1])


# box 20's top line crosses box 17, and both scaled reads close box 17 on it (the top half, label "17" in its
# corner); the bottom line of box 14 runs over box 19's top line, and the scaled reads take it for box 19's top.
# The first read finds both boxes whole
PIECE_CASES = [
    (("deepforest_neon", "2019_YELL_2_541000_4977000_image_crop.png"), 76, 17,
     [(6, [430.0, 306.0, 571.0, 593.0]), (7, [159.0, 685.0, 528.0, 817.0]), (15, [895.0, 565.0, 1230.0, 836.0]),
      (19, [751.0, 282.0, 1050.0, 546.0]), (16, [184.0, 290.0, 457.0, 414.0]), (17, [889.0, 236.0, 1057.0, 319.0]),
      (12, [402.0, 469.0, 483.0, 751.0]), (5, [867.0, 616.0, 945.0, 687.0]), (20, [853.0, 276.0, 1111.0, 348.0])],
     region_style((0, 200, 100), 5, "inside_top_left", "{id}", 0.8706699892996117, "dejavu_sans", True)),
    (("hit_uav_thermal", "images", "0_80_50_0_06967.jpg"), 76, 19,
     [(10, [532.0, 267.0, 590.0, 352.0]), (19, [132.0, 274.0, 214.0, 308.0]), (9, [204.0, 376.0, 325.0, 409.0]),
      (6, [303.0, 372.0, 371.0, 423.0]), (17, [109.0, 210.0, 201.0, 276.0]), (5, [418.0, 79.0, 507.0, 211.0]),
      (14, [161.0, 141.0, 225.0, 281.0])],
     region_style((128, 0, 255), 3, "inside_top_left", "{id}", 0.5750512917170579, "hershey_duplex", False)),
]


@pytest.mark.parametrize("image,quality,rid,layout,style", PIECE_CASES)
def test_a_vote_for_a_piece_of_the_box_the_first_read_gave_that_id_loses(shared_data, image, quality, rid, layout,
                                                                         style, monkeypatch):
    img = load_image(shared_data.joinpath(*image))
    assert rid not in missed_ids(img, style, layout, quality)
    monkeypatch.setattr(scale_module, "_piece_of_own", lambda reg, first: False)
    assert rid in missed_ids(img, style, layout, quality)


def test_a_piece_is_inside_on_three_sides_on_another_boxs_line_its_label_clear_of_the_rest():
    box = [100.0, 100.0, 300.0, 200.0]
    corner = [104, 104, 130, 120]   # a label inside the top-left corner
    whole = Region(5, box, label_box=corner)
    crossing = Region(8, [50.0, 150.0, 400.0, 260.0])   # its top line runs across box 5 at y = 150
    top = [100.0, 100.0, 300.0, 150.0]
    assert scale_module._piece_of_own(Region(5, top, label_box=corner), [whole, crossing])
    assert not scale_module._piece_of_own(Region(5, top, label_box=corner), [whole])   # no line there: a side
    assert not scale_module._piece_of_own(Region(6, top, label_box=corner), [whole, crossing])   # another id
    quarter = [100.0, 100.0, 200.0, 150.0]                                                         # two sides only
    assert not scale_module._piece_of_own(Region(5, quarter, label_box=corner), [whole, crossing])
    # the box's top part was its label glued above, which the first read took in: the lower part is the box
    glued = Region(5, [100.0, 130.0, 300.0, 200.0], label_box=[98, 98, 160, 130])
    assert not scale_module._piece_of_own(glued, [whole, Region(8, [50.0, 130.0, 400.0, 260.0])])
    # a box the first read found in the rest: the first read's box was two boxes as one
    assert not scale_module._piece_of_own(Region(5, top, label_box=corner),
                                          [whole, crossing, Region(-1, [100.0, 150.0, 300.0, 200.0])])
    # a box the first read found at the piece's place too (121:178): its labelled box was two boxes as one
    assert not scale_module._piece_of_own(Region(5, top, label_box=corner), [whole, crossing, Region(-1, list(top))])
