"""A label's letters that close a rectangle in its box's top-left corner with the box's own lines
(tools.regions.places.corner_pieces). Ground truth: the boxes benchmarks.synth.overlay outlined on real aerial images, in layouts
where the reader lost a region on the overlay benchmark's dev draws (their styles)."""

from __future__ import annotations

from overlay_drawings import missed_ids, region_style
from tools.common import load_image
from tools.regions.pipeline import Region
from tools.regions.places import corner_pieces


def test_a_first_letter_in_the_corner_closes_no_box_of_its_own(shared_data):
    # the bold "1" of "18", drawn inside box 18's top-left corner, closes a rectangle with the box's top and left
    # lines (its stem and foot the other two sides); that rectangle took the label and box 18 was left unread
    img = load_image(shared_data / "hit_uav_thermal" / "images" / "0_80_50_0_06967.jpg")
    style = region_style((255, 128, 0), 4, "inside_top_left", "{id}", 0.78, "dejavu_sans_bold", False)
    box = [449.0, 363.0, 547.0, 491.0]
    layout = [(3, [151.0, 177.0, 203.0, 232.0]), (15, [375.0, 387.0, 500.0, 467.0]),
              (19, [270.0, 393.0, 334.0, 452.0]), (18, box), (7, [24.0, 194.0, 107.0, 347.0]),
              (16, [212.0, 78.0, 310.0, 158.0])]
    assert missed_ids(img, style, layout, 89) == []


def test_a_label_drawn_across_its_boxs_corner_piece_names_the_box(shared_data):
    # "Region 1" left of a box at the image's left edge is drawn inside it instead, across its lines: its letters
    # and the box's top and left lines close a rectangle, which took the label
    img = load_image(shared_data / "open3d-vqa" / "images" / "rgb_6.png")
    style = region_style((255, 0, 255), 5, "outside_left", "Region {id}", 1.077, "dejavu_sans_bold", False)
    box = [79.0, 159.0, 165.0, 209.0]
    layout = [(14, [511.0, 165.0, 578.0, 298.0]), (1, box), (20, [505.0, 121.0, 567.0, 226.0])]
    assert 1 not in missed_ids(img, style, layout, 63)


def test_a_box_whose_label_blob_took_in_its_lines_is_no_corner_piece(shared_data):
    # box 10's label blob below it also took in its bottom line and box 13's top line, so it ran across box 10's
    # bottom side; box 10 sat at the top-left corner of a false box around it and was handed over to it
    # (dev seed 1, overlay 124)
    img = load_image(shared_data / "open3d-vqa" / "images" / "rgb_11.png")
    style = region_style((255, 255, 0), 3, "below", "{id}", 0.8666570618152135, "dejavu_sans", True, (0, 0, 0))
    layout = [(13, [256.0, 245.0, 439.0, 297.0]), (19, [395.0, 285.0, 503.0, 380.0]), (12, [131.0, 7.0, 216.0, 41.0]),
              (18, [478.0, 310.0, 545.0, 350.0]), (0, [66.0, 226.0, 121.0, 285.0]), (8, [103.0, 384.0, 272.0, 423.0]),
              (10, [391.0, 118.0, 441.0, 251.0]), (14, [180.0, 148.0, 244.0, 249.0]), (1, [499.0, 412.0, 657.0, 488.0])]
    assert missed_ids(img, style, layout, 64) == []


def test_corner_pieces_hand_a_label_over_only_when_it_runs_across_the_piece():
    def regions(label_box):
        piece = Region(18, [100.0, 100.0, 114.0, 124.0], "18", 0.9, False, label_box)
        return [piece, Region(-1, [100.0, 100.0, 200.0, 230.0], "", 0.0)]

    out = corner_pieces(regions([102, 101, 138, 119]), 3.0)              # across the piece's right side
    assert [(r.id, r.bbox) for r in out] == [(18, [100.0, 100.0, 200.0, 230.0])]
    assert out[0].label_box == [102, 101, 138, 119]
    kept = corner_pieces(regions([100, 80, 130, 98]), 3.0)               # above it: the piece's own label
    assert [(r.id, r.bbox) for r in kept] == [(18, [100.0, 100.0, 114.0, 124.0]), (-1, [100.0, 100.0, 200.0, 230.0])]
    far = regions([102, 101, 138, 119])
    far[1].bbox = [90.0, 100.0, 200.0, 230.0]                            # not at the other box's corner
    assert [r.id for r in corner_pieces(far, 3.0)] == [18, -1]


def test_a_piece_larger_than_its_label_with_lines_and_padding_keeps_the_label():
    label = [102, 101, 138, 119]                                         # across the piece's right side
    host = Region(-1, [100.0, 100.0, 200.0, 230.0], "", 0.0)
    tall = Region(18, [100.0, 100.0, 130.0, 170.0], "18", 0.9, False, label)   # 51 px below the label's bottom
    assert [(r.id, r.bbox) for r in corner_pieces([tall, host], 3.0)] == [(18, tall.bbox), (-1, host.bbox)]
    short = Region(18, [100.0, 100.0, 130.0, 127.0], "18", 0.9, False, label)  # within 3 line widths of it
    assert [(r.id, r.bbox) for r in corner_pieces([short, host], 3.0)] == [(18, host.bbox)]
