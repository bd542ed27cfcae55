"""tools.regions.pipeline: read drawn region overlays back from the pixels.

Ground truth is the geometry we draw (benchmarks.synth.overlay) at the real annotated objects of hit_uav_thermal and
deepforest_neon (Pascal VOC boxes), or at hand-placed boxes; never the output of the code under test.
"""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.region_overlays import voc_boxes
from tools.common import ToolError, load_image
from benchmarks.synth.overlay import RegionStyle, draw_regions
from tools.regions.pipeline import read_regions
from tools.regions.given import regions_from_json
from tools.regions.lines import iou
from overlay_drawings import jpeg, recovered


def separated(boxes: list[list[float]], k: int, gap: float = 40.0) -> list[list[float]]:
    """Up to ``k`` boxes whose neighbourhoods (grown by ``gap`` px) do not touch (room for the labels)."""
    out: list[list[float]] = []
    for b in boxes:
        g = [b[0] - gap, b[1] - gap, b[2] + gap, b[3] + gap]
        if all(iou(g, [o[0] - gap, o[1] - gap, o[2] + gap, o[3] + gap]) == 0 for o in out):
            out.append(b)
        if len(out) == k:
            break
    return out


@pytest.fixture(scope="module")
def thermal(shared_data):
    """A HIT-UAV thermal frame (grey) with its real VOC boxes of >= 20 px sides."""
    d = shared_data / "hit_uav_thermal"
    for xml in sorted((d / "annotations_voc").glob("*.xml")):
        boxes = separated(voc_boxes(xml), 4)
        if len(boxes) >= 3:
            return load_image(d / "images" / f"{xml.stem}.jpg"), boxes
    pytest.skip("no HIT-UAV frame with 3 well separated objects")


@pytest.fixture(scope="module")
def forest(shared_data):
    d = shared_data / "deepforest_neon"
    big = [b for b in voc_boxes(d / "OSBS_029.xml") if min(b[2] - b[0], b[3] - b[1]) >= 40]
    return load_image(d / "OSBS_029.png"), separated(big, 4)


def test_default_style_on_a_thermal_frame_recovers_every_real_box(thermal):
    img, boxes = thermal
    regions = [(i + 1, b) for i, b in enumerate(boxes)]
    found = read_regions(jpeg(draw_regions(img, regions)))
    assert recovered(found, regions) == len(regions), (regions, found)


def test_thin_stroke_labels_on_thermal_frames_are_read_from_the_picture(shared_data):
    """Small 1-2 px DejaVu digits in blue on grey thermal frames, JPEG q 65: chroma subsampling thins the strokes
    below the colour mask's thresholds ("2" read "7", "20" read "70"); reading the label's own pixels recovers
    most of them (the colour mask alone recovered 18 of 60 on the first 12 frames)."""
    d = shared_data / "hit_uav_thermal"
    style = RegionStyle(color=(0, 0, 255), line_width=3, label_format="{id}", label_position="inside_top_left",
                        font_scale=0.6, label_background=False, label_color=(0, 0, 255), font="dejavu_sans")
    regions = list(zip([2, 12, 20, 7, 17], [[40, 40, 160, 140], [220, 60, 340, 170], [400, 40, 520, 150],
                                             [60, 260, 200, 380], [300, 280, 440, 400]]))
    frames = sorted((d / "annotations_voc").glob("*.xml"))[:6]
    hits = sum(recovered(read_regions(jpeg(draw_regions(load_image(d / "images" / f"{x.stem}.jpg"), regions, style),
                                           65)), regions) for x in frames)
    assert hits >= 0.6 * len(frames) * len(regions)


@pytest.mark.parametrize("style", [
    RegionStyle(color=(0, 255, 255), line_width=2, label_format="{id}", label_position="below",
                label_background=True, label_color=(0, 0, 0), font="dejavu_sans"),
    RegionStyle(color=(255, 0, 255), line_width=4, label_format="Region {id}", label_position="above",
                font_scale=0.9, label_background=True, font="dejavu_sans_bold"),
    RegionStyle(color=(255, 128, 0), line_width=3, label_format="{id}", label_position="inside_top_left",
                label_background=False, label_color=(255, 128, 0), font="hershey_duplex"),
], ids=["cyan-below-bare", "magenta-above-region", "orange-inside-strokes"])
def test_styles_on_forest_image_recover_real_boxes(forest, style):
    img, boxes = forest
    regions = [(i * 3 + 2, b) for i, b in enumerate(boxes)]
    found = read_regions(jpeg(draw_regions(img, regions, style), 80))
    assert recovered(found, regions) >= len(regions) - 1, (regions, found)


