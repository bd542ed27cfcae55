"""Labels found in part: a thin stroke label of which the colour mask kept one glyph, read whole off a window grown
around it (tools.regions.ids.grown_fragments); a label split into two text lines by a box's side, read as one
(tools.regions.detect); a window sized from the other labels that ends on the box's own side, read cut off it
(tools.regions.places.label_by_siblings). Ground truth: what benchmarks.synth.overlay drew, on real aerial images."""

from __future__ import annotations

import numpy as np
import pytest

import tools.regions.pipeline as regions_module
import tools.regions.detect as detect_module
from overlay_drawings import missed_ids, drawn_overlay, reads_exactly, region_style, survey_1080p
from tools.common import load_image
from benchmarks.synth.overlay import draw_regions, label_box
from tools.regions.pipeline import Region
from tools.regions.detect import _with_joined
from tools.regions.geom import components
from tools.regions.ids import grown_fragments

YELLOW = (255, 255, 0)


def _first_stem(img: np.ndarray, rid: int, style, box: list[float]) -> tuple[list[int], tuple[int, int, int, int]]:
    """(The box of the stem of the leftmost glyph of ``rid``'s label as drawn: the columns of that glyph drawn at
    least 0.8 of its height, what the colour mask keeps of a thin "1" at low JPEG quality; the label's drawn box)."""
    drawn = draw_regions(img, [(rid, box)], [style])
    label = label_box(box, style.label_format.format(id=rid), style, (img.shape[1], img.shape[0]))
    x1, y1, x2, y2 = label
    changed = (np.abs(drawn[y1:y2, x1:x2].astype(int) - img[y1:y2, x1:x2].astype(int)).sum(axis=2) > 60)
    n, cc, stats = components(changed.astype(np.uint8))
    k = min((k for k in range(1, n) if stats[k][4] >= 4), key=lambda k: stats[k][0])
    x, y, w, h = stats[k][:4]
    cols = np.flatnonzero((cc[y:y + h, x:x + w] == k).sum(axis=0) >= 0.8 * h)
    return [x1 + x + int(cols[0]), y1 + y, x1 + x + int(cols[-1]) + 1, y1 + y + h], label


@pytest.fixture
def picture(shared_data) -> np.ndarray:
    return load_image(shared_data / "hit_uav_thermal" / "images" / "0_60_30_0_01609.jpg")


@pytest.mark.parametrize("rid", [19, 17, 10])
def test_a_label_read_as_its_first_glyph_is_read_whole_grown(picture, rid):
    style = region_style(YELLOW, 3, "inside_center", "{id}", 0.58, "dejavu_sans", False)
    box = [345.0, 185.0, 477.0, 293.0]
    glyph, label = _first_stem(picture, rid, style, box)
    drawn = draw_regions(picture, [(rid, box)], [style])
    reg = Region(1, box, "1", 0.9, label_box=glyph)
    grown_fragments(drawn, [reg], None)
    assert reg.id == rid
    x1, y1, x2, y2 = reg.label_box   # read where the label is drawn: around the stem, centred in the label
    assert x1 <= glyph[0] and x2 >= glyph[2] and y1 <= glyph[1] and y2 >= glyph[3]
    assert label[0] <= (x1 + x2) / 2 <= label[2] and label[1] <= (y1 + y2) / 2 <= label[3]


def test_a_fragment_keeps_its_read_when_the_grown_id_is_another_boxs(picture):
    style = region_style(YELLOW, 3, "inside_center", "{id}", 0.58, "dejavu_sans", False)
    box = [345.0, 185.0, 477.0, 293.0]
    glyph, _ = _first_stem(picture, 19, style, box)
    drawn = draw_regions(picture, [(19, box)], [style])
    reg, other = Region(1, box, "1", 0.9, label_box=glyph), Region(19, [10.0, 10.0, 60.0, 60.0])
    grown_fragments(drawn, [reg, other], None)
    assert reg.id == 1


def test_a_lone_one_stays_one(picture):
    style = region_style(YELLOW, 3, "inside_center", "{id}", 0.58, "dejavu_sans", False)
    box = [345.0, 185.0, 477.0, 293.0]
    glyph, _ = _first_stem(picture, 1, style, box)
    reg = Region(1, box, "1", 0.9, label_box=glyph)
    grown_fragments(draw_regions(picture, [(1, box)], [style]), [reg], None)
    assert (reg.id, reg.label_box, reg.confidence) == (1, glyph, 0.9)   # not read again as anything


def test_a_fragment_keeps_its_read_when_the_grown_id_is_not_allowed(picture):
    style = region_style(YELLOW, 3, "inside_center", "{id}", 0.58, "dejavu_sans", False)
    box = [345.0, 185.0, 477.0, 293.0]
    glyph, _ = _first_stem(picture, 19, style, box)
    reg = Region(1, box, "1", 0.9, label_box=glyph)
    grown_fragments(draw_regions(picture, [(19, box)], [style]), [reg], {1, 2, 3})
    assert reg.id == 1


