"""Geometry of the ground-truth generator, checked against hand-derived formulas and rendered pixels."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from benchmarks.synth.camera import PinholeCamera
from benchmarks.synth.scene import (CameraSpec, box_iou, footprint, make_scene, overlap_fraction, place_camera,
                                    project_object, render_view)
from benchmarks.synth.sources import Source, SourceObject, load_source
from benchmarks.synth.tiers import Nuisance
from tools.common import ToolError


def test_nadir_projection_matches_hand_formula() -> None:
    f, alt = 800.0, 50.0
    north = PinholeCamera(10.0, 20.0, alt, yaw_deg=0.0, focal_px=f, width=960, height=540)
    east = north.with_(yaw_deg=90.0)
    pts = np.array([[13.0, 20.0, 0.0], [10.0, 24.0, 0.0]])  # 3 m east, 4 m north of the nadir point
    px, depth = north.project(pts)
    np.testing.assert_allclose(px, [[480 + f * 3 / alt, 270], [480, 270 - f * 4 / alt]], atol=1e-9)
    np.testing.assert_allclose(depth, [alt, alt])
    px, _ = east.project(pts)  # heading east: east is image up, north is image left
    np.testing.assert_allclose(px, [[480, 270 - f * 3 / alt], [480 - f * 4 / alt, 270]], atol=1e-9)


def test_oblique_axis_hits_ground_at_alt_over_tan_pitch() -> None:
    cam = PinholeCamera(0.0, 0.0, 40.0, yaw_deg=30.0, pitch_deg=-45.0, focal_px=700.0, width=800, height=600)
    ahead = 40.0 / np.tan(np.radians(45.0))
    xy = cam.image_to_ground(np.array([[400.0, 300.0]]))[0]
    np.testing.assert_allclose(xy, [ahead * np.sin(np.radians(30)), ahead * np.cos(np.radians(30))], atol=1e-9)


def test_points_round_trip_through_two_cameras() -> None:
    rng = np.random.default_rng(3)
    a = PinholeCamera(0.0, 0.0, 60.0, yaw_deg=17.0, pitch_deg=-70.0, roll_deg=2.0, focal_px=900.0)
    b = PinholeCamera(8.0, -5.0, 75.0, yaw_deg=140.0, pitch_deg=-85.0, focal_px=700.0)
    pix_a = rng.uniform([0, 0], [a.width, a.height], size=(50, 2))
    ground = a.image_to_ground(pix_a)
    back, _ = a.project(np.c_[ground, np.zeros(len(ground))])
    np.testing.assert_allclose(back, pix_a, atol=1e-6)
    # transfer A → B through the ground equals the plane homography G_b · G_a⁻¹
    in_b, _ = b.project(np.c_[ground, np.zeros(len(ground))])
    h = b.ground_to_image() @ np.linalg.inv(a.ground_to_image())
    hom = np.c_[pix_a, np.ones(len(pix_a))] @ h.T
    np.testing.assert_allclose(hom[:, :2] / hom[:, 2:], in_b, atol=1e-6)


def _coloured_texture(tmp_path):
    """Grey 600x500 texture with 12 rectangles of distinct colours; returns (Source, colours)."""
    rng = np.random.default_rng(0)
    img = np.full((500, 600, 3), 128, np.uint8)
    objs, colours = [], []
    for i in range(12):
        x1, y1 = 20 + (i % 4) * 140, 20 + (i // 4) * 150
        w, h = int(rng.integers(30, 70)), int(rng.integers(30, 70))
        col = (int(40 + 17 * i), int(250 - 15 * i), int(30 + 19 * (i % 5)))
        img[y1:y1 + h, x1:x1 + w] = col
        objs.append(SourceObject("Box", (x1, y1, x1 + w, y1 + h)))
        colours.append(col)
    path = tmp_path / "tex.png"
    cv2.imwrite(str(path), cv2.cvtColor(img, cv2.COLOR_RGB2BGR))
    src = load_source(path, 0.05)
    return Source(src.name, src.path, src.gsd_m, "test", tuple(objs)), colours


@pytest.mark.parametrize("pitch,roll", [(-90.0, 0.0), (-60.0, 3.0)])
def test_projected_boxes_stay_on_their_objects(tmp_path, pitch: float, roll: float) -> None:
    src, colours = _coloured_texture(tmp_path)
    spec = CameraSpec(20.0, pitch, 600.0, 640, 360, roll)
    scene = make_scene(src, 5.0)  # scale 1: a small footprint fits the 30 m x 25 m texture
    rng = np.random.default_rng(1)
    checked = 0
    for _ in range(6):
        cam = place_camera(rng, scene, spec)
        img, _ = render_view(scene, cam, rng, Nuisance())
        for obj, col in zip(scene.objects, colours):
            box, _ = project_object(cam, obj)
            if box[0] < 2 or box[1] < 2 or box[2] > cam.width - 2 or box[3] > cam.height - 2:
                continue
            d = np.asarray(col, float) - 128.0  # share of the object's colour in each (interpolated) pixel
            alpha = ((img.astype(float) - 128.0) @ d) / (d @ d)
            x0, y0 = int(max(0, box[0] - 8)), int(max(0, box[1] - 8))  # objects lie > 100 px apart
            ys, xs = np.nonzero(alpha[y0:int(box[3]) + 8, x0:int(box[2]) + 8] > 0.25)
            xs, ys = xs + x0, ys + y0
            assert len(xs) > 20
            seen = np.array([xs.min(), ys.min(), xs.max() + 1, ys.max() + 1])
            # tolerance: half a texture pixel (1.5 image px here) and interpolation;
            # a wrong projection is off by tens of pixels
            np.testing.assert_allclose(seen, box, atol=1.0)
            assert box_iou(seen, box) > 0.9
            checked += 1
    assert checked >= 3


def test_cameras_placed_inside_texture_render_no_empty_pixels(tmp_path) -> None:
    src, _ = _coloured_texture(tmp_path)
    spec = CameraSpec(30.0, -50.0, 500.0, 640, 360, 0.0)
    scene = make_scene(src, 60.0)  # needs scaling up
    assert scene.scale > 1.0
    rng = np.random.default_rng(2)
    for _ in range(5):
        cam = place_camera(rng, scene, spec)
        w, h = scene.texture.size_m
        fp = footprint(cam)
        assert (np.abs(fp[:, 0]) <= w / 2).all() and (np.abs(fp[:, 1]) <= h / 2).all()
        img, _ = render_view(scene, cam, rng, Nuisance())
        assert img.shape == (360, 640, 3)


def test_overlap_fraction_matches_sampled_points() -> None:
    a = PinholeCamera(0.0, 0.0, 50.0, yaw_deg=10.0, focal_px=600.0, width=640, height=360)
    b = PinholeCamera(15.0, 10.0, 60.0, yaw_deg=70.0, focal_px=600.0, width=640, height=360)
    u, v = np.meshgrid(np.linspace(0.5, 639.5, 64), np.linspace(0.5, 359.5, 36))
    ground = a.image_to_ground(np.c_[u.ravel(), v.ravel()])
    pb, _ = b.project(np.c_[ground, np.zeros(len(ground))])
    inside = (pb[:, 0] >= 0) & (pb[:, 0] <= 640) & (pb[:, 1] >= 0) & (pb[:, 1] <= 360)
    assert 0.05 < inside.mean() < 0.95
    assert overlap_fraction(a, b) == pytest.approx(inside.mean(), abs=0.03)


def test_bad_texture_input_has_clear_errors(tmp_path) -> None:
    with pytest.raises(ToolError, match="not found"):
        load_source(tmp_path / "missing.png", 0.1)
    junk = tmp_path / "junk.png"
    junk.write_bytes(b"not an image")
    with pytest.raises(ToolError, match="ground sample distance"):
        load_source(junk)
    with pytest.raises(ToolError, match="readable image"):
        load_source(junk, 0.1)
