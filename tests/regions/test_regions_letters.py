"""Letters taken for boxes: a rectangle the fill of a label closes around one of its bold letters, a label
background whose bold letters leave gaps wider than the closing that finds backgrounds, and a box drawn tightly
around its own label (tools.regions.labels, tools.regions.lines). Ground truth: the boxes benchmarks.synth.overlay outlined on real
aerial images, in layouts where the reader lost a region on the overlay benchmark's dev draws (their styles)."""

from __future__ import annotations


from overlay_drawings import BLACK, WHITE, missed_ids, drawn_overlay, reads_exactly, region_style, survey_1080p
from tools.common import load_image
from tools.regions.label_reader import is_id


def test_a_rectangle_a_label_fill_closes_around_a_letter_is_no_box(shared_data):
    # the fill of "20" closes a rectangle around the "0"; erasing it as an outline cut the label to "2", and the
    # rectangle took the label read whole
    img = load_image(shared_data / "open3d-vqa" / "images" / "rgb_9.png")
    box = [406.0, 180.0, 545.0, 229.0]
    layout = [(16, [259.0, 267.0, 335.0, 371.0], region_style((0, 200, 100), 3, "inside_center", "{id}", 0.584,
                                                        "hershey_simplex", False)),
              (4, [378.0, 238.0, 478.0, 378.0], region_style((255, 255, 0), 2, "inside_top_left", "Region {id}", 0.622,
                                                       "dejavu_sans", False)),
              (20, box, region_style((255, 0, 0), 2, "inside_center", "{id}", 0.892, "dejavu_sans_bold", True)),
              (10, [158.0, 105.0, 310.0, 151.0], region_style((128, 0, 255), 3, "inside_top_left", "Region {id}", 1.078,
                                                        "dejavu_sans", False))]
    assert reads_exactly(drawn_overlay(img, layout, 92), 20, box)


def test_a_label_background_with_wide_gaps_between_bold_letters_is_found_whole(shared_data):
    # black bold "10" on yellow: the gaps around the "0" are too wide for the closing that finds backgrounds, so
    # only the "1" part was a background and the "0" part closed a rectangle
    img = load_image(shared_data / "deepforest_neon" / "SOAP_061.png")
    style = region_style((255, 255, 0), 4, "inside_center", "{id}", 0.828, "dejavu_sans_bold", True, BLACK)
    box = [118.0, 236.0, 216.0, 321.0]
    layout = [(5, [219.0, 75.0, 272.0, 183.0], style), (3, [242.0, 10.0, 277.0, 93.0], style), (10, box, style),
              (1, [66.0, 185.0, 142.0, 284.0], style), (18, [241.0, 107.0, 326.0, 148.0], style)]
    assert reads_exactly(drawn_overlay(img, layout, 93), 10, box)


def test_a_box_drawn_tightly_around_its_own_big_label_is_a_box(shared_data):
    # "Region 8" fills the box: its letters touch the left side and join it into one label-sized blob
    img = load_image(shared_data / "hit_uav_thermal" / "images" / "0_100_60_0_08194.jpg")
    box = [241.0, 19.0, 407.0, 59.0]
    layout = [(9, [35.0, 248.0, 106.0, 336.0], region_style((128, 0, 255), 5, "above", "Region {id}", 1.051,
                                                      "dejavu_sans", True)),
              (8, box, region_style((255, 0, 0), 5, "above", "Region {id}", 1.099, "dejavu_sans", False)),
              (20, [545.0, 260.0, 610.0, 317.0], region_style((255, 0, 255), 2, "above", "{id}", 0.929,
                                                        "dejavu_sans_bold", True, WHITE))]
    assert reads_exactly(drawn_overlay(img, layout, 71), 8, box)


def test_a_rectangle_half_under_a_label_on_its_rows_is_a_letter():
    from tools.regions.labels import _under

    label = (100.0, 50.0, 160.0, 80.0)
    assert _under((140.0, 52.0, 166.0, 78.0), label)          # the last letter, its rectangle run past the fill
    assert not _under((150.0, 52.0, 176.0, 78.0), label)      # mostly beside the label: a box it is glued to
    assert not _under((140.0, 40.0, 166.0, 78.0), label)      # taller than the label: its top shows
    assert not _under((96.0, 48.0, 200.0, 82.0), (100.0, 48.0, 160.0, 82.0))   # around most of the label


