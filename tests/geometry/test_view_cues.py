"""The sky cue on real photos: oblique Open3D-VQA / OpenCV aerial frames (sky in view) against nadir DJI, Sequoia and
NEON photos and HIT-UAV thermal frames (views known from the data READMEs and file names)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tools.common import ToolError, load_image
from tools.geometry.view_cues import sky_at_top


def _paths(shared_data: Path) -> tuple[list[Path], list[Path]]:
    oblique = sorted((shared_data / "open3d-vqa" / "images").glob("rgb_*.png"))
    oblique += sorted((shared_data / "opencv_aero").glob("*.jpg"))
    nadir = sorted((shared_data / "dji_survey_dev" / "images").glob("*.JPG"))
    nadir += sorted((shared_data / "garfield_dev" / "images").glob("*.JPG"))
    nadir += sorted((shared_data / "deepforest_neon").glob("*.png"))
    nadir += sorted((shared_data / "hit_uav_thermal" / "images").glob("*_90_*.jpg"))
    return oblique, nadir


def test_sky_only_in_oblique_views(shared_data: Path) -> None:
    oblique, nadir = _paths(shared_data)
    assert len(oblique) == 13 and len(nadir) >= 20
    fired = [p.name for p in oblique if sky_at_top(load_image(p)).sky_visible]
    assert len(fired) >= 3, fired  # one-sided cue: many obliques show no sky
    assert not [p.name for p in nadir if sky_at_top(load_image(p)).sky_visible]


def test_thermal_obliques_do_not_fire_on_ground(shared_data: Path) -> None:
    for p in sorted((shared_data / "hit_uav_thermal" / "images").glob("*.jpg")):
        cue = sky_at_top(load_image(p))
        assert not cue.sky_visible or "_30_" in p.name, (p.name, cue)


def test_synthetic_sky_and_uniform_frames() -> None:
    rng = np.random.default_rng(0)
    ground = rng.integers(0, 255, (240, 320, 3), dtype=np.uint8)
    scene = ground.copy()
    scene[:60] = 230  # bright, smooth band along the top
    assert sky_at_top(scene).sky_visible and not sky_at_top(ground).sky_visible
    assert not sky_at_top(np.full((240, 320, 3), 200, np.uint8)).sky_visible  # nothing brighter than the median
    with pytest.raises(ToolError):
        sky_at_top(np.zeros((10, 10, 3), np.uint8))
