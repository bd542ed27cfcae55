"""Heading change of photo pairs whose second photo is turned on screen by a known angle (pixels only).

A turned copy is what a phone gallery, a screenshot or an editor makes of a drone photo: the pixels rotated about
the image centre inside the same canvas (corners cut off and filled black) and the metadata gone. Learned matchers
are not rotation-invariant, so such pairs test whether ``tools.views.pose.relative_pose`` still finds the heading.

Pairs: the overlapping real pairs of ``../shared/data/dji_survey_dev`` and ``garfield_dev`` (the lists of
``bench_pose_pairs``). Both photos are written as metadata-free JPEG copies with the longer side ``--side`` px;
photo B is turned by angles drawn uniformly from [0, 360) (``--angles`` per pair, seeded), and once by 0 as the
untouched control. Truth: the yaw tags the dataset READMEs name (read with the exiftool program) turned by the edit:
turning the pixels θ counter-clockwise on screen is what yawing the camera θ clockwise would show, so the heading
change is (yaw_B − yaw_A + θ) mod 360. Right = confident and within ``HEADING_TOL_DEG`` (circular).

Usage: ``python -m benchmarks.measure.bench_turned_pairs [--angles 3] [--seed 11] [--side 1200]``; figures go to
``docs/figures/turned_pairs.json``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

from benchmarks.measure.bench_pose_pairs import DATA, DJI_PAIRS, GARFIELD_PAIRS, garfield_path, log_entry

ROOT = Path(__file__).resolve().parents[2]
HEADING_TOL_DEG = 10.0


def pair_paths() -> list[tuple[str, Path, Path]]:
    dji = [(f"dji {a}-{b}", *(DATA / "dji_survey_dev" / "images" / f"DJI_{n}.JPG" for n in (a, b)))
           for a, b in DJI_PAIRS]
    return dji + [(f"sequoia {a}-{b}", garfield_path(a), garfield_path(b)) for a, b in GARFIELD_PAIRS]


def stripped_copy(src: Path, dst: Path, side: int, turn_ccw_deg: float = 0.0) -> Path:
    """A metadata-free JPEG of ``src`` with its longer side ``side`` px, turned ``turn_ccw_deg`` counter-clockwise
    on screen about its centre inside the same canvas (OpenCV: a positive angle turns counter-clockwise)."""
    bgr = cv2.imread(str(src), cv2.IMREAD_COLOR)
    if bgr is None:
        raise SystemExit(f"cannot read {src}")
    s = side / max(bgr.shape[:2])
    bgr = cv2.resize(bgr, (round(bgr.shape[1] * s), round(bgr.shape[0] * s)), interpolation=cv2.INTER_AREA)
    if turn_ccw_deg % 360.0:
        h, w = bgr.shape[:2]
        M = cv2.getRotationMatrix2D(((w - 1) / 2.0, (h - 1) / 2.0), turn_ccw_deg, 1.0)
        bgr = cv2.warpAffine(bgr, M, (w, h), flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0))
    cv2.imwrite(str(dst), bgr, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return dst


def circular_error(a: float, b: float) -> float:
    return abs((a - b + 180.0) % 360.0 - 180.0)


def measure(angles: int, seed: int, side: int) -> list[dict]:
    from tools.views.pose import relative_pose

    rng = np.random.default_rng(seed)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, pa, pb in pair_paths():
            yaw_change = (log_entry(pb)["yaw"] - log_entry(pa)["yaw"]) % 360.0
            copy_a = stripped_copy(pa, Path(tmp) / f"a_{pa.stem}.jpg", side)
            for turn in [0.0, *np.round(rng.uniform(0.0, 360.0, angles), 1)]:
                copy_b = stripped_copy(pb, Path(tmp) / f"b_{pb.stem}_{turn:.1f}.jpg", side, float(turn))
                truth = (yaw_change + turn) % 360.0
                t0 = time.perf_counter()
                pose = relative_pose(copy_a, copy_b)
                row = {"pair": name, "turn_ccw_deg": float(turn), "truth_deg": truth, "confident": bool(pose.confident),
                       "heading_deg": pose.heading_deg if pose.confident else None, "reason": pose.reason,
                       "seconds": round(time.perf_counter() - t0, 1)}
                row["error_deg"] = circular_error(pose.heading_deg, truth) if pose.confident else None
                row["right"] = bool(row["error_deg"] is not None and row["error_deg"] <= HEADING_TOL_DEG)
                rows.append(row)
                print(json.dumps(row, default=float), flush=True)
    return rows


def summary(rows: list[dict]) -> dict:
    n = len(rows)
    right = sum(r["right"] for r in rows)
    return {"n": n, "right": right, "share_within_tol": right / n if n else None,
            "abstained": sum(not r["confident"] for r in rows)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--angles", type=int, default=3, help="random turns per pair (plus the untouched control)")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--side", type=int, default=1200, help="longer side of the copies, px")
    parser.add_argument("--label", default="current", help="key of this run in the figures file (e.g. before)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "figures" / "turned_pairs.json")
    args = parser.parse_args()
    rows = measure(args.angles, args.seed, args.side)
    turned = [r for r in rows if r["turn_ccw_deg"]]
    run = {"command": f"python -m benchmarks.measure.bench_turned_pairs --angles {args.angles} --seed {args.seed} "
                      f"--side {args.side} --label {args.label}",
           "heading_tol_deg": HEADING_TOL_DEG, "turned": summary(turned),
           "untouched": summary([r for r in rows if not r["turn_ccw_deg"]]),
           "turned_by_dataset": {k: summary([r for r in turned if r["pair"].startswith(k)]) for k in ("dji", "sequoia")},
           "pairs": rows}
    out = json.loads(args.out.read_text()) if args.out.exists() else {}
    out[args.label] = run
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2, default=float) + "\n")
    print(json.dumps({k: run[k] for k in ("turned", "untouched", "turned_by_dataset")}, indent=1))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
