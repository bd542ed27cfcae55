"""Relative pose: exact geometry, rendered pairs with known poses, real DJI pairs against the drone's log."""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchmarks.synth.camera import GroundTexture, PinholeCamera, relative_heading_deg, render, translation_in_a
from tools.geometry.camera import CameraMetadata, Intrinsics, read_metadata
from tools.common import ToolError
from tools.views.pose import (PoseSetup, camera_rotation, clock_hour, ground_from_pixels, pitches_from_homography,
                              pixels_from_ground, pose_from_correspondences, pose_from_metadata, relative_pose,
                              signed_angle, wrap360)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "dji"
W, H, F = 960, 540, 800.0
INTR = Intrinsics(F, F, W / 2, H / 2, W, H, "render")


def _herr(a: float, b: float) -> float:
    return abs((a - b + 180.0) % 360.0 - 180.0)


@given(st.floats(-1e5, 1e5, allow_nan=False))
def test_signed_angle_range_and_congruence(deg: float) -> None:
    s = signed_angle(deg)
    assert -180.0 < s <= 180.0
    assert math.isclose((s - deg) % 360.0, 0.0, abs_tol=1e-6) or math.isclose((s - deg) % 360.0, 360.0,
                                                                             abs_tol=1e-6)


def test_signed_angle_and_clock_examples() -> None:
    assert (signed_angle(200.0), signed_angle(-180.0), signed_angle(540.0)) == (-160.0, 180.0, 180.0)
    assert [clock_hour(b) for b in (0.0, 90.0, 200.0, 346.0, -90.0, -1e-15)] == [12, 3, 7, 12, 9, 12]
    assert wrap360(-1e-15) == 0.0 and wrap360(-90.0) == 270.0
    with pytest.raises(ToolError):
        signed_angle(float("nan"))


@given(st.floats(0, 360), st.floats(-150, -5), st.floats(-30, 30))
def test_rotation_matches_the_renderer(yaw: float, pitch: float, roll: float) -> None:
    cam = PinholeCamera(0, 0, 50, yaw, pitch, roll)
    np.testing.assert_allclose(camera_rotation(yaw, pitch, roll), cam.R, atol=1e-12)


def test_ground_projection_matches_the_renderer() -> None:
    cam = PinholeCamera(0.0, 0.0, 57.0, 0.0, -62.0, 0.0, F, W, H)
    px = np.array([[10.0, 500.0], [480.0, 270.0], [900.0, 300.0]])
    g = ground_from_pixels(px, cam.K, cam.pitch_deg, cam.altitude)
    np.testing.assert_allclose(g, cam.image_to_ground(px), atol=1e-9)
    np.testing.assert_allclose(pixels_from_ground(g, cam.K, cam.pitch_deg, cam.altitude), px, atol=1e-6)
    assert np.isnan(ground_from_pixels(np.array([[480.0, 0.0]]), cam.K, -10.0, 50.0)).all()  # above horizon


def _exact_correspondences(a: PinholeCamera, b: PinholeCamera, n: int = 300) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1)
    px = np.column_stack([rng.uniform(0, W, n), rng.uniform(0, H, n)])
    g = a.image_to_ground(px)
    ok = np.isfinite(g).all(1)
    pb, depth = b.project(np.column_stack([g[ok], np.zeros(ok.sum())]))
    vis = (depth > 0) & (pb[:, 0] >= 0) & (pb[:, 0] < W) & (pb[:, 1] >= 0) & (pb[:, 1] < H)
    return px[ok][vis], pb[vis]


CASES = [  # (A, B): nadir, nadir turned 160° back, obliques, altitude change
    (PinholeCamera(0, 0, 40, 45, -90, 0, F, W, H), PinholeCamera(9.7, 9.7, 40.3, 42.8, -90, 0, F, W, H)),
    (PinholeCamera(0, 0, 80, 10, -90, 0, F, W, H), PinholeCamera(-12, 5, 80, 210, -88, 0, F, W, H)),
    (PinholeCamera(0, 0, 60, 300, -60, 0, F, W, H), PinholeCamera(-20, 25, 70, 330, -75, 0, F, W, H)),
    (PinholeCamera(0, 0, 110, 0, -45, 0, F, W, H), PinholeCamera(30, 40, 100, 15, -50, 0, F, W, H)),
]


