"""Single-image pitch estimation (``tools/geometry/pitch.py``) on renders with known pitch and on real drone photos.

Run: ``.venv/bin/python -m benchmarks.measure.bench_pitch [--seed 41] [--views 120] [--out docs/figures/pitch.json]``.

1. Renders: for each view a random built-in ground texture (``../shared/data`` orthophotos / nadir photos), a
   camera drawn like the generator's default tier (altitude 40–100 m, horizontal FOV 60–80°, roll ±2°, blur,
   noise, exposure, JPEG 75–95) but with pitch uniform in −90…−30° (the range the planner must cover), 960x540.
   Half the views carry a region overlay drawn like the benchmark's (4 random boxes). Scored with the focal length
   known and with it assumed (73.7° default FOV): absolute error, median/p90 overall and per 10° pitch bin, and
   the share of views whose reported interval contains the true pitch.
2. Real photos: ``dji_survey_dev`` (gimbal pitch from DJI XMP, focal from EXIF; all near nadir) and the HIT-UAV
   thermal frames (camera tilt from the file name, pitch = −PERSP; focal unknown, 1125 px assumed as in
   ``benchmarks/synth/sources.py``). These are few and the thermal frames contain buildings, so they show the
   method's behaviour off the flat-ground renders rather than a precise figure.
3. Unlabelled real frames (``open3d-vqa`` RGB, ``opencv_aero``; no pitch known, focal assumed): listed with the
   estimate and confidence flag only, to catch confident claims on frames that are plainly not flat ground (street-
   level views with sky and facades).
"""

from __future__ import annotations

import argparse
import re
import statistics
from pathlib import Path

import numpy as np

from benchmarks.figures import write_figures
from benchmarks.synth.instance import draw_overlay
from benchmarks.synth.scene import SynthError, footprint_radius, make_scene, place_camera, render_view, sample_spec
from benchmarks.synth.sources import HIT_UAV_FOCAL_PX, builtin_sources
from benchmarks.synth.tiers import DEFAULT
from tools.geometry.camera import intrinsics_for, read_metadata
from tools.common import ToolError, jpeg_roundtrip, load_image
from tools.geometry.pitch import estimate_pitch

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data"
SIZE = (960, 540)
PITCH_RANGE = (-90.0, -30.0)
BINS = ((-90, -80), (-80, -70), (-70, -60), (-60, -50), (-50, -40), (-40, -30))


def _random_boxes(rng: np.random.Generator, n: int) -> list[tuple[int, np.ndarray]]:
    w, h = SIZE
    out = []
    for rid in range(1, n + 1):
        bw, bh = rng.uniform(30, 120, 2)
        x, y = rng.uniform(10, w - bw - 10), rng.uniform(10, h - bh - 10)
        out.append((rid, np.array([x, y, x + bw, y + bh])))
    return out


def render_views(seed: int, n: int) -> list[dict]:
    """``n`` rendered views: dict(image, pitch_deg, focal_px, source, overlay)."""
    rng = np.random.default_rng(seed)
    sources = builtin_sources(DATA)
    if not sources:
        raise SystemExit(f"no ground textures under {DATA}")
    views: list[dict] = []
    while len(views) < n:
        src = sources[int(rng.integers(len(sources)))]
        spec = sample_spec(rng, DEFAULT, SIZE, pitch=PITCH_RANGE)
        try:
            scene = make_scene(src, footprint_radius(spec))
            cam = place_camera(rng, scene, spec)
            img, _ = render_view(scene, cam, rng, DEFAULT.nuisance)
        except SynthError:
            continue
        overlay = len(views) % 2 == 1
        if overlay:
            try:
                img = draw_overlay(img, _random_boxes(rng, 4), rng)
            except SynthError:  # no legible overlay style for these boxes: draw another view
                continue
        img = jpeg_roundtrip(img, int(rng.integers(75, 96)))
        views.append({"image": img, "pitch_deg": cam.pitch_deg, "focal_px": cam.focal_px, "source": src.name,
                      "overlay": overlay})
    return views


def _stats(errors: list[float]) -> dict:
    if not errors:
        return {"n": 0}
    return {"n": len(errors), "median_abs_deg": round(statistics.median(errors), 2),
            "p90_abs_deg": round(float(np.percentile(errors, 90)), 2)}


