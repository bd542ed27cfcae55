"""Fuzz battery: many bad MCP requests against the real server over stdio and streamable HTTP (issue #52).

The server is started as a user would (``uav-agent mcp`` / ``uav-agent mcp --http``, a temporary root holding a
real orthophoto and bad image files) and each transport gets ``--calls`` raw JSON-RPC requests drawn by
:mod:`benchmarks.measure.fuzz_mcp_cases` (paths, base64, image bombs, wrong types, unknown names, non-finite numbers,
protocol junk), one after the other. Counted per transport:

- crashes: the server process died; hangs: no reply within ``--hang-s`` seconds;
- echo violations: a reply containing more than 200 consecutive characters of a long input;
- good-call failures: every ``--check-every`` bad calls a valid call (``clock_direction``) must still succeed;
- memory: resident memory of the server with its worker processes (psutil) after a first valid call has started
  a worker, half way, at the peak and at the end (growth from half way to the end would be a leak);
- outcomes (tool error result, JSON-RPC error, HTTP error, accepted) and reply latency.

Targets: 0 crashes, 0 hangs, 0 echo violations, 0 good-call failures, memory bounded (end - start small, peak far
below what decoding a bomb would take: 900 MB). Writes ``docs/figures/mcp_fuzz.json``.

Run: ``.venv/bin/python -m benchmarks.measure.fuzz_mcp [--calls 600] [--seed 0]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import queue
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import psutil

from benchmarks.figures import write_figures
from benchmarks.measure.fuzz_mcp_cases import Case, cases, make_files

ROOT = Path(__file__).resolve().parents[2]
PHOTO = ROOT.parent / "shared" / "data" / "deepforest_neon" / "OSBS_029.png"
TOKEN = "fuzz-token"
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "1"}}}
GOOD = {"name": "clock_direction", "arguments": {"target": [350, 200], "image_size": [400, 400]}}


def rss_mb(pid: int) -> float:
    """Resident memory of a process and all its descendants (worker processes, forkserver), in MB."""
    try:
        proc = psutil.Process(pid)
        procs = [proc, *proc.children(recursive=True)]
    except psutil.Error:
        return 0.0
    total = 0
    for p in procs:
        try:
            total += p.memory_info().rss
        except psutil.Error:
            pass
    return total / 1e6


def echoes(reply: str, echo: str) -> bool:
    """True when ``reply`` contains a 201-character window of ``echo`` (start, middle or end)."""
    if len(echo) <= 200:
        return False
    return any(echo[i : i + 201] in reply for i in (0, len(echo) // 2 - 100, len(echo) - 201))


def outcome(message: dict | None, status: int | None = None) -> str:
    if message is None:
        return f"http_{status}" if status else "no_reply"
    if "error" in message:
        return "rpc_error"
    result = message.get("result") or {}
    return "tool_error" if result.get("isError") else "accepted"


class StdioServer:
    """``uav-agent mcp`` as a child process; one request at a time, replies read by a thread."""

    def __init__(self, root: Path, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "agent.cli", "mcp", "--root", str(root)], cwd=str(ROOT),
                                     env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1 << 20)  # fmt: skip
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.request(json.dumps(INIT), 1, 120)
        self.proc.stdin.write('{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def request(self, line: str, rid: int | None, hang_s: float) -> tuple[str, dict | None, str]:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        deadline = time.monotonic() + hang_s
        while time.monotonic() < deadline:
            try:
                text = self.lines.get(timeout=0.5)
            except queue.Empty:
                if not self.alive():
                    return "crash", None, ""
                continue
            message = json.loads(text)
            if "id" in message and ("result" in message or "error" in message):  # skip notifications
                if rid is not None and message["id"] != rid:
                    return "wrong_id", message, text
                return outcome(message), message, text
        return "hang", None, ""

    def close(self) -> None:
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()


class HttpServer:
    """``uav-agent mcp --http`` as a child process with a bearer token; requests posted raw."""

    def __init__(self, root: Path, env: dict[str, str]) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{port}/mcp"
        self.proc = subprocess.Popen([sys.executable, "-m", "agent.cli", "mcp", "--http", "--port", str(port),
                                      "--root", str(root)], cwd=str(ROOT), env={**env, "UAV_AGENT_MCP_TOKEN": TOKEN},
                                     stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL)  # fmt: skip
        self.headers = {"Authorization": f"Bearer {TOKEN}", "Accept": "application/json, text/event-stream",
                        "Content-Type": "application/json"}  # fmt: skip
        self.client = httpx.Client(timeout=httpx.Timeout(120.0))
        deadline = time.monotonic() + 120
        while True:
            try:
                reply = self.client.post(self.url, content=json.dumps(INIT), headers=self.headers)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    raise RuntimeError("HTTP MCP server did not start") from None
                time.sleep(0.2)
        self.headers["mcp-session-id"] = reply.headers["mcp-session-id"]
        self.client.post(self.url, content='{"jsonrpc": "2.0", "method": "notifications/initialized"}',
                         headers=self.headers)  # fmt: skip

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def request(self, line: str, rid: int | None, hang_s: float) -> tuple[str, dict | None, str]:
        try:
            reply = self.client.post(self.url, content=line.encode("utf-8", "replace"), headers=self.headers,
                                     timeout=hang_s)  # fmt: skip
        except httpx.TimeoutException:
            return "hang", None, ""
        except httpx.TransportError:
            return ("crash" if not self.alive() else "transport_error"), None, ""
        text = reply.text
        message = None
        for chunk in [text] + [ln[5:] for ln in text.splitlines() if ln.startswith("data:")]:
            try:
                parsed = json.loads(chunk)
            except ValueError:
                continue
            if isinstance(parsed, dict) and ("result" in parsed or "error" in parsed):
                message = parsed
        return outcome(message, reply.status_code), message, text

    def close(self) -> None:
        self.client.close()
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def good_line(rid: int) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": GOOD})


def battery(server: Any, batch: list[Case], hang_s: float, check_every: int) -> dict[str, Any]:
    """Send every case, then figures for this transport."""
    counts: Counter[str] = Counter()
    families: dict[str, Counter[str]] = {}
    latency, echo_bad, good_fail, good_n, examples, mid_mb = [], 0, 0, 0, {}, 0.0
    server.request(good_line(10**9), 10**9, hang_s)  # starts the worker processes: their memory is the baseline
    start_mb = peak_mb = rss_mb(server.pid)
    t0 = time.perf_counter()
    for i, case in enumerate(batch, 1):
        t = time.perf_counter()
        kind, message, text = server.request(case.line, case.rid, hang_s)
        latency.append((time.perf_counter() - t) * 1000)
        counts[kind] += 1
        families.setdefault(case.family, Counter())[kind] += 1
        if case.echo and echoes(text, case.echo):
            echo_bad += 1
        if kind not in examples and message is not None:
            examples[kind] = json.dumps(message)[:300]
        if kind in ("crash",):
            break
        if i == len(batch) // 2:
            mid_mb = rss_mb(server.pid)  # against the end: growth in the second half would be a leak
        if i % check_every == 0:
            good_n += 1
            good_kind, reply, _ = server.request(good_line(10**9 + i), 10**9 + i, hang_s)
            good_fail += good_kind != "accepted" or reply["result"]["structuredContent"]["hour"] != 3
            peak_mb = max(peak_mb, rss_mb(server.pid))
    end_mb = rss_mb(server.pid)
    q = statistics.quantiles(latency, n=20)
    return {"calls": sum(counts.values()), "outcomes": dict(counts), "by_family": {k: dict(v) for k, v in
                                                                                   families.items()},
            "crashes": counts["crash"] + (0 if server.alive() else 1) if counts["crash"] else int(not server.alive()),
            "hangs": counts["hang"], "wrong_ids": counts["wrong_id"], "echo_violations": echo_bad,
            "good_checks": good_n, "good_failures": good_fail,
            "rss_mb": {"start": round(start_mb, 1), "half_way": round(mid_mb, 1),
                       "peak": round(max(peak_mb, end_mb), 1), "end": round(end_mb, 1)},
            "latency_ms": {"median": round(statistics.median(latency), 1), "p95": round(q[-1], 1),
                           "max": round(max(latency), 1)},
            "wall_s": round(time.perf_counter() - t0, 1), "examples": examples}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=600, help="bad calls per transport")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--hang-s", type=float, default=60.0, help="a call without a reply after this is a hang")
    ap.add_argument("--check-every", type=int, default=50, help="a valid call after this many bad ones")
    ap.add_argument("--out", default=str(ROOT / "docs" / "figures" / "mcp_fuzz.json"))
    opts = ap.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        files = make_files(root, PHOTO)
        for name, factory in (("stdio", StdioServer), ("http", HttpServer)):
            batch = cases(opts.calls, files, opts.seed + (name == "http"))
            server = factory(root, env)
            try:
                figures[name] = battery(server, batch, opts.hang_s, opts.check_every)
            finally:
                server.close()
            print(name, json.dumps({k: v for k, v in figures[name].items() if k not in ("by_family", "examples")}))
    counted = ("calls", "crashes", "hangs", "echo_violations", "good_failures")
    total = {k: sum(figures[t][k] for t in ("stdio", "http")) for k in counted}
    figures = {"total": total, **figures, "targets": {"calls": 1000, "crashes": 0, "hangs": 0, "echo_violations": 0,
                                                      "good_failures": 0},
               "command": f"python -m benchmarks.measure.fuzz_mcp --calls {opts.calls} --seed {opts.seed}",
               "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                           "note": "shared 2-core machine; other jobs may run at the same time"}}  # fmt: skip
    write_figures(figures, opts.out, echo=False)
    print(json.dumps(total))


if __name__ == "__main__":
    main()
