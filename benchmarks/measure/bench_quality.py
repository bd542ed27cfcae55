"""Calibration and accuracy of ``tools.perception.quality.assess_quality`` on real images with known synthetic
degradations (the images, degradations and sets of :mod:`benchmarks.quality_sets`).

Sets: thresholds are fitted on the calibration images and severities and the reported accuracy is on the held-out
ones; the thermal group has its own thresholds, and its held-out images are also scored under the colour thresholds,
to show why grey images need their own.

Calibration: for each label, the decision threshold maximises balanced accuracy (degraded-with-that-label vs
everything else, clean included), placed midway between neighbouring indicator values; the severe threshold is the
median indicator on the strongest calibration severity of that label.
A sample is right when the predicted label set equals the true one ({} for clean images).
Each degraded severity is drawn ``--repeats`` times (default 3) with different random parts; clean images once.
Run: ``python -m benchmarks.measure.bench_quality [--calibrate] [--seed 0] [--repeats 3]``; prints the figures and
writes ``docs/figures/quality.json`` (about 50 s on one core).
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from benchmarks.quality_sets import (CALIBRATION_IMAGES, CALIBRATION_SEVERITIES, HELD_OUT_IMAGES, HELD_OUT_SEVERITIES,
                                     THERMAL_CALIBRATION, THERMAL_HELD_OUT, Degradation, best_threshold, samples)
from tools.perception.quality import (CALIBRATED_THRESHOLDS, CALIBRATED_THRESHOLDS_GREY, LABELS, LOWER_IS_WORSE,
                                      assess_quality, compute_indicators)  # fmt: skip

FIGURE = Path(__file__).resolve().parents[2] / "docs" / "figures" / "quality.json"


def calibrate(images: list[str], seed: int, repeats: int) -> dict[str, float]:
    """Fit every ``<label>`` and ``<label>_severe`` threshold on ``images`` x ``CALIBRATION_SEVERITIES``."""
    rows = [(kind, compute_indicators(img)) for _, kind, img in samples(images, CALIBRATION_SEVERITIES, seed, repeats)]
    thr: dict[str, float] = {}
    for label in LABELS:
        pos = np.array([ind[label] for k, ind in rows if k[0] == label])
        neg = np.array([ind[label] for k, ind in rows if k[0] != label])
        t = best_threshold(pos, neg, LOWER_IS_WORSE[label])
        strongest = max((k for k in CALIBRATION_SEVERITIES if k[0] == label), key=_strength)
        strong = np.array([ind[label] for k, ind in rows if k == strongest])
        thr[label], thr[f"{label}_severe"] = round(t, 4), round(float(np.median(strong)), 4)
    return thr


def _strength(kind: Degradation) -> float:
    """Larger = stronger degradation (fog: lower transmission; motion blur counts as its length / 3 in σ)."""
    label, how, p = kind
    return -p if label == "fog" else (p / 3 if how == "motion" else p)


def evaluate(images: list[str], severities: list[Degradation], thr: dict[str, float], seed: int,
             repeats: int) -> dict:
    """Exact-label-set accuracy, per-label recall and the clean false-positive rate."""
    per: dict[str, list[bool]] = defaultdict(list)
    contains: list[bool] = []
    scores: dict[str, list[int]] = defaultdict(list)
    errors = []
    t0 = time.perf_counter()
    for rel, kind, img in samples(images, severities, seed, repeats):
        rep = assess_quality(img, thr)
        truth = [] if kind[0] is None else [kind[0]]
        per[kind[0] or "clean"].append(rep.labels == truth)
        contains.append(set(truth) <= set(rep.labels) if truth else not rep.labels)
        scores[kind[0] or "clean"].append(rep.score)
        if rep.labels != truth:
            errors.append({"image": rel, "degradation": list(kind), "labels": rep.labels})
    exact = [x for v in per.values() for x in v]
    return {"samples": len(exact), "seconds_per_sample": round((time.perf_counter() - t0) / len(exact), 4),
            "exact_label_accuracy": float(np.mean(exact)), "true_label_found_share": float(np.mean(contains)),
            "clean_false_positive_rate": 1.0 - float(np.mean(per["clean"])),
            "per_label_exact": {k: float(np.mean(v)) for k, v in per.items()},
            "mean_score": {k: float(np.mean(v)) for k, v in scores.items()}, "n_errors": len(errors),
            "errors": errors[:40]}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calibrate", action="store_true", help="refit thresholds (else use CALIBRATED_THRESHOLDS)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeats", type=int, default=3, help="random draws per image and degraded severity")
    args = ap.parse_args()
    t0 = time.perf_counter()
    thr = calibrate(CALIBRATION_IMAGES, args.seed, args.repeats) if args.calibrate else dict(CALIBRATED_THRESHOLDS)
    grey = (calibrate(THERMAL_CALIBRATION, args.seed, args.repeats) if args.calibrate
            else dict(CALIBRATED_THRESHOLDS_GREY))  # fmt: skip
    fig = {"thresholds": thr, "thresholds_grey": grey, "thresholds_refit_now": args.calibrate, "seed": args.seed,
           "repeats": args.repeats, "calibration_images": CALIBRATION_IMAGES, "held_out_images": HELD_OUT_IMAGES,
           "thermal_calibration_images": THERMAL_CALIBRATION, "thermal_held_out_images": THERMAL_HELD_OUT,
           "calibration_severities": CALIBRATION_SEVERITIES, "held_out_severities": HELD_OUT_SEVERITIES}
    groups = {"calibration_set": (CALIBRATION_IMAGES, CALIBRATION_SEVERITIES, thr, args.seed),
              "held_out_rgb": (HELD_OUT_IMAGES, HELD_OUT_SEVERITIES, thr, args.seed + 1),
              "thermal_calibration_set": (THERMAL_CALIBRATION, CALIBRATION_SEVERITIES, grey, args.seed),
              "held_out_thermal": (THERMAL_HELD_OUT, HELD_OUT_SEVERITIES, grey, args.seed + 2),
              "held_out_thermal_with_rgb_thresholds": (THERMAL_HELD_OUT, HELD_OUT_SEVERITIES, thr, args.seed + 2)}
    for name, (images, severities, thresholds, seed) in groups.items():
        fig[name] = evaluate(images, severities, thresholds, seed, args.repeats)
    fig["seconds"] = round(time.perf_counter() - t0, 1)
    fig["target"] = "held-out RGB exact label accuracy >= 0.90"
    fig["target_met"] = fig["held_out_rgb"]["exact_label_accuracy"] >= 0.90
    for name in groups:
        r = fig[name]
        print(f"{name:37s} n={r['samples']:4d} exact={r['exact_label_accuracy']:.3f} "
              f"found={r['true_label_found_share']:.3f} clean_FP={r['clean_false_positive_rate']:.3f} "
              f"per_label={ {k: round(v, 2) for k, v in r['per_label_exact'].items()} }")  # fmt: skip
    print("thresholds", thr)
    print("thresholds_grey", grey)
    FIGURE.write_text(json.dumps(fig, indent=2) + "\n")
    print(f"wrote {FIGURE} in {fig['seconds']} s")


if __name__ == "__main__":
    main()
