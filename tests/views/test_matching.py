"""Feature matching: real images warped by exact, known homographies; renders with known cameras; negatives."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from agent.config import Config, MissingWeightsError
from benchmarks.synth.camera import GroundTexture, PinholeCamera, render
from tools.common import ToolError, load_image
from tools.views.homography_checks import corners, homography_problem, log10_nfa, warp_points
from tools.views.matching import match_views

YELL = "deepforest_neon/2019_YELL_2_541000_4977000_image_crop.png"
DJI = "dji_survey_dev/images/DJI_0018.JPG"


def corner_error(H_est: np.ndarray | None, H_true: np.ndarray, size: tuple[int, int]) -> float:
    """Mean distance (px) between image corners mapped by the estimated and the true homography."""
    assert H_est is not None
    c = corners(size)
    return float(np.linalg.norm(warp_points(H_est, c) - warp_points(H_true, c), axis=1).mean())


def known_warp(w: int, h: int, angle_deg: float, scale: float, shift: tuple[float, float],
               persp: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    """Similarity about the image centre, then a small projective term: the ground truth of a test pair."""
    A = cv2.getRotationMatrix2D((w / 2, h / 2), angle_deg, scale)
    H = np.vstack([A, [0, 0, 1]])
    H[:2, 2] += shift
    P = np.array([[1, 0, 0], [0, 1, 0], [persp[0], persp[1], 1.0]])
    return P @ H


@pytest.fixture(scope="module")
def yell(shared_data: Path) -> np.ndarray:
    return load_image(shared_data / YELL)[:480, :640]


@pytest.fixture(scope="module")
def dji(shared_data: Path) -> np.ndarray:
    return load_image(shared_data / DJI)


@pytest.mark.parametrize("method,tol_px", [("sift", 1.0), ("orb", 2.5)])
def test_classical_recovers_known_warp(yell: np.ndarray, method: str, tol_px: float) -> None:
    H_true = known_warp(640, 480, 12.0, 0.9, (15.0, -10.0), (2e-5, -1e-5))
    b = cv2.warpPerspective(yell, H_true, (640, 480))
    r = match_views(yell, b, method=method)
    assert r.confident and r.reason is None and r.confidence >= 0.5
    assert corner_error(r.H, H_true, (640, 480)) < tol_px
    assert r.n_inliers == int(r.inliers.sum()) and r.n_inliers > 100
    # inliers really are correspondences of the known warp
    err = np.linalg.norm(warp_points(H_true, r.points_a[r.inliers]) - r.points_b[r.inliers], axis=1)
    assert np.median(err) < 1.5
    assert r.residual_px is not None and r.residual_px < 2.0


def test_downscaled_matching_returns_full_resolution_coordinates(dji: np.ndarray) -> None:
    a = dji[:1080, :1920]
    H_true = known_warp(1920, 1080, -20.0, 1.15, (40.0, 25.0))
    b = cv2.warpPerspective(a, H_true, (1920, 1080))
    r = match_views(a, b, method="sift", max_side=640)
    assert r.confident
    assert r.image_a_size == (1920, 1080)
    assert r.points_a[:, 0].max() > 1000  # not the 640-px working coordinates
    assert corner_error(r.H, H_true, (1920, 1080)) < 3.0  # 1 working px = 3 full-res px


def test_disjoint_crops_of_one_photo_are_not_confident(dji: np.ndarray) -> None:
    # Two non-overlapping parts of one field: same texture statistics, no shared ground.
    a, b = dji[:1000, :1400], dji[1100:2100, 2500:3900]
    for method in ("sift", "orb"):
        r = match_views(a, b, method=method)
        assert not r.confident and r.reason, method


def test_different_places_are_not_confident(shared_data: Path) -> None:
    r = match_views(shared_data / YELL, shared_data / "deepforest_neon/OSBS_029.png", method="sift")
    assert not r.confident and r.reason


def test_aero_pair_is_not_a_confident_sift_answer(shared_data: Path) -> None:
    # The README's own check: SIFT + RANSAC fails on this very different-heading pair.
    r = match_views(shared_data / "opencv_aero/aero1.jpg", shared_data / "opencv_aero/aero3.jpg", method="sift")
    assert not r.confident and r.confidence < 0.5


def _render_pair(tex: GroundTexture) -> tuple[PinholeCamera, PinholeCamera]:
    cx, cy = tex.centre
    a = PinholeCamera(cx - 5, cy, 70.0, yaw_deg=10, pitch_deg=-80, focal_px=500, width=480, height=360)
    b = a.with_(x=cx + 4, y=cy + 6, yaw_deg=35, pitch_deg=-70, altitude=80.0)
    return a, b


def _true_H(tex: GroundTexture, a: PinholeCamera, b: PinholeCamera) -> np.ndarray:
    return b.ground_to_image() @ np.linalg.inv(a.ground_to_image())


def test_learned_aliked_on_rendered_views(yell: np.ndarray, shared_data: Path) -> None:
    tex = GroundTexture(load_image(shared_data / YELL), 0.1)
    ca, cb = _render_pair(tex)
    ia, ib = render(tex, ca)[0], render(tex, cb)[0]
    r = match_views(ia, ib, method="aliked")
    assert r.method == "aliked" and r.confident
    assert corner_error(r.H, _true_H(tex, ca, cb), (480, 360)) < 2.0


def _epipolar_px(F: np.ndarray, pa: np.ndarray, pb: np.ndarray) -> np.ndarray:
    """Distance (px) of each point of b to the epipolar line of its partner in a."""
    lines = np.column_stack([pa, np.ones(len(pa))]) @ F.T
    return np.abs(np.sum(lines * np.column_stack([pb, np.ones(len(pb))]), 1)) / np.hypot(lines[:, 0], lines[:, 1])


def test_essential_and_fundamental_on_rendered_views(shared_data: Path) -> None:
    # A ground plane alone does not fix E uniquely (planar degeneracy), so the check is that exact
    # correspondences from the two known cameras satisfy the fitted epipolar geometry.
    tex = GroundTexture(load_image(shared_data / YELL), 0.1)
    ca, cb = _render_pair(tex)
    ia, ib = render(tex, ca)[0], render(tex, cb)[0]
    ground = np.array([[tex.centre[0] + dx, tex.centre[1] + dy, 0.0] for dx in (-6, 0, 6) for dy in (-4, 0, 4)])
    pa, pb = ca.project(ground)[0], cb.project(ground)[0]
    e = match_views(ia, ib, method="sift", model="essential", K_a=ca.K, K_b=cb.K)
    assert e.confident and e.E is not None and e.model == "essential"
    F_from_E = np.linalg.inv(cb.K).T @ e.E @ np.linalg.inv(ca.K)
    assert np.median(_epipolar_px(F_from_E, pa, pb)) < 1.5
    f = match_views(ia, ib, method="sift", model="fundamental")
    assert f.confident and f.F is not None
    assert np.median(_epipolar_px(f.F, pa, pb)) < 1.5


def test_missing_learned_weights_name_the_setting(yell: np.ndarray, tmp_path: Path) -> None:
    with pytest.raises(MissingWeightsError, match="lightglue_dir"):
        match_views(yell, yell, method="aliked", config=Config(lightglue_dir=str(tmp_path)))


def test_learned_code_path_runs_on_random_weights(yell: np.ndarray) -> None:
    from tools.views.matchers_learned import build_matcher, match_learned

    m = build_matcher("disk", None, random_init=True)
    pa, pb = match_learned(m, yell[:128, :160], yell[:128, :160])
    assert pa.shape == pb.shape and pa.shape[1] == 2


def test_bad_inputs_give_clear_errors(yell: np.ndarray, tmp_path: Path) -> None:
    junk = tmp_path / "junk.jpg"
    junk.write_bytes(b"this is not a jpeg")
    with pytest.raises(ToolError, match="image b: not a readable image"):
        match_views(yell, junk)
    with pytest.raises(ToolError, match="image a: image not found"):
        match_views(tmp_path / "missing.png", yell)
    with pytest.raises(ToolError, match="single colour"):
        match_views(yell, np.full((480, 640, 3), 127, np.uint8))
    with pytest.raises(ToolError, match="unknown matching method"):
        match_views(yell, yell, method="superglue")
    with pytest.raises(ToolError, match="needs K_a"):
        match_views(yell, yell, model="essential")
    with pytest.raises(ToolError, match="too small"):
        match_views(yell[:8, :8], yell)


def test_homography_sanity_rules() -> None:
    size = (640, 480)
    assert homography_problem(np.eye(3), size) is None
    assert "mirrors" in homography_problem(np.diag([-1.0, 1.0, 1.0]), size)
    assert "scale" in homography_problem(np.diag([20.0, 20.0, 1.0]), size)
    assert "horizon" in homography_problem(np.array([[1, 0, 0], [0, 1, 0], [0, -1 / 240, 1.0]]), size)
    # more chance inliers need a smaller false-alarm number to be believed
    assert log10_nfa(200, 30, 5e-5, 4) < log10_nfa(200, 12, 5e-5, 4) < 0 < log10_nfa(200, 6, 5e-5, 4)


def test_auto_without_learned_weights_returns_the_classical_verdict(tmp_path) -> None:
    """Two unrelated textures: SIFT is not confident, the learned fallback has no weights → a clear reason."""
    from agent.config import Config
    from tools.views.matching import match_views

    rng = np.random.default_rng(0)
    a = (rng.random((240, 320, 3)) * 255).astype(np.uint8)
    b = (rng.random((240, 320, 3)) * 255).astype(np.uint8)
    res = match_views(a, b, config=Config(lightglue_dir=str(tmp_path / "nothing_here")))
    assert not res.confident
    assert "learned fallback unavailable" in res.reason and "lightglue_dir" in res.reason
