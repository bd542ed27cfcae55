"""A label whose picture read named another box's id, surely held there (tools.regions.ids.unique_ids): the
label's mask read, of as many digits, is its other reading. The layouts are dev draws of the overlay benchmark
where the box was left unlabeled (their styles, font sizes included); ground truth is the drawn geometry."""

from __future__ import annotations


from overlay_drawings import missed_ids, drawn_overlay, reads_exactly, region_style, survey_1080p
from tools.common import load_image


def test_a_label_read_as_a_neighbours_id_takes_its_mask_read(shared_data):
    # box 15's "15" below it, beside box 19's corner, was read "19" off the picture ("15" off the mask); box 19's
    # own label holds 19
    img = load_image(shared_data / "open3d-vqa" / "images" / "rgb_6.png")
    orange = region_style((255, 128, 0), 4, "below", "{id}", 0.5582278484716561, "dejavu_sans", False)
    layout = [(19, [4, 55, 81, 172], region_style((0, 255, 255), 3, "inside_top_left", "Region {id}", 0.7605485966923499,
                                            "hershey_duplex", False)),
              (15, [56, 116, 185, 243], orange),
              (1, [158, 351, 214, 404], region_style((255, 0, 255), 2, "above", "{id}", 0.8641606958451421,
                                               "dejavu_sans_bold", True)),
              (3, [336, 301, 486, 391], region_style((255, 0, 128), 4, "below", "Region {id}", 0.6471714209004401,
                                               "dejavu_sans_bold", False)),
              (6, [79, 403, 218, 466], region_style((0, 200, 100), 3, "above", "{id}", 0.8682748121738808,
                                              "hershey_simplex", True)),
              (20, [182, 10, 243, 152], region_style((255, 0, 128), 2, "below", "Region {id}", 0.955676304340073,
                                               "dejavu_sans", True)),
              (16, [392, 368, 486, 418], region_style((0, 255, 0), 5, "below", "Region {id}", 0.9727086479230833,
                                                "dejavu_sans_bold", False)),
              (11, [412, 116, 529, 181], region_style((255, 0, 128), 2, "outside_left", "Region {id}", 0.7612028930699585,
                                                "dejavu_sans", False))]
    assert reads_exactly(drawn_overlay(img, layout, 74), 15, [56, 116, 185, 243])


def test_a_region_word_read_as_another_boxs_id_takes_its_mask_read(shared_data):
    # "Region 14" in box 14's corner on a 1080p survey picture read "18" off the picture, box 18's id
    img = survey_1080p(shared_data, "DJI_0020.JPG")
    style = region_style((255, 128, 0), 2, "inside_top_left", "Region {id}", 0.7716696962834859, "dejavu_sans_bold", False)
    layout = [(19, [1168, 174, 1663, 403]), (12, [644, 85, 1136, 280]), (1, [1185, 353, 1646, 657]),
              (4, [646, 908, 814, 982]), (18, [115, 500, 298, 697]), (14, [1054, 317, 1343, 487])]
    assert 14 not in missed_ids(img, style, layout, 60)
