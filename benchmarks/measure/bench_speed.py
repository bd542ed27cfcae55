"""How fast the agent and its tools are in use (issue #52), each figure beside its target.

- ct_ask: ``uav-agent ask IMG1 IMG2 "How did the camera move and rotate ..."`` on DJI 4000x2250 pairs
  (``../shared/data/dji_survey_dev``) as whole processes, against ``benchmarks/measure/peer_opencv_pose.py`` (plain
  OpenCV: reduced JPEG decode, SIFT, FLANN, RANSAC) run in the same rounds, alternating, so that both see the same load.
  cold = the ask in its own process (``UAV_AGENT_DAEMON=0``); warm = the ask sent to a running ``uav-agent serve``
  (the client process included): ``warm_first`` the first question about a pair, ``warm_repeat`` a question about
  photos the daemon has seen (views, features and metadata cached). Wall seconds, CPU seconds (user + system, the
  load-independent part) and peak resident memory of each process; ratios of medians. Targets: cold ≤ 1.2x the
  peer, warm ≤ 0.6x. One untimed ask and peer run first write Python's bytecode caches, as a first run does. ``import_floor`` (run in the same rounds) is a process that only imports what the agent's
  architecture needs on this path — the MCP SDK's server and in-memory client (the tools' transport), OpenCV; the
  one-shot ask runs the planner without LangGraph — and computes nothing: no ask in its own process can cost less.
- oblique: ``tools.views.matching.match_views`` on the hard 640x480 oblique pair (``../shared/data/opencv_aero``: SIFT
  fails, the learned matcher answers) in a fresh process: the call's wall and CPU seconds (the learned model's
  loading included); then ``warm``: the same call again in that process with the views, features and matches
  forgotten (``tools.feature_cache.clear``) but the model kept, as a server or daemon answers a new pair; and the
  whole process (both calls). Target ≤ 5 s.
- detect_4k: ``tools.perception.detect.detect`` on a 4000x2250 photo (tiled), first call (model load included) and
  second call, in a fresh process. Target ≤ 3 s.
- concurrent: ``--concurrent`` match_views calls at once to ``uav-agent mcp --http`` (its worker processes), over
  the DJI pairs and the oblique pair in turn: errors, latencies, resident memory of the server and its workers
  before, at peak and 10 s after. Targets: 0 errors, memory after < 2 GB.

The machine is shared (2 cores, other jobs): the 1-minute load average is recorded at the start and the end, and
only figures from one run are compared. Writes ``docs/figures/speed.json``.
Run: ``.venv/bin/python -m benchmarks.measure.bench_speed [--repeats 3] [--concurrent 10]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from benchmarks.figures import write_figures

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
DJI = ROOT.parent / "shared" / "data" / "dji_survey_dev" / "images"
AERO = ROOT.parent / "shared" / "data" / "opencv_aero"
PAIRS = [(DJI / "DJI_0018.JPG", DJI / "DJI_0019.JPG"), (DJI / "DJI_0019.JPG", DJI / "DJI_0020.JPG"),
         (DJI / "DJI_0034.JPG", DJI / "DJI_0035.JPG")]
OBLIQUE = (AERO / "aero1.jpg", AERO / "aero3.jpg")
QUESTION = "How did the camera move and rotate from the first image to the second?"
TARGETS = {"ct_cold_ratio": 1.2, "ct_warm_ratio": 0.6, "oblique_s": 5.0, "detect_4k_s": 3.0,
           "concurrent_errors": 0, "concurrent_rss_after_mb": 2000}


def _env(**extra: str) -> dict[str, str]:
    """The processes' environment: this project first on the path, and Python's bytecode cache on as in any install
    (pip compiles a package's modules when it installs them; a first run writes them): a shell that sets
    PYTHONDONTWRITEBYTECODE would otherwise have every module of the project compiled again in every process."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPATH": str(ROOT), **extra}


