"""Boxes partly hidden under other overlay colours, or whose lines JPEG widens unevenly (tools.regions_lines,
tools.regions_geom.occluders). Ground truth: the boxes tools.draw outlined on real aerial images, in a layout
where the rectangle search lost a box on the overlay benchmark's dev draws (their styles, font sizes
included: the fits are that close)."""

from __future__ import annotations

import numpy as np

from tools.common import jpeg_roundtrip, load_image
from tools.draw import RegionStyle, draw_regions
from tools.regions import iou, read_regions

WHITE, BLACK = (255, 255, 255), (0, 0, 0)


def _style(color, line_width: int, position: str, fmt: str, scale: float, font: str, filled: bool,
           text=None) -> RegionStyle:
    return RegionStyle(color=color, line_width=line_width, label_format=fmt, label_position=position,
                       font_scale=scale, label_background=filled, label_color=text or (WHITE if filled else color),
                       font=font)


def _overlay(image: np.ndarray, layout, quality: int) -> np.ndarray:
    """``layout``: [(id, box, style)], drawn in order and saved as JPEG at ``quality``."""
    regions = [(rid, box) for rid, box, _ in layout]
    return jpeg_roundtrip(draw_regions(image, regions, [s for _, _, s in layout]), quality)


def _read(drawn: np.ndarray, rid: int, box: list[float]) -> bool:
    return any(r.id == rid and iou(r.bbox, box) >= 0.9 for r in read_regions(drawn))


def test_a_corner_under_another_colours_label_with_big_letters(shared_data):
    # the green label's white letters are wider than the closing that finds a label filled: they hide the orange
    # box's top-right corner as the label does
    img = load_image(shared_data / "open3d-vqa" / "images" / "rgb_5.png")
    box = [71.0, 291.0, 238.0, 432.0]
    layout = [(1, box, _style((255, 128, 0), 3, "below", "{id}", 0.9705, "dejavu_sans_bold", True, BLACK)),
              (16, [192.0, 243.0, 319.0, 355.0], _style((0, 200, 100), 4, "inside_center", "Region {id}", 1.0609,
                                                        "hershey_duplex", True))]
    assert _read(_overlay(img, layout, 60), 1, box)
