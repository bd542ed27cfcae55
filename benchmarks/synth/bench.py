"""Generation speed and answer balance of the ground-truth suite.

    python -m benchmarks.synth.bench [--per-task 50] [--tier default] [--out /tmp/synth_bench]

Prints the figures and writes them to ``docs/figures/synth_generation.json``: seconds per instance and per task,
retries, image size, the scene scale used, and answer distributions (clock hours, option letters, heading
offsets, number of regions) so that a biased suite shows.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path

import numpy as np

from agent.task_types import CLOCK_TASKS, TaskType
from benchmarks.figures import write_figures

FIGURE = Path(__file__).resolve().parents[2] / "docs" / "figures" / "synth_generation.json"


def summarise(records: list[dict]) -> dict:
    """Per-task answer statistics from written records."""
    by: dict[str, list[dict]] = {}
    for r in records:
        by.setdefault(r["id"].rsplit("_", 1)[0], []).append(r)
    out: dict[str, dict] = {}
    for task, rs in by.items():
        scales = [r["meta"].get("scene_scale", 1.0) for r in rs]
        s: dict = {"n": len(rs), "scene_scale_median": float(np.median(scales)),
                   "scene_scale_max": float(np.max(scales))}
        if task in CLOCK_TASKS:
            s["hours"] = dict(sorted(Counter(int(r["GT"].split()[0]) for r in rs).items()))
        elif task == TaskType.A2A_COLLABORATION_RECOGNITION:
            s["letters"] = dict(sorted(Counter(r["GT"] for r in rs).items()))
        elif task == TaskType.A2A_CAMERA_TRANSFORMATION:
            ang = [r["meta"]["heading_offset_deg"] for r in rs]
            s["heading_offset_abs_deg_quartiles"] = [round(float(q), 1) for q in np.percentile(np.abs(ang), [25, 50, 75])]
            s["overlap_median"] = float(np.median([r["meta"]["overlap"] for r in rs]))
        elif task == TaskType.MOTION_UNDERSTANDING:
            s["kinds"] = dict(sorted(Counter(r["meta"]["trajectory"]["kind"] for r in rs).items()))
        elif "regions" in rs[0]["meta"]:
            s["regions_in_image1_mean"] = float(np.mean([len(r["meta"]["regions"][0]) for r in rs]))
        out[task] = s
    return out


def main() -> None:
    from benchmarks.synth.generate import TASKS, generate

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-task", type=int, default=50)
    ap.add_argument("--tier", default="default")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=Path("/tmp/synth_bench"))
    args = ap.parse_args()
    per_task_s, cpu_s = {}, {}
    for task in TASKS:
        t0, c0 = time.perf_counter(), time.process_time()
        generate([task], args.per_task, args.seed, args.out / task, args.tier, progress=False)
        per_task_s[task] = round((time.perf_counter() - t0) / args.per_task, 3)
        cpu_s[task] = round((time.process_time() - c0) / args.per_task, 3)
        print(f"{task:32s} {per_task_s[task]:.3f} s/instance wall, {cpu_s[task]:.3f} s CPU")
    records, attempts = [], {}
    for task in TASKS:
        records += [json.loads(line) for line in (args.out / task / "annotations.jsonl").read_text().splitlines()]
        attempts.update(json.loads((args.out / task / "manifest.json").read_text())["attempts_per_task"])
    fig = {"per_task": args.per_task, "tier": args.tier, "seed": args.seed, "image_size": [960, 540],
           "cpu_cores": 2, "note": "shared machine: wall time includes waiting for other users' jobs",
           "seconds_per_instance": per_task_s, "cpu_seconds_per_instance": cpu_s,
           "total_seconds": round(sum(per_task_s.values()) * args.per_task, 1),
           "total_cpu_seconds": round(sum(cpu_s.values()) * args.per_task, 1),
           "attempts_per_instance": {t: round(n / args.per_task, 2) for t, n in attempts.items()},
           "answers": summarise(records)}
    write_figures(fig, FIGURE)
    print(f"wrote {FIGURE}")


if __name__ == "__main__":
    main()
