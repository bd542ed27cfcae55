"""Calibrate and measure the people-shape cue of a straight-down thermal view (:mod:`tools.geometry.people_shape`).

Truth: the camera tilt in HIT-UAV's file names (``<daylight>_<altitude>_<tilt>_...``; nadir = tilt at least 80 deg).
People: the shipped thermal detector at its calibrated thresholds, as the tool runs it. The cut is the largest
candidate whose precision (share of firing frames that are nadir) reaches :data:`MIN_PRECISION` on the **val**
split; precision and recall are then measured on the **test** split, which chose nothing.

Run: ``python -m benchmarks.measure.bench_people_shape --hituav /tmp/hituav [--limit N]`` (about 1 s a frame on
2 cores); writes ``docs/figures/people_shape.json``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tqdm import tqdm

from benchmarks.figures import write_figures
from benchmarks.measure.bench_detect_thermal import split_frames
from tools.geometry.people_shape import MIN_PEOPLE, people_shape

ROOT = Path(__file__).resolve().parents[2]
CUTS = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3)
MIN_PRECISION = 0.9
NADIR_MIN_TILT = 80


def frame_shapes(frames: list[tuple[Path, Path]], label: str) -> list[tuple[int, int, float]]:
    """(true tilt, people detected, median log(height/width)) of each frame."""
    from tools.common import load_image
    from tools.perception.detect import detect_report

    out = []
    for image, _ in tqdm(frames, desc=label, unit="frame"):
        shape = people_shape([d.bbox for d in detect_report(load_image(image), labels=["person"]).detections])
        out.append((int(image.stem.split("_")[2]), shape.people, shape.median_log_aspect))
    return out


def at_cut(rows: list[tuple[int, int, float]], cut: float) -> dict:
    """Firing frames, their precision, and the recall over nadir frames with enough people, at one cut."""
    usable = [(t, a) for t, n, a in rows if n >= MIN_PEOPLE]
    fired = [t for t, a in usable if a < cut]
    nadir = sum(t >= NADIR_MIN_TILT for t, _ in usable)
    right = sum(t >= NADIR_MIN_TILT for t in fired)
    return {"cut": cut, "frames_with_people": len(usable), "fired": len(fired), "fired_nadir": right,
            "precision": right / len(fired) if fired else None, "recall": right / nadir if nadir else None,
            "fired_tilts": sorted(fired)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hituav", type=Path, required=True, help="folder holding HIT-UAV's normal_xml/")
    parser.add_argument("--limit", type=int, default=None, help="first N frames of each split only")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "figures" / "people_shape.json")
    args = parser.parse_args()
    val = frame_shapes(split_frames(args.hituav, "val")[: args.limit], "val")
    test = frame_shapes(split_frames(args.hituav, "test")[: args.limit], "test")
    val_table = [at_cut(val, c) for c in CUTS]
    ok = [r for r in val_table if r["precision"] is not None and r["precision"] >= MIN_PRECISION]
    cut = max(r["cut"] for r in ok) if ok else None
    write_figures({"command": "python -m benchmarks.measure.bench_people_shape --hituav /tmp/hituav"
                   + (f" --limit {args.limit}" if args.limit else ""),
                   "frames": {"val": len(val), "test": len(test)}, "chosen_cut_on_val": cut,
                   "val": val_table, "test_at_chosen_cut": at_cut(test, cut) if cut is not None else None},
                  args.out)


if __name__ == "__main__":
    main()
