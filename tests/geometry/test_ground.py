"""Ground-plane distances: truth from the exact plane renderer in benchmarks/synth/camera.py."""

from __future__ import annotations

import math

import numpy as np
import pytest

from benchmarks.synth.camera import GroundTexture, PinholeCamera, render
from tools.common import ToolError
from tools.geometry.ground import (
    DEFAULT_PITCH_DEG,
    CameraGeometry,
    distance_from_drone,
    foot_point,
    ground_position,
    rank_by_distance,
    slant_distance_from_drone,
)


def geometry_of(cam: PinholeCamera) -> CameraGeometry:
    return CameraGeometry(cam.altitude, cam.pitch_deg, cam.focal_px, cam.width / 2, cam.height / 2, cam.roll_deg)


def local_offset(cam: PinholeCamera, xy: np.ndarray) -> np.ndarray:
    """World ground points → (forward, right) from the camera's nadir point along its heading."""
    psi = math.radians(cam.yaw_deg)
    d = np.asarray(xy, float) - np.array([cam.x, cam.y])
    return np.column_stack([d[:, 0] * math.sin(psi) + d[:, 1] * math.cos(psi),
                            d[:, 0] * math.cos(psi) - d[:, 1] * math.sin(psi)])


@pytest.mark.parametrize("pitch,roll,yaw,alt", [(-90, 0, 0, 60), (-90, 0, 37, 120), (-30, 0, 200, 60),
                                               (-50, 8, 0, 80), (-60, -5, 310, 100)])
def test_ground_position_inverts_the_renderer_projection(pitch: float, roll: float, yaw: float, alt: float) -> None:
    cam = PinholeCamera(x=12.0, y=-7.0, altitude=alt, yaw_deg=yaw, pitch_deg=pitch, roll_deg=roll)
    rng = np.random.default_rng(0)
    pixels = np.column_stack([rng.uniform(0, cam.width, 40), rng.uniform(0, cam.height, 40)])
    world = cam.image_to_ground(pixels)
    ok = np.isfinite(world[:, 0])
    assert ok.sum() > 10
    # project the ground points forward with the renderer, then invert with the tool
    px, _ = cam.project(np.column_stack([world[ok], np.zeros(ok.sum())]))
    truth = local_offset(cam, world[ok])
    geo = geometry_of(cam)
    got = np.array([ground_position(p, geo) for p in px])
    np.testing.assert_allclose(got, truth, rtol=1e-6, atol=1e-6)


def test_distance_and_slant_distance_of_a_known_point() -> None:
    cam = PinholeCamera(x=0, y=0, altitude=50, pitch_deg=-40)
    target = np.array([[6.0, 80.0, 0.0]])  # 6 m right, 80 m ahead
    (u, v), = cam.project(target)[0]
    box = [u - 10, v - 40, u + 10, v]  # an upright object standing on the point
    geo = geometry_of(cam)
    assert distance_from_drone(box, geo) == pytest.approx(math.hypot(6, 80), rel=1e-6)
    assert slant_distance_from_drone(box, geo) == pytest.approx(math.sqrt(6**2 + 80**2 + 50**2), rel=1e-6)


def test_foot_point_is_bottom_centre_when_oblique_and_centre_when_nadir() -> None:
    box = [10, 20, 30, 60]
    assert foot_point(box) == (20, 60)
    assert foot_point(box, CameraGeometry(50, -45, 1000, 640, 360)) == (20, 60)
    assert foot_point(box, CameraGeometry(50, -88, 1000, 640, 360)) == (20, 40)


def _disc_texture() -> tuple[GroundTexture, dict[str, tuple[np.ndarray, tuple[int, int, int]]]]:
    """Grey noise ground (200 m square, 0.1 m/px) with coloured discs of 1.5 m radius at known positions."""
    import cv2

    rng = np.random.default_rng(3)
    grey = rng.integers(60, 180, (2000, 2000), dtype=np.uint8)
    img = np.repeat(cv2.GaussianBlur(grey, (0, 0), 3)[:, :, None], 3, axis=2)
    tex = GroundTexture(img, gsd_m=0.1, x0=-100.0, y0=100.0)
    discs = {"red": ((-20.0, 22.0), (255, 0, 0)), "green": (( 8.0, 40.0), (0, 255, 0)),
             "blue": ((25.0, 58.0), (0, 0, 255)), "yellow": ((-12.0, 75.0), (255, 255, 0)),
             "magenta": ((5.0, 12.0), (255, 0, 255))}
    for (x, y), colour in discs.values():
        (u, v), = tex.world_to_pixel(np.array([[x, y]]))
        cv2.circle(img, (int(round(u)), int(round(v))), 15, colour, -1)
    return tex, {k: (np.array(p), c) for k, (p, c) in discs.items()}