@pytest.mark.parametrize("a,b", CASES)
def test_pose_from_exact_correspondences(a: PinholeCamera, b: PinholeCamera) -> None:
    pa, pb = _exact_correspondences(a, b)
    gt_t, gt_h = translation_in_a(a, b), relative_heading_deg(a, b)
    known = pose_from_correspondences(pa, pb, PoseSetup(INTR, INTR, a.altitude, b.altitude, a.pitch_deg, b.pitch_deg))
    assert known.confident and known.scale_known and known.units == "m"
    assert _herr(known.heading_deg, gt_h) < 1e-6
    np.testing.assert_allclose(known.translation_m, gt_t, atol=1e-6)
    # Pitch unknown (estimated from the homography normal), only A's altitude: B's altitude from the scale.
    est = pose_from_correspondences(pa, pb, PoseSetup(INTR, INTR, a.altitude, None, None, None))
    assert est.confident and est.method.startswith("homography")
    assert _herr(est.heading_deg, gt_h) < 1e-3
    np.testing.assert_allclose(est.translation_m, gt_t, atol=1e-3 * a.altitude)
    # No altitude at all: the same translation in units of A's altitude.
    unit = pose_from_correspondences(pa, pb, PoseSetup(INTR, INTR, None, None, a.pitch_deg, b.pitch_deg))
    assert not unit.scale_known and unit.units == "altitude"
    np.testing.assert_allclose(unit.translation_m, gt_t / a.altitude, atol=1e-6)
    # Only B's altitude known: metres again.
    only_b = pose_from_correspondences(pa, pb, PoseSetup(INTR, INTR, None, b.altitude, a.pitch_deg, b.pitch_deg))
    np.testing.assert_allclose(only_b.translation_m, gt_t, atol=1e-6)
    assert 0 <= known.bearing_deg < 360 and 0 <= known.heading_deg < 360
    assert _herr(known.bearing_deg, math.degrees(math.atan2(gt_t[1], gt_t[0]))) < 1e-6
    assert known.clock == clock_hour(known.bearing_deg) and known.horizontal_m == pytest.approx(np.hypot(*gt_t[:2]))


DIFFERENT_PITCH = [  # (A, B) as the synthetic Camera_Transformation pairs draw them: independent pitches, B rolled
    (PinholeCamera(0, 0, 76, 328, -87.1, 0, F, W, H), PinholeCamera(-5, 14, 61, 348, -77.7, 0.8, F, W, H)),
    (PinholeCamera(0, 0, 55, 20, -75.1, 0, F, W, H), PinholeCamera(8, 12, 63, 350, -86.1, -1.5, F, W, H)),
]


@pytest.mark.parametrize("a,b", DIFFERENT_PITCH)
def test_only_a_pitch_known_estimates_b_pitch(a: PinholeCamera, b: PinholeCamera) -> None:
    pa, pb = _exact_correspondences(a, b)
    gt_t, gt_h = translation_in_a(a, b), relative_heading_deg(a, b)
    stated = float(round(a.pitch_deg))  # a question states image 1's pitch in whole degrees, nothing about B's
    pose = pose_from_correspondences(pa, pb, PoseSetup(INTR, INTR, float(round(a.altitude)), None, stated, None))
    assert pose.confident, pose.reason
    assert _herr(pose.heading_deg, gt_h) < 2.0 and abs(pose.translation_m[0] - gt_t[0]) < 2.0
    assert pose.residual_px < 2.0
    est = pitches_from_homography(pa, pb, INTR, INTR, known_a=stated)  # B's pitch is recovered, despite its roll
    assert est is not None and abs(est[1] - b.pitch_deg) < 1.5


