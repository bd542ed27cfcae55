"""Concurrent ``match_views`` calls to a served MCP server: errors, latencies and memory (part of bench_speed).

The server is ``uav-agent mcp --http`` in its own process, as users run it (tool calls in its worker processes);
its memory is the resident set of the server and all its descendants, sampled every 0.25 s.
"""

from __future__ import annotations

import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import psutil

ROOT = Path(__file__).resolve().parents[2]
SETTLE_S = 10.0  # seconds after the last reply before the "after" memory is read


def tree_rss_mb(proc: psutil.Process) -> float:
    """Resident MB of ``proc`` and its descendants (0 for those that vanished meanwhile)."""
    total = 0
    for p in [proc, *proc.children(recursive=True)]:
        try:
            total += p.memory_info().rss
        except psutil.Error:
            pass
    return total / 1e6


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(root: Path) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    cmd = [str(Path(sys.executable).parent / "uav-agent"), "mcp", "--http", "--port", str(port), "--root", str(root)]
    proc = subprocess.Popen(cmd, cwd=str(ROOT), env={**os.environ, "PYTHONPATH": str(ROOT)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the MCP server exited with code {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return proc, f"http://127.0.0.1:{port}/mcp"
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise RuntimeError("the MCP server did not listen within 300 s")


async def _calls(url: str, pairs: list[tuple[Path, Path]], n: int) -> tuple[list[float], list[str]]:
    from mcp_server.client import call, connect

    latencies: list[float] = []
    errors: list[str] = []

    async def one(i: int) -> None:
        a, b = pairs[i % len(pairs)]
        t0 = time.perf_counter()
        try:
            async with connect(url=url, timeout_s=900) as session:  # one client each, as separate users
                await call(session, "match_views", {"image_a": str(a), "image_b": str(b)})
            latencies.append(time.perf_counter() - t0)
        except Exception as exc:  # noqa: BLE001 - counted and reported, the benchmark goes on
            while isinstance(exc, BaseExceptionGroup) and exc.exceptions:  # the client's task groups wrap it
                exc = exc.exceptions[0]
            errors.append(f"{a.name}->{b.name}: {type(exc).__name__}: {exc}"[:300])

    async with anyio.create_task_group() as tg:
        for i in range(n):
            tg.start_soon(one, i)
    return latencies, errors


def concurrent_match_views(n: int, pairs: list[tuple[Path, Path]]) -> dict[str, Any]:
    root = Path(os.path.commonpath([str(p) for pair in pairs for p in pair]))
    proc, url = start_server(root)
    server = psutil.Process(proc.pid)
    peak = [0.0]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], tree_rss_mb(server))
            time.sleep(0.25)

    try:
        before = tree_rss_mb(server)
        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        t0 = time.perf_counter()
        latencies, errors = anyio.run(_calls, url, pairs, n)
        wall = time.perf_counter() - t0
        time.sleep(SETTLE_S)
        after = tree_rss_mb(server)
        done.set()
        sampler.join()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
    lat = sorted(latencies)
    return {"calls": n, "ok": len(latencies), "errors": len(errors), "error_examples": errors[:3],
            "latency_p50_s": round(statistics.median(lat), 2) if lat else None,
            "latency_max_s": round(lat[-1], 2) if lat else None, "wall_s": round(wall, 2),
            "rss_before_mb": round(before), "rss_peak_mb": round(peak[0]), "rss_after_mb": round(after),
            "pairs": [f"{a.name}->{b.name}" for a, b in pairs]}  # fmt: skip
