"""Speed and accuracy of tools.views.matching / tools.views.motion on this machine; writes docs/figures/matching.json.

Run: ``YOLO_OFFLINE=true HF_HUB_OFFLINE=1 .venv/bin/python -m benchmarks.measure.bench_matching [--quick]``.
Targets (issue #3): two 1920x1080 images, classical ≤ 1.5 s median, learned ≤ 6 s median; a 16-frame sequence
≤ 8 s; peak memory ≤ 2 GB. Accuracy: corner error (px, mean over the 4 corners of image a) of the fitted
homography against the exact one of rendered pairs (benchmarks/synth/camera.py); false-confident answers on
pairs that do not overlap.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import time
from pathlib import Path

import cv2
import numpy as np

from benchmarks.synth.camera import GroundTexture, PinholeCamera, render
from tools.common import load_image
from tools.views.homography_checks import corners, warp_points
from tools.views.matching import match_views
from tools.views.motion import ego_motion
from benchmarks.figures import write_figures

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data"
OUT = ROOT / "docs" / "figures" / "matching.json"
YELL = DATA / "deepforest_neon/2019_YELL_2_541000_4977000_image_crop.png"
DJI = DATA / "dji_survey_dev/images"


def _timed(fn, repeats: int) -> list[float]:
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def speed_pair(repeats: int) -> dict[str, dict[str, float]]:
    """Median seconds to match two 1920x1080 images (known warp of a real DJI photo)."""
    a = cv2.resize(load_image(DJI / "DJI_0019.JPG"), (1920, 1080), interpolation=cv2.INTER_AREA)
    H = np.vstack([cv2.getRotationMatrix2D((960, 540), 15, 1.1), [0, 0, 1]])
    b = cv2.warpPerspective(a, H, (1920, 1080))
    res = {}
    for method, n in (("sift", repeats), ("orb", repeats), ("aliked", max(2, repeats // 2)), ("disk", 2)):
        match_views(a, b, method=method)  # warm-up (model load for learned backends)
        times = _timed(lambda: match_views(a, b, method=method), n)
        r = match_views(a, b, method=method)
        err = float(np.linalg.norm(warp_points(r.H, corners((1920, 1080))) - warp_points(H, corners((1920, 1080))),
                                   axis=1).mean()) if r.H is not None else None
        res[method] = {"median_s": statistics.median(times), "runs": n, "corner_error_px": err,
                       "n_inliers": r.n_inliers}
        print(f"pair 1920x1080 {method:6s}: median {res[method]['median_s']:.2f} s over {n}, "
              f"corner error {err} px, {r.n_inliers} inliers")
    return res


def speed_sequence() -> dict[str, float]:
    """Seconds for ego_motion over 16 rendered 1920x1080 frames (forward + yaw right over a DJI photo)."""
    tex = GroundTexture(load_image(DJI / "DJI_0034.JPG"), 0.017)
    cx, cy = tex.centre
    cams = [PinholeCamera(cx - 4 + 0.3 * i, cy - 4 + 0.3 * i, 30.0, yaw_deg=45 + 1.5 * i, focal_px=1400,
                          width=1920, height=1080) for i in range(16)]
    frames = [render(tex, c)[0] for c in cams]
    t0 = time.perf_counter()
    em = ego_motion(frames, altitude_m=30.0, focal_px=1400)
    dt = time.perf_counter() - t0
    print(f"16-frame 1920x1080 sequence: {dt:.2f} s; yaw {em.total_yaw_deg:.2f} (true 22.5); {em.describe()}")
    return {"seconds": dt, "yaw_deg": em.total_yaw_deg, "yaw_true_deg": 22.5, "confident": em.confident}


def rendered_pairs(n: int, methods: tuple[str, ...]) -> dict[str, dict[str, float]]:
    """Corner error of fitted homographies on random rendered view pairs with exact ground truth."""
    rng = np.random.default_rng(0)
    texs = [GroundTexture(load_image(YELL), 0.1), GroundTexture(load_image(DJI / "DJI_0020.JPG"), 0.017)]
    errs: dict[str, list[float]] = {m: [] for m in methods}
    confident = {m: 0 for m in methods}
    for i in range(n):
        tex = texs[i % 2]
        cx, cy = tex.centre
        alt = 60.0 if i % 2 == 0 else 25.0
        a = PinholeCamera(cx, cy, alt, yaw_deg=rng.uniform(0, 360), pitch_deg=rng.uniform(-90, -70),
                          focal_px=800, width=960, height=540)
        b = a.with_(x=cx + rng.uniform(-0.1, 0.1) * alt, y=cy + rng.uniform(-0.1, 0.1) * alt,
                    yaw_deg=a.yaw_deg + rng.uniform(-60, 60), pitch_deg=rng.uniform(-90, -70),
                    altitude=alt * rng.uniform(0.8, 1.25))
        H = b.ground_to_image() @ np.linalg.inv(a.ground_to_image())
        ia, ib = render(tex, a)[0], render(tex, b)[0]
        for m in methods:
            r = match_views(ia, ib, method=m)
            confident[m] += r.confident
            if r.confident:
                c = corners((960, 540))
                errs[m].append(float(np.linalg.norm(warp_points(r.H, c) - warp_points(H, c), axis=1).mean()))
    out = {}
    for m in methods:
        e = np.array(errs[m]) if errs[m] else np.array([np.nan])
        out[m] = {"pairs": n, "confident": confident[m], "median_corner_error_px": float(np.median(e)),
                  "p90_corner_error_px": float(np.percentile(e, 90)), "max_corner_error_px": float(e.max())}
        print(f"rendered 960x540 pairs {m:6s}: confident {confident[m]}/{n}, corner error median "
              f"{out[m]['median_corner_error_px']:.2f} px, p90 {out[m]['p90_corner_error_px']:.2f}, "
              f"max {out[m]['max_corner_error_px']:.2f}")
    return out


def negatives(methods: tuple[str, ...]) -> dict[str, dict[str, bool]]:
    """Confident answers on pairs without a reliable overlap (should be False, or right for aero)."""
    dji = load_image(DJI / "DJI_0018.JPG")
    pairs = {
        "disjoint_crops_same_photo": (dji[:1000, :1400], dji[1100:2100, 2500:3900]),
        "different_places": (load_image(YELL), load_image(DATA / "deepforest_neon/OSBS_029.png")),
        "opencv_aero_1_3": (load_image(DATA / "opencv_aero/aero1.jpg"), load_image(DATA / "opencv_aero/aero3.jpg")),
    }
    out: dict[str, dict[str, bool]] = {}
    for name, (a, b) in pairs.items():
        out[name] = {}
        for m in methods:
            r = match_views(a, b, method=m)
            out[name][m] = bool(r.confident)
            print(f"negative {name:26s} {m:6s}: confident={r.confident} ({r.n_inliers}/{r.n_matches}) {r.reason}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer repeats and pairs")
    args = ap.parse_args()
    figures = {
        "machine": "2 shared CPU cores (other jobs running), torch threads 2",
        "load_average_1min_at_start": os.getloadavg()[0],
        "pair_1920x1080": speed_pair(3 if args.quick else 5),
        "sequence_16x1920x1080": speed_sequence(),
        "rendered_pairs": rendered_pairs(4 if args.quick else 10, ("sift", "orb", "aliked")),
        "negatives_confident": negatives(("sift", "orb", "aliked", "disk")),
        "peak_memory_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "targets": {"classical_median_s": 1.5, "learned_median_s": 6.0, "sequence_s": 8.0, "peak_memory_mb": 2048},
    }
    figures["load_average_1min_at_end"] = os.getloadavg()[0]
    print(f"peak memory {figures['peak_memory_mb']:.0f} MB; load average {figures['load_average_1min_at_end']:.1f}")
    write_figures(figures, OUT, echo=False)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