def score_renders(views: list[dict], *, focal_known: bool) -> dict:
    rows = []
    for v in views:
        est = estimate_pitch(v["image"], focal_px=v["focal_px"] if focal_known else None)
        lo, hi = est.interval_deg
        rows.append((v["pitch_deg"], abs(est.pitch_deg - v["pitch_deg"]), lo - 0.5 <= v["pitch_deg"] <= hi + 0.5,
                     hi - lo, est.elapsed_s, v["overlay"], est.confident))
    conf = [r for r in rows if r[6]]
    by_bin = {f"{a}..{b}": _stats([e for p, e, *_ in rows if a <= p < b or (a == -90 and p == -90)]) for a, b in BINS}
    return {**_stats([r[1] for r in rows]), "with_overlay": _stats([r[1] for r in rows if r[5]]),
            "by_pitch_bin": by_bin,
            "confident_share": round(len(conf) / len(rows), 3),
            "confident": {**_stats([r[1] for r in conf]),
                          "interval_coverage": round(float(np.mean([r[2] for r in conf])), 3) if conf else None,
                          "median_interval_width_deg": round(statistics.median(r[3] for r in conf), 1) if conf else None,
                          "by_pitch_bin": {f"{a}..{b}": _stats([e for p, e, *_ in conf if a <= p < b or p == a == -90])
                                           for a, b in BINS}},
            "seconds_median": round(statistics.median(r[4] for r in rows), 4),
            "seconds_p90": round(float(np.percentile([r[4] for r in rows], 90)), 4)}


def score_real() -> dict:
    out: dict = {}
    dji = []
    for p in sorted((DATA / "dji_survey_dev" / "images").glob("*.JPG")):
        meta = read_metadata(p)
        img = load_image(p)
        k = intrinsics_for(img.shape[1], img.shape[0], meta)
        if meta.gimbal_pitch_deg is None:
            continue
        est = estimate_pitch(img, focal_px=k.fx)
        dji.append({"image": p.name, "true_deg": meta.gimbal_pitch_deg, "est_deg": round(est.pitch_deg, 1),
                    "interval_deg": [round(x, 1) for x in est.interval_deg], "confident": est.confident,
                    "seconds": round(est.elapsed_s, 3)})
    out["dji_survey_dev"] = {**_stats([abs(d["est_deg"] - d["true_deg"]) for d in dji]),
                             "confident": sum(d["confident"] for d in dji), "images": dji}
    hit = []
    for p in sorted((DATA / "hit_uav_thermal" / "images").glob("*.jpg")):
        m = re.fullmatch(r"(\d)_(\d+)_(\d+)_(\d+)_(\d+)", p.stem)
        if not m:
            continue
        true = -float(m.group(3))
        est = estimate_pitch(load_image(p), focal_px=HIT_UAV_FOCAL_PX)
        hit.append({"image": p.name, "true_deg": true, "est_deg": round(est.pitch_deg, 1),
                    "interval_deg": [round(x, 1) for x in est.interval_deg], "confident": est.confident})
    out["hit_uav_thermal"] = {**_stats([abs(d["est_deg"] - d["true_deg"]) for d in hit]),
                              "interval_coverage": round(float(np.mean(
                                  [d["interval_deg"][0] - 0.5 <= d["true_deg"] <= d["interval_deg"][1] + 0.5
                                   for d in hit])), 3) if hit else None,
                              "confident": sum(d["confident"] for d in hit), "images": hit}
    return out


def score_unlabelled() -> dict:
    """Estimates on real frames without a known pitch: what is claimed confidently, and why the rest is not."""
    paths = sorted((DATA / "open3d-vqa" / "images").glob("rgb_*.png")) + sorted((DATA / "opencv_aero").glob("*.jpg"))
    rows = []
    for p in paths:
        try:
            est = estimate_pitch(load_image(p))
        except ToolError:  # thumbnails below the estimator's minimum size
            continue
        rows.append({"image": p.relative_to(DATA).as_posix(),
                     "est_deg": round(est.pitch_deg, 1), "interval_deg": [round(x, 1) for x in est.interval_deg],
                     "confident": est.confident, "reason": est.reason})
    return {"n": len(rows), "confident": sum(r["confident"] for r in rows), "images": rows}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=41)  # held out: development used seeds 7, 11, 23 (31 seen once)
    ap.add_argument("--views", type=int, default=120)
    ap.add_argument("--out", default=str(ROOT / "docs" / "figures" / "pitch.json"))
    ap.add_argument("--no-real", action="store_true", help="skip the real photos")
    args = ap.parse_args(argv)
    views = render_views(args.seed, args.views)
    figures = {"command": f"python -m benchmarks.measure.bench_pitch --seed {args.seed} --views {args.views}",
               "renders": {"pitch_range_deg": list(PITCH_RANGE), "size": list(SIZE),
                           "focal_known": score_renders(views, focal_known=True),
                           "focal_assumed": score_renders(views, focal_known=False)}}
    if not args.no_real:
        figures["real"] = score_real()
        figures["real_unlabelled"] = score_unlabelled()
    write_figures(figures, args.out)


if __name__ == "__main__":
    main()
