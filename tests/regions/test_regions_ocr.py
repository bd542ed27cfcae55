"""OCR engines behind the region reader: both read a rendered label; a missing model names its setting."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from agent.config import MissingWeightsError
from tools.common import ToolError, load_image
from tools.common import jpeg_roundtrip as jpeg
from benchmarks.synth.overlay import (RegionStyle, draw_regions, hidden_digit_share, hidden_outline_share, label_box,
                        legible_layout)
from tools.regions.pipeline import Region, read_regions
from tools.regions.detect import label_by_detection
from tools.regions.lines import iou
from tools.regions.ocr import DIGITS, LINE_WHITELIST, LabelBlob, Ocr, _keep, ocr_image, read_label


def rendered_label(text: str) -> np.ndarray:
    """Dark text on white, drawn with OpenCV (the reader's OCR input convention)."""
    img = np.full((40, 20 + 22 * len(text), 3), 255, np.uint8)
    cv2.putText(img, text, (8, 30), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (0, 0, 0), 2, cv2.LINE_AA)
    return ocr_image(np.zeros(img.shape[:2], bool), cv2.cvtColor(img, cv2.COLOR_RGB2GRAY))


@pytest.mark.parametrize("engine", ["rapidocr", "tesseract"])
def test_each_engine_reads_a_rendered_label(engine, monkeypatch):
    monkeypatch.setenv("UAV_AGENT_OCR_ENGINE", engine)
    ocr = Ocr()
    text, conf = ocr.read(rendered_label("Region 17"))
    assert ocr.engine in ({"rapidocr"} if engine == "rapidocr" else {"tesserocr", "pytesseract"})
    assert text.replace(" ", "") == "Region17" and 0.0 < conf <= 1.0


def test_missing_ocr_model_names_the_setting(monkeypatch, tmp_path):
    monkeypatch.setenv("UAV_AGENT_OCR_ENGINE", "rapidocr")
    monkeypatch.setenv("UAV_AGENT_OCR_MODEL", str(tmp_path / "missing.onnx"))
    with pytest.raises(MissingWeightsError, match="ocr_model"):
        Ocr().read(rendered_label("3"))


def test_unknown_engine_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("UAV_AGENT_OCR_ENGINE", "abbyy")
    with pytest.raises(ToolError, match="UAV_AGENT_OCR_ENGINE"):
        Ocr().read(rendered_label("3"))


def test_hidden_outline_share_counts_the_perimeter_under_labels():
    box = [0, 0, 99, 99]                                # perimeter sampled at 400 points
    assert hidden_outline_share(box, []) == 0.0
    assert hidden_outline_share(box, [[-5, -5, 105, 3]]) == pytest.approx(100 / 400 + 2 * 3 / 400, abs=0.01)


def test_a_label_bigger_than_its_box_is_not_legible():
    style = RegionStyle(label_position="inside_center", font_scale=1.1)
    assert legible_layout([(1, [100, 100, 400, 300])], [style], (640, 480))
    assert not legible_layout([(1, [100, 100, 130, 120])], [style], (640, 480))


def test_a_stroke_label_lying_on_a_line_of_its_colour_is_not_legible():
    """A bare "1" drawn in strokes along another box's vertical side of its colour vanishes into it; on a filled
    background, or in another colour, it stays readable."""
    style = RegionStyle(label_format="{id}", label_background=False, label_color=(255, 0, 0), line_width=5)
    own = [100, 100, 300, 250]
    lx1, ly1, lx2, ly2 = label_box(own, "1", style, (640, 480))        # above the box, at its left side
    x = (lx1 + lx2) // 2
    regions = [(1, own), (2, [x, ly1 - 40, x + 150, ly2 + 60])]      # box 2's left side runs through the "1"
    assert hidden_digit_share(regions, [style] * 2, 0, (640, 480)) > 0.5
    assert hidden_digit_share(regions, [style] * 2, 1, (640, 480)) == 0.0
    assert not legible_layout(regions, [style] * 2, (640, 480))
    other = RegionStyle(color=(0, 0, 255), label_format="{id}", label_background=False, label_color=(0, 0, 255))
    assert hidden_digit_share(regions, [style, other], 0, (640, 480)) == 0.0
    filled = RegionStyle(label_format="{id}", line_width=5)
    assert hidden_digit_share(regions, [filled] * 2, 0, (640, 480)) == 0.0
    assert legible_layout([(1, own), (2, [400, 100, 550, 250])], [style] * 2, (640, 480))


def test_the_number_of_a_region_label_counts_not_the_word():
    """In "Region 1" the "1" is an eighth of the letters: a line of the label's colour along it leaves the word
    readable and the id not."""
    style = RegionStyle(label_format="Region {id}", label_background=False, label_color=(255, 0, 0), line_width=5)
    own = [100, 100, 300, 250]
    alone = draw_regions(np.zeros((480, 640, 3), np.uint8), [(1, own)], style)
    lx1, ly1, lx2, ly2 = label_box(own, "Region 1", style, (640, 480))
    ink = (alone[ly1:ly2, lx1:lx2, 0] > 127).sum(axis=0)
    right = (lx2 - lx1) * 7 // 8
    stem = lx1 + right + int(np.argmax(ink[right:]))   # the "1", the last letter drawn: its upright stroke
    regions = [(1, own), (2, [stem, ly1 - 40, stem + 150, ly2 + 60])]
    assert hidden_digit_share(regions, [style] * 2, 0, (640, 480)) > 0.5
    assert not legible_layout(regions, [style] * 2, (640, 480))


@pytest.mark.parametrize("digit", ["7", "4", "2"])
def test_a_filled_label_is_read_whatever_outline_stubs_its_blob_box_holds(digit):
    """A filled label background glued to an outline keeps stubs of it in its blob box (above and below,
    2 px gaps); the letters are read at the scale of the label itself, not shrunk with the stubs."""
    mask = np.zeros((70, 40), np.uint8)
    mask[2:12] = 1                                    # outline stub above
    mask[14:34, 8:26] = 1                             # the label background
    cv2.putText(mask, digit, (11, 29), cv2.FONT_HERSHEY_SIMPLEX, 0.4, 0, 2)   # its letter: a hole
    mask[36:48] = 1                                   # outline stub below
    tight = read_label(mask.astype(bool), LabelBlob((8, 14, 26, 34), True))
    padded = read_label(mask.astype(bool), LabelBlob((0, 2, 40, 48), True))
    assert tight[0] == int(digit) and padded[0] == int(digit), (tight, padded)


def test_missing_text_detector_names_the_setting(monkeypatch, tmp_path):
    monkeypatch.setenv("UAV_AGENT_OCR_ENGINE", "rapidocr")
    monkeypatch.setenv("UAV_AGENT_OCR_DET_MODEL", str(tmp_path / "missing.onnx"))
    with pytest.raises(MissingWeightsError, match="ocr_det_model"):
        Ocr().read(rendered_label("3"))


@pytest.fixture(scope="module")
def forest_rgb(shared_data):
    return load_image(shared_data / "deepforest_neon" / "OSBS_029.png")


def test_text_detector_finds_a_drawn_label_where_it_was_drawn(forest_rgb):
    style = RegionStyle(color=(255, 0, 255), line_width=3, label_format="Region {id}", label_position="above",
                        font="dejavu_sans_bold")
    box = [120.0, 160.0, 260.0, 280.0]
    drawn = draw_regions(forest_rgb, [(17, box)], [style])
    lines = Ocr().find_lines(drawn[100:330, 70:310])
    where = label_box(box, "Region 17", style, (forest_rgb.shape[1], forest_rgb.shape[0]))
    hits = [(t, b) for t, _, b in lines if "17" in t]
    assert hits, lines
    (x1, y1, x2, y2) = hits[0][1]
    assert iou([x1 + 70, y1 + 100, x2 + 70, y2 + 100], where) >= 0.5, (hits, where)


def test_unread_labels_are_taken_from_the_detector_only_where_a_label_of_that_box_goes(forest_rgb):
    style = RegionStyle(color=(0, 255, 255), line_width=2, label_format="{id}", label_position="above",
                        label_background=True, label_color=(0, 0, 0), font="dejavu_sans")
    box, other = [120.0, 160.0, 260.0, 280.0], [300.0, 40.0, 380.0, 120.0]
    drawn = draw_regions(forest_rgb, [(12, box)], [style])
    found = label_by_detection(drawn, [Region(-1, box, "", 0.0), Region(-1, other, "", 0.0)], None, 3.0)
    assert [r.id for r in found] == [12, -1], found
    taken = label_by_detection(drawn, [Region(-1, box, "", 0.0), Region(12, other, "12", 0.9)], None, 3.0)
    assert taken[0].id == -1, taken        # the id belongs to another region already
    assert label_by_detection(drawn, [Region(-1, box, "", 0.0)], {3, 4}, 3.0)[0].id == -1   # not an expected id


def test_nested_unlabeled_boxes_share_one_detector_run(forest_rgb, monkeypatch):
    """A duplicate box a few px inside another searches about the same crop: the detector runs once, and the
    label found serves the box it belongs to (the inner copy then finds its id taken)."""
    style = RegionStyle(color=(0, 255, 255), line_width=2, label_format="{id}", label_position="above",
                        label_background=True, label_color=(0, 0, 0), font="dejavu_sans")
    box, inner, far = [120.0, 160.0, 260.0, 280.0], [126.0, 166.0, 254.0, 274.0], [300.0, 300.0, 380.0, 380.0]
    drawn = draw_regions(forest_rgb, [(12, box)], [style])
    ocr = Ocr()
    crops = []
    real = ocr.find_lines
    monkeypatch.setattr(ocr, "find_lines", lambda rgb: crops.append(rgb.shape) or real(rgb))
    monkeypatch.setattr("tools.regions.detect.OCR", ocr)
    found = label_by_detection(drawn, [Region(-1, box, "", 0.0), Region(-1, inner, "", 0.0),
                                       Region(-1, far, "", 0.0)], None, 3.0)
    assert [r.id for r in found] == [12, -1, -1], found
    assert len(crops) == 2, crops    # the box and the far one; the inner copy reused the box's lines


def test_an_unsure_read_is_replaced_by_a_sure_detection_and_an_equal_one_confirms_it(forest_rgb):
    style = RegionStyle(color=(0, 255, 255), line_width=2, label_format="{id}", label_position="above",
                        label_background=True, label_color=(0, 0, 0), font="dejavu_sans")
    box = [120.0, 160.0, 260.0, 280.0]
    drawn = draw_regions(forest_rgb, [(12, box)], [style])
    wrong = label_by_detection(drawn, [Region(7, box, "7", 0.5)], None, 3.0)[0]
    assert wrong.id == 12 and wrong.confidence >= 0.9, wrong
    right = label_by_detection(drawn, [Region(12, box, "12", 0.5)], None, 3.0)[0]
    assert right.id == 12 and right.confidence >= 0.9, right
    sure = label_by_detection(drawn, [Region(7, box, "7", 0.95)], None, 3.0)[0]
    assert sure.id == 7 and sure.confidence == 0.95    # a sure read is not looked at again


def test_a_filled_label_cut_short_at_an_outline_still_reads_its_last_digit():
    """The outline a label is glued to is erased with a halo that may take the label's last column or two: the
    letters there are still enclosed by what lies beyond the blob box."""
    style = RegionStyle(color=(0, 0, 255), line_width=3, label_format="Region {id}", label_position="outside_left",
                        font_scale=0.84, label_background=True, label_color=(255, 255, 255), font="hershey_duplex")
    box = [256.0, 248.0, 403.0, 291.0]
    img = draw_regions(np.full((480, 640, 3), 128, np.uint8), [(3, box)], style)
    mask = np.all(img == (0, 0, 255), axis=2)
    x1, y1, x2, y2 = label_box(box, "Region 3", style, (640, 480))
    rid, text, _ = read_label(mask, LabelBlob((x1, y1, x2 - 4, y2), True))   # box ends inside the "3"
    assert rid == 3, text


@pytest.mark.parametrize("raw, line, digits", [
    ("Region O", "Region 0", "00"), ("\u3002", "0", "0"), ("1O", "10", "10"), ("Reg.on 7", "Regon 7", "07"),
    ("Ro", "Ro", "0"),
])
def test_round_glyphs_apart_from_letters_count_as_zero(raw, line, digits):
    """PP-OCR reads a lone "0" as "O" or as the ideographic full stop; inside a word an "o" stays a letter."""
    assert _keep(raw, LINE_WHITELIST) == line
    assert _keep(raw, DIGITS) == digits


@pytest.mark.parametrize("font, position, scale", [
    ("hershey_simplex", "below", 0.57), ("hershey_duplex", "below", 0.75), ("hershey_duplex", "outside_left", 0.75),
])
def test_a_lone_zero_label_in_strokes_is_read_as_zero(font, position, scale):
    """A small "0" written in strokes: its letter is read as "0" (not "1" from its counter read as a label
    background, nor nothing from the recognizer's "。")."""
    style = RegionStyle(color=(0, 200, 100), line_width=4, label_format="{id}", label_position=position,
                        font_scale=scale, label_background=False, label_color=(0, 200, 100), font=font)
    regions = [(0, [200.0, 150.0, 330.0, 260.0]), (12, [420.0, 120.0, 560.0, 300.0])]
    found = read_regions(jpeg(draw_regions(np.full((480, 640, 3), 90, np.uint8), regions, style), 75))
    assert any(r.id == 0 and iou(r.bbox, regions[0][1]) >= 0.9 for r in found), found


@pytest.mark.parametrize("font", ["hershey_simplex", "hershey_duplex"])
def test_filled_single_digit_labels_are_read_inside_their_background(shared_data, font):
    """A small square label background holding one digit reads as a CJK box glyph ("口", "日") when cut with its
    edge (6 of 10 digits read so); cut inside it, every digit is. Ground truth: the label boxes benchmarks.synth.overlay placed
    on a real forest image, JPEG quality 75."""
    from tools.regions.ocr import read_pictures

    img = load_image(shared_data / "deepforest_neon" / "OSBS_029.png")
    style = RegionStyle(color=(0, 200, 100), line_width=2, label_format="{id}", label_position="inside_top_left",
                        font_scale=0.55, label_background=True, label_color=(255, 255, 255), font=font)
    regions = [(d, [30 + 40 * d, 60, 30 + 40 * d + 36, 120 + 4 * d]) for d in range(10)]
    drawn = jpeg(draw_regions(img, regions, style), 75)
    size = (drawn.shape[1], drawn.shape[0])
    blobs = [LabelBlob(tuple(label_box(box, str(d), style, size)), True) for d, box in regions]
    assert [r[0] for r in read_pictures(drawn, blobs)] == list(range(10))