def test_a_small_label_fill_around_a_bold_letter_is_no_box(shared_data):
    # green fills around white "9", "19", "13" too thick for the closing that finds label backgrounds: the fill
    # around a letter closed a rectangle, which took the label's place
    img = load_image(shared_data / "hit_uav_thermal" / "images" / "1_60_90_0_07546.jpg")
    style = region_style((0, 255, 0), 4, "below", "{id}", 0.996, "hershey_duplex", True, WHITE)
    box = [20.0, 62.0, 48.0, 120.0]
    layout = [(9, box, style), (19, [134.0, 92.0, 163.0, 148.0], style), (13, [296.0, 149.0, 351.0, 223.0], style)]
    assert reads_exactly(drawn_overlay(img, layout, 87), 9, box)


def test_a_small_box_is_a_letter_only_where_the_picture_around_it_is_not_text_coloured():
    import numpy as np

    from tools.regions.labels import filled_letters

    rgb = np.full((120, 160, 3), 140, np.uint8)
    mask = np.zeros((120, 160), bool)
    mask[40:44, 60:84] = mask[68:72, 60:84] = mask[40:72, 60:64] = mask[40:72, 80:84] = True   # outline, 4 px
    mask[48:64, 68:76] = True                                                                   # a letter's hole
    rgb[44:68, 64:80] = 0                                                                       # black letter inside
    rgb[mask] = (0, 255, 0)
    filled = np.zeros((120, 160), np.uint8)
    rects = [([61.5, 41.5, 81.5, 69.5], 4.0)]
    assert filled_letters(rects, rgb, mask, filled) == [0]
    dark = rgb.copy()
    dark[~mask] = 30                                                      # a dark picture all around: a box on it
    assert filled_letters(rects, dark, mask, filled) == []
    filled[50:60, 66:78] = 1                                              # a label background found inside
    assert filled_letters(rects, rgb, mask, filled) == []
    bright = rgb.copy()
    bright[~mask & (rgb.sum(axis=2) > 0)] = 230                           # white pavement around black letters
    assert filled_letters(rects, bright, mask, np.zeros_like(filled)) == [0]


def test_a_label_fill_around_a_bold_black_letter_on_a_white_pavement_is_no_box(shared_data):
    # the yellow fill of "10" (black letters, inside box 10's top-left corner) closes a rectangle around its "0",
    # which took the "0" as its label and left "1" to box 10: the white pavement just above it is text-coloured too,
    # but not of its letters' colour (black)
    img = load_image(shared_data / "open3d-vqa" / "images" / "rgb_7.png")
    style = region_style((255, 255, 0), 2, "inside_top_left", "{id}", 0.8927314462901397, "dejavu_sans_bold", True, BLACK)
    layout = [(8, [287.0, 197.0, 380.0, 302.0]), (7, [15.0, 4.0, 198.0, 90.0]), (9, [291.0, 346.0, 404.0, 461.0]),
              (10, [211.0, 341.0, 371.0, 427.0]), (18, [330.0, 381.0, 391.0, 477.0]), (11, [57.0, 292.0, 204.0, 369.0])]
    assert 10 not in missed_ids(img, style, layout, 68)


def test_a_label_background_read_as_a_box_hands_its_label_to_the_box_around_it(shared_data):
    # white bold "0", "6", "18" on green fills inside their boxes: each fill closed a rectangle that its own
    # letters labelled, and the box around it was left unread
    img = load_image(shared_data / "open3d-vqa" / "images" / "rgb_3.png")
    style = region_style((0, 200, 100), 5, "inside_center", "{id}", 0.942, "dejavu_sans_bold", True, WHITE)
    boxes = {18: [433.0, 350.0, 624.0, 409.0], 1: [529.0, 163.0, 624.0, 306.0], 6: [305.0, 236.0, 459.0, 315.0],
             19: [5.0, 376.0, 87.0, 447.0], 0: [112.0, 143.0, 179.0, 242.0], 12: [243.0, 381.0, 304.0, 470.0]}
    drawn = drawn_overlay(img, [(rid, box, style) for rid, box in boxes.items()], 72)
    assert all(reads_exactly(drawn, rid, boxes[rid]) for rid in (0, 6, 18))



def test_a_number_with_a_leading_zero_is_no_id():
    assert is_id("0") and is_id("10") and is_id("7")
    assert not is_id("00") and not is_id("08") and not is_id("") and not is_id("1a")


