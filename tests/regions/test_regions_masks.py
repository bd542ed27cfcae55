"""Regions drawn as translucent masks with a numbered marker at the centre (Set-of-Mark, tools.regions.masks):
minimal drawings whose mask extent and number are known from how they were drawn."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tools.common import jpeg_roundtrip
from tools.regions.pipeline import iou, read_regions
from tools.regions.masks import find_markers, mask_box


def _picture(seed: int, size: tuple[int, int] = (480, 640)) -> np.ndarray:
    """A textured picture in muted colours (smoothed noise, grey levels 70-160 and a little colour, as ground seen
    from a drone): the untinted surroundings of a mask."""
    rng = np.random.default_rng(seed)
    grey = rng.integers(70, 160, (size[0] // 16, size[1] // 16, 1))
    noise = np.clip(grey + rng.integers(-15, 16, (size[0] // 16, size[1] // 16, 3)), 0, 255).astype(np.uint8)
    return cv2.resize(noise, (size[1], size[0]), interpolation=cv2.INTER_CUBIC)


def _draw_mask(img: np.ndarray, centre: tuple[int, int], axes: tuple[int, int], colour: tuple[int, int, int],
               number: int, marker: tuple[int, int, int] | None = None, alpha: float = 0.4,
               contour: bool = True) -> list[float]:
    """Tint an ellipse with ``colour`` (its contour drawn over it too), put ``number`` on a filled circle at its
    centre (in ``marker``, the mask's colour by default; the number black on a light marker, else white) and return
    the mask's inclusive extent."""
    area = np.zeros(img.shape[:2], np.uint8)
    cv2.ellipse(area, centre, axes, 0, 0, 360, 1, -1)
    if contour:
        cv2.ellipse(area, centre, axes, 0, 0, 360, 1, 2)
    tint = area > 0
    img[tint] = (alpha * np.array(colour) + (1 - alpha) * img[tint]).astype(np.uint8)
    if contour:
        ring = np.zeros_like(area)
        cv2.ellipse(ring, centre, axes, 0, 0, 360, 1, 2)
        img[ring > 0] = colour
    fill = colour if marker is None else marker
    text = str(number)
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_DUPLEX, 0.6, 2)
    radius = int(0.5 * max(tw, th)) + 7
    cv2.circle(img, centre, radius, fill, -1, cv2.LINE_AA)
    ink = (0, 0, 0) if 0.299 * fill[0] + 0.587 * fill[1] + 0.114 * fill[2] > 150 else (255, 255, 255)
    cv2.putText(img, text, (centre[0] - tw // 2, centre[1] + th // 2), cv2.FONT_HERSHEY_DUPLEX, 0.6, ink, 2,
                cv2.LINE_AA)
    ys, xs = np.nonzero(area)
    return [float(xs.min()), float(ys.min()), float(xs.max()), float(ys.max())]


@pytest.mark.parametrize("colour, marker", [((255, 0, 255), None), ((0, 200, 255), None),
                                            ((255, 140, 0), (255, 255, 255)), ((0, 220, 0), (0, 0, 0))])
def test_a_tinted_mask_is_read_as_its_extent_and_its_markers_number(colour, marker):
    img = _picture(3)
    truth = _draw_mask(img, (300, 240), (90, 60), colour, 7, marker)
    found = read_regions(jpeg_roundtrip(img, 80))
    assert [r.id for r in found] == [7]
    assert iou(found[0].bbox, truth) >= 0.9


def test_masks_without_a_contour_and_with_two_digit_numbers_or_0_are_read():
    img = _picture(4)
    truths = {0: _draw_mask(img, (150, 140), (70, 50), (255, 0, 0), 0, contour=False),
              12: _draw_mask(img, (440, 300), (100, 80), (0, 0, 255), 12, alpha=0.35, contour=False)}
    found = read_regions(jpeg_roundtrip(img, 85))
    assert sorted(r.id for r in found) == [0, 12]
    for r in found:
        assert iou(r.bbox, truths[r.id]) >= 0.9


def test_a_mask_cut_by_the_image_border_ends_on_it():
    img = _picture(5)
    truth = _draw_mask(img, (60, 400), (110, 70), (255, 0, 255), 5)   # runs off the left and bottom edges
    found = read_regions(jpeg_roundtrip(img, 85))
    assert [r.id for r in found] == [5]
    assert iou(found[0].bbox, truth) >= 0.9 and found[0].bbox[0] == 0.0


def test_a_numbered_marker_with_no_tint_around_it_is_no_mask():
    img = _picture(6)
    cv2.circle(img, (320, 240), 14, (255, 0, 255), -1, cv2.LINE_AA)
    cv2.putText(img, "4", (313, 248), cv2.FONT_HERSHEY_DUPLEX, 0.6, (255, 255, 255), 2, cv2.LINE_AA)
    rgb = jpeg_roundtrip(img, 85)
    markers = find_markers(rgb, cv2.cvtColor(rgb, cv2.COLOR_RGB2HSV))
    assert len(markers) == 1
    assert mask_box(rgb, markers[0]) is None
    assert read_regions(rgb) == []
