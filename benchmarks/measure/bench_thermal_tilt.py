"""The learned thermal tilt estimate (``Config.thermal_tilt_head``) on real thermal frames of known tilt.

Two sets, truth from HIT-UAV's file names (camera tilt below the horizontal, 30–90 deg; 90 = straight down):
- HIT-UAV's official **test** split (579 frames, never fitted on, never used to choose anything). Its frames are
  random frames of the same videos as the training frames, so these figures are for a flight like the training
  ones;
- the 12 frames of ``../shared/data/hit_uav_thermal``, whose flights (same scenario, altitude, tilt and weather,
  frame index within 300) were left out of fitting: a small check on flight segments never seen.

Figures: mean absolute tilt error (deg); view accuracy (nadir = tilt ≥ 80, the project's 10 deg nadir band) over
all frames and over nadir (≥ 80) vs clearly oblique (≤ 60) frames only; coverage (share of frames whose estimate is
confident, i.e. used by the planner) and the view accuracy of those; MAE and mean prediction per true tilt.

Run: ``python -m benchmarks.measure.bench_thermal_tilt --hituav /tmp/hituav`` (features cached by
``training.thermal_tilt_data``), writes ``docs/figures/thermal_tilt.json``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from tools.geometry.thermal_tilt import BOUNDARY_TILT_DEG, TiltHead, decide, predict_tilt

ROOT = Path(__file__).resolve().parents[2]
OBLIQUE_MAX_DEG = 60.0  # "clearly oblique" frames of the nadir-vs-oblique figure


def view_right(pred: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """Per frame, whether the predicted tilt's view (nadir: at least the boundary) is the true one."""
    return (pred >= BOUNDARY_TILT_DEG) == (truth >= BOUNDARY_TILT_DEG)


def tilt_figures(pred: np.ndarray, truth: np.ndarray) -> dict:
    """Mean absolute tilt error (deg), view accuracy over all frames and over nadir vs clearly oblique ones of
    predicted tilts ``pred`` against true ``truth``."""
    right = view_right(pred, truth)
    clear = (truth >= BOUNDARY_TILT_DEG) | (truth <= OBLIQUE_MAX_DEG)
    return {"mae_deg": round(float(np.abs(pred - truth).mean()), 2), "view_accuracy": round(float(right.mean()), 3),
            "nadir_vs_oblique_accuracy": round(float(right[clear].mean()), 3),
            "nadir_vs_oblique_frames": int(clear.sum())}


def figures(head: TiltHead, x: np.ndarray, tilts: list[float]) -> dict:
    """Tilt error, view accuracy and confident coverage of the head on feature rows ``x`` with true ``tilts``."""
    truth = np.asarray(tilts, dtype=float)
    pred = np.array([predict_tilt(head, row) for row in x])
    est = [decide(head, row) for row in x]
    right = view_right(pred, truth)
    used = np.array([e.confident for e in est])
    per_tilt = {f"{t:.0f}": {"frames": int((truth == t).sum()), "mae_deg": round(float(np.abs(pred - t)[truth == t]
                .mean()), 2), "mean_pred_deg": round(float(pred[truth == t].mean()), 1)} for t in np.unique(truth)}
    return {"frames": len(truth), **tilt_figures(pred, truth),
            "confident_share": round(float(used.mean()), 3),
            "confident_view_accuracy": round(float(right[used].mean()), 3) if used.any() else None,
            "per_tilt": per_tilt}


def main() -> None:
    from agent.config import Config
    from tools.geometry.thermal_tilt import load_head
    from training.thermal_data import SHARED_FRAMES
    from training.thermal_tilt_data import DEFAULT_CACHE, features, frame_tilt_deg, split_names

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hituav", type=Path, required=True, help="folder holding HIT-UAV's normal_xml/")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="feature cache folder")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "figures" / "thermal_tilt.json")
    args = parser.parse_args()
    cfg = Config.from_env()
    head, weights = load_head(cfg.resolved_thermal_tilt_head()), cfg.resolved_thermal_yolo_weights()
    out: dict = {"command": f"python -m benchmarks.measure.bench_thermal_tilt --hituav {args.hituav}"}
    sets = {"hituav_test": split_names(args.hituav, "test"),
            "shared_frames": sorted(p.stem for p in SHARED_FRAMES.glob("*.jpg"))}
    for label, names in sets.items():
        out[label] = figures(head, features(args.hituav, names, weights, args.cache),
                             [frame_tilt_deg(n) for n in names])
        print(label, json.dumps(out[label]))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