def _boxes_by_colour(view: np.ndarray, discs: dict) -> list[tuple[str, list[float]]]:
    out = []
    for name, (_, colour) in discs.items():
        close = np.abs(view.astype(int) - np.array(colour)).max(axis=2) < 60
        ys, xs = np.nonzero(close)
        if len(xs) > 3:
            out.append((name, [float(xs.min()), float(ys.min()), float(xs.max() + 1), float(ys.max() + 1)]))
    return out


@pytest.mark.parametrize("pitch,alt", [(-90, 100), (-35, 25), (-55, 40)])
def test_rank_by_distance_matches_rendered_truth(pitch: float, alt: float) -> None:
    tex, discs = _disc_texture()
    cam = PinholeCamera(x=0.0, y=0.0 if pitch != -90 else 40.0, altitude=alt, pitch_deg=pitch)
    view, _ = render(tex, cam)
    regions = _boxes_by_colour(view, discs)
    assert len(regions) >= 4, "the test scene should show most discs"
    truth = sorted((float(np.linalg.norm(discs[n][0] - [cam.x, cam.y])), n) for n, _ in regions)
    result = rank_by_distance(regions, geometry_of(cam))
    assert result.ids == [n for _, n in truth]
    for (d_true, _), d in zip(truth, result.distances_m):
        assert d == pytest.approx(d_true, rel=0.1)
    far = rank_by_distance(regions, geometry_of(cam), order="farthest_first")
    assert far.ids == result.ids[::-1]


def test_order_without_altitude_is_the_same_and_marked_relative() -> None:
    tex, discs = _disc_texture()
    cam = PinholeCamera(x=0.0, y=0.0, altitude=30, pitch_deg=-40)
    regions = _boxes_by_colour(render(tex, cam)[0], discs)
    hfov = math.degrees(2 * math.atan(cam.width / 2 / cam.focal_px))
    unknown_alt = CameraGeometry.assumed_for(cam.width, cam.height, pitch_deg=-40, hfov_deg=hfov)
    known = rank_by_distance(regions, geometry_of(cam))
    relative = rank_by_distance(regions, unknown_alt)
    assert relative.ids == known.ids
    assert relative.relative and not known.relative
    np.testing.assert_allclose(np.array(relative.distances_m) / unknown_alt.altitude_m,
                               np.array(known.distances_m) / cam.altitude, rtol=1e-6)


def test_equal_distances_are_not_confident() -> None:
    geo = CameraGeometry(40, -45, 1000, 640, 360)
    mirrored = [("left", [400, 500, 440, 560]), ("right", [840, 500, 880, 560])]  # symmetric about the centre line
    result = rank_by_distance(mirrored, geo)
    assert result.distances_m[0] == pytest.approx(result.distances_m[1])
    assert not result.confident and "uncertainty" in result.reason
    clear = rank_by_distance([("near", [600, 650, 640, 700]), ("far", [600, 380, 610, 395])], geo)
    assert clear.confident and clear.ids == ["near", "far"]


def test_assumed_pitch_is_reported() -> None:
    geo = CameraGeometry.assumed_for(1280, 720)
    assert geo.pitch_deg == DEFAULT_PITCH_DEG and "pitch_deg" in geo.assumed
    result = rank_by_distance([("a", [600, 650, 640, 700]), ("b", [600, 380, 610, 395])], geo)
    assert result.ids == ["a", "b"] and not result.confident and "pitch unknown" in result.reason


def test_above_horizon_is_an_error_or_ranked_last() -> None:
    geo = CameraGeometry(40, -10, 1000, 640, 360)  # horizon 176 px above the centre (y ~ 184)
    with pytest.raises(ToolError, match="horizon"):
        ground_position((640, 100), geo)
    result = rank_by_distance([("sky", [600, 50, 620, 100]), ("road", [600, 600, 620, 650])], geo)
    assert result.ids == ["road", "sky"] and math.isinf(result.distances_m[1]) and not result.confident


@pytest.mark.parametrize("kwargs,match", [({"altitude_m": 0}, "altitude"), ({"pitch_deg": 5}, "pitch"),
                                          ({"pitch_deg": -100}, "pitch"), ({"focal_px": -1}, "focal")])
def test_bad_geometry_is_rejected(kwargs: dict, match: str) -> None:
    args = {"altitude_m": 50, "pitch_deg": -45, "focal_px": 1000, "cx": 640, "cy": 360} | kwargs
    with pytest.raises(ToolError, match=match):
        CameraGeometry(**args)


def test_bad_regions_are_rejected() -> None:
    geo = CameraGeometry(50, -45, 1000, 640, 360)
    with pytest.raises(ToolError, match="at least one"):
        rank_by_distance([], geo)
    with pytest.raises(ToolError, match="unique"):
        rank_by_distance([("a", [0, 400, 10, 410]), ("a", [0, 500, 10, 510])], geo)
    with pytest.raises(ToolError, match="x1 <= x2"):
        distance_from_drone([10, 10, 5, 20], geo)
    with pytest.raises(ToolError, match="order"):
        rank_by_distance([("a", [0, 400, 10, 410])], geo, order="closest")