def run_process(cmd: list[str], env: dict[str, str]) -> dict[str, Any]:
    """Wall and CPU seconds (user + system), peak resident MB, exit code and output of one whole process."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, cwd=str(ROOT), env=env)
        _, status, usage = os.wait4(proc.pid, 0)  # this child's own resource usage, unlike getrusage(CHILDREN)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        text, errs = out.read().decode(errors="replace").strip(), err.read().decode(errors="replace").strip()
    return {"wall_s": round(wall, 3), "cpu_s": round(usage.ru_utime + usage.ru_stime, 3),
            "max_rss_mb": round(usage.ru_maxrss / 1024, 1), "rc": proc.returncode, "out": text[-2000:],
            "err": errs[-300:]}  # fmt: skip


def _median(runs: list[dict[str, Any]], key: str) -> float:
    return round(statistics.median(r[key] for r in runs), 3)


def _summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    return {"median_wall_s": _median(runs, "wall_s"), "median_cpu_s": _median(runs, "cpu_s"),
            "max_rss_mb": max(r["max_rss_mb"] for r in runs), "answers": sorted({r["out"][-80:] for r in runs}),
            "runs": len(runs), "failed": sum(r["rc"] not in (0, 3) for r in runs)}  # fmt: skip


def _ask(pair: tuple[Path, Path], env: dict[str, str]) -> dict[str, Any]:
    return run_process([str(BIN / "uav-agent"), "ask", str(pair[0]), str(pair[1]), QUESTION], env)


# What the architecture imports on the ask's path (MCP transport, OpenCV), without computing anything. The CLI's
# one-shot ask runs the planner without LangGraph (planners.graph.run_in_order), so LangGraph is not part of it.
IMPORT_FLOOR = "import mcp.server.fastmcp, mcp.shared.memory, mcp.client.session, cv2"


def _import_floor() -> dict[str, Any]:
    return run_process([sys.executable, "-c", IMPORT_FLOOR], _env())


def _peer(pair: tuple[Path, Path]) -> dict[str, Any]:
    peer = ROOT / "benchmarks" / "measure" / "peer_opencv_pose.py"
    return run_process([sys.executable, str(peer), *map(str, pair)], _env())


def start_daemon(sock: Path) -> subprocess.Popen:
    env = _env(UAV_AGENT_SOCKET=str(sock))
    proc = subprocess.Popen([str(BIN / "uav-agent"), "serve"], cwd=str(ROOT), env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"uav-agent serve exited: {proc.stderr.read().decode()[-500:]}")  # type: ignore[union-attr]
        if sock.exists():
            try:
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
                    probe.connect(str(sock))
                return proc
            except OSError:
                pass
        time.sleep(0.2)
    proc.kill()
    raise RuntimeError("uav-agent serve did not start within 300 s")


def ct_ask(repeats: int) -> dict[str, Any]:
    """Peer, cold ask, in alternation; then peer, warm asks with a daemon running."""
    peer_runs, cold, floor, warm_first, warm_repeat, peer_warm = [], [], [], [], [], []
    _peer(PAIRS[0]), _ask(PAIRS[0], _env(UAV_AGENT_DAEMON="0"))   # untimed: writes the bytecode caches (_env)
    for i in range(repeats):
        pair = PAIRS[i % len(PAIRS)]
        peer_runs.append(_peer(pair))
        cold.append(_ask(pair, _env(UAV_AGENT_DAEMON="0")))
        floor.append(_import_floor())
    with tempfile.TemporaryDirectory() as tmp:
        sock = Path(tmp) / "ask.sock"
        daemon = start_daemon(sock)
        env = _env(UAV_AGENT_SOCKET=str(sock), UAV_AGENT_DAEMON="1")
        try:
            for pair in PAIRS:  # first question about each pair (new to the daemon)
                peer_warm.append(_peer(pair))
                warm_first.append(_ask(pair, env))
            for i in range(repeats):
                pair = PAIRS[i % len(PAIRS)]
                peer_warm.append(_peer(pair))
                warm_repeat.append(_ask(pair, env))
        finally:
            daemon.terminate()
            daemon.wait(timeout=30)
    peer, peer_w = _summary(peer_runs), _summary(peer_warm)
    out = {"peer": peer, "cold": _summary(cold), "import_floor": _summary(floor), "peer_during_warm": peer_w,
           "warm_first": _summary(warm_first), "warm_repeat": _summary(warm_repeat)}
    for name in ("cold", "import_floor"):
        out[f"{name}_ratio_wall"] = round(out[name]["median_wall_s"] / peer["median_wall_s"], 2)
        out[f"{name}_ratio_cpu"] = round(out[name]["median_cpu_s"] / peer["median_cpu_s"], 2)
    for name in ("warm_first", "warm_repeat"):
        out[f"{name}_ratio_wall"] = round(out[name]["median_wall_s"] / peer_w["median_wall_s"], 2)
    out["note"] = ("warm client CPU is the client process only (the daemon computes); compare wall ratios. "
                   "Each ratio divides medians of runs interleaved with the peer's.")
    return out


OBLIQUE_SNIPPET = """
import json, sys, time
from tools import feature_cache
from tools.views.matching import match_views
c0, t0 = time.process_time(), time.perf_counter()
r = match_views(sys.argv[1], sys.argv[2])
out = {"call_s": time.perf_counter() - t0, "call_cpu_s": time.process_time() - c0, "tried": r.tried,
       "n_inliers": r.n_inliers, "confident": r.confident, "timings": {k: round(v, 2) for k, v in r.timings.items()}}
