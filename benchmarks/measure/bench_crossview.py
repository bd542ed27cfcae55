"""Tool-level accuracy of the cross-view tools on a synth suite, isolated from region reading.

Regions come from each record's ground-truth ``meta`` (so a failure here is the cross-view tool's own), answers
are scored like the benchmark: exact region sets/pairs/letters; boxes by IoU ≥ 0.5 with the true box; camera
transformation within 10° and max(5 m, 20 %); Motion by the MiniLM judge's cosine; Distance_Comparison with no
stated pitch by the pitch-sweep rule of ``planners.pitch_sweep`` (answered only when the same for every pitch).

Run: ``YOLO_OFFLINE=true HF_HUB_OFFLINE=1 .venv/bin/python -m benchmarks.measure.bench_crossview ROOT [--per-task N]``
where ROOT is a folder written by ``uav-agent synth``; writes the run under ``--label`` in
``docs/figures/crossview.json`` (other runs kept).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import time
from pathlib import Path
from typing import Any, Callable

from agent.task_types import TaskType
from planners.pitch_sweep import PITCH_SWEEP_DEG
import tools.views.association as A
from tools.common import load_image
from tools.views.matching import match_views

OUT = Path(__file__).resolve().parents[2] / "docs" / "figures" / "crossview.json"
Record = dict[str, Any]


def _regions(meta: Record, k: int) -> list[tuple[int, list[float]]]:
    return [(g["id"], g["bbox"]) for g in meta["regions"][k]]


def _asked_region(r: Record) -> int:
    return int(re.search(r"Region (\d+) in image1", r["conversations"][0]["value"]).group(1))


def collaboration(r: Record, ims: list[str]) -> tuple[bool | None, str]:
    best = A.rank_candidate_views(ims[0], ims[1:])[0]
    return (("ABCD"[best.candidate_index] == r["GT"]) if best.confident else None), best.reason or ""


def shared(r: Record, ims: list[str]) -> tuple[bool | None, str]:
    res = match_views(ims[0], ims[1])
    if not res.confident:
        return None, res.reason or ""
    pairs = A.associate_regions(_regions(r["meta"], 0), _regions(r["meta"], 1), res.H, res.image_b_size)
    return {f"{a}-{b}" for a, b, _ in pairs} == set(r["GT"].split(", ")), ""


def object_matching(r: Record, ims: list[str]) -> tuple[bool | None, str]:
    res, k = match_views(ims[0], ims[1]), _asked_region(r)
    if not res.confident:
        return None, res.reason or ""
    if len(r["meta"]["regions"]) == 2:
        hit = [b for a, b, _ in A.associate_regions(_regions(r["meta"], 0), _regions(r["meta"], 1), res.H,
                                                    res.image_b_size) if a == k]
        return (f"Region {hit[0]}" == r["GT"]) if hit else None, "" if hit else "not paired"
    box = dict(_regions(r["meta"], 0))[k]
    moved = A.transfer_box(box, res.H, res.image_b_size, outline="ellipse")
    return (moved is not None and A.box_iou(moved, json.loads(r["GT"])) >= 0.5), ""


def occlusion(r: Record, ims: list[str]) -> tuple[bool | None, str]:
    res = match_views(ims[0], ims[1])
    if not res.confident:
        return None, res.reason or ""
    vis = A.region_visibility(load_image(ims[0]), load_image(ims[1]), _regions(r["meta"], 0), res.H)
    hidden = sorted(v.id for v in vis if not v.visible)
    return (("Region " + ", ".join(map(str, hidden))) == r["GT"]) if hidden else None, ""


def camera(r: Record, ims: list[str]) -> tuple[bool | None, str]:
    from tools.geometry.camera import intrinsics_for
    from tools.views.pose import relative_pose

    c = r["meta"]["cameras"][0]  # the question states image 1's altitude, pitch and the hfov (rounded)
    intr = tuple(intrinsics_for(c["width"], c["height"], hfov_deg=round(c["hfov_deg"])) for _ in range(2))
    p = relative_pose(ims[0], ims[1], altitude_m=round(c["altitude_m"]), pitch_deg=round(c["pitch_deg"]),
                      intrinsics=intr)
    if not p.confident or p.translation_m is None:
        return None, p.reason or ""
    vals = [float(x.split()[0]) for x in r["GT"].split(", ")]
    ok = abs((p.heading_signed_deg - vals[0] + 180) % 360 - 180) <= 10
    if len(vals) == 2:
        ok = ok and abs(p.translation_m[0] - vals[1]) <= max(5.0, 0.2 * abs(vals[1]))
    return ok, ""


def distance(r: Record, ims: list[str]) -> tuple[bool | None, str]:
    from tools.geometry.ground import CameraGeometry, rank_by_distance

    m = r["meta"]
    order = "farthest_first" if m["variant"] == "farthest" else "nearest_first"
    w, h = m["cameras"][0]["width"], m["cameras"][0]["height"]
    asked = set()
    for pitch in PITCH_SWEEP_DEG:
        ids = rank_by_distance(_regions(m, 0), CameraGeometry.assumed_for(w, h, pitch_deg=pitch), order=order).ids
        asked.add(tuple(ids if m["variant"] == "rank" else ids[:1]))
    if len(asked) != 1:
        return None, "ranking depends on the pitch"
    return asked.pop() == tuple(int(x) for x in re.findall(r"\d+", r["GT"])), ""


TASKS: dict[TaskType, Callable[[Record, list[str]], tuple[bool | None, str]]] = {
    TaskType.A2A_COLLABORATION_RECOGNITION: collaboration, TaskType.A2A_SHARED_ASSOCIATION: shared,
    TaskType.A2A_OBJECT_MATCHING: object_matching, TaskType.A2A_OCCLUSION_REMOVAL: occlusion,
    TaskType.A2A_CAMERA_TRANSFORMATION: camera, TaskType.DISTANCE_COMPARISON: distance,
}


def motion(records: list[Record], root: Path) -> dict[str, float]:
    from benchmarks.judge import default_judge
    from tools.views.motion import ego_motion

    judge, sims, secs = default_judge(), [], []
    for r in records:
        t0 = time.perf_counter()
        text = ego_motion([str(root / p) for p in r["image"]]).describe()
        secs.append(time.perf_counter() - t0)
        sims.append(judge.similarity(text, r["GT"]))
    return {"n": len(records), "judge_mean": statistics.mean(sims), "median_s": statistics.median(secs)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", type=Path)
    ap.add_argument("--per-task", type=int, default=20)
    ap.add_argument("--label", default="run", help="key of this run in the JSON (other keys are kept)")
    args = ap.parse_args()
    recs = [json.loads(line) for line in (args.root / "annotations.jsonl").open()]
    by_task: dict[str, list[Record]] = {}
    for r in recs:
        by_task.setdefault(r["id"].rsplit("_", 1)[0], []).append(r)
    out: dict[str, Any] = {"suite": str(args.root), "regions": "ground-truth meta (read_regions bypassed)"}
    for task, fn in TASKS.items():
        rows, secs = [], []
        for r in by_task.get(task, [])[: args.per_task]:
            t0 = time.perf_counter()
            ok, why = fn(r, [str(args.root / p) for p in r["image"]])
            secs.append(time.perf_counter() - t0)
            rows.append(ok)
            if ok is not True:
                print(f"  {r['id']}: {'abstained: ' + why if ok is None else 'wrong'}")
        if rows:
            out[task] = {"n": len(rows), "accuracy": sum(x is True for x in rows) / len(rows),
                         "abstained": sum(x is None for x in rows), "median_s": statistics.median(secs)}
            print(f"{task}: {out[task]}")
    m = TaskType.MOTION_UNDERSTANDING.value
    if m in by_task:
        out[m] = motion(by_task[m][: args.per_task], args.root)
        print(f"{m}: {out[m]}")
    figures = json.loads(OUT.read_text()) if OUT.exists() else {}
    figures[args.label] = out
    OUT.write_text(json.dumps(figures, indent=2) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
