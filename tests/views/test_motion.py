"""Ego-motion over 16 frames rendered along known trajectories over real aerial textures."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from benchmarks.synth.camera import GroundTexture, PinholeCamera, render, translation_in_a
from tools.common import ToolError, load_image
from tools.views.motion import EgoMotion, MotionStep, ego_motion

N_FRAMES = 16


@pytest.fixture(scope="module")
def yell(shared_data: Path) -> GroundTexture:
    return GroundTexture(load_image(shared_data / "deepforest_neon/2019_YELL_2_541000_4977000_image_crop.png"), 0.1)


def _start(tex: GroundTexture, **kw: float) -> PinholeCamera:
    cx, cy = tex.centre
    args = dict(x=cx - 8, y=cy - 8, altitude=60.0, yaw_deg=20.0, focal_px=300.0, width=320, height=240)
    args.update(kw)
    return PinholeCamera(**args)


def _run(tex: GroundTexture, cams: list[PinholeCamera]) -> EgoMotion:
    frames = [render(tex, c)[0] for c in cams]
    return ego_motion(frames, altitude_m=cams[0].altitude, focal_px=cams[0].focal_px,
                      camera_pitch_deg=cams[0].pitch_deg, method="sift")


def _along(cam: PinholeCamera, forward: float, right: float, **kw: float) -> PinholeCamera:
    psi = np.radians(cam.yaw_deg)
    return cam.with_(x=cam.x + forward * np.sin(psi) + right * np.cos(psi),
                     y=cam.y + forward * np.cos(psi) - right * np.sin(psi), **kw)


def test_forward_while_turning_right(yell: GroundTexture) -> None:
    cams, cam = [], _start(yell)
    for _ in range(N_FRAMES):
        cams.append(cam)
        cam = _along(cam, 0.8, 0.0, yaw_deg=cam.yaw_deg + 2.0)  # fly 0.8 m along the heading, then turn 2° right
    em = _run(yell, cams)
    truth = translation_in_a(cams[0], cams[-1])
    assert em.confident
    assert em.total_yaw_deg == pytest.approx(30.0, abs=1.0)
    assert em.total_forward_m == pytest.approx(truth[0], abs=0.5)
    assert em.total_lateral_m == pytest.approx(truth[1], abs=0.5)
    assert abs(em.total_climb_m) < 0.5
    assert all(s.yaw_deg == pytest.approx(2.0, abs=0.3) for s in em.steps)
    text = em.describe()
    assert text.startswith("The drone flies forward") and "turning right" in text and "altitude stays constant" in text


def test_climb(yell: GroundTexture) -> None:
    cams = [_start(yell, altitude=50.0 + 1.5 * i) for i in range(N_FRAMES)]
    em = _run(yell, cams)
    assert em.total_climb_m == pytest.approx(22.5, rel=0.03)
    assert em.total_scale_change == pytest.approx(50.0 / 72.5, rel=0.03)  # height_0 / height_last (<1: climbing)
    assert all(s.scale_change < 1 for s in em.steps)
    assert abs(em.total_yaw_deg) < 0.5 and "climbs" in em.describe() and "hovers" in em.describe()


def test_lateral_to_the_left(yell: GroundTexture) -> None:
    cams, cam = [], _start(yell, yaw_deg=-30.0)
    for _ in range(N_FRAMES):
        cams.append(cam)
        cam = _along(cam, 0.0, -0.6)
    em = _run(yell, cams)
    assert em.total_lateral_m == pytest.approx(-9.0, abs=0.3)
    assert abs(em.total_forward_m) < 0.3
    assert "sideways to the left" in em.describe()


def test_camera_tilt_and_oblique_forward_flight(yell: GroundTexture) -> None:
    tilting = [_start(yell, pitch_deg=-90.0 + i) for i in range(N_FRAMES)]
    em = _run(yell, tilting)
    assert em.total_tilt_change_deg == pytest.approx(15.0, abs=0.7)
    assert "tilts up" in em.describe()
    # forward-looking oblique camera: forward flight is a zoom about the vanishing point, not a descent
    cams, cam = [], _start(yell, pitch_deg=-45.0, altitude=40.0, y=yell.centre[1] - 35)
    for _ in range(N_FRAMES):
        cams.append(cam)
        cam = _along(cam, 1.0, 0.0)
    em = _run(yell, cams)
    assert em.total_forward_m == pytest.approx(15.0, abs=0.5)
    assert abs(em.total_climb_m) < 0.5 and "altitude stays constant" in em.describe()


def test_dji_texture_forward_flight(shared_data: Path) -> None:
    tex = GroundTexture(load_image(shared_data / "dji_survey_dev/images/DJI_0019.JPG")[::2, ::2], 0.034)
    cams, cam = [], _start(tex, x=tex.centre[0] - 3, y=tex.centre[1] - 3, altitude=25.0, yaw_deg=45.0)
    for _ in range(N_FRAMES):
        cams.append(cam)
        cam = _along(cam, 0.4, 0.0)
    em = _run(tex, cams)
    assert em.total_forward_m == pytest.approx(6.0, abs=0.3)
    assert abs(em.total_yaw_deg) < 1.0


def test_unmatched_step_is_reported_not_guessed(yell: GroundTexture, shared_data: Path) -> None:
    cams = [_start(yell, altitude=60.0 + i) for i in range(4)]
    frames = [render(yell, c)[0] for c in cams]
    frames[2] = load_image(shared_data / "deepforest_neon/OSBS_029.png")[:240, :320]
    em = ego_motion(frames, method="sift")
    assert not em.confident and em.reason
    bad = [s for s in em.steps if not s.confident]
    assert {s.index for s in bad} == {1, 2} and all(s.yaw_deg is None and s.reason for s in bad)
    assert em.steps[0].confident and em.total_forward_m is None  # no altitude given: no metres


def test_bad_inputs(yell: GroundTexture) -> None:
    img = render(yell, _start(yell))[0]
    with pytest.raises(ToolError, match="at least 2 frames"):
        ego_motion([img])
    with pytest.raises(ToolError, match="same size"):
        ego_motion([img, img[:200]])
    with pytest.raises(ToolError, match="altitude_m must be positive"):
        ego_motion([img, img], altitude_m=-3)
    with pytest.raises(ToolError, match="frame 1 is a single colour"):
        ego_motion([img, np.zeros_like(img)])


def test_words_follow_the_documented_thresholds() -> None:
    step = MotionStep(0, 0, 0, 0, 0, 1, 0, confident=True)
    hover = EgoMotion([step], 2.0, 0.01, 0.0, 0.0, 1.0, 0.0, confident=True)
    assert hover.describe() == ("The drone hovers in place without turning; its altitude stays constant. The camera "
                                "angle stays the same. The ground scene stays still in the frame, and the drone "
                                "finally keeps looking at the same area.")
    back_left = EgoMotion([step], -90.0, -1.0, -0.1, 0.0, 0.8, 0.0, confident=True)
    assert back_left.describe().startswith("The drone flies backward while turning left; it climbs.")
    # backward travel: the ground slides toward the top of the frame (image up = forward)
    assert "toward the top of the frame" in back_left.describe()
    right = EgoMotion([step], 0.0, 0.0, 0.5, 0.0, 1.0, 0.0, total_forward_m=0.0, total_lateral_m=20.0, confident=True)
    assert right.describe().startswith("The drone moves sideways to the right about 20 meters, keeping its heading")
    assert "toward the left of the frame" in right.describe() and "about 20 meters from its starting" in right.describe()
    spin = EgoMotion([step], 60.0, 0.0, 0.0, 0.0, 1.0, 0.0, confident=True)
    assert "turns counter-clockwise around the centre" in spin.describe()