feature_cache.clear()  # a new pair for a process whose model is loaded
c0, t0 = time.process_time(), time.perf_counter()
w = match_views(sys.argv[1], sys.argv[2])
out["warm"] = {"call_s": time.perf_counter() - t0, "call_cpu_s": time.process_time() - c0, "n_inliers": w.n_inliers,
               "confident": w.confident}
print(json.dumps(out))
"""

DETECT_SNIPPET = """
import json, sys, time
from tools.perception.detect import detect
out = {}
for name in ("first_call", "second_call"):
    c0, t0 = time.process_time(), time.perf_counter()
    dets = detect(sys.argv[1])
    out[name] = {"s": round(time.perf_counter() - t0, 3), "cpu_s": round(time.process_time() - c0, 3),
                 "detections": len(dets)}
print(json.dumps(out))
"""


def in_process(snippet: str, args: list[Path], repeats: int) -> dict[str, Any]:
    runs = []
    for _ in range(repeats):
        r = run_process([sys.executable, "-c", snippet, *map(str, args)], _env(YOLO_OFFLINE="true"))
        try:
            r["result"] = json.loads(r["out"].splitlines()[-1])
        except (ValueError, IndexError):
            r["result"] = None
        runs.append(r)
    return {"process": _summary(runs), "calls": [r["result"] for r in runs],
            "errors": [r["err"] for r in runs if r["result"] is None]}  # fmt: skip


def oblique(repeats: int) -> dict[str, Any]:
    out = in_process(OBLIQUE_SNIPPET, list(OBLIQUE), repeats)
    calls = [c for c in out["calls"] if c]
    if calls:
        out["median_call_s"] = round(statistics.median(c["call_s"] for c in calls), 3)
        out["median_call_cpu_s"] = round(statistics.median(c["call_cpu_s"] for c in calls), 3)
        out["median_warm_call_s"] = round(statistics.median(c["warm"]["call_s"] for c in calls), 3)
        out["median_warm_call_cpu_s"] = round(statistics.median(c["warm"]["call_cpu_s"] for c in calls), 3)
    return out


def detect_4k(repeats: int) -> dict[str, Any]:
    out = in_process(DETECT_SNIPPET, [DJI / "DJI_0018.JPG"], repeats)
    out["note"] = ("CPU seconds count every inference thread, spin-waits included: on a loaded machine they exceed "
                   "the work done; the wall time of an idle machine is the target's measure")
    calls = [c for c in out["calls"] if c]
    for name in ("first_call", "second_call"):
        if calls:
            out[f"median_{name}_s"] = round(statistics.median(c[name]["s"] for c in calls), 3)
    return out


def main() -> None:
    from benchmarks.measure.bench_speed_concurrent import concurrent_match_views

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--concurrent", type=int, default=10)
    ap.add_argument("--only", nargs="*", choices=["ct_ask", "oblique", "detect_4k", "concurrent"])
    ap.add_argument("--out", default=str(ROOT / "docs" / "figures" / "speed.json"))
    opts = ap.parse_args()
    wanted = set(opts.only or ["ct_ask", "oblique", "detect_4k", "concurrent"])
    figures: dict[str, Any] = {"load_avg_1m_start": os.getloadavg()[0]}
    if "ct_ask" in wanted:
        figures["ct_ask"] = ct_ask(opts.repeats)
    if "oblique" in wanted:
        figures["oblique_640x480"] = oblique(opts.repeats)
    if "detect_4k" in wanted:
        figures["detect_4000x2250"] = detect_4k(opts.repeats)
    if "concurrent" in wanted:
        figures["concurrent_match_views"] = concurrent_match_views(opts.concurrent, PAIRS + [OBLIQUE])
    figures["load_avg_1m_end"] = os.getloadavg()[0]
    figures["targets"] = TARGETS
    figures["command"] = "python -m benchmarks.measure.bench_speed " + " ".join(sys.argv[1:])
    figures["machine"] = {"python": platform.python_version(), "cpus": os.cpu_count(),
                          "note": "shared 2-core machine; other jobs may run at the same time"}
    write_figures(figures, opts.out)


if __name__ == "__main__":
    main()