def test_overlapping_boxes_of_two_colours_are_told_apart(forest):
    img, _ = forest
    a, b = [60.0, 80.0, 220.0, 230.0], [150.0, 160.0, 330.0, 300.0]   # b overlaps a's lower right corner
    styles = [RegionStyle(color=(255, 0, 0), label_position="above"),
              RegionStyle(color=(0, 0, 255), label_position="below", label_format="{id}")]
    found = read_regions(jpeg(draw_regions(img, [(1, a), (7, b)], styles)))
    assert recovered(found, [(1, a), (7, b)]) == 2, found


def test_expected_ids_drop_other_numbers(thermal):
    img, boxes = thermal
    regions = [(i + 1, b) for i, b in enumerate(boxes)]
    found = read_regions(jpeg(draw_regions(img, regions)), expected_ids=[1])
    assert [r.id for r in found] == [1]


def test_an_id_read_on_two_boxes_is_given_to_neither(forest):
    """Two boxes labelled with the same number: at least one read must be wrong, so neither is returned as that
    id (both come back unlabelled), while the third region keeps its id."""
    img, boxes = forest
    drawn = draw_regions(img, [(2, boxes[0]), (2, boxes[1]), (5, boxes[2])])
    found = read_regions(jpeg(drawn), include_unlabeled=True)
    assert [r.id for r in found if r.id == 2] == []
    assert recovered(found, [(5, boxes[2])]) == 1
    assert sum(r.id == -1 and iou(r.bbox, b) >= 0.9 for r in found for b in boxes[:2]) == 2


def test_image_without_overlay_gives_no_regions(forest):
    img, _ = forest
    assert read_regions(img) == []


def test_bad_inputs_raise_clear_errors(tmp_path):
    with pytest.raises(ToolError, match="needs an image"):
        read_regions(42)
    with pytest.raises(ToolError):
        read_regions(np.zeros((0, 0, 3), np.uint8))
    bad = tmp_path / "not_an_image.png"
    bad.write_text("hello")
    with pytest.raises(ToolError):
        read_regions(str(bad))


def test_regions_from_json_accepts_lists_mappings_and_strings():
    got = regions_from_json('[{"id": "Region 2", "bbox": [1, 2, 30, 40]}, {"id": 0, "bbox": [5, 5, 9, 9]}]')
    assert [(r.id, r.bbox) for r in got] == [(0, [5.0, 5.0, 9.0, 9.0]), (2, [1.0, 2.0, 30.0, 40.0])]
    assert [r.id for r in regions_from_json({"3": [0, 0, 10, 10], "1": [0, 0, 5, 5]})] == [1, 3]


@pytest.mark.parametrize("bad, message", [
    ("{not json", "does not parse"),
    ([{"id": 1}], "must be an object"),
    ({"x": [0, 0, 1, 1]}, "no number"),
    ({"1": [0, 0, 1]}, r"\[x1, y1, x2, y2\]"),
    ({"1": [5, 5, 1, 1]}, "x2 > x1"),
    ({"1": ["a", 0, 1, 1]}, "numbers"),
    (3.5, "list of"),
])
def test_regions_from_json_rejects_bad_entries(bad, message):
    with pytest.raises(ToolError, match=message):
        regions_from_json(bad)


def test_boxes_whose_left_side_hides_under_a_glued_label_are_found(forest):
    """Small boxes with a filled label glued to their left, as tall as the box: the left side is the label's edge."""
    img, _ = forest
    style = RegionStyle(color=(255, 0, 128), line_width=3, label_format="{id}", label_position="outside_left",
                        font_scale=0.8, label_background=True, font="dejavu_sans_bold")
    regions = [(17, [220.0, 150.0, 262.0, 172.0]), (4, [150.0, 300.0, 190.0, 322.0])]
    found = read_regions(jpeg(draw_regions(img, regions, [style] * 2), 85))
    assert recovered(found, regions) == 2, found
