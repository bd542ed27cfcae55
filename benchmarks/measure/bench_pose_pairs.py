"""Camera transformation (heading within 10 deg and horizontal translation within 10 m) and pair clock accuracy of
the pair pose (``tools.views.pose.relative_pose``: GPS baseline fused with the pixels' heading change, else the yaw
tags) on pairs built from public drone photos.

Three kinds of pairs, each with a truth that does not come from the code under test:
- real pairs: consecutive/overlapping photos of ``../shared/data/dji_survey_dev`` (DJI), ``garfield_dev``
  (Parrot Sequoia, pairs listed in its README) and the senseFly photos of ``../shared/foreign/questions``
  (Seneca). Truth: the flight log as the files record it, read here with the ``exiftool`` program (GPS position;
  the yaw tag the dataset README names: DJI ``GimbalYawDegree``, Parrot ``XMP-Camera:Yaw``, senseFly
  ``XMP-sensefly:Heading``) and put into local east/north metres by a tangent-plane formula written here (WGS84
  radii of curvature), independent of the project's reader and geodesic. The same pairs are also scored from the
  pixels alone (``fuse=False``; the Sequoia altitude from the ground elevation its README states) as a diagnostic:
  that is the only place where the pixels' heading is compared with the yaw tags.
- edited pairs: a real pair whose photo A or B is a rotated copy (one to three quarter turns, tags copied unchanged
  by ``exiftool -TagsFromFile``): the metadata now contradicts the pixels, and the truth is the log's yaw turned by the
  known edit.
- warped pairs: two views cut from one nadir photo by a known rotation, shift and altitude change (``cv2.remap``,
  then noise and JPEG compression per view); truth is that rotation and the shift times the photo's ground
  sampling distance (altitude tag / focal from the EXIF focal length and sensor width). No metadata: pixels only.

Clock: 12 = the top of image A; right when the hours agree, or differ by one while the true bearing is within 5 deg
of the boundary between them. Usage: ``python -m benchmarks.measure.bench_pose_pairs [--warped 24]``.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from benchmarks.photo_edits import rotated_copy

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data"
DJI_PAIRS = [("0018", "0019"), ("0019", "0020"), ("0018", "0020"), ("0034", "0035")]
GARFIELD_PAIRS = [("0000", "0157"), ("0000", "0158"), ("0003", "0093"), ("0157", "0158"), ("0137", "0157"),
                  ("0135", "0137"), ("0137", "0138"), ("0000", "0137"), ("0135", "0138")]
#: senseFly photos of the foreign question set (OpenDroneMap's Seneca sample, CC0): consecutive exposures and the
#: pairs its questions ask about.
SENECA = ROOT.parent / "shared" / "foreign" / "questions" / "images" / "seneca"
SENECA_PAIRS = [("0448", "0449"), ("0452", "0453"), ("0518", "0519"), ("0519", "0520"), ("0520", "0521"),
                ("0449", "0524"), ("0524", "0534"), ("0518", "0604")]
GARFIELD_GROUND_M = 255.0  # garfield_dev/README.md: ground about 250-260 m above sea level
HEADING_TOL_DEG, TRANSLATION_TOL_M, CLOCK_BOUNDARY_DEG = 10.0, 10.0, 5.0


def garfield_path(n: str) -> Path:
    return next((DATA / "garfield_dev" / "images").glob(f"IMG_*_{n}_RGB.JPG"))


def clock_ok(true_bearing: float, hour: int | None) -> bool:
    """The scorer's clock rule: exact hour, or a neighbour when the truth is near the boundary."""
    from tools.views.pose import clock_hour

    if hour is None:
        return False
    want = clock_hour(true_bearing)
    if hour == want:
        return True
    near = abs(true_bearing % 30.0 - 15.0) <= CLOCK_BOUNDARY_DEG  # hour boundaries lie at 15 deg + 30 deg k
    return near and (hour - want) % 12 in (1, 11)


