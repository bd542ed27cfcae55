"""How fast bad input and help are dealt with (issue #52): image bombs refused from the header, ``--help`` start-up.

- bomb: a 30000 x 30000 PNG (decoding it would take ~900 MB and tens of seconds) given to the MCP image loader
  (``mcp_server.images.load``) by path and as base64: milliseconds to the refusal and the memory it took (Python
  allocations by tracemalloc, and the process's resident-memory growth), median over ``--repeats`` tries.
  Targets: <= 50 ms, <= 10 MB.
- help: wall time of ``uav-agent --help`` (a whole process, as a user starts it) against a bare ``python -c pass``,
  median over ``--repeats`` runs. Target: <= 0.3 s.

Writes ``docs/figures/robustness.json``. Run: ``.venv/bin/python -m benchmarks.measure.bench_robustness [--repeats 10]``
"""

from __future__ import annotations

import argparse
import base64
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

import psutil

from agent.config import Config
from benchmarks.figures import write_figures
from benchmarks.measure.fuzz_mcp_cases import png_bomb
from mcp_server.images import RequestError, load

ROOT = Path(__file__).resolve().parents[2]
UAV_AGENT = Path(sys.executable).parent / "uav-agent"


def _load(arg: str, config: Config) -> str:
    try:
        load(arg, config)
    except RequestError as exc:
        return str(exc)
    return "ACCEPTED"


def refusal(arg: str, config: Config) -> tuple[float, float, float, str]:
    """(ms to the refusal, peak traced MB, resident MB growth, message) of loading one bad image argument; the time
    from a run without tracing (tracemalloc slows allocation), the memory from a traced run."""
    proc = psutil.Process()
    rss0 = proc.memory_info().rss
    t0 = time.perf_counter()
    message = _load(arg, config)
    ms = (time.perf_counter() - t0) * 1000
    tracemalloc.start()
    _load(arg, config)
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    return ms, peak, (proc.memory_info().rss - rss0) / 1e6, message


def bomb_figures(repeats: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bomb.png"
        path.write_bytes(png_bomb(30000))
        config = Config(allowed_roots=[tmp])
        b64 = base64.b64encode(path.read_bytes()).decode()
        refusal(str(path), config)  # imports (Pillow's PNG plugin) happen once, not in the figures
        for name, arg in (("path", str(path)), ("base64", b64)):
            runs = [refusal(arg, config) for _ in range(repeats)]
            out[name] = {"median_ms": round(statistics.median(r[0] for r in runs), 2),
                         "max_ms": round(max(r[0] for r in runs), 2),
                         "peak_traced_mb": round(max(r[1] for r in runs), 2),
                         "rss_growth_mb": round(max(r[2] for r in runs), 2), "message": runs[0][3]}  # fmt: skip
        out["file_mb"] = round(path.stat().st_size / 1e6, 2)
    out["image"] = "30000 x 30000 grey PNG of zeros (900 M pixels)"
    return out


def wall_s(cmd: list[str], repeats: int) -> dict[str, float]:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=True, cwd=str(ROOT), env={**os.environ, "PYTHONPATH": str(ROOT)})
        times.append(time.perf_counter() - t0)
    return {"median_s": round(statistics.median(times), 3), "min_s": round(min(times), 3), "runs": repeats}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--out", default=str(ROOT / "docs" / "figures" / "robustness.json"))
    opts = ap.parse_args()
    figures = {
        "bomb": bomb_figures(opts.repeats),
        "help": {"uav-agent --help": wall_s([str(UAV_AGENT), "--help"], opts.repeats),
                 "uav-agent ask --help": wall_s([str(UAV_AGENT), "ask", "--help"], opts.repeats),
                 "python -c pass": wall_s([sys.executable, "-c", "pass"], opts.repeats)},
        "targets": {"bomb_ms": 50, "bomb_mb": 10, "help_s": 0.3},
        "command": f"python -m benchmarks.measure.bench_robustness --repeats {opts.repeats}",
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "load_avg_1m": os.getloadavg()[0],
                    "note": "shared 2-core machine; other jobs may run at the same time"},
    }  # fmt: skip
    write_figures(figures, opts.out)


if __name__ == "__main__":
    main()