def test_a_thin_label_whose_mask_kept_one_glyph_is_read(shared_data, monkeypatch):
    # a thin overlay drawn as the benchmark draws but in one style (DejaVu Sans strokes, font scale 0.55-0.62, seed
    # 950, overlay 53; an earlier example was overlay 110, whose "19" glued to another box's side the
    # fine-tuned recognizer no longer reads grown): the colour mask kept the "8" of "18", left of its box, read 8
    img = survey_1080p(shared_data, "DJI_0020.JPG")
    style = region_style((128, 0, 255), 5, "outside_left", "{id}", 0.5629, "dejavu_sans", False)
    layout = [(2, [940, 554, 1303, 715]), (12, [682, 483, 948, 588]), (17, [387, 202, 715, 504]),
              (19, [489, 89, 733, 322]), (18, [942, 692, 1336, 995]), (1, [842, 69, 1362, 387]),
              (3, [934, 245, 1144, 352]), (7, [35, 550, 308, 824]), (20, [1663, 202, 1804, 456]), (6, [43, 31, 261, 186])]
    drawn = drawn_overlay(img, [(k, [float(v) for v in b], style) for k, b in layout], 70)
    box = [float(v) for v in dict(layout)[18]]
    assert reads_exactly(drawn, 18, box)
    monkeypatch.setattr(regions_module, "grown_fragments", lambda rgb, regions, allowed: regions)
    assert not reads_exactly(drawn, 18, box)


def test_two_text_lines_one_after_the_other_on_a_row_are_read_as_one():
    lines = [("Regi", 0.85, (291, 145, 334, 162)), ("n14", 0.93, (326, 144, 372, 162)),
             ("7", 0.99, (291, 200, 300, 217)),      # another row
             ("5", 0.99, (420, 145, 430, 162)),      # on the row, but 3 heights further
             ("12", 0.99, (230, 227, 255, 245)), ("15", 0.99, (256, 227, 281, 245)),   # two numbers: two labels
             (" ", 0.5, (300, 300, 310, 318)), ("9", 0.99, (311, 300, 320, 318))]   # a line read as nothing
    joined = _with_joined(lines)
    assert joined[:len(lines)] == lines
    assert [(t, b) for t, _, b in joined[len(lines):]] == [("Regin14", (291, 144, 372, 162))]


def test_a_thin_label_wider_than_its_box_crossed_by_its_side_is_read(shared_data, monkeypatch):
    # thin overlay 950:32: "Region 14" in thin yellow strokes inside the top-left corner of a box narrower than it;
    # the box's right side crosses the "o", and the text detector finds "Regi" and "n14"
    img = load_image(shared_data / "hit_uav_thermal" / "images" / "0_80_50_0_06967.jpg")
    style = region_style(YELLOW, 5, "inside_top_left", "Region {id}", 0.5683071769473865, "dejavu_sans", False)
    layout = [(14, [285.0, 141.0, 333.0, 217.0]), (18, [54.0, 261.0, 101.0, 322.0]), (11, [547.0, 367.0, 603.0, 460.0])]
    assert 14 not in missed_ids(img, style, layout, 67)
    monkeypatch.setattr(detect_module, "_with_joined", lambda lines: lines)
    assert 14 in missed_ids(img, style, layout, 67)


def test_a_label_window_ending_on_the_boxs_own_side_is_not_read_with_a_1(shared_data):
    # unseen overlay 151:129: "11" left of its box is glued to its side and to box 4's; the window where the other
    # labels sit ends on box 11's side, which the recognizer before its fine-tuning read "111" (the side cut,
    # tools.regions.ids.pictures_off_sides, read it "11"). The fine-tuned recognizer reads the whole window
    # "11" too. A scan for an overlay that needs the cut now (part of seed 151) found none, so this test
    # pins the read only; the cut's geometry is tested in test_regions_off_sides
    img = load_image(shared_data / "open3d-vqa" / "images" / "rgb_7.png")
    style = region_style(YELLOW, 5, "outside_left", "{id}", 0.8751609671521692, "dejavu_sans", True, (0, 0, 0))
    layout = [(9, [551, 315, 592, 364]), (10, [453, 78, 512, 200]), (19, [54, 277, 125, 399]),
              (4, [179, 170, 309, 304]), (15, [427, 192, 617, 280]), (12, [266, 52, 368, 174]),
              (11, [316, 173, 398, 260]), (20, [78, 317, 160, 360]), (0, [486, 362, 533, 398])]
    layout = [(rid, [float(v) for v in box]) for rid, box in layout]
    assert 11 not in missed_ids(img, style, layout, 63)
