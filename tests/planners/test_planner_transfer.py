"""Transfer questions end to end through the real tools: photo 1 is ground texture with one thin red box drawn on it
(and a red fence running off its top border, scene structure the region reader also returns as a box); photo 2 is
the same ground seen through a known homography, with numbered boxes drawn on it. The truth is where the homography
puts the marked box's centre: inside the numbered box drawn around that point, and at its clock hour from photo 2's
centre."""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image
from photo_like import textured_photo

from agent.agent import Agent
from agent.config import Config
from benchmarks.synth.overlay import RegionStyle, draw_regions
from planners.execute_regions import landing_region
from tools.common import jpeg_roundtrip

SIZE = (960, 720)                      # width, height of both photos
RED = (235, 45, 50)
MARK = (600, 400, 690, 490)            # the box drawn in photo 1 (line centres), px
FENCE = (150, -50, 330, 140)           # a red fence whose top lies beyond photo 1's top border
TRUE_ID, DECOY_IDS = 2, (0, 1, 3)
DECOY_CENTRES = [(200, 180), (760, 140), (180, 560), (500, 620), (820, 620)]
HALF = 45                              # half the side of photo 2's numbered boxes, px


def homography() -> np.ndarray:
    """Photo 1 pixels -> photo 2 pixels: turned 25 deg anticlockwise and scaled 0.9 about the centre, then moved."""
    m = cv2.getRotationMatrix2D((SIZE[0] / 2, SIZE[1] / 2), 25.0, 0.9)
    m[:, 2] += (40.0, -30.0)
    return np.vstack([m, [0.0, 0.0, 1.0]])


def mapped_centre() -> tuple[float, float]:
    c = np.array([(MARK[0] + MARK[2]) / 2, (MARK[1] + MARK[3]) / 2, 1.0])
    x, y, w = homography() @ c
    return float(x / w), float(y / w)


@pytest.fixture(scope="module")
def photos(tmp_path_factory) -> list[str]:
    ground = textured_photo(SIZE[1], SIZE[0], (130, 60, 70), 22.0, 1)
    first = ground.copy()
    for x1, y1, x2, y2 in (MARK, FENCE):
        cv2.rectangle(first, (x1, y1), (x2, y2), RED, 3)
    second = cv2.warpPerspective(ground, homography(), SIZE, borderMode=cv2.BORDER_REFLECT)
    cx, cy = mapped_centre()
    decoys = [c for c in DECOY_CENTRES if math.hypot(c[0] - cx, c[1] - cy) >= 200][:len(DECOY_IDS)]
    boxes = [(TRUE_ID, (cx, cy))] + list(zip(DECOY_IDS, decoys))
    regions = [(rid, [x - HALF, y - HALF, x + HALF, y + HALF]) for rid, (x, y) in boxes]
    second = draw_regions(second, regions, RegionStyle(color=(255, 0, 0), line_width=3, label_format="{id}"))
    folder = Path(tmp_path_factory.mktemp("transfer"))
    paths = []
    for name, img in (("a.jpg", first), ("b.jpg", second)):
        Image.fromarray(jpeg_roundtrip(img, 90)).save(folder / name, quality=95)
        paths.append(str(folder / name))
    return paths


@pytest.fixture(scope="module")
def agent() -> Agent:
    return Agent(Config.from_env(), use_embeddings=False)


def test_the_numbered_box_of_photo_2_where_the_marked_box_lands(agent, photos):
    a = agent.ask(photos, "Which box in photo 2 covers the same ground as the box drawn in photo 1?")
    assert not a.abstained, a.reason
    assert a.text == f"Region {TRUE_ID}"


def test_the_clock_hour_of_the_marked_spot_in_photo_2(agent, photos):
    cx, cy = mapped_centre()
    angle = math.degrees(math.atan2(cx - SIZE[0] / 2, SIZE[1] / 2 - cy)) % 360.0   # clockwise from image up
    assert abs((angle + 15.0) % 30.0 - 15.0) > 5.0   # the truth is clear of an hour boundary
    hour = round(angle / 30.0) % 12 or 12
    a = agent.ask(photos, "The red box in the first image: in the second image, which clock direction from the "
                          "centre is that spot? (12 = top)")
    assert not a.abstained, a.reason
    assert a.text == f"{hour} o'clock"


# --- which numbered box of photo 2 the mapped spot lands on (boxes placed by hand, the truth by construction) -------
def test_the_region_holding_the_mapped_centre_wins_over_a_larger_overlap():
    """Photo 2 taken closer: the mapped box (300 px) is larger than the small box around its centre, and a big
    neighbour's corner overlaps it more."""
    moved = [100.0, 100.0, 400.0, 400.0]
    boxes = {2: [220.0, 220.0, 280.0, 280.0], 0: [300.0, 300.0, 460.0, 460.0], 1: [500.0, 40.0, 580.0, 120.0]}
    assert landing_region(boxes, moved)[0] == 2
    del boxes[2]   # no region at the centre: the largest overlap answers, and none without any
    assert landing_region(boxes, moved)[0] == 0
    assert landing_region(boxes, [0.0, 0.0, 50.0, 50.0]) is None
