"""Depth backends (tiny random models exported to ONNX / TorchScript), ground-plane depth and point clouds.

Geometry truth comes from benchmarks/synth/camera.py (exact projection); model truth from running the same torch
module directly.
"""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from agent.config import Config, MissingWeightsError
from benchmarks.synth.camera import PinholeCamera
from tools.common import ToolError
from tools.geometry.depth import OnnxDepth, TorchScriptDepth, depth_from_ground_plane, estimate_depth
from tools.geometry.ground import CameraGeometry
from tools.geometry.pointcloud import (
    clock_between,
    measure_object,
    object_points,
    point_cloud,
    separation,
)

MEAN, STD = np.array([0.485, 0.456, 0.406]), np.array([0.229, 0.224, 0.225])  # ImageNet, the contract's normalisation


def geometry_of(cam: PinholeCamera) -> CameraGeometry:
    return CameraGeometry(cam.altitude, cam.pitch_deg, cam.focal_px, cam.width / 2, cam.height / 2, cam.roll_deg)


def truth_ground_depth(cam: PinholeCamera) -> np.ndarray:
    """z-depth of flat ground at every pixel centre, from the renderer's own inverse and forward projection."""
    v, u = np.mgrid[0 : cam.height, 0 : cam.width]
    pix = np.column_stack([u.ravel() + 0.5, v.ravel() + 0.5])
    xy = cam.image_to_ground(pix)
    _, z = cam.project(np.column_stack([xy, np.zeros(len(xy))]))
    return z.reshape(cam.height, cam.width)


@pytest.mark.parametrize("pitch,roll", [(-90, 0), (-15, 0), (-35, 0), (-60, 7)])
def test_ground_plane_depth_matches_renderer(pitch: float, roll: float) -> None:
    cam = PinholeCamera(x=3, y=4, altitude=45, yaw_deg=30, pitch_deg=pitch, roll_deg=roll, width=160, height=120,
                        focal_px=150)
    got = depth_from_ground_plane(geometry_of(cam), cam.width, cam.height)
    truth = truth_ground_depth(cam)
    np.testing.assert_array_equal(np.isfinite(got), np.isfinite(truth))
    np.testing.assert_allclose(got[np.isfinite(got)], truth[np.isfinite(truth)], rtol=1e-5)
    if pitch == -15:
        assert np.isnan(got[0]).all(), "the top row of a 15 deg oblique view with a 44 deg vertical FOV shows sky"


class TinyDepthNet:
    """Randomly initialised conv net with the depth contract: (1, 3, H, W) → (1, 1, H/2, W/2) positive."""

    @staticmethod
    def build():
        import torch

        torch.manual_seed(0)
        return torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3, stride=2, padding=1), torch.nn.ReLU(),
                                   torch.nn.Conv2d(4, 1, 3, padding=1), torch.nn.Softplus()).eval()


