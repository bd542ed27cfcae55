"""Overlays drawn for the region reader's tests: a style, a layout drawn and saved as JPEG, and whether the
reader recovers each box exactly (the id, IoU >= 0.9 with the drawn box)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from tools.common import jpeg_roundtrip, load_image
from benchmarks.synth.overlay import RegionStyle, draw_regions
from tools.regions.pipeline import iou, read_regions
from tools.regions.region import Region

WHITE, BLACK = (255, 255, 255), (0, 0, 0)


def region_style(color, line_width: int, position: str, fmt: str, scale: float, font: str, filled: bool,
                 text=None) -> RegionStyle:
    return RegionStyle(color=color, line_width=line_width, label_format=fmt, label_position=position,
                       font_scale=scale, label_background=filled, label_color=text or (WHITE if filled else color),
                       font=font)


def drawn_overlay(image: np.ndarray, layout, quality: int) -> np.ndarray:
    """``layout``: [(id, box, style)], drawn in order and saved as JPEG at ``quality``."""
    regions = [(rid, box) for rid, box, _ in layout]
    return jpeg_roundtrip(draw_regions(image, regions, [s for _, _, s in layout]), quality)


def reads_exactly(drawn: np.ndarray, rid: int, box: list[float]) -> bool:
    return any(r.id == rid and iou(r.bbox, box) >= 0.9 for r in read_regions(drawn))


def survey_1080p(shared_data, name: str) -> np.ndarray:
    """A DJI survey photo of the shared data resized to 1920 x 1080, as the overlay benchmark uses it."""
    return cv2.resize(load_image(shared_data / "dji_survey_dev" / "images" / name), (1920, 1080),
                      interpolation=cv2.INTER_AREA)


def missed_ids(image: np.ndarray, style: RegionStyle, layout, quality: int) -> list[int]:
    """Ids of ``layout`` ([(id, box)], drawn in one ``style`` on ``image`` and saved as JPEG at ``quality``) that
    read_regions, run once, does not return exactly (that id with IoU >= 0.9)."""
    found = read_regions(drawn_overlay(image, [(rid, box, style) for rid, box in layout], quality))
    return [rid for rid, box in layout if not any(r.id == rid and iou(r.bbox, box) >= 0.9 for r in found)]


DATA = Path(__file__).parent / "data"  # overlays rendered by our generator, with their drawn boxes (README there)
BOLD_STROKES = RegionStyle(color=(255, 0, 255), line_width=3, label_format="{id}", label_position="above",
                           font_scale=0.9, label_background=False, label_color=(255, 0, 255), font="dejavu_sans_bold")


def jpeg(img: np.ndarray, quality: int = 85) -> np.ndarray:
    return jpeg_roundtrip(img, quality)


def recovered(found: list[Region], regions: list[tuple[int, list[float]]]) -> int:
    """Regions returned with the right id and IoU >= 0.9 with the drawn box."""
    return sum(any(r.id == rid and iou(r.bbox, box) >= 0.9 for r in found) for rid, box in regions)


# a dev overlay on rgb_5.png (JPEG q87): ten boxes in one style, labels filled above them
CROWDED_ABOVE_STYLE = region_style((128, 0, 255), 3, "above", "{id}", 0.8350200713268208, "dejavu_sans", True)


CROWDED_ABOVE = [(11, [269.0, 28.0, 381.0, 110.0]), (20, [255.0, 409.0, 363.0, 442.0]),
                 (8, [524.0, 191.0, 600.0, 281.0]), (3, [409.0, 27.0, 481.0, 114.0]),
                 (12, [156.0, 77.0, 294.0, 130.0]), (17, [408.0, 372.0, 561.0, 413.0]),
                 (7, [194.0, 356.0, 317.0, 458.0]), (0, [59.0, 384.0, 197.0, 471.0]),
                 (2, [260.0, 308.0, 443.0, 406.0]), (1, [23.0, 367.0, 179.0, 474.0])]
