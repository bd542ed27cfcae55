"""The warm mode of ``uav-agent ask``: a local daemon that keeps the agent, its tools and their caches loaded.

``uav-agent serve`` starts it in the foreground (put it in the background with ``&`` or a service manager); while
it runs, ``uav-agent ask`` sends its question there instead of importing the planner, the MCP server and the vision
libraries itself (seconds on a small machine), and the daemon's per-process caches (working images, SIFT features,
metadata tags: :mod:`tools.feature_cache`) make a question about photos it has seen before cost little more than the
geometry. ``UAV_AGENT_DAEMON=0`` makes ``ask`` ignore a running daemon; options the daemon cannot honour
(``--mcp-url``, LLM settings, ``--timeout``, ``--annotate``) make ``ask`` run in its own process.

Transport: a Unix socket only the user can open (the folder is created mode 0700), default
``$XDG_RUNTIME_DIR/uav-spatial-agent/ask.sock`` (else the user's cache folder), or ``UAV_AGENT_SOCKET``. One request
per connection: a JSON line ``{"images": [...], "question": str, "task": str | null}`` answered by one JSON line:
``{"ok": true, "answer": {...Answer.to_dict()...}}`` or ``{"ok": false, "error": str, "bad_input": bool}``.
Images are paths resolved by the client (the daemon may run in another working directory); like the in-process
ask, the daemon's tools may read the folders of the images it is given.

This module imports only the standard library at module level: the client side must stay as fast as ``--help``.
"""

from __future__ import annotations

import json
import os
import socket
import socketserver
import threading
from pathlib import Path
from typing import Any

SOCKET_ENV = "UAV_AGENT_SOCKET"
DISABLE_ENV = "UAV_AGENT_DAEMON"
MAX_REQUEST_BYTES = 1 << 20  # a request is paths and a question: a megabyte is far beyond any real one
CONNECT_TIMEOUT_S = 0.2  # a daemon that does not accept within this is treated as absent


def socket_path() -> Path:
    """Where the daemon listens: ``UAV_AGENT_SOCKET``, else the user's runtime folder, else the user's cache."""
    given = os.environ.get(SOCKET_ENV)
    if given:
        return Path(given).expanduser()
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and Path(runtime).is_dir():
        return Path(runtime) / "uav-spatial-agent" / "ask.sock"
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("uav-spatial-agent")) / "ask.sock"


# ---- client ---------------------------------------------------------------------------------------------------
def ask_daemon(images: list[str], question: str, task: str | None, timeout_s: float) -> dict[str, Any] | None:
    """The daemon's reply to one question, or None when no daemon answers (not running, disabled, stale socket)."""
    if os.environ.get(DISABLE_ENV, "1").strip().lower() in ("0", "false", "no", "off"):
        return None
    path = socket_path()
    if not path.exists():
        return None
    request = {"images": [str(Path(p).expanduser().resolve()) for p in images], "question": question, "task": task}
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(CONNECT_TIMEOUT_S)
            sock.connect(str(path))
            sock.settimeout(timeout_s)
            sock.sendall(json.dumps(request).encode() + b"\n")
            reply = _read_line(sock)
    except OSError:  # refused (stale socket), timed out, reset: answer in this process instead
        return None
    try:
        data = json.loads(reply)
    except ValueError:
        return None
    return data if isinstance(data, dict) and "ok" in data else None


def _read_line(sock: socket.socket) -> bytes:
    chunks = []
    while True:
        chunk = sock.recv(1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
        if chunk.endswith(b"\n"):
            break
    return b"".join(chunks)


# ---- server ---------------------------------------------------------------------------------------------------
class _Handler(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        line = self.rfile.readline(MAX_REQUEST_BYTES)
        if not line.strip():  # a probe (is a daemon there?) or a client that gave up
            return
        reply = self.server.answer(line)  # type: ignore[attr-defined]
        try:
            self.wfile.write(json.dumps(reply, default=str).encode() + b"\n")
        except (BrokenPipeError, ConnectionResetError):  # the client left (timeout, Ctrl-C): nobody to tell
            pass


class AskServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    """Answers requests with one :class:`agent.agent.Agent`, each in its own thread."""

    daemon_threads = True

    def __init__(self, path: Path, agent: Any) -> None:
        self.agent = agent
        super().__init__(str(path), _Handler)

    def answer(self, line: bytes) -> dict[str, Any]:
        from agent.agent import AgentInputError

        try:
            req = json.loads(line)
            images, question, task = req["images"], req["question"], req.get("task")
            if not isinstance(images, list) or not all(isinstance(p, str) for p in images):
                raise ValueError("images must be a list of paths")
        except (ValueError, KeyError, TypeError) as exc:
            return {"ok": False, "error": f"bad request: {str(exc)[:200]}", "bad_input": True}
        try:
            answer = self.agent.ask(images, question, task=task if isinstance(task, str) else None)
        except (AgentInputError, ValueError) as exc:
            return {"ok": False, "error": str(exc)[:2000], "bad_input": True}
        except Exception as exc:  # noqa: BLE001 - the daemon keeps serving; the client sees why
            return {"ok": False, "error": f"{type(exc).__name__}: {str(exc)[:2000]}", "bad_input": False}
        _forget_run(self.agent, answer.run_id)
        return {"ok": True, "answer": answer.to_dict()}


def _forget_run(agent: Any, run_id: str) -> None:
    """Drop a finished run's checkpoints: the in-memory checkpointer keeps every run, which a long-lived daemon
    must not (nobody can inspect a daemon's runs anyway)."""
    saver = getattr(agent.graph, "checkpointer", None)
    if saver is not None and hasattr(saver, "delete_thread"):
        saver.delete_thread(run_id)


def prepare_socket(path: Path) -> None:
    """Create the socket's folder (mode 0700) and remove a stale socket; refuse when a daemon already answers."""
    path.parent.mkdir(parents=True, exist_ok=True)
    os.chmod(path.parent, 0o700)
    if path.exists() or path.is_symlink():
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
            probe.settimeout(CONNECT_TIMEOUT_S)
            try:
                probe.connect(str(path))
            except OSError:
                path.unlink()  # left behind by a daemon that died
                return
        raise RuntimeError(f"a daemon already listens on {path}")


def serve(path: Path, agent: Any, ready: threading.Event | None = None) -> None:
    """Serve until interrupted; removes the socket on the way out."""
    prepare_socket(path)
    server = AskServer(path, agent)
    os.chmod(path, 0o600)
    try:
        if ready is not None:
            ready.set()
        server.serve_forever()
    finally:
        server.server_close()
        path.unlink(missing_ok=True)


def warm_up(agent: Any) -> None:
    """Import what the first question would import (planner graph, MCP server, vision libraries), so that the
    first ask is as fast as the next."""
    import asyncio

    async def _open() -> None:
        async with agent.session([]):
            pass

    asyncio.run(_open())
    import tools.views.matching  # noqa: F401 - OpenCV, the matcher and the feature cache
    import tools.views.pose  # noqa: F401