def reference_depth(net, rgb: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    import torch

    x = (cv2.resize(rgb, size, interpolation=cv2.INTER_CUBIC) / 255.0 - MEAN) / STD
    with torch.no_grad():
        out = net(torch.from_numpy(x.transpose(2, 0, 1)[None].astype(np.float32)))[0, 0].numpy()
    return cv2.resize(out, (rgb.shape[1], rgb.shape[0]), interpolation=cv2.INTER_LINEAR)


@pytest.fixture(scope="module")
def scene() -> np.ndarray:
    rng = np.random.default_rng(1)
    return cv2.GaussianBlur(rng.integers(0, 255, (60, 80, 3), dtype=np.uint8), (0, 0), 2)


def test_onnx_backend_via_config(tmp_path: Path, scene: np.ndarray) -> None:
    import onnx
    import torch

    net = TinyDepthNet.build()
    path = tmp_path / "depth.onnx"
    torch.onnx.export(net, (torch.zeros(1, 3, 64, 64),), str(path), dynamo=False, input_names=["image"],
                      output_names=["depth"], dynamic_axes={"image": {2: "h", 3: "w"}})
    model = onnx.load(str(path))
    model.metadata_props.add(key="depth_kind", value="relative")
    onnx.save(model, str(path))
    got = estimate_depth(scene, Config(depth_model=str(path)))
    assert got.shape == scene.shape[:2] and got.dtype == np.float32
    np.testing.assert_allclose(got, reference_depth(net, scene, (518, 518)), rtol=1e-3, atol=1e-4)
    backend = OnnxDepth(path, input_size=96)
    assert backend.kind == "relative"
    np.testing.assert_allclose(backend.predict(scene), reference_depth(net, scene, (96, 96)), rtol=1e-3, atol=1e-4)


def test_onnx_static_input_size_is_respected(tmp_path: Path, scene: np.ndarray) -> None:
    import torch

    net = TinyDepthNet.build()
    path = tmp_path / "static.onnx"
    torch.onnx.export(net, (torch.zeros(1, 3, 48, 64),), str(path), dynamo=False, input_names=["x"])
    backend = OnnxDepth(path)
    assert backend.size == (64, 48) and backend.kind == "unknown"
    np.testing.assert_allclose(backend.predict(scene), reference_depth(net, scene, (64, 48)), rtol=1e-3, atol=1e-4)


@pytest.mark.filterwarnings("ignore::FutureWarning")  # torch.jit is deprecated but still what users export
def test_torchscript_backend_via_config(tmp_path: Path, scene: np.ndarray) -> None:
    import torch

    net = TinyDepthNet.build()
    path = tmp_path / "depth.pt"
    torch.jit.trace(net, torch.zeros(1, 3, 64, 64)).save(str(path))
    got = estimate_depth(scene, Config(depth_model=str(path)))
    np.testing.assert_allclose(got, reference_depth(net, scene, (518, 518)), rtol=1e-3, atol=1e-4)
    assert TorchScriptDepth(path, input_size=32).predict(scene).shape == (60, 80)


def test_missing_or_bad_depth_weights(tmp_path: Path, scene: np.ndarray) -> None:
    with pytest.raises(MissingWeightsError, match="depth_model"):
        estimate_depth(scene, Config(depth_model=None))
    with pytest.raises(MissingWeightsError, match="does not exist"):
        estimate_depth(scene, Config(depth_model=str(tmp_path / "nope.onnx")))
    bad = tmp_path / "broken.onnx"
    bad.write_bytes(b"not a model")
    with pytest.raises(ToolError, match="could not load ONNX"):
        estimate_depth(scene, Config(depth_model=str(bad)))
    odd = tmp_path / "model.bin"
    odd.write_bytes(b"x")
    with pytest.raises(ToolError, match="unsupported depth model"):
        estimate_depth(scene, Config(depth_model=str(odd)))


def test_flat_ground_rectangle_measures_its_true_size() -> None:
    cam = PinholeCamera(x=0, y=0, altitude=30, pitch_deg=-50, width=320, height=240, focal_px=300)
    geo = geometry_of(cam)
    depth = truth_ground_depth(cam)
    corners = np.array([[-2.0, 40.0, 0], [2.0, 40.0, 0], [2.0, 42.0, 0], [-2.0, 42.0, 0]])  # 4 m wide, flat
    px, _ = cam.project(corners)
    mask = np.zeros(depth.shape, np.uint8)
    cv2.fillConvexPoly(mask, np.round(px * 16).astype(np.int32), 1, shift=4)
    m = measure_object(depth, geo.K, mask.astype(bool), up=geo.up_in_camera)
    assert m.width_m == pytest.approx(4.0, abs=0.35)
    assert m.height_m == pytest.approx(0.0, abs=0.05)
    assert m.distance_m == pytest.approx(math.sqrt(41**2 + 30**2), rel=0.02)


def test_upright_patches_separation_and_clock() -> None:
    """Two fronto-parallel 1 m squares at known world positions, seen by level and pitched cameras."""
    a_world, b_world = np.array([-2.0, 10.0, 1.0]), np.array([3.0, 20.0, 4.0])
    for pitch in (-0.0001, -25.0):
        cam = PinholeCamera(x=0, y=0, altitude=5.0, pitch_deg=pitch, width=320, height=240, focal_px=250)
        depth = np.full((cam.height, cam.width), np.nan)
        regions = []
        for centre in (a_world, b_world):
            (u, v), = cam.project(centre[None])[0]
            (z,) = cam.project(centre[None])[1]
            half = 0.5 * cam.focal_px / z  # half of a 1 m square, pixels
            box = [u - half, v - half, u + half, v + half]
            depth[int(box[1]) : int(np.ceil(box[3])), int(box[0]) : int(np.ceil(box[2]))] = z
            regions.append(box)
        up = CameraGeometry(cam.altitude, pitch, cam.focal_px, 160, 120).up_in_camera
        a, b = (measure_object(depth, cam.K, r, up=up) for r in regions)
        assert a.distance_m == pytest.approx(np.linalg.norm(a_world - cam.position), rel=0.03)
        horizontal, vertical, direct = separation(a, b)
        assert horizontal == pytest.approx(math.hypot(5, 10), rel=0.05)
        assert vertical == pytest.approx(3.0, abs=0.3)
        assert direct == pytest.approx(float(np.linalg.norm(b_world - a_world)), rel=0.05)
        if pitch > -1:
            assert a.width_m == pytest.approx(1.0, abs=0.15) and a.height_m == pytest.approx(1.0, abs=0.15)
        # clock truth from world geometry: bearing of b from a, clockwise from north (the camera looks north)
        bearing = math.degrees(math.atan2(b_world[0] - a_world[0], b_world[1] - a_world[1]))
        for heading in (0.0, 90.0, 200.0):
            hour = round(((bearing - heading) % 360) / 30) % 12 or 12
            assert clock_between(a, b, heading) == hour


def test_nadir_clock_uses_image_top_as_forward() -> None:
    geo = CameraGeometry(50, -90, 500, 100, 100)
    depth = np.full((200, 200), 50.0)
    a = measure_object(depth, geo.K, [95, 150, 105, 160], up=geo.up_in_camera)  # bottom centre
    b = measure_object(depth, geo.K, [125, 103, 135, 113], up=geo.up_in_camera)  # right of and above a
    # b is 30 px right and 52 px up the image from a: 30 deg clockwise from the image top; a is at 210 deg from b
    assert clock_between(a, b) == 1 and clock_between(b, a) == 7
    assert clock_between(a, b, heading_deg=90) == 10


def test_point_cloud_of_ground_fits_the_true_plane() -> None:
    cam = PinholeCamera(x=0, y=0, altitude=20, pitch_deg=-40, width=96, height=72, focal_px=90)
    geo = geometry_of(cam)
    depth = truth_ground_depth(cam)
    image = np.full((72, 96, 3), 200, np.uint8)
    pcd = point_cloud(depth, geo.K, image)
    assert len(pcd.points) == int(np.isfinite(depth).sum()) and len(pcd.colors) == len(pcd.points)
    (a, b, c, d), inliers = pcd.segment_plane(distance_threshold=0.01, ransac_n=3, num_iterations=50)
    normal = np.array([a, b, c])
    assert abs(normal @ geo.up_in_camera) == pytest.approx(1.0, abs=1e-4)
    assert abs(d) / np.linalg.norm(normal) == pytest.approx(20.0, rel=1e-4)
    assert len(inliers) == len(pcd.points)
    assert object_points(depth, geo.K, [10, 60, 20, 70]).shape == (100, 3)


def test_bad_point_cloud_inputs() -> None:
    K = np.diag([100.0, 100.0, 1.0])
    depth = np.ones((10, 10))
    with pytest.raises(ToolError, match="2-D"):
        point_cloud(np.ones((2, 2, 2)), K)
    with pytest.raises(ToolError, match="3x3"):
        object_points(depth, np.eye(2), [0, 0, 5, 5])
    with pytest.raises(ToolError, match="outside"):
        object_points(depth, K, [20, 20, 30, 30])
    with pytest.raises(ToolError, match="mask shape"):
        object_points(depth, K, np.ones((5, 5), bool))
    with pytest.raises(ToolError, match="no valid depth"):
        measure_object(np.full((10, 10), np.nan), K, [0, 0, 5, 5])
    with pytest.raises(ToolError, match="matching depth"):
        point_cloud(depth, K, np.zeros((4, 4, 3), np.uint8))