def score(true: dict, pose) -> dict:
    """One pair's verdicts: heading error (deg), translation error (m), clock agreement."""
    out = {"truth": true, "confident": bool(pose.confident), "reason": pose.reason,
           "heading_source": pose.sources.get("heading_change", "pixels" if pose.confident else "none")}
    if not pose.confident:
        return {**out, "transform_ok": False, "clock_ok": False}
    dh = abs((pose.heading_deg - true["heading_deg"] + 180.0) % 360.0 - 180.0)
    dt = math.hypot(pose.translation_m[0] - true["forward_m"], pose.translation_m[1] - true["right_m"])
    return {**out, "heading_err_deg": dh, "translation_err_m": dt, "clock": pose.clock,
            "transform_ok": dh <= HEADING_TOL_DEG and dt <= TRANSLATION_TOL_M,
            "clock_ok": clock_ok(true["bearing_deg"], pose.clock)}


#: The yaw tag each dataset README names as the direction of the image top (senseFly: the airframe's heading, the
#: camera looking down with the image top towards the nose).
YAW_TAGS = ("XMP-drone-dji:GimbalYawDegree", "XMP-Camera:Yaw", "XMP-sensefly:Heading")
WGS84_A, WGS84_E2 = 6378137.0, 6.69437999014e-3


def log_entry(path: Path) -> dict[str, float]:
    """Latitude, longitude (deg) and image-top yaw (deg) of a photo, read with the exiftool program."""
    out = subprocess.run(["exiftool", "-json", "-n", "-G1", "-GPSLatitude", "-GPSLongitude", *(f"-{t}" for t in
                                                                                                YAW_TAGS), str(path)],
                         capture_output=True, text=True, check=True, timeout=60)
    tags = json.loads(out.stdout)[0]
    pick = {k.split(":")[-1]: v for k, v in tags.items()}
    yaw = next(float(tags[t]) for t in YAW_TAGS if t in tags)
    return {"lat": float(pick["GPSLatitude"]), "lon": float(pick["GPSLongitude"]), "yaw": yaw % 360.0}


def local_east_north(a: dict[str, float], b: dict[str, float]) -> tuple[float, float]:
    """B minus A in metres on the WGS84 tangent plane at their mid-latitude (meridian and prime-vertical radii)."""
    lat = math.radians((a["lat"] + b["lat"]) / 2.0)
    w = math.sqrt(1.0 - WGS84_E2 * math.sin(lat) ** 2)
    meridian, prime = WGS84_A * (1.0 - WGS84_E2) / w ** 3, WGS84_A / w
    return (math.radians(b["lon"] - a["lon"]) * prime * math.cos(lat), math.radians(b["lat"] - a["lat"]) * meridian)


def truth_from_log(pa: Path, pb: Path, turn_a: int = 0, turn_b: int = 0) -> dict:
    """The pair's truth from the photos' GPS and yaw tags; ``turn_*`` quarter turns clockwise applied to a copy's
    pixels (the copy's top then points 90 deg anticlockwise of the original's per turn)."""
    a, b = log_entry(pa), log_entry(pb)
    yaw_a, yaw_b = (a["yaw"] - 90.0 * turn_a) % 360.0, (b["yaw"] - 90.0 * turn_b) % 360.0
    east, north = local_east_north(a, b)
    psi = math.radians(yaw_a)
    fwd, right = east * math.sin(psi) + north * math.cos(psi), east * math.cos(psi) - north * math.sin(psi)
    return {"heading_deg": (yaw_b - yaw_a) % 360.0, "forward_m": fwd, "right_m": right,
            "bearing_deg": math.degrees(math.atan2(right, fwd)) % 360.0, "distance_m": math.hypot(fwd, right)}


def real_paths() -> list[tuple[str, Path, Path]]:
    dji = [(f"dji {a}-{b}", *(DATA / "dji_survey_dev" / "images" / f"DJI_{n}.JPG" for n in (a, b)))
           for a, b in DJI_PAIRS]
    seneca = [(f"sensefly {a}-{b}", SENECA / f"IMG_{a}.jpg", SENECA / f"IMG_{b}.jpg") for a, b in SENECA_PAIRS
              if SENECA.is_dir()]
    return dji + [(f"sequoia {a}-{b}", garfield_path(a), garfield_path(b)) for a, b in GARFIELD_PAIRS] + seneca


