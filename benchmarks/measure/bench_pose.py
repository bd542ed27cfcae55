"""Accuracy of ``tools.views.pose.relative_pose`` on rendered pairs with known poses and on real DJI pairs.

Rendered pairs: real DJI survey photos (``../shared/data/dji_survey_dev``) are used as north-up ground textures
(their ground sample distance is *declared* per pair, ≈ the rendered one, so that 30–120 m altitudes fit); two
960x540 pinhole views (f = 800 px) are rendered with ``benchmarks.synth.camera`` at random altitude (30–120 m,
B within ±15 % of A), heading (0–360), pitch (half the pairs near nadir −90…−80, half −90…−45) and a position such
that both views look at nearby ground points. Each render gets Gaussian pixel noise (σ = 3 grey levels) and a JPEG
round trip (quality 85), as a camera would. Ground truth is the known camera geometry. The scene is idealised
otherwise (flat ground, no lens distortion, identical lighting): the real DJI pairs are the realistic check.

"decided" pairs are those with ``confident=True``; the accuracy shares count undecided pairs as failures.
Runs: ``python -m benchmarks.measure.bench_pose [--n 100] [--seed 0]``; prints the figures and writes
``docs/figures/pose.json``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from pathlib import Path

import cv2
import numpy as np

os.environ.setdefault("YOLO_OFFLINE", "true")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from benchmarks.synth.camera import (  # noqa: E402
                                     GroundTexture, PinholeCamera, relative_heading_deg, render, translation_in_a)
from tools.geometry.camera import Intrinsics, read_metadata  # noqa: E402
from tools.common import to_jsonable  # noqa: E402
from tools.views.pose import pose_from_metadata, relative_pose  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
DJI = ROOT.parent / "shared" / "data" / "dji_survey_dev" / "images"
TEXTURES = ("DJI_0018.JPG", "DJI_0020.JPG", "DJI_0034.JPG", "DJI_0035.JPG")
REAL_PAIRS = (("DJI_0018.JPG", "DJI_0019.JPG"), ("DJI_0019.JPG", "DJI_0020.JPG"), ("DJI_0034.JPG", "DJI_0035.JPG"))
W, H, F = 960, 540, 800.0
NOISE_SIGMA = 3.0  # grey levels
JPEG_QUALITY = 85
MIN_VALID = 0.6  # share of each render that must show the texture


def _heading_error(est: float, gt: float) -> float:
    return abs((est - gt + 180.0) % 360.0 - 180.0)


def _forward(yaw_deg: float) -> np.ndarray:
    psi = math.radians(yaw_deg)
    return np.array([math.sin(psi), math.cos(psi)])


def sample_pair(rng: np.random.Generator, textures: list[np.ndarray]) -> tuple[GroundTexture, PinholeCamera,
                                                                                   PinholeCamera]:
    """A texture with a declared GSD and two cameras looking at nearby ground points (see the module doc)."""
    while True:
        h_a = rng.uniform(30, 120)
        h_b = h_a * rng.uniform(0.85, 1.15)
        img = textures[rng.integers(len(textures))]
        gsd = h_a / F / rng.uniform(1.0, 1.5)
        tex = GroundTexture(img, gsd, x0=-img.shape[1] * gsd / 2, y0=img.shape[0] * gsd / 2)
        if rng.random() < 0.5:
            p_a, p_b = rng.uniform(-90, -80, 2)
        else:
            p_a, p_b = rng.uniform(-90, -45, 2)
        yaw_a, yaw_b = rng.uniform(0, 360, 2)
        target = rng.uniform(-0.15, 0.15, 2) * np.array(tex.size_m)
        look_b = target + rng.uniform(-0.2, 0.2, 2) * h_a
        pos_a = target - _forward(yaw_a) * h_a / math.tan(math.radians(-p_a))
        pos_b = look_b - _forward(yaw_b) * h_b / math.tan(math.radians(-p_b))
        cam_a = PinholeCamera(*pos_a, h_a, yaw_a, p_a, 0.0, F, W, H)
        cam_b = PinholeCamera(*pos_b, h_b, yaw_b, p_b, 0.0, F, W, H)
        if min(render(tex, c)[1].mean() for c in (cam_a, cam_b)) >= MIN_VALID:
            return tex, cam_a, cam_b


def degrade(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Camera-like degradation: additive Gaussian noise, then a JPEG round trip."""
    noisy = np.clip(img + rng.normal(0.0, NOISE_SIGMA, img.shape), 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", noisy, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    return cv2.imdecode(buf, cv2.IMREAD_UNCHANGED) if ok else noisy


GIVEN = ("both", "altitude_a", "stated_a")  # what the caller knows: see run_rendered


def run_rendered(n: int, seed: int, *, given: str) -> dict:
    """Render ``n`` pairs and score the vision pose. ``given``: "both" = both pitches and altitudes exact;
    "altitude_a" = A's altitude only; "stated_a" = A's altitude and pitch rounded to whole units, nothing about B
    (what a Camera_Transformation question states)."""
    if given not in GIVEN:
        raise ValueError(f"given must be one of {GIVEN}, got {given!r}")
    rng = np.random.default_rng(seed)
    textures = [cv2.cvtColor(cv2.imread(str(DJI / name), cv2.IMREAD_REDUCED_COLOR_2), cv2.COLOR_BGR2RGB)
                for name in TEXTURES]
    intr = Intrinsics(F, F, W / 2, H / 2, W, H, "render")
    rows = []
    for _ in range(n):
        tex, a, b = sample_pair(rng, textures)
        img_a, img_b = degrade(render(tex, a)[0], rng), degrade(render(tex, b)[0], rng)
        t0 = time.perf_counter()
        if given == "both":
            pose = relative_pose(img_a, img_b, altitude_m=a.altitude, altitude_b_m=b.altitude, intrinsics=intr,
                                 pitch_deg=(a.pitch_deg, b.pitch_deg))
        elif given == "stated_a":
            pose = relative_pose(img_a, img_b, altitude_m=float(round(a.altitude)), intrinsics=intr,
                                 pitch_deg=float(round(a.pitch_deg)))
        else:
            pose = relative_pose(img_a, img_b, altitude_m=a.altitude, intrinsics=intr)
        dt = time.perf_counter() - t0
        gt_t = translation_in_a(a, b)
        row = {"altitude_m": a.altitude, "pitch_a": a.pitch_deg, "pitch_b": b.pitch_deg,
               "gt_heading": relative_heading_deg(a, b), "gt_horizontal_m": float(np.hypot(*gt_t[:2])),
               "decided": pose.confident, "reason": pose.reason, "seconds": dt, "n_inliers": pose.n_inliers}
        if pose.confident:
            row["heading_err"] = _heading_error(pose.heading_deg, row["gt_heading"])
            row["translation_err_m"] = float(np.linalg.norm(np.array(pose.translation_m[:2]) - gt_t[:2]))
            row["heading_sigma"] = pose.heading_uncertainty_deg
            row["translation_sigma_m"] = pose.translation_uncertainty_m
        rows.append(row)
    return summarise(rows)


def summarise(rows: list[dict]) -> dict:
    n = len(rows)
    dec = [r for r in rows if r["decided"]]
    he = np.array([r["heading_err"] for r in dec]) if dec else np.array([np.inf])
    te = np.array([r["translation_err_m"] for r in dec]) if dec else np.array([np.inf])
    return {
        "pairs": n,
        "decided_share": len(dec) / n,
        "decided_wrong": int(sum(r["heading_err"] > 10 or r["translation_err_m"] > 10 for r in dec)),  # 10°/10 m
        "heading_err_median_deg": float(np.median(he)),
        "heading_err_p95_deg": float(np.percentile(he, 95)),
        "heading_within_10deg_share_of_all": float(np.sum(he <= 10) / n),
        "translation_err_median_m": float(np.median(te)),
        "translation_err_p95_m": float(np.percentile(te, 95)),
        "translation_within_10m_share_of_all": float(np.sum(te <= 10) / n),
        "gt_horizontal_median_m": float(np.median([r["gt_horizontal_m"] for r in rows])),
        "heading_sigma_median_deg": float(np.median([r["heading_sigma"] for r in dec])) if dec else None,
        "oblique_pairs": sum(max(r["pitch_a"], r["pitch_b"]) > -80 for r in rows),
        "worst": sorted(({k: r.get(k) for k in ("pitch_a", "pitch_b", "altitude_m", "gt_horizontal_m", "n_inliers",
                                                   "heading_err", "translation_err_m", "reason")} for r in rows),
                        key=lambda r: -(r["translation_err_m"] if r["translation_err_m"] is not None else 1e9))[:5],
        "seconds_per_pair_median": float(np.median([r["seconds"] for r in rows])),
        "undecided_reasons": sorted({r["reason"] for r in rows if not r["decided"]})[:10],
    }


def run_real() -> list[dict]:
    """Vision pose vs the drone log (GPS + gimbal yaw) on the consecutive DJI pairs."""
    out = []
    for name_a, name_b in REAL_PAIRS:
        pa, pb = DJI / name_a, DJI / name_b
        t0 = time.perf_counter()
        vis = relative_pose(pa, pb)
        dt = time.perf_counter() - t0
        log = pose_from_metadata(read_metadata(pa), read_metadata(pb))
        row = {"pair": f"{name_a}->{name_b}", "decided": vis.confident, "reason": vis.reason, "seconds": dt,
               "log_heading_signed_deg": log.heading_signed_deg, "log_translation_m": log.translation_m}
        if vis.confident:
            row.update(vision_heading_signed_deg=vis.heading_signed_deg, vision_translation_m=vis.translation_m,
                       heading_diff_deg=_heading_error(vis.heading_deg, log.heading_deg),
                       translation_diff_m=float(np.linalg.norm(np.subtract(vis.translation_m[:2],
                                                                           log.translation_m[:2]))),
                       n_inliers=vis.n_inliers, residual_px=vis.residual_px)
        out.append(row)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100, help="rendered pairs per run")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=str(ROOT / "docs" / "figures" / "pose.json"))
    args = parser.parse_args()
    figures = {
        "rendered_pitch_and_altitudes_known": run_rendered(args.n, args.seed, given="both"),
        "rendered_pitch_unknown_altitude_a_only": run_rendered(args.n, args.seed, given="altitude_a"),
        "rendered_a_stated_rounded": run_rendered(args.n, args.seed, given="stated_a"),
        "real_dji_vs_log": run_real(),
        "targets": {"heading_err_median_deg": 1.0, "heading_within_10deg_share": 0.98,
                    "translation_within_10m_share": 0.95, "real_pairs": "within 10 deg and 3 m of GPS/yaw"},
    }
    text = json.dumps(to_jsonable(figures), indent=2)
    print(text)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
