"""Per-call overhead of the MCP layer (in-memory and loopback HTTP) against calling the tool handler directly.

Each figure is a median over ``--calls`` sequential calls of the same cheap tool (``camera_metadata`` on a real
400x400 orthophoto given by path, so no image transfer is timed); overhead = MCP median − direct median. Then
``--concurrent`` HTTP calls are started at once and the errors counted. Targets (issue #5): ≤ 20 ms in-memory,
≤ 40 ms HTTP, 50 concurrent calls without error. Writes ``docs/figures/mcp.json``.

Run: ``.venv/bin/python -m benchmarks.measure.bench_mcp [--calls 200] [--concurrent 50]``
"""

from __future__ import annotations

import argparse
import json
import platform
import socket
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import uvicorn

from agent.config import Config
from mcp_server.client import call, connect
from mcp_server.catalog import REGISTRY, ToolContext
from mcp_server.server import http_app
from benchmarks.figures import write_figures

ROOT = Path(__file__).resolve().parents[2]
IMAGE = ROOT.parent / "shared" / "data" / "deepforest_neon" / "OSBS_029.png"
TOOL = "camera_metadata"
TOKEN = "bench-token"


def direct_ms(config: Config, args: dict[str, Any], n: int) -> list[float]:
    """Milliseconds per direct handler call (same image loading and JSON shaping, no MCP)."""
    spec, out = REGISTRY[TOOL], []
    for _ in range(n):
        t0 = time.perf_counter()
        spec.handler(ToolContext(config), **args)
        out.append((time.perf_counter() - t0) * 1000)
    return out


async def mcp_ms(config: Config, args: dict[str, Any], n: int, url: str | None = None) -> list[float]:
    out = []
    async with connect(config, url=url, token=TOKEN if url else None) as session:
        await call(session, TOOL, args)  # warm-up (imports, first decode)
        for _ in range(n):
            t0 = time.perf_counter()
            await call(session, TOOL, args)
            out.append((time.perf_counter() - t0) * 1000)
    return out


async def concurrent(url: str, args: dict[str, Any], n: int) -> dict[str, Any]:
    errors: list[str] = []
    ok = 0

    async def one() -> None:
        nonlocal ok
        try:
            await call(session, TOOL, args)
            ok += 1
        except Exception as exc:  # noqa: BLE001 - counted and reported, the benchmark goes on
            errors.append(f"{type(exc).__name__}: {exc}"[:200])

    t0 = time.perf_counter()
    async with connect(url=url, token=TOKEN) as session:
        async with anyio.create_task_group() as tg:
            for _ in range(n):
                tg.start_soon(one)
    return {"calls": n, "ok": ok, "errors": len(errors), "error_examples": errors[:3],
            "wall_s": round(time.perf_counter() - t0, 3)}  # fmt: skip


def serve(config: Config) -> tuple[uvicorn.Server, str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    server = uvicorn.Server(uvicorn.Config(http_app(config, port=port, token=TOKEN), host="127.0.0.1", port=port,
                                           log_level="warning"))  # fmt: skip
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    return server, f"http://127.0.0.1:{port}/mcp"


def summary(ms: list[float]) -> dict[str, float]:
    q = statistics.quantiles(ms, n=20)
    return {"median_ms": round(statistics.median(ms), 3), "p95_ms": round(q[-1], 3), "calls": len(ms)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--concurrent", type=int, default=50)
    ap.add_argument("--out", default=str(ROOT / "docs" / "figures" / "mcp.json"))
    opts = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        image = Path(tmp) / "osbs.png"
        image.write_bytes(IMAGE.read_bytes())
        config = Config(allowed_roots=[tmp])
        args = {"image": str(image)}
        direct_ms(config, args, 5)  # warm-up
        direct = summary(direct_ms(config, args, opts.calls))
        memory = summary(anyio.run(mcp_ms, config, args, opts.calls))
        server, url = serve(config)
        try:
            http = summary(anyio.run(mcp_ms, config, args, opts.calls, url))
            burst = anyio.run(concurrent, url, args, opts.concurrent)
        finally:
            server.should_exit = True
    figures = {
        "tool": TOOL, "image": "deepforest_neon/OSBS_029.png (400x400, by path)",
        "direct": direct, "in_memory": memory, "http": http,
        "overhead_in_memory_median_ms": round(memory["median_ms"] - direct["median_ms"], 3),
        "overhead_http_median_ms": round(http["median_ms"] - direct["median_ms"], 3),
        "targets": {"overhead_in_memory_median_ms": 20, "overhead_http_median_ms": 40, "concurrent_errors": 0},
        "concurrent_http": burst,
        "machine": {"python": platform.python_version(), "cpus": __import__("os").cpu_count(),
                    "note": "shared 2-core machine; other jobs may run at the same time"},
    }  # fmt: skip
    write_figures(figures, opts.out, echo=False)
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