def test_too_few_correspondences_cannot_decide() -> None:
    a, b = CASES[0]
    pa, pb = _exact_correspondences(a, b, n=12)
    pose = pose_from_correspondences(pa, pb, PoseSetup(INTR, INTR, 40.0, 40.0, -90.0, -90.0))
    assert not pose.confident and pose.heading_deg is None and pose.translation_m is None
    assert "inlier" in pose.reason


@pytest.fixture(scope="module")
def texture() -> GroundTexture:
    img = cv2.cvtColor(cv2.imread(str(EXAMPLES / "DJI_0019.JPG"), cv2.IMREAD_REDUCED_COLOR_2), cv2.COLOR_BGR2RGB)
    gsd = 0.06  # declared: 2000 px → 120 m of ground
    return GroundTexture(img, gsd, x0=-img.shape[1] * gsd / 2, y0=img.shape[0] * gsd / 2)


RENDERED = [  # views of the texture with known geometry; the second mirrors SpatialUAV's "-160 degrees"
    (PinholeCamera(0, 0, 50, 45, -90, 0, F, W, H), PinholeCamera(6, -4, 50, 45 - 160, -90, 0, F, W, H)),
    (PinholeCamera(-5, -30, 40, 20, -60, 0, F, W, H), PinholeCamera(12, -25, 45, 350, -70, 0, F, W, H)),
]


@pytest.mark.parametrize("a,b", RENDERED)
def test_rendered_pairs_through_the_matcher(texture: GroundTexture, a: PinholeCamera, b: PinholeCamera) -> None:
    img_a, img_b = render(texture, a)[0], render(texture, b)[0]
    pose = relative_pose(img_a, img_b, altitude_m=a.altitude, altitude_b_m=b.altitude, intrinsics=INTR,
                         pitch_deg=(a.pitch_deg, b.pitch_deg), match_method="sift")
    assert pose.confident, pose.reason
    gt_h = relative_heading_deg(a, b)
    assert _herr(pose.heading_deg, gt_h) < 1.0
    assert pose.heading_signed_deg == pytest.approx(signed_angle(gt_h), abs=1.0)
    assert np.linalg.norm(np.subtract(pose.translation_m, translation_in_a(a, b))) < 1.0
    assert pose.n_inliers >= 15 and pose.residual_px < 3.0 and pose.heading_uncertainty_deg < 1.0


def test_rendered_pair_with_a_single_stated_pitch(texture: GroundTexture) -> None:
    """One scalar pitch describes image 1 only (as the questions state it); B's differs and is estimated."""
    a, b = PinholeCamera(-3, -8, 45, 30, -87, 0, F, W, H), PinholeCamera(4, 6, 40, 75, -77, 1.0, F, W, H)
    pose = relative_pose(render(texture, a)[0], render(texture, b)[0], altitude_m=a.altitude, intrinsics=INTR,
                         pitch_deg=a.pitch_deg, match_method="sift")
    assert pose.confident, pose.reason
    assert _herr(pose.heading_deg, relative_heading_deg(a, b)) < 2.0
    assert abs(pose.translation_m[0] - translation_in_a(a, b)[0]) < 2.0
    assert any("estimated from the homography" in s for s in pose.assumptions)


def test_non_overlapping_render_cannot_decide(texture: GroundTexture) -> None:
    a = PinholeCamera(-40, 20, 30, 0, -90, 0, F, W, H)
    b = PinholeCamera(40, -20, 30, 0, -90, 0, F, W, H)  # footprints 36 m wide, 89 m apart
    pose = relative_pose(render(texture, a)[0], render(texture, b)[0], altitude_m=30.0, intrinsics=INTR,
                         pitch_deg=-90.0, match_method="sift")
    assert not pose.confident and pose.heading_deg is None and pose.translation_m is None
    assert "matching not confident" in pose.reason