def real_pairs() -> list[dict]:
    """Each real pair scored as the agent answers it (fused) and from the pixels alone (diagnostic)."""
    from tools.geometry.camera import read_metadata
    from tools.views.pose import relative_pose

    rows = []
    for name, pa, pb in real_paths():
        truth = truth_from_log(pa, pb)
        rows.append({"pair": name, **score(truth, relative_pose(pa, pb))})
        alts = {}
        if name.startswith("sequoia"):
            alts = {"altitude_m": read_metadata(pa).abs_altitude_m - GARFIELD_GROUND_M,
                    "altitude_b_m": read_metadata(pb).abs_altitude_m - GARFIELD_GROUND_M}
        rows.append({"pair": f"vision-only {name}", **score(truth, relative_pose(pa, pb, fuse=False, **alts))})
    return rows


def edited_pairs() -> list[dict]:
    """Real pairs whose photo A or B is a rotated copy with the original tags (the edited-file trap)."""
    from tools.views.pose import relative_pose

    cases = [("dji 0018-0019", 1, 0), ("dji 0034-0035", 0, 1), ("sequoia 0157-0158", 0, 3),
             ("dji 0019-0020", 2, 0), ("sequoia 0137-0157", 3, 0)]
    paths = {name: (pa, pb) for name, pa, pb in real_paths()}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, turn_a, turn_b in cases:
            pa, pb = paths[name]
            ca = rotated_copy(pa, Path(tmp) / f"a_{pa.name}", turn_a) if turn_a else pa
            cb = rotated_copy(pb, Path(tmp) / f"b_{pb.name}", turn_b) if turn_b else pb
            pose = relative_pose(ca, cb)
            rows.append({"pair": f"edited {name} (A turned {turn_a}, B turned {turn_b} quarter turns)",
                         **score(truth_from_log(pa, pb, turn_a, turn_b), pose),
                         "notes": [n for n in pose.assumptions if "contradict" in n]})
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
    from tools.geometry.camera import intrinsics_for, read_metadata
    from tools.common import load_image
    from tools.views.pose import relative_pose, wrap360

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


def _count(values: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for v in values:
        out[str(v)] = out.get(str(v), 0) + 1
    return out


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
    fused = [r for r in real if not r["pair"].startswith("vision-only")]
    vision = [r for r in real if r["pair"].startswith("vision-only")]
    scored = fused + edited_pairs() + warped_pairs(args.warped, args.seed)
    kinds = ("dji", "sequoia", "sensefly", "edited", "warped", "vision-only dji", "vision-only sequoia",
             "vision-only sensefly")
    out = {"command": f"python -m benchmarks.measure.bench_pose_pairs --warped {args.warped} --seed {args.seed}",
           "tolerances": {"heading_deg": HEADING_TOL_DEG, "translation_m": TRANSLATION_TOL_M,
                          "clock_boundary_deg": CLOCK_BOUNDARY_DEG},
           "camera_transformation": summary(scored, "transform_ok"),
           "pair_clock": summary(scored, "clock_ok"),
           "heading_sources": _count(r.get("heading_source") for r in scored),
           "by_kind": {kind: {"transform": summary([r for r in scored + vision if r["pair"].startswith(kind)],
                                                    "transform_ok"),
                              "clock": summary([r for r in scored + vision if r["pair"].startswith(kind)],
                                               "clock_ok")}
                       for kind in kinds},
           "pairs": scored + vision}
    if args.out.exists():  # the reference figures recorded before the fused pose stay with the new ones
        previous = json.loads(args.out.read_text())
        if "before" in previous:
            out = {"before": previous["before"], **out}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2, default=float) + "\n")
    print(json.dumps({k: out[k] for k in ("camera_transformation", "pair_clock", "heading_sources", "by_kind")},
                     indent=1))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
