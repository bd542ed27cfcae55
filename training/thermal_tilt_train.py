"""Fit the learned thermal tilt head (``tools/weights/thermal_tilt_head.npz``) on HIT-UAV.

Data: HIT-UAV's official train and val splits less the flights of the shared frames
(:func:`training.thermal_tilt_data.split_names`), tilt from the file names, features from the shipped thermal
detector's backbone (:mod:`tools.geometry.thermal_tilt_features`). The official split is random over frames of
the same videos, so a val frame has near-duplicates in train (the next frames of the same flight at the same
tilt) and val figures say little about a frame from a flight never seen. Model choice and calibration therefore use
grouped cross-validation over train + val: a group is a stretch of :data:`SEGMENT_FRAMES` frames of one scenario's
video (several altitudes, every tilt), and each fold holds out whole groups. The ridge strength is the one with the
lowest out-of-fold tilt error; the calibration table is the out-of-fold view accuracy per margin bin
(:mod:`tools.geometry.thermal_tilt`). The head is then fitted on all of train + val; the test split is used only
for the figures it quotes (:mod:`benchmarks.measure.bench_thermal_tilt`).

Ridge regression by hand (numpy SVD): scikit-learn is not a dependency, and the solve is three lines.

Run: ``.venv/bin/python -m training.thermal_tilt_train --hituav /tmp/hituav``
(``--out``: default ``tools/weights/thermal_tilt_head.npz``; ``--figures``: ``docs/figures/thermal_tilt_train.json``)
(features cached by ``training.thermal_tilt_data``; ~15 min of one core to extract them the first time).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from agent.config import Config
from benchmarks.measure.bench_thermal_tilt import figures, tilt_figures, view_right
from tools.geometry.thermal_tilt_features import backbone_digest, detector_layers
from tools.geometry.thermal_tilt import BOUNDARY_TILT_DEG, TILT_RANGE_DEG, TiltHead
from training.thermal_data import parse_frame_name
from training.thermal_tilt_data import DEFAULT_CACHE, FITTED_SPLITS, features, frame_tilt_deg, split_names

ROOT = Path(__file__).resolve().parents[1]
SEGMENT_FRAMES = 1000  # frames of video per cross-validation group
FOLDS = 5
ALPHAS = (1.0, 10.0, 100.0, 1e3, 1e4, 1e5)  # ridge strengths tried (on standardised features)
#: Signed margin bins (predicted tilt − boundary, deg) of the calibration table.
MARGIN_EDGES = (-np.inf, -30.0, -20.0, -15.0, -10.0, -5.0, 0.0, 5.0, 10.0, np.inf)
MIN_BIN_FRAMES = 30  # a bin measured on fewer out-of-fold frames has no accuracy (its estimates are not used)


def segment_of(name: str) -> str:
    """Cross-validation group of a frame: scenario and stretch of :data:`SEGMENT_FRAMES` frames of its video."""
    frame = parse_frame_name(name)
    return f"{frame.flight.split('_')[0]}_{frame.frame_id // SEGMENT_FRAMES}"


def fold_of(groups: list[str], folds: int = FOLDS) -> np.ndarray:
    """Fold index per frame: groups dealt to folds in turn, largest first (folds of similar size)."""
    names, counts = np.unique(groups, return_counts=True)
    order = names[np.argsort(-counts, kind="stable")]
    fold = {g: i % folds for i, g in enumerate(order)}
    return np.array([fold[g] for g in groups])


def standardiser(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-feature mean and scale (std; 1 where a feature is constant)."""
    std = x.std(axis=0)
    return x.mean(axis=0), np.where(std > 1e-8, std, 1.0)


def ridge_path(x: np.ndarray, y: np.ndarray, alphas: tuple[float, ...]) -> list[tuple[np.ndarray, float]]:
    """(coef, intercept) of ridge regressions of ``y`` on standardised ``x``, one per alpha (one SVD for all)."""
    mean, scale = standardiser(x)
    z = (x - mean) / scale
    u, s, vt = np.linalg.svd(z, full_matrices=False)
    uty = u.T @ (y - y.mean())
    return [(vt.T @ (s / (s**2 + a) * uty), float(y.mean())) for a in alphas]


def out_of_fold(x: np.ndarray, y: np.ndarray, folds: np.ndarray, alphas: tuple[float, ...]) -> np.ndarray:
    """(len(alphas), N) out-of-fold backbone tilt predictions (unclipped), each fold predicted by a fit on the
    others."""
    pred = np.zeros((len(alphas), len(y)))
    for k in np.unique(folds):
        fit, held = folds != k, folds == k
        mean, scale = standardiser(x[fit])
        for i, (coef, icpt) in enumerate(ridge_path(x[fit], y[fit], alphas)):
            pred[i, held] = icpt + ((x[held] - mean) / scale) @ coef
    return pred


