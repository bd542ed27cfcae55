"""Camera transformation (heading within 10 deg and horizontal translation within 10 m) and pair clock accuracy of
the vision pose (``tools.pose.relative_pose``) on pairs built from public drone photos.

Two kinds of pairs, each with a truth that does not come from the code under test:
- real pairs: consecutive/overlapping photos of ``../shared/data/dji_survey_dev`` (DJI) and ``garfield_dev``
  (Parrot Sequoia, pairs listed in its README). Truth: the GPS positions (WGS84 geodesic) and yaw tags read with
  ExifTool, converted by hand-checked conventions (``tools.pose_metadata.pose_from_metadata``). The Sequoia files
  have no height above ground: the vision pose runs with the ground elevation the README states (255 m), and also
  scaled by the GPS baseline (then its distance equals the GPS one by construction: only heading and clock count).
- warped pairs: two views cut from one nadir photo by a known rotation, shift and altitude change (``cv2.remap``,
  then noise and JPEG compression per view); truth is that rotation and the shift times the photo's ground
  sampling distance (altitude tag / focal from the EXIF focal length and sensor width).

Clock: 12 = the top of image A; right when the hours agree, or differ by one while the true bearing is within 5 deg
of the boundary between them. Usage: ``python -m benchmarks.bench_pose_pairs [--warped 24]``.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
DJI_PAIRS = [("0018", "0019"), ("0019", "0020"), ("0018", "0020"), ("0034", "0035")]
GARFIELD_PAIRS = [("0000", "0157"), ("0000", "0158"), ("0003", "0093"), ("0157", "0158"), ("0137", "0157"),
                  ("0135", "0137"), ("0137", "0138"), ("0000", "0137"), ("0135", "0138")]
GARFIELD_GROUND_M = 255.0  # garfield_dev/README.md: ground about 250-260 m above sea level
HEADING_TOL_DEG, TRANSLATION_TOL_M, CLOCK_BOUNDARY_DEG = 10.0, 10.0, 5.0


def garfield_path(n: str) -> Path:
    return next((DATA / "garfield_dev" / "images").glob(f"IMG_*_{n}_RGB.JPG"))


def clock_ok(true_bearing: float, hour: int | None) -> bool:
    """The scorer's clock rule: exact hour, or a neighbour when the truth is near the boundary."""
    from tools.pose import clock_hour

    if hour is None:
        return False
    want = clock_hour(true_bearing)
    if hour == want:
        return True
    frac = (true_bearing % 30.0)
    near = min(frac, 30.0 - frac) <= CLOCK_BOUNDARY_DEG
    return near and (hour - want) % 12 in (1, 11)


def score(true: dict, pose) -> dict:
    """One pair's verdicts: heading error (deg), translation error (m), clock agreement."""
    out = {"truth": true, "confident": bool(pose.confident), "reason": pose.reason}
    if not pose.confident:
        return {**out, "transform_ok": False, "clock_ok": False}
    dh = abs((pose.heading_deg - true["heading_deg"] + 180.0) % 360.0 - 180.0)
    dt = math.hypot(pose.translation_m[0] - true["forward_m"], pose.translation_m[1] - true["right_m"])
    return {**out, "heading_err_deg": dh, "translation_err_m": dt, "clock": pose.clock,
            "transform_ok": dh <= HEADING_TOL_DEG and dt <= TRANSLATION_TOL_M,
            "clock_ok": clock_ok(true["bearing_deg"], pose.clock)}


def truth_from_metadata(pa: Path, pb: Path) -> dict:
    from tools.camera import read_metadata
    from tools.pose import pose_from_metadata

    log = pose_from_metadata(read_metadata(pa), read_metadata(pb))
    return {"heading_deg": log.heading_deg, "forward_m": log.translation_m[0], "right_m": log.translation_m[1],
            "bearing_deg": log.bearing_deg, "distance_m": log.horizontal_m}


def real_pairs() -> list[dict]:
    from tools.camera import read_metadata
    from tools.pose import relative_pose

    rows = []
    for a, b in DJI_PAIRS:
        pa, pb = (DATA / "dji_survey_dev" / "images" / f"DJI_{n}.JPG" for n in (a, b))
        rows.append({"pair": f"dji {a}-{b}", **score(truth_from_metadata(pa, pb), relative_pose(pa, pb))})
    for a, b in GARFIELD_PAIRS:
        pa, pb = garfield_path(a), garfield_path(b)
        truth = truth_from_metadata(pa, pb)
        alts = [read_metadata(p).abs_altitude_m - GARFIELD_GROUND_M for p in (pa, pb)]
        stated = relative_pose(pa, pb, altitude_m=alts[0], altitude_b_m=alts[1])
        rows.append({"pair": f"sequoia {a}-{b} (ground {GARFIELD_GROUND_M:g} m)", **score(truth, stated)})
        scaled = relative_pose(pa, pb)
        rows.append({"pair": f"sequoia {a}-{b} (GPS-scaled)", **score(truth, scaled), "distance_circular": True})
    return rows


