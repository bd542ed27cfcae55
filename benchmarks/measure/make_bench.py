"""``make bench``: render the ground-truth suite, run the agent and the random baseline, write the report.

    python -m benchmarks.measure.make_bench [--per-task 50] [--seed 0] [--workers 2] [--work-dir .cache/bench]
                                    [--out docs/bench] [--tasks T1,T2] [--call-timeout-s S]

Steps: (1) ``benchmarks.synth.generate`` renders every generator task that the SpatialUAV scorer knows (≥ 50
instances each by default) into ``<work-dir>/synth-s<seed>-n<per-task>/`` (skipped when already there);
(2) the random solver and (3) the agent (single-image tasks first, timed on their own for the throughput figure,
then the rest) append predictions to ``<work-dir>/<solver>-s<seed>-n<per-task>.jsonl`` (resumable: rerun after an
interruption); (4) ``benchmarks.report`` writes ``<out>/report.md``, ``report.json`` and plots; the figures
(per-task scores against the issue's targets, throughput) go to ``docs/figures/bench.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

from benchmarks.published import AGENT_TARGETS, TARGET_THROUGHPUT_PER_MIN
from agent.task_types import TaskType
from benchmarks.figures import write_figures

ROOT = Path(__file__).resolve().parents[2]
FIGURE = ROOT / "docs" / "figures" / "bench.json"
SINGLE_IMAGE_TASKS = (TaskType.DIRECTION_RECOGNITION, TaskType.DISTANCE_COMPARISON, TaskType.REGION_RECOGNITION)


def suite_tasks(requested: list[str] | None = None) -> list[str]:
    """Generator tasks that the SpatialUAV-format loader and scorer know (the loader rejects any other)."""
    from benchmarks.scoring.spatialuav import TASKS as SCORED
    from benchmarks.synth.generate import TASKS as RENDERED

    tasks = [t for t in RENDERED if t in SCORED]
    if requested:
        bad = [t for t in requested if t not in tasks]
        if bad:
            raise SystemExit(f"unknown or unscorable task(s) {bad}; choose from {tasks}")
        tasks = [t for t in tasks if t in requested]
    return tasks


def render_suite(tasks: list[str], per_task: int, seed: int, work: Path) -> Path:
    """The suite's ``annotations.jsonl`` (rendered unless a manifest with the same parameters exists)."""
    from benchmarks.synth.generate import generate

    folder = work / f"synth-s{seed}-n{per_task}"
    ann, manifest = folder / "annotations.jsonl", folder / "manifest.json"
    if ann.is_file() and manifest.is_file():
        m = json.loads(manifest.read_text())
        if m.get("tasks") == tasks and m.get("per_task") == per_task and m.get("seed") == seed:
            return ann
    return generate(tasks, per_task, seed, folder)


def run_agent(samples: list, preds: Path, workers: int) -> dict:
    """Agent run: single-image tasks first (their wall time gives the throughput), then the rest."""
    from benchmarks.runner import run
    from benchmarks.solvers import SolverSpec

    spec = SolverSpec.of("agent")
    single = [s for s in samples if s.task in SINGLE_IMAGE_TASKS]
    first = run(single, spec, preds, workers=workers)
    rest = run(samples, spec, preds, workers=workers)
    return {"single_image_solved": first.done, "single_image_wall_s": round(first.wall_s, 1),
            "single_image_per_minute": round(first.per_minute, 1) if first.done else None,
            "other_tasks_solved": rest.done, "other_tasks_wall_s": round(rest.wall_s, 1),
            "errors": first.errors + rest.errors}


def _earlier_agent_stats(fallback: dict) -> dict:
    """Phases this run only resumed (nothing solved) keep the timings ``docs/figures/bench.json`` recorded for them."""
    try:
        earlier = json.loads(FIGURE.read_text())["agent_run"]
    except (OSError, ValueError, KeyError):
        return fallback
    merged = dict(fallback)
    for phase in ("single_image", "other_tasks"):
        if not fallback.get(f"{phase}_solved") and earlier.get(f"{phase}_solved"):
            merged.update({k: v for k, v in earlier.items() if k.startswith(phase)})
            merged.setdefault("note", f"{phase} timings from the earlier run that solved those samples")
    return merged


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-task", type=int, default=50)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--work-dir", type=Path, default=ROOT / ".cache" / "bench")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "bench")
    ap.add_argument("--tasks", default=None, help="Comma-separated subset of the suite's tasks.")
    ap.add_argument("--call-timeout-s", type=float, default=None,
                    help="Per-tool-call time limit of the agent (UAV_AGENT_CALL_TIMEOUT_S; default: the config's).")
    ap.add_argument("--score-only", action="store_true",
                    help="Do not solve: report the predictions written so far (per-task n shows how many).")
    argv = sys.argv[1:] if argv is None else argv
    args = ap.parse_args(argv)
    if args.call_timeout_s is not None:
        os.environ["UAV_AGENT_CALL_TIMEOUT_S"] = str(args.call_timeout_s)  # read by Config.from_env in workers

    from benchmarks.loaders import load
    from benchmarks.report import build_report, write_report
    from benchmarks.runner import read_rows, run
    from benchmarks.solvers import SolverSpec

    tasks = suite_tasks([t.strip() for t in args.tasks.split(",")] if args.tasks else None)
    work = args.work_dir
    work.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    ann = render_suite(tasks, args.per_task, args.seed, work)
    samples = load("synth", ann)
    render_s = time.perf_counter() - t0
    tag = f"s{args.seed}-n{args.per_task}"
    agent_stats: dict = {"note": "--score-only: figures from an earlier (possibly partial) run"}
    if not args.score_only:
        run(samples, SolverSpec.of("random", seed=args.seed), work / f"random-{tag}.jsonl", workers=1)
        agent_stats = run_agent(samples, work / f"agent-{tag}.jsonl", args.workers)
    agent_stats = _earlier_agent_stats(agent_stats)  # resumed phases keep the timings of the run that solved

    runs = {"agent": read_rows(work / f"agent-{tag}.jsonl"), "random": read_rows(work / f"random-{tag}.jsonl")}
    report = build_report(runs, "synth", None if args.score_only else samples)
    command = "python -m benchmarks.measure.make_bench " + " ".join(argv) if argv else "make bench"
    paths = write_report(report, args.out, command=command)
    agent = report["runs"]["agent"]["summary"]["per_task"]
    figures = {
        "suite": {"tasks": tasks, "per_task": args.per_task, "seed": args.seed, "annotations": str(ann)},
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "workers": args.workers,
                    "note": "shared 2-core machine: wall times include other users' load"},
        "render_s": round(render_s, 1), "agent_run": agent_stats,
        "agent_overall": round(report["runs"]["agent"]["summary"]["overall"], 1),
        "random_overall": round(report["runs"]["random"]["summary"]["overall"], 1),
        "agent_vs_target": {t: {"score": round(agent.get(t, {}).get("score", 0.0), 1), "target": target,
                                "met": agent.get(t, {}).get("score", 0.0) >= target}
                            for t, target in AGENT_TARGETS.items() if t in tasks},
        "throughput_target_per_min": TARGET_THROUGHPUT_PER_MIN,
        "judge": report["runs"]["agent"]["summary"]["judge"],
        "report": [str(p.relative_to(ROOT)) if p.is_relative_to(ROOT) else str(p) for p in paths],
    }
    write_figures(figures, FIGURE)
    return figures


if __name__ == "__main__":
    main()
