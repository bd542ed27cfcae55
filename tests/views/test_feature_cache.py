"""Reduced JPEG decoding for matching and the per-process caches of views and features (tools/feature_cache.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from tools import feature_cache
from tools.common import ToolError, downscale, load_image, load_working
from tools.views.matching import match_views

DJI = "dji_survey_dev/images/DJI_0018.JPG"


def test_a_reduced_decode_is_the_full_decode_downscaled(shared_data: Path) -> None:
    """libjpeg's reduced decode then an area resize gives the size and scale of the full decode's downscale, and
    nearly its pixels (DCT scaling and area averaging are both low-pass filters)."""
    path = shared_data / DJI
    full = load_image(path)
    expected, s = downscale(full, 1024)
    work, scale, size = load_working(path, 1024)
    assert work.shape == expected.shape and scale == s and size == (full.shape[1], full.shape[0])
    diff = np.abs(work.astype(int) - expected.astype(int))
    assert diff.mean() < 2.0 and np.percentile(diff, 99) < 16


def test_load_working_keeps_the_limits_and_small_images(tmp_path: Path) -> None:
    small = np.random.default_rng(0).integers(0, 255, (120, 160, 3), np.uint8)
    path = tmp_path / "small.jpg"
    cv2.imwrite(str(path), small)
    work, scale, size = load_working(path, 1024)
    assert scale == 1.0 and size == (160, 120) and work.shape == (120, 160, 3)
    with pytest.raises(ToolError, match="too large"):
        load_working(path, 1024, max_pixels=1000)
    (tmp_path / "broken.jpg").write_bytes(b"\xff\xd8\xff" + b"\x00" * 100)
    with pytest.raises(ToolError):
        load_working(tmp_path / "broken.jpg", 1024)


def test_a_rewritten_file_is_matched_anew(shared_data: Path, tmp_path: Path) -> None:
    """The caches key files by content identity: matching a photo with itself gives the identity homography; after
    the second file is overwritten with the photo turned a quarter, the same paths give that quarter turn."""
    a, b = tmp_path / "a.jpg", tmp_path / "b.jpg"
    shutil.copy(shared_data / DJI, a)
    shutil.copy(shared_data / DJI, b)
    first = match_views(a, b)
    assert first.confident and np.allclose(first.H / first.H[2, 2], np.eye(3), atol=0.02)
    assert match_views(a, b).H is not None  # served from the caches
    turned = cv2.rotate(cv2.imread(str(shared_data / DJI)), cv2.ROTATE_90_CLOCKWISE)
    cv2.imwrite(str(b), turned, [cv2.IMWRITE_JPEG_QUALITY, 95])
    second = match_views(a, b)
    assert second.confident and second.image_b_size == (2250, 4000)
    h = second.H / second.H[2, 2]
    # a point (x, y) of a lands at (H - 1 - y, x) in the clockwise-turned image (H = a's height, 2250)
    x, y = 1000.0, 500.0
    p = h @ np.array([x, y, 1.0])
    assert np.allclose(p[:2] / p[2], [2250 - 1 - y, x], atol=3.0)


def test_arrays_are_not_cached_and_bytes_are(shared_data: Path) -> None:
    data = (shared_data / DJI).read_bytes()
    feature_cache.clear()
    match_views(data, data)
    assert any(key[0][0] == "bytes" for key in feature_cache._FEATURES.data)
    feature_cache.clear()
    rgb = load_image(shared_data / DJI)
    match_views(rgb, rgb)
    assert not feature_cache._FEATURES.data and not feature_cache._VIEWS.data