def calibration(pred: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """Per :data:`MARGIN_EDGES` bin, the share of frames whose predicted view (tilt ≥ boundary: nadir) is the true
    one; NaN for bins with fewer than :data:`MIN_BIN_FRAMES` frames."""
    margin = pred - BOUNDARY_TILT_DEG
    right = view_right(pred, truth)
    bins = np.searchsorted(np.array(MARGIN_EDGES), margin, side="right") - 1
    out = np.full(len(MARGIN_EDGES) - 1, np.nan)
    for b in range(len(out)):
        if (bins == b).sum() >= MIN_BIN_FRAMES:
            out[b] = right[bins == b].mean()
    return out


def fit_head(x: np.ndarray, y: np.ndarray, names: list[str], backbone_sha256: str) -> tuple[TiltHead, dict]:
    """The head fitted on all frames at the ridge strength with the least grouped out-of-fold error, its
    calibration from those out-of-fold predictions (test figures left at NaN), and the cross-validation figures."""
    folds = fold_of([segment_of(n) for n in names])
    oof = np.clip(out_of_fold(x, y, folds, ALPHAS), *TILT_RANGE_DEG)
    mae = np.abs(oof - y).mean(axis=1)
    best = int(np.argmin(mae))
    coef, icpt = ridge_path(x, y, (ALPHAS[best],))[0]
    mean, scale = standardiser(x)
    acc = calibration(oof[best], y)
    head = TiltHead(mean, scale, coef, icpt, np.array(MARGIN_EDGES), acc, backbone_sha256, float("nan"), float("nan"))
    cv = {"frames": len(y), "groups": len(set(segment_of(n) for n in names)), "folds": FOLDS,
          "alphas": list(ALPHAS), "oof_mae_deg": [round(float(m), 2) for m in mae], "alpha": ALPHAS[best],
          **_cv_figures(oof[best], y),
          "margin_edges_deg": [float(e) if np.isfinite(e) else None for e in MARGIN_EDGES]}  # None: open end
    return head, cv


def _cv_figures(pred: np.ndarray, truth: np.ndarray) -> dict:
    return {**tilt_figures(pred, truth),
            "margin_accuracy": [None if np.isnan(a) else round(float(a), 3) for a in calibration(pred, truth)],
            "per_tilt_mean_pred_deg": {f"{t:.0f}": round(float(pred[truth == t].mean()), 1)
                                       for t in np.unique(truth)}}


def official_val_mae(x: np.ndarray, y: np.ndarray, is_val: np.ndarray) -> list[float]:
    """Per ridge strength, the tilt error on the official val split of a fit on the official train split (shown
    beside the grouped figures: val frames have near-duplicates in train, so this error is optimistic)."""
    fit, held = ~is_val, is_val
    mean, scale = standardiser(x[fit])
    return [round(float(np.abs(np.clip(icpt + ((x[held] - mean) / scale) @ coef, *TILT_RANGE_DEG) - y[held])
                        .mean()), 2) for coef, icpt in ridge_path(x[fit], y[fit], ALPHAS)]


def save_head(head: TiltHead, path: Path) -> None:
    """Write the head as the ``.npz`` :func:`tools.geometry.thermal_tilt.load_head` reads (float32 vectors)."""
    np.savez_compressed(path, mean=head.mean.astype(np.float32), scale=head.scale.astype(np.float32),
                        coef=head.coef.astype(np.float32), intercept=np.float64(head.intercept),
                        margin_edges=head.margin_edges, margin_accuracy=head.margin_accuracy,
                        backbone_sha256=np.str_(head.backbone_sha256), test_mae_deg=np.float64(head.test_mae_deg),
                        test_confident_accuracy=np.float64(head.test_confident_accuracy))


def main() -> None:
    from dataclasses import replace

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hituav", type=Path, required=True, help="folder holding HIT-UAV's normal_xml/")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="feature cache folder")
    parser.add_argument("--out", type=Path, default=ROOT / "tools" / "weights" / "thermal_tilt_head.npz")
    parser.add_argument("--figures", type=Path, default=ROOT / "docs" / "figures" / "thermal_tilt_train.json")
    args = parser.parse_args()
    weights = Config.from_env().resolved_thermal_yolo_weights()
    names = [n for split in FITTED_SPLITS for n in split_names(args.hituav, split)]
    x = features(args.hituav, names, weights, args.cache)
    y = np.array([frame_tilt_deg(n) for n in names])
    head, cv = fit_head(x, y, names, backbone_digest(detector_layers(str(weights))))
    val = set(split_names(args.hituav, "val"))
    cv["official_val_mae_deg"] = official_val_mae(x, y, np.array([n in val for n in names]))
    print("grouped cross-validation", cv)
    test = split_names(args.hituav, "test")
    test_fig = figures(head, features(args.hituav, test, weights, args.cache), [frame_tilt_deg(n) for n in test])
    head = replace(head, test_mae_deg=test_fig["mae_deg"], test_confident_accuracy=test_fig["confident_view_accuracy"])
    save_head(head, args.out)
    print("test", test_fig, "->", args.out)
    cv["command"] = f"python -m training.thermal_tilt_train --hituav {args.hituav}"
    args.figures.write_text(json.dumps({"grouped_cross_validation": cv, "hituav_test": test_fig}, indent=2) + "\n")


if __name__ == "__main__":
    main()