def test_real_unrelated_photos_cannot_decide(shared_data: Path) -> None:
    pelican = shared_data / "deepforest_neon" / "AWPE Pigeon Lake 2020 DJI_0005.JPG"
    pose = relative_pose(EXAMPLES / "DJI_0018.JPG", pelican, match_method="sift", fuse=False)
    assert not pose.confident and pose.reason and pose.heading_deg is None
    fused = relative_pose(EXAMPLES / "DJI_0018.JPG", pelican, match_method="sift")  # both photos have GPS
    assert fused.confident and fused.horizontal_m > 100e3 and fused.sources["heading_change"].startswith("yaw tags")


@pytest.mark.parametrize("pair", [("0018", "0019"), ("0019", "0020"), ("0034", "0035")])
def test_real_dji_pairs_agree_with_gps_and_yaw(shared_data: Path, pair: tuple[str, str]) -> None:
    pa, pb = (shared_data / "dji_survey_dev" / "images" / f"DJI_{n}.JPG" for n in pair)
    vision = relative_pose(pa, pb, match_method="sift", fuse=False)
    log = pose_from_metadata(read_metadata(pa), read_metadata(pb))
    assert vision.confident, vision.reason
    assert vision.scale_known and any("relative altitude" in s for s in vision.assumptions)
    assert _herr(vision.heading_deg, log.heading_deg) <= 10.0
    assert np.linalg.norm(np.subtract(vision.translation_m[:2], log.translation_m[:2])) <= 3.0


def test_metadata_pose_matches_an_independent_local_approximation() -> None:
    ma, mb = read_metadata(EXAMPLES / "DJI_0018.JPG"), read_metadata(EXAMPLES / "DJI_0019.JPG")
    pose = pose_from_metadata(ma, mb)
    assert pose.heading_signed_deg == pytest.approx(42.8 - 45.0) and pose.heading_deg == pytest.approx(357.8)
    # Equirectangular (spherical Earth, R = 6371 km): east/north metres, then rotated into A's heading frame.
    r = 6371008.8
    north = math.radians(mb.lat - ma.lat) * r
    east = math.radians(mb.lon - ma.lon) * r * math.cos(math.radians(ma.lat))
    yaw = math.radians(45.0)
    fwd, right = east * math.sin(yaw) + north * math.cos(yaw), east * math.cos(yaw) - north * math.sin(yaw)
    assert pose.translation_m[0] == pytest.approx(fwd, rel=0.005, abs=0.05)
    assert pose.translation_m[1] == pytest.approx(right, abs=0.1)
    assert pose.translation_m[2] == pytest.approx(40.1 - 39.8)
    assert 12.0 < pose.horizontal_m < 15.0 and pose.clock == 12 and pose.confident


def test_metadata_pose_without_gps_cannot_decide() -> None:
    pose = pose_from_metadata(CameraMetadata(gimbal_yaw_deg=10.0), CameraMetadata(lat=1.0, lon=2.0))
    assert not pose.confident and "GPS of image a" in pose.reason and "yaw of image b" in pose.reason


def test_bad_inputs_raise_clear_errors(tmp_path: Path) -> None:
    img = np.random.default_rng(0).integers(0, 255, (64, 64, 3), dtype=np.uint8)
    text = tmp_path / "a.jpg"
    text.write_text("not an image")
    with pytest.raises(ToolError, match="image a"):
        relative_pose(text, img)
    with pytest.raises(ToolError, match="unknown pose method"):
        relative_pose(img, img, method="magic")
    with pytest.raises(ToolError, match="altitude_m"):
        relative_pose(img, img, altitude_m=-3.0)
    with pytest.raises(ToolError, match="below the horizon"):
        relative_pose(img, img, pitch_deg=10.0)
    with pytest.raises(ToolError, match="intrinsics of a are for 960x540"):
        relative_pose(img, img, intrinsics=INTR)
    with pytest.raises(ToolError, match="CameraMetadata"):
        pose_from_metadata({"lat": 1.0}, CameraMetadata())  # type: ignore[arg-type]
