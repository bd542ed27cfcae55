"""Worker processes for tool calls, so that a call past its timeout (or cancelled by the client) is really stopped.

A thread cannot be stopped from outside: a timed-out call in a thread goes on computing (minutes of CPU after the
caller gave up). Here each call runs in a child process taken from a small pool; when the call is cancelled — by
``call_timeout_s``, by the client's ``notifications/cancelled`` or by the server shutting down — that process is
killed and a fresh one is started for the next call. Children come from a ``forkserver`` that has already
imported the tool registry (so a new worker starts in tens of milliseconds and inherits no threads of the server),
and models a worker loads stay cached in it across calls. A worker that dies (segfault, out of memory) fails only
its own call.

Only module-level functions and picklable arguments cross the process boundary; exceptions come back as
(kind, message) pairs and are raised again as :class:`WorkerError`.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import sys
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio

PRELOAD = ["mcp_server.catalog"]  # imported once by the forkserver, inherited by every worker
STARTUP_S = 120.0  # a worker that has not started within this is given up
MESSAGE_CHARS = 500  # longest exception text a worker sends back


class WorkerError(Exception):
    """A call failed inside its worker: ``kind`` is the exception class name (or ``"crashed"``), the message
    is the exception's text (cut to :data:`MESSAGE_CHARS`)."""

    def __init__(self, kind: str, message: str, user_facing: bool) -> None:
        super().__init__(message)
        self.kind, self.message, self.user_facing = kind, message, user_facing


def _serve(conn: multiprocessing.connection.Connection) -> None:
    """Child loop: receive ``(fn, args, kwargs)``, send ``("ok", result)`` or ``("error", kind, message, user)``."""
    from tools.common import ToolError

    # File descriptor 1 may be the stdio MCP channel of the server: what tools print (ultralytics' first-run
    # banner, progress bars) goes to stderr instead of corrupting the protocol.
    sys.stdout.flush()
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    conn.send(("ready",))  # the parent starts a call's clock only once the worker has started up
    while True:
        try:
            fn, args, kwargs = conn.recv()
        except (EOFError, OSError):
            return
        try:
            reply: tuple = ("ok", fn(*args, **kwargs))
        except BaseException as exc:  # noqa: BLE001 - every failure goes back to the caller, the worker goes on
            user = isinstance(exc, (ToolError, FileNotFoundError))  # includes RequestError, MissingWeightsError
            text = str(exc) if user else (str(exc) or traceback.format_exc(limit=1))
            reply = ("error", type(exc).__name__, text[:MESSAGE_CHARS], user)
        try:
            conn.send(reply)
        except Exception as exc:  # noqa: BLE001 - an unpicklable result
            conn.send(("error", type(exc).__name__, f"result could not be sent back: {str(exc)[:200]}", False))
        del reply
        _release_free_memory()


def _release_free_memory() -> None:
    """Hand the heap a call freed back to the system (glibc keeps freed pages of its arenas otherwise: a worker that
    ran the learned matcher or the detector on a big photo would hold hundreds of MB it no longer uses)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: nothing to do
        pass


@dataclass
class _Worker:
    process: Any  # multiprocessing.Process
    conn: multiprocessing.connection.Connection

    def kill(self) -> None:
        """Stop the process now (SIGKILL) and reap it; closing the pipe wakes any thread still waiting on it."""
        try:
            self.process.kill()
            self.process.join(timeout=5)
        finally:
            self.conn.close()


def rss_mb(pid: int | None) -> float:
    """Resident memory of a process in MB from ``/proc`` (0 where that cannot be read)."""
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6
    except (OSError, ValueError, IndexError):
        return 0.0


class WorkerPool:
    """At most ``size`` worker processes; :meth:`call` runs ``fn(*args, **kwargs)`` in one of them. A worker whose
    resident memory exceeds ``max_rss_mb`` after a call is retired (models it loaded are loaded again by the next
    one), so memory returns to a bounded level after a heavy burst."""

    def __init__(self, size: int, max_rss_mb: float = 0.0) -> None:
        if size < 1:
            raise ValueError(f"tool_workers must be at least 1, got {size}")
        self.size, self.max_rss_mb = size, max_rss_mb
        self.retired = 0  # workers stopped for their memory
        self._idle: list[_Worker] = []
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(size)
        self.killed = 0  # workers stopped because their call was cancelled or timed out
        self.last_pid: int | None = None  # pid of the worker that took the latest call (tests, diagnostics)

    def _spawn(self) -> _Worker:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(PRELOAD)
        parent, child = ctx.Pipe()
        process = ctx.Process(target=_serve, args=(child,), daemon=True, name="uav-tool-worker")
        process.start()
        child.close()
        worker = _Worker(process, parent)
        try:
            if not parent.poll(STARTUP_S) or parent.recv() != ("ready",):
                raise OSError(f"no ready signal within {STARTUP_S} s")
        except (OSError, EOFError) as exc:
            worker.kill()
            raise WorkerError("crashed", f"a tool worker process did not start: {exc}", True) from None
        return worker

    def _take(self) -> _Worker:
        with self._lock:
            while self._idle:
                worker = self._idle.pop()
                if worker.process.is_alive():
                    return worker
                worker.conn.close()
        return self._spawn()

    async def call(self, fn: Callable[..., Any], *args: Any, timeout_s: float | None = None, **kwargs: Any) -> Any:
        """Run ``fn`` in a worker; cancelling the awaiting task kills that worker. ``timeout_s`` counts from when a
        worker has been found (waiting for a free one or starting one is not the tool's time): past it the worker
        is killed and ``TimeoutError`` raised. Raises :class:`WorkerError` for the call's own failure."""
        while not self._slots.acquire(blocking=False):  # polled, so that a queued call can still be cancelled
            await anyio.sleep(0.05)
        worker: _Worker | None = None
        finished = False
        try:
            worker = await anyio.to_thread.run_sync(self._take)  # not abandoned: a started worker is never lost
            self.last_pid = worker.process.pid
            with anyio.fail_after(timeout_s):
                reply = await anyio.to_thread.run_sync(self._exchange, worker, (fn, args, kwargs),
                                                       abandon_on_cancel=True)  # fmt: skip
            finished = True
        finally:
            if worker is not None:
                if finished and self.max_rss_mb and rss_mb(worker.process.pid) > self.max_rss_mb:
                    self.retired += 1
                    worker.kill()
                elif finished:
                    with self._lock:
                        self._idle.append(worker)
                else:
                    self.killed += 1
                    worker.kill()
            self._slots.release()
        if reply[0] == "ok":
            return reply[1]
        raise WorkerError(*reply[1:])

    @staticmethod
    def _exchange(worker: _Worker, message: tuple) -> tuple:
        try:
            worker.conn.send(message)
            return worker.conn.recv()
        except (EOFError, OSError, BrokenPipeError):
            worker.process.join(timeout=5)
            code = worker.process.exitcode
            return ("error", "crashed", f"the worker process died (exit code {code}) before answering", True)

    def close(self) -> None:
        """Stop every idle worker (busy ones are stopped by their calls' cancellation)."""
        with self._lock:
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.kill()
