"""Worker processes of the MCP server: a timed-out or cancelled call's process is killed, a dying worker fails only
its call, errors come back with their kind, a worker over its memory limit is replaced."""

from __future__ import annotations

import os
import time

import anyio
import pytest

from mcp_server.workers import WorkerError, WorkerPool


@pytest.fixture()
def pool() -> WorkerPool:
    p = WorkerPool(1)
    yield p
    p.close()


def gone(pid: int, wait_s: float = 300.0) -> bool:
    """True once no process has ``pid`` (the killed worker was reaped). ``wait_s`` only keeps a broken kill from
    hanging the suite: it is no speed claim, and a loaded machine reaps well within it."""
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def test_a_call_past_its_timeout_kills_its_worker(pool: WorkerPool):
    async def go() -> tuple[int, int]:
        first = await pool.call(os.getpid)
        with pytest.raises(TimeoutError):
            await pool.call(time.sleep, 60, timeout_s=0.5)
        return first, await pool.call(os.getpid)

    first, after = anyio.run(go)
    assert first != os.getpid() and after != first and pool.killed == 1
    assert gone(first)


def test_a_cancelled_call_kills_its_worker(pool: WorkerPool):
    async def go() -> int:
        async with anyio.create_task_group() as tg:
            tg.start_soon(pool.call, time.sleep, 60)
            while pool.last_pid is None:  # cancel once a worker holds the call, however long that takes
                await anyio.sleep(0.05)
            tg.cancel_scope.cancel()
        return pool.last_pid

    pid = anyio.run(go)
    assert pool.killed == 1 and gone(pid)


def test_errors_and_crashes_fail_only_their_call(pool: WorkerPool):
    async def go() -> tuple[WorkerError, WorkerError, int]:
        with pytest.raises(WorkerError) as bad_value:
            await pool.call(int, "not a number")
        with pytest.raises(WorkerError) as crashed:
            await pool.call(os._exit, 9)
        return bad_value.value, crashed.value, await pool.call(abs, -4)

    bad_value, crashed, four = anyio.run(go)
    assert bad_value.kind == "ValueError" and "not a number" in bad_value.message and not bad_value.user_facing
    assert crashed.kind == "crashed" and "exit code 9" in crashed.message
    assert four == 4


def test_a_worker_over_its_memory_limit_is_replaced():
    pool = WorkerPool(1, max_rss_mb=1.0)  # every worker holds more than 1 MB: each call gets a fresh one
    try:
        pids = anyio.run(lambda: _pids(pool, 2))
    finally:
        pool.close()
    assert pids[0] != pids[1] and pool.retired == 2


async def _pids(pool: WorkerPool, n: int) -> list[int]:
    return [await pool.call(os.getpid) for _ in range(n)]


def test_what_a_worker_prints_stays_off_stdout(tmp_path):
    """Stdout may be the stdio MCP channel: a worker's prints and fd-1 writes must land on stderr."""
    import subprocess
    import sys
    from pathlib import Path

    script = tmp_path / "noisy.py"
    script.write_text("import os, anyio\nfrom mcp_server.workers import WorkerPool\n"
                      "if __name__ == '__main__':\n    pool = WorkerPool(1)\n"
                      "    anyio.run(lambda: pool.call(os.write, 1, b'noise from a worker\\n'))\n"
                      "    anyio.run(lambda: pool.call(print, 'printed by a worker'))\n"
                      "    pool.close()\n    print('parent done')\n")  # fmt: skip
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(root)})  # fmt: skip
    assert proc.stdout == "parent done\n", proc.stdout
    assert "noise from a worker" in proc.stderr and "printed by a worker" in proc.stderr