def warped_pair(rgb: np.ndarray, centre_a: tuple[float, float], centre_b: tuple[float, float], theta_deg: float,
                size: tuple[int, int], scale_b: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Views A (heading 0) and B (heading theta clockwise, altitude x scale_b) of a nadir photo taken as the
    ground, centred on the given pixels: B pixel offset d maps to photo pixel centre_b + scale_b R(theta) d (y down:
    R turns clockwise). Each view gets its own sensor noise and JPEG compression."""
    w, h = size
    u, v = np.meshgrid(np.arange(w) - w / 2.0, np.arange(h) - h / 2.0)
    views = []
    for (cx, cy), th, k in ((centre_a, 0.0, 1.0), (centre_b, math.radians(theta_deg), scale_b)):
        mx = cx + k * (u * math.cos(th) - v * math.sin(th))
        my = cy + k * (u * math.sin(th) + v * math.cos(th))
        view = cv2.remap(rgb, mx.astype(np.float32), my.astype(np.float32), cv2.INTER_AREA if k > 1 else
                         cv2.INTER_LINEAR)
        noisy = np.clip(view + rng.normal(0.0, 4.0, view.shape), 0, 255).astype(np.uint8)
        ok, jpg = cv2.imencode(".jpg", noisy, [cv2.IMWRITE_JPEG_QUALITY, 75])
        views.append(cv2.imdecode(jpg, cv2.IMREAD_UNCHANGED))
    return views[0], views[1]


def warped_pairs(n: int, seed: int) -> list[dict]:
    from tools.camera import intrinsics_for, read_metadata
    from tools.common import load_image
    from tools.pose import relative_pose, wrap360

    rng = np.random.default_rng(seed)
    sources = [DATA / "dji_survey_dev" / "images" / f"DJI_00{k}.JPG" for k in ("18", "20", "35")]
    rows = []
    for i in range(n):
        path = sources[i % len(sources)]
        meta = read_metadata(path)
        rgb = load_image(path)
        f_full = intrinsics_for(meta.width, meta.height, meta).fx
        gsd = meta.rel_altitude_m / f_full  # metres per photo pixel (nadir)
        size = (1200, 900)
        theta = float(rng.uniform(-45.0, 45.0))
        shift = rng.uniform(-1.0, 1.0, 2) * np.array([500.0, 350.0])
        ca = (meta.width / 2 - shift[0] / 2, meta.height / 2 - shift[1] / 2)
        cb = (meta.width / 2 + shift[0] / 2, meta.height / 2 + shift[1] / 2)
        scale_b = float(rng.uniform(0.85, 1.2))
        va, vb = warped_pair(rgb, ca, cb, theta, size, scale_b, rng)
        # The views keep the photo's focal f_full; A flies at the tagged altitude, B at scale_b times it.
        intr = intrinsics_for(*size, focal_px=f_full)
        pose = relative_pose(va, vb, altitude_m=meta.rel_altitude_m, altitude_b_m=meta.rel_altitude_m * scale_b,
                             intrinsics=intr, pitch_deg=(-90.0, -90.0))
        fwd, right = -shift[1] * gsd, shift[0] * gsd
        truth = {"heading_deg": wrap360(theta), "forward_m": fwd, "right_m": right,
                 "bearing_deg": wrap360(math.degrees(math.atan2(right, fwd))), "distance_m": math.hypot(fwd, right)}
        rows.append({"pair": f"warped {path.stem} #{i}", **score(truth, pose)})
    return rows


def summary(rows: list[dict], key: str) -> dict:
    n = len(rows)
    ok = sum(1 for r in rows if r[key])
    return {"n": n, "right": ok, "accuracy": ok / n if n else None,
            "abstained": sum(1 for r in rows if not r["confident"])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warped", type=int, default=24)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "figures" / "pose_pairs.json")
    args = parser.parse_args()
    real = real_pairs()
    warped = warped_pairs(args.warped, args.seed)
    independent = [r for r in real + warped if not r.get("distance_circular")]
    out = {"command": f"python -m benchmarks.bench_pose_pairs --warped {args.warped} --seed {args.seed}",
           "tolerances": {"heading_deg": HEADING_TOL_DEG, "translation_m": TRANSLATION_TOL_M,
                          "clock_boundary_deg": CLOCK_BOUNDARY_DEG},
           "camera_transformation": summary(independent, "transform_ok"),
           "pair_clock": summary(real + warped, "clock_ok"),
           "by_kind": {kind: {"transform": summary([r for r in real + warped if r["pair"].startswith(kind)],
                                                    "transform_ok"),
                              "clock": summary([r for r in real + warped if r["pair"].startswith(kind)], "clock_ok")}
                       for kind in ("dji", "sequoia", "warped")},
           "pairs": real + warped}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2, default=float) + "\n")
    print(json.dumps({k: out[k] for k in ("camera_transformation", "pair_clock", "by_kind")}, indent=1))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
