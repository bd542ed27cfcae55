"""tools/geometry/pitch.py: truth from exact renders of real orthophotos (benchmarks/synth)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from benchmarks.synth.scene import footprint_radius, make_scene, place_camera, render_view, sample_spec
from benchmarks.synth.sources import builtin_sources
from benchmarks.synth.tiers import DEFAULT
from planners.pitch_sweep import INTERVAL_STEP_DEG, _interval_pitches
from tools.common import ToolError
from tools.geometry.pitch import PITCH_GRID_DEG, _gray, estimate_pitch
from tools.geometry.pitch_aniso import aniso_cost_curve, tile_spectra


def _views(data: Path, pitch: float, n: int, seed: int) -> list[tuple[np.ndarray, float, float]]:
    """``n`` renders of the NEON/DJI textures at ``pitch`` deg: (image, true pitch, focal px)."""
    sources = [s for s in builtin_sources(data) if s.name.startswith(("neon_", "dji_"))]
    rng = np.random.default_rng(seed)
    out = []
    for k in range(n):
        spec = sample_spec(rng, DEFAULT, (960, 540), pitch=(pitch, pitch))
        scene = make_scene(sources[k % len(sources)], footprint_radius(spec))
        cam = place_camera(rng, scene, spec)
        img, _ = render_view(scene, cam, rng, DEFAULT.nuisance)
        out.append((img, cam.pitch_deg, cam.focal_px))
    return out


# Bounds with slack over what the estimator reaches on these renders (1.5, 4, 2.5 deg; 2, 9.5, 15 before the
# foreshortening term). A constant −90 estimator fails the last two, a constant −65 the first.
@pytest.mark.parametrize(("pitch", "max_median_error"), [(-85.0, 4.0), (-65.0, 8.0), (-45.0, 8.0)])
def test_estimate_close_to_rendered_pitch(shared_data: Path, pitch: float, max_median_error: float) -> None:
    """Median error over 8 renders within the bound, and all but two of the confident intervals contain the
    truth (development renders: ~93 % coverage)."""
    errors, covered, confident = [], 0, 0
    for img, true, focal in _views(shared_data, pitch, 8, seed=101):
        est = estimate_pitch(img, focal_px=focal)
        errors.append(abs(est.pitch_deg - true))
        lo, hi = est.interval_deg
        assert -90.0 <= lo <= est.pitch_deg <= hi <= -20.0
        if est.confident:
            confident += 1
            covered += lo - 0.5 <= true <= hi + 0.5
    assert float(np.median(errors)) <= max_median_error, errors
    assert covered >= confident - 2, (covered, confident)


def test_steep_and_oblique_views_are_told_apart(shared_data: Path) -> None:
    """The same textures seen at −85 and −40 deg: every oblique estimate is above (less steep than) every steep one."""
    nadir = [estimate_pitch(i, focal_px=f).pitch_deg for i, _, f in _views(shared_data, -85.0, 4, seed=5)]
    oblique = [estimate_pitch(i, focal_px=f).pitch_deg for i, _, f in _views(shared_data, -40.0, 4, seed=5)]
    assert min(oblique) > max(nadir), (nadir, oblique)


def test_textureless_image_is_not_confident() -> None:
    """White noise has no characteristic scale and is isotropic in the image (the foreshortening term alone would
    read it as nadir): the estimate must say so instead of inventing a pitch."""
    img = np.random.default_rng(0).integers(0, 256, (540, 960, 3), dtype=np.uint8)
    est = estimate_pitch(img)
    assert not est.confident and "noise" in (est.reason or "")
    assert est.focal_assumed


@pytest.mark.parametrize(("pitch", "max_median_error"), [(-65.0, 10.0), (-45.0, 8.0)])
def test_foreshortening_alone_finds_the_pitch(shared_data: Path, pitch: float, max_median_error: float) -> None:
    """Row vs column spectra within the strips (no scale gradient) already place oblique renders (6.5 and 4 deg
    median error on these; a nadir guess is 25 and 45 off)."""
    errors = []
    for img, true, focal in _views(shared_data, pitch, 8, seed=101):
        gray, factor = _gray(img)
        rows, log_f, x, y = tile_spectra(gray)
        cost = aniso_cost_curve(rows - gray.shape[0] / 2, log_f, np.median(x, axis=1), np.median(y, axis=1),
                                focal * factor, PITCH_GRID_DEG)
        errors.append(abs(float(PITCH_GRID_DEG[np.argmin(cost)]) - true))
    assert float(np.median(errors)) <= max_median_error, errors


def test_oblique_confident_intervals_are_narrow(shared_data: Path) -> None:
    """At −45 deg with the focal length unknown the confident intervals hold the truth and are narrow enough for the
    planner's sweep to decide (5 of 8 confident, 4 held, median 16 deg on these renders; 29 before the
    foreshortening term)."""
    widths, covered = [], 0
    for img, true, _ in _views(shared_data, -45.0, 8, seed=101):
        est = estimate_pitch(img)
        if est.confident:
            lo, hi = est.interval_deg
            widths.append(hi - lo)
            covered += lo - 0.5 <= true <= hi + 0.5
    assert len(widths) >= 4 and covered >= len(widths) - 1, (widths, covered)
    assert float(np.median(widths)) <= 20.0, widths


def test_anisotropic_texture_is_mostly_not_confident(shared_data: Path) -> None:
    """Nadir renders squashed vertically (ground texture anisotropic over the whole frame, the foreshortening
    term's failure mode): it reads them as oblique, but the scale gradient disagrees, so few are confident
    (1 of 8 on these)."""
    import cv2

    confident = 0
    for img, _, focal in _views(shared_data, -88.0, 8, seed=11):
        h, w = img.shape[:2]
        est = estimate_pitch(cv2.resize(img, (w, int(h * 0.6)), interpolation=cv2.INTER_AREA), focal_px=focal)
        confident += est.confident
    assert confident <= 2, confident


def test_grey_frames_are_not_confident(shared_data: Path) -> None:
    """A grey copy of a render (as a thermal frame would be) is never confident, whatever its cost curve."""
    img, _, focal = _views(shared_data, -80.0, 1, seed=3)[0]
    grey = img.mean(axis=2).astype(np.uint8)
    for x in (grey, np.repeat(grey[..., None], 3, axis=2)):
        est = estimate_pitch(x, focal_px=focal)
        assert not est.confident and "grey" in (est.reason or "")


def test_bad_inputs_raise() -> None:
    with pytest.raises(ToolError):
        estimate_pitch(np.zeros((40, 60), np.uint8))
    with pytest.raises(ToolError):
        estimate_pitch(np.zeros((540, 960), np.uint8), hfov_deg=200.0)


def test_interval_pitches_cover_the_interval() -> None:
    ps = _interval_pitches(-90.0, -61.0)
    assert ps[0] == -90.0 and ps[-1] == pytest.approx(-61.0)
    assert max(np.diff(ps)) <= INTERVAL_STEP_DEG + 1e-9
    assert _interval_pitches(-70.0, -70.0) == (-70.0,)
    assert math.isclose(min(np.diff(_interval_pitches(-80.0, -30.0))), max(np.diff(_interval_pitches(-80.0, -30.0))))


def test_mcp_tool_registered() -> None:
    from mcp_server.catalog import REGISTRY

    assert "estimate_pitch" in REGISTRY and "image" in REGISTRY["estimate_pitch"].image_params


# --- planner: a distance question without a pitch uses the estimate's interval ---------------------------------
def _planner_server(order_for_pitch, estimate: dict | None):
    """The cross-view tests' in-memory MCP server (three regions, a ranking set by ``order_for_pitch``) plus an
    ``estimate_pitch`` reply."""
    from planner_fakes import make_crossview_server as make_server

    srv = make_server([], order_for_pitch)
    if estimate is not None:
        @srv.tool()
        def estimate_pitch(image: str, focal_px: float | None = None, annotate: bool = False) -> dict:
            return estimate

    return srv


def _ask(server, tmp_path: Path):
    import asyncio

    from mcp.shared.memory import create_connected_server_and_client_session
    from PIL import Image

    from agent.agent import Agent
    from agent.config import Config

    p = tmp_path / "v.png"
    Image.fromarray(np.full((480, 640, 3), 90, np.uint8)).save(p)
    question = ("Which region is closest to the drone? Distances are measured on the ground from the point directly "
                "below the drone. Answer with only the region label, formatted exactly like `Region 1`.")

    async def run():
        async with create_connected_server_and_client_session(server._mcp_server) as session:
            return await Agent(Config(), use_embeddings=False).aask([str(p)], question, session=session)
    return asyncio.run(run())


def _order(p: float) -> list[int]:
    """Closest region 2 for pitches steeper than −70, region 1 otherwise (so the full sweep disagrees)."""
    return [2, 1, 3] if p < -70 else [1, 2, 3]


def test_planner_answers_when_the_ranking_holds_over_the_estimated_interval(tmp_path: Path) -> None:
    from planners.pitch_sweep import ESTIMATED_PITCH_CONFIDENCE

    est = {"pitch_deg": -82.0, "uncertainty_deg": 8.0, "interval_deg": [-90.0, -74.0], "confident": True}
    srv = _planner_server(_order, est)
    ans = _ask(srv, tmp_path)
    assert ans.text == "Region 2" and ans.confidence == pytest.approx(ESTIMATED_PITCH_CONFIDENCE)
    ranked = [p for p in srv.pitches if p is not None]
    assert min(ranked) == -90.0 and -74.0 in ranked  # the interval's ends were ranked
    assert "estimated" in (ans.reason or "")
    assert any(t["tool"] == "estimate_pitch" and "-82" in str(t.get("result")) for t in ans.trace)  # recorded


@pytest.mark.parametrize("est", [
    # −75…−67.5 is ranked at −75, −72.5, −70, −67.5: the answer changes at −70, so each holds for exactly half
    {"pitch_deg": -71.0, "uncertainty_deg": 4.0, "interval_deg": [-75.0, -67.5], "confident": True},
    {"pitch_deg": -71.0, "uncertainty_deg": 4.0, "interval_deg": [-75.0, -67.5], "confident": False, "reason": "x"},
    None,  # a server without the tool
])
def test_planner_abstains_when_the_estimate_does_not_decide(tmp_path: Path, est: dict | None) -> None:
    ans = _ask(_planner_server(_order, est), tmp_path)
    assert ans.abstained and "pitch" in (ans.reason or "")


def test_planner_uses_an_estimate_that_is_not_confident_and_says_so(tmp_path: Path) -> None:
    """A shallow cost minimum still bounds the pitch: the whole interval −90…−74 says region 2."""
    from planners.pitch_sweep import ESTIMATED_PITCH_CONFIDENCE

    est = {"pitch_deg": -82.0, "uncertainty_deg": 8.0, "interval_deg": [-90.0, -74.0], "confident": False,
           "reason": "texture scale barely constrains the pitch"}
    ans = _ask(_planner_server(_order, est), tmp_path)
    assert not ans.abstained and ans.text == "Region 2", ans.reason
    assert ans.confidence == pytest.approx(ESTIMATED_PITCH_CONFIDENCE)
    assert "not confident: texture scale barely constrains" in (ans.reason or "")


def test_planner_gives_the_likeliest_answer_with_its_share_when_most_of_the_interval_agrees(tmp_path: Path) -> None:
    """Interval −90…−66 with the answer changing at −70: 9 of its 11 pitches say region 2."""
    from planners.pitch_sweep import ESTIMATED_PITCH_CONFIDENCE

    est = {"pitch_deg": -80.0, "uncertainty_deg": 10.0, "interval_deg": [-90.0, -66.0], "confident": True}
    ans = _ask(_planner_server(_order, est), tmp_path)   # ranked every 2.4 deg: −90, −87.6, … −70.8 | −68.4, −66
    assert not ans.abstained and ans.text == "Region 2", ans.reason
    assert ans.confidence == pytest.approx(ESTIMATED_PITCH_CONFIDENCE * 9 / 11)
    assert "9 of 11" in (ans.reason or "")