def test_a_thin_eight_read_as_two_zeros_is_read_again(shared_data):
    # "Region 8" in thin Hershey strokes on a bright sky, JPEG q61: the mask's "8" broke into "00", which counted as
    # id 0; no renderer writes a leading zero, so that read is no id and the picture's read stands
    img = load_image(shared_data / "open3d-vqa" / "images" / "rgb_5.png")
    box = [48.0, 36.0, 204.0, 91.0]
    layout = [(9, [366.0, 101.0, 521.0, 143.0],
               region_style((255, 0, 128), 2, "inside_center", "{id}", 0.8911127882943188, "hershey_duplex", True, WHITE)),
              (15, [146.0, 229.0, 228.0, 361.0],
               region_style((255, 128, 0), 3, "inside_center", "{id}", 0.6947723859602377, "hershey_simplex", True, BLACK)),
              (8, box, region_style((0, 255, 255), 3, "above", "Region {id}", 0.7546504488519623, "hershey_simplex", False)),
              (20, [40.0, 240.0, 88.0, 370.0],
               region_style((255, 128, 0), 5, "above", "Region {id}", 0.8640192607276701, "dejavu_sans", True, BLACK))]
    assert reads_exactly(drawn_overlay(img, layout, 61), 8, box)


def test_a_bold_stroke_zero_that_looks_filled_is_read_with_the_digit_before_it(shared_data):
    # the "0" of "20" in DejaVu Sans Bold, 11 px wide and 12 px high, closes into what looks like a small label
    # background; as wide as high, it was no letter beside the "2", and box 20 read "2" (dev seed 21, overlay 71)
    img = load_image(shared_data / "open3d-vqa" / "images" / "rgb_3.png")
    style = region_style((0, 0, 255), 3, "inside_top_left", "{id}", 0.6443075900814452, "dejavu_sans_bold", False)
    layout = [(14, [170.0, 232.0, 353.0, 299.0]), (19, [58.0, 74.0, 135.0, 107.0]), (20, [372.0, 423.0, 440.0, 466.0]),
              (10, [31.0, 32.0, 208.0, 68.0]), (7, [182.0, 92.0, 353.0, 189.0]), (15, [275.0, 72.0, 430.0, 152.0])]
    assert missed_ids(img, style, layout, 80) == []


def test_a_filled_label_first_taken_for_strokes_is_read_twice_as_a_filled_one(shared_data):
    # the red "10" left of box 10 was taken for stroke letters, then read as a filled label: its holes read a sure
    # "1". A read of the other kind is settled with the picture as that kind's reads are, which reads "10"
    img = survey_1080p(shared_data, "DJI_0018.JPG")
    style = region_style((255, 0, 0), 2, "outside_left", "{id}", 0.9639877621619918, "hershey_simplex", True)
    layout = [(8, [457.0, 319.0, 775.0, 565.0]), (6, [727.0, 775.0, 1114.0, 990.0]), (9, [151.0, 823.0, 693.0, 1047.0]),
              (14, [93.0, 206.0, 273.0, 488.0]), (11, [672.0, 31.0, 862.0, 308.0]), (3, [976.0, 347.0, 1518.0, 418.0]),
              (10, [586.0, 428.0, 1000.0, 601.0]), (19, [276.0, 586.0, 533.0, 890.0]),
              (5, [843.0, 445.0, 1007.0, 617.0])]
    assert 10 not in missed_ids(img, style, layout, 71)


def test_a_filled_label_crossed_by_another_boxs_side_is_read_whole(shared_data):
    # box 6's left side runs under the filled "11" left of box 11; taken for strokes, the label was read as a
    # filled one but its picture read as a stroke label's, padded, and "1" stood
    img = load_image(shared_data / "hit_uav_thermal" / "images" / "0_60_30_0_01609.jpg")
    style = region_style((255, 128, 0), 5, "outside_left", "{id}", 0.8959614432447971, "dejavu_sans_bold", True, BLACK)
    layout = [(0, [49.0, 360.0, 217.0, 416.0]), (6, [311.0, 308.0, 418.0, 414.0]), (4, [165.0, 72.0, 355.0, 182.0]),
              (7, [150.0, 111.0, 205.0, 227.0]), (12, [222.0, 396.0, 329.0, 492.0]), (8, [11.0, 28.0, 95.0, 132.0]),
              (20, [266.0, 256.0, 335.0, 321.0]), (19, [49.0, 161.0, 113.0, 263.0]), (17, [318.0, 96.0, 479.0, 185.0]),
              (11, [320.0, 351.0, 467.0, 503.0])]
    assert 11 not in missed_ids(img, style, layout, 62)
