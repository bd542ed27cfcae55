"""Question understanding: how fast the offline parser turns a question into a program, and how long a cold
``uav-agent ask`` takes before its first tool call.

    python -m benchmarks.measure.bench_understanding [--questions FILE.jsonl ...] [--cold-runs 3] [--out PATH]

Question files are JSONL with ``question`` and ``n_images`` (or ``images``) fields: our paraphrases by default;
any other set (e.g. ``../shared/foreign/questions/questions.jsonl``) is read in place, never copied. Per file: the
median and 90th percentile parse time in milliseconds (each question parsed once, after one warm-up parse that
loads the word list), how many questions the parser alone could not place (the task rules may), and, for files
with a ``task`` per question, how many the router sends to that task or to the program that answers its kind. Cold
start: a fresh process answers a metadata question about one photo; the figure is the process's wall time up to its
first tool call (imports, MCP session, understanding), read from the answer's own timings. Targets: parse median <= 20
ms, first tool call <= 1 s after start.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.figures import write_figures
from planners.parse import parse_question
from planners.router import route, routes_to

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_QUESTIONS = ROOT / "tests" / "data" / "paraphrases.jsonl"
COLD_IMAGE = ROOT / "examples" / "dji" / "DJI_0018.JPG"
OUT = ROOT / "docs" / "figures" / "understanding.json"


def parse_times(path: Path) -> dict:
    """Parse time per question; with a ``task`` field per row (our paraphrases), the share routed to that task."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    parse_question("warm-up: how high was the drone?", 1)
    times, unplaced = [], 0
    for r in rows:
        n = int(r.get("n_images") or len(r.get("images", [])) or 1)
        t0 = time.perf_counter()
        p = parse_question(r["question"], n)
        times.append((time.perf_counter() - t0) * 1000.0)
        unplaced += bool(p.unsure)
    times.sort()
    out = {"questions": len(rows), "median_ms": round(statistics.median(times), 3),
           "p90_ms": round(times[int(0.9 * (len(times) - 1))], 3), "unplaced_by_parser": unplaced}
    tasked = [r for r in rows if r.get("task")]
    if tasked:
        right = sum(routes_to(route(r["question"], int(r.get("n_images") or 1)).task, r["task"]) for r in tasked)
        out["routed_right"] = f"{right} of {len(tasked)}"
    return out


def cold_first_call_s(runs: int) -> list[float]:
    """Seconds from process start to the first tool call of a cold ``uav-agent ask`` (one per run)."""
    cli = [str(ROOT / ".venv" / "bin" / "uav-agent")] if (ROOT / ".venv" / "bin" / "uav-agent").exists() else [
        sys.executable, "-m", "agent.cli"]
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        p = subprocess.run([*cli, "ask", str(COLD_IMAGE), "What altitude was this photo taken at?", "--json"],
                           capture_output=True, text=True, timeout=300)
        wall = time.perf_counter() - t0
        answer = json.loads(p.stdout)
        t = answer["timings"]
        first_call = wall - (t["total_s"] - t["session_s"]) + next(
            n["seconds"] for n in t["nodes"] if n["node"] == "understand")
        out.append(round(first_call, 3))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--questions", nargs="*", type=Path, default=[DEFAULT_QUESTIONS])
    ap.add_argument("--cold-runs", type=int, default=3)
    ap.add_argument("--out", type=Path, default=OUT)
    a = ap.parse_args(argv)
    figures: dict = {"parse": {str(p.name if p.parent == DEFAULT_QUESTIONS.parent else p): parse_times(p)
                               for p in a.questions}}
    if a.cold_runs:
        runs = cold_first_call_s(a.cold_runs)
        figures["cold_ask_first_tool_call_s"] = {"runs": runs, "median": statistics.median(runs)}
    figures["targets"] = {"parse_median_ms": 20.0, "cold_first_tool_call_s": 1.0}
    write_figures(figures, a.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
