"""Quarter turns of photo B in matching: coordinates carried back against numpy's own rotation, and a real photo
pair whose second photo is turned far on screen (truth: the DJI gimbal yaw tags plus the known turn)."""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from benchmarks.measure.bench_turned_pairs import stripped_copy
from tools.feature_cache import WorkingView
from tools.views.matching import match_views
from tools.views.turns import turned_view, unturn_points


@pytest.mark.parametrize("turns", [0, 1, 2, 3, 5])
def test_unturned_points_land_on_the_same_pixel(turns: int) -> None:
    image = np.arange(5 * 7).reshape(5, 7)  # every pixel a distinct value; (width, height) = (7, 5)
    turned = np.rot90(image, turns)
    ys, xs = np.mgrid[: turned.shape[0], : turned.shape[1]]
    back = unturn_points(np.column_stack([xs.ravel(), ys.ravel()]), turns, (7, 5)).round().astype(int)
    assert np.array_equal(image[back[:, 1], back[:, 0]], turned.ravel())


def test_turned_view_turns_pixels_size_and_key() -> None:
    rgb = np.random.default_rng(0).integers(0, 255, (4, 6, 3), dtype=np.uint8)
    view = WorkingView(rgb, 0.5, (12, 8), ("file", 1))
    once = turned_view(view, 1)
    assert np.array_equal(once.rgb, np.rot90(rgb)) and once.full_size == (8, 12) and once.scale == 0.5
    assert once.key not in (None, view.key) and turned_view(view, 2).full_size == (12, 8)
    assert turned_view(WorkingView(rgb, 0.5, (12, 8), None), 1).key is None  # arrays stay uncached


def test_far_turned_real_pair_is_matched(shared_data: Path, tmp_path: Path) -> None:
    # DJI_0019 -> DJI_0020 (gimbal yaw 42.8 -> 44.2 deg), the second copy turned 290 deg counter-clockwise on
    # screen: the upright matchers find too little of the narrow overlap; a quarter turn leaves them 20 deg.
    images = shared_data / "dji_survey_dev" / "images"
    a = stripped_copy(images / "DJI_0019.JPG", tmp_path / "a.jpg", 1200)
    b = stripped_copy(images / "DJI_0020.JPG", tmp_path / "b.jpg", 1200, 290.0)
    r = match_views(a, b)
    assert r.confident, (r.reason, r.tried)
    # The inliers' rotation (a least-squares similarity: the homography's projective part bends with the relief)
    inl = np.asarray(r.inliers, bool)
    M, _ = cv2.estimateAffinePartial2D(r.points_a[inl], r.points_b[inl], method=cv2.LMEDS)
    turn_ccw = -math.degrees(math.atan2(M[1, 0], M[0, 0]))  # y down: an on-screen CCW turn is a negative angle
    truth = 290.0 + (44.2 - 42.8)  # yawing the camera clockwise turns the scene counter-clockwise on screen
    assert abs((turn_ccw - truth + 180.0) % 360.0 - 180.0) < 10.0
