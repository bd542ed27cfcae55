"""Planner figures: routing accuracy and planner overhead beyond tool time. Writes docs/figures/planner.json.

Routing: the benchmarks' own question wording (``tests/planners/test_router.py::SPEC_WORDING``), the registry's example
phrasings (used to build the router) and the held-out paraphrase set (``tests/data/paraphrases.jsonl``, never used
to build the router), with rules + embeddings (the default), rules only, and embeddings only.
Overhead: real questions on ``examples/`` through the real in-process MCP server, one session reused;
overhead = graph wall time − the summed client-side durations of the tool calls (which include MCP transport).

Run: ``python -m benchmarks.measure.bench_planner [--repeats 10]``.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import statistics
import time
from pathlib import Path
from benchmarks.figures import write_figures

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def _spec_wording() -> list[tuple[str, int, str]]:
    spec = importlib.util.spec_from_file_location("test_router_data", ROOT / "tests" / "test_router.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return list(mod.SPEC_WORDING)


def routing_sets() -> dict[str, list[tuple[str, int, str]]]:
    from planners.tasks import TASKS

    para = [json.loads(line) for line in (ROOT / "tests" / "data" / "paraphrases.jsonl").read_text().splitlines()
            if line.strip()]
    return {"spec_wording": _spec_wording(),
            "registry_examples": [(ex, s.images[0], s.name) for s in TASKS.values() for ex in s.examples],
            "paraphrases_held_out": [(r["question"], r["n_images"], r["task"]) for r in para]}


def routing_accuracy(rows: list[tuple[str, int, str]], mode: str) -> dict:
    from planners.router import embedding_scores, route
    from planners.tasks import task_for_alias

    wrong, times = [], []
    for q, n, task in rows:
        t0 = time.perf_counter()
        if mode == "embeddings_only":
            best = embedding_scores(q, n)
            got = best[0][0] if best else None
        else:
            got = route(q, n, use_embeddings=(mode == "rules+embeddings")).task
        times.append(time.perf_counter() - t0)
        if got != task_for_alias(task).name:
            wrong.append({"question": q, "expected": task, "got": got})
    return {"n": len(rows), "accuracy": round(1 - len(wrong) / len(rows), 4), "wrong": wrong,
            "median_route_ms": round(1000 * statistics.median(times), 2)}


OVERHEAD_QUESTIONS = [
    ([EXAMPLES / "regions_nadir.png"], "The drone looks straight down from 60 m. Rank the regions from nearest to "
                                       "farthest from the drone."),
    ([EXAMPLES / "regions_nadir.png"], "Which of these regions is closest to the drone?"),
    ([EXAMPLES / "dji" / "DJI_0018.JPG", EXAMPLES / "dji" / "DJI_0019.JPG"], "How far apart were these two photos taken?"),
    ([EXAMPLES / "regions_nadir.png"], "Which regions in the image contain a parking lot?"),
]


async def _overhead(repeats: int) -> dict:
    from agent.agent import Agent

    agent = Agent()
    images = [str(p) for q in OVERHEAD_QUESTIONS for p in q[0]]
    per_q: dict[str, list[float]] = {}
    tools_s: dict[str, list[float]] = {}
    t_open = time.perf_counter()
    async with agent.session(images) as session:
        session_s = time.perf_counter() - t_open
        await agent.aask(*OVERHEAD_QUESTIONS[0], session=session)  # warm-up (imports, first tool loads)
        for _ in range(repeats):
            for imgs, q in OVERHEAD_QUESTIONS:
                a = await agent.aask(imgs, q, session=session)
                per_q.setdefault(q, []).append(a.timings["planner_s"])
                tools_s.setdefault(q, []).append(a.timings["tool_s"])
    all_ms = [1000 * v for vs in per_q.values() for v in vs]
    return {"repeats": repeats, "session_open_s": round(session_s, 3),
            "median_overhead_ms": round(statistics.median(all_ms), 2),
            "p90_overhead_ms": round(sorted(all_ms)[int(0.9 * (len(all_ms) - 1))], 2),
            "per_question": {q: {"median_overhead_ms": round(1000 * statistics.median(v), 2),
                                 "median_tool_s": round(statistics.median(tools_s[q]), 3)} for q, v in per_q.items()}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "figures" / "planner.json")
    args = ap.parse_args()
    sets = routing_sets()
    routing = {mode: {name: routing_accuracy(rows, mode) for name, rows in sets.items()}
               for mode in ("rules+embeddings", "rules_only", "embeddings_only")}
    overhead = asyncio.run(_overhead(args.repeats))
    figures = {"routing": routing, "overhead": overhead,
               "targets": {"routing_accuracy": 0.99, "median_overhead_ms": 50}}
    write_figures(figures, args.out, echo=False)
    for mode, res in routing.items():
        print(mode + ": " + ", ".join(f"{k} {v['accuracy']:.1%} of {v['n']} (median {v['median_route_ms']} ms)"
                                      for k, v in res.items()))
    print(f"planner overhead beyond tool time: median {overhead['median_overhead_ms']} ms, "
          f"p90 {overhead['p90_overhead_ms']} ms over {overhead['repeats']}x{len(OVERHEAD_QUESTIONS)} questions; "
          f"session open {overhead['session_open_s']} s")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
