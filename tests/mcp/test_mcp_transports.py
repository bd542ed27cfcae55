"""The MCP server over its real transports: stdio (spawned `uav-agent mcp` process) and streamable HTTP (uvicorn
on a free loopback port, bearer token), plus the CLI entry and the non-loopback refusal."""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import cv2
import numpy as np
import pytest
import uvicorn
from typer.testing import CliRunner

from agent.config import Config
from mcp_server.client import ToolCallError, call, call_full, connect, connect_stdio
from mcp_server.images import encode_base64
from mcp_server.catalog import REGISTRY
from mcp_server.server import SERVER_TOOLS, http_app

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "test-token-3f9a"


@pytest.fixture(scope="module")
def images(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A root with a real orthophoto and a copy shifted by 25 px (known translation)."""
    root = tmp_path_factory.mktemp("transport_root")
    a = cv2.imread(str(shared_data / "deepforest_neon" / "OSBS_029.png"))
    cv2.imwrite(str(root / "a.png"), a)
    cv2.imwrite(str(root / "b.png"), cv2.warpAffine(a, np.float32([[1, 0, 25], [0, 1, 0]]), (400, 400)))
    return root


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def http_url(images: Path) -> Iterator[str]:
    """A streamable-HTTP server (token required) in a background thread; yields its /mcp URL."""
    port = free_port()
    app = http_app(Config(allowed_roots=[str(images)]), host="127.0.0.1", port=port, token=TOKEN)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("HTTP MCP server did not start")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/mcp"
    server.should_exit = True
    thread.join(timeout=10)


def test_stdio_spawned_server_lists_and_calls_tools(images: Path):
    env = {**os.environ, "UAV_AGENT_ALLOWED_ROOTS": str(images), "PYTHONPATH": str(ROOT)}

    async def go() -> None:
        async with connect_stdio(env=env, cwd=str(ROOT)) as session:
            names = [t.name for t in (await session.list_tools()).tools]
            assert names == [*REGISTRY, *SERVER_TOOLS]
            reply = await call_full(session, "match_views", {"image_a": str(images / "a.png"),
                                                             "image_b": str(images / "b.png"), "method": "sift",
                                                             "annotate": True})  # fmt: skip
            H = np.array(reply.data["H"])
            assert reply.data["confident"] and abs(H[0, 2] / H[2, 2] - 25) < 1.0
            png = cv2.imdecode(np.frombuffer(reply.images[0], np.uint8), cv2.IMREAD_COLOR)
            assert png.shape == (400, 800, 3)
            with pytest.raises(ToolCallError, match="path not allowed"):
                await call(session, "camera_metadata", {"image": str(ROOT / "README.md")})
            assert (await call(session, "camera_metadata", {"image": str(images / "a.png")}))["intrinsics"]

    anyio.run(go)


def test_http_calls_with_token_base64_and_concurrency(images: Path, http_url: str):
    b64 = encode_base64(images / "b.png", "image/png")

    async def go() -> None:
        async with connect(url=http_url, token=TOKEN) as session:
            assert [t.name for t in (await session.list_tools()).tools] == [*REGISTRY, *SERVER_TOOLS]
            data = await call(session, "match_views", {"image_a": str(images / "a.png"), "image_b": b64,
                                                       "method": "sift"})  # fmt: skip
            H = np.array(data["H"])
            assert data["confident"] and abs(H[0, 2] / H[2, 2] - 25) < 1.0
            with pytest.raises(ToolCallError, match="not a readable image|malformed base64"):
                await call(session, "camera_metadata", {"image": "data:image/png;base64,iVBORw0KGgoAAAAAAAAA"})
            results: list[dict] = []

            async def one() -> None:
                results.append(await call(session, "camera_metadata", {"image": str(images / "a.png")}))

            async with anyio.create_task_group() as tg:
                for _ in range(10):
                    tg.start_soon(one)
            assert len(results) == 10 and all(r["intrinsics"]["width"] == 400 for r in results)

    anyio.run(go)


def test_http_refuses_a_missing_or_wrong_token(http_url: str):
    import httpx

    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    headers = {"Accept": "application/json, text/event-stream"}
    assert httpx.post(http_url, json=body, headers=headers, timeout=10).status_code == 401
    wrong = {**headers, "Authorization": "Bearer nope"}
    assert httpx.post(http_url, json=body, headers=wrong, timeout=10).status_code == 401


def test_http_refuses_non_finite_numbers_before_the_sdk_turns_them_into_null(http_url: str):
    import httpx

    body = ('{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "clock_direction", '
            '"arguments": {"target": [1, 2], "image_size": [40, 40], "heading_deg": -Infinity}}}')
    headers = {"Accept": "application/json, text/event-stream", "Authorization": f"Bearer {TOKEN}",
               "Content-Type": "application/json"}
    reply = httpx.post(http_url, content=body, headers=headers, timeout=10)
    assert reply.status_code == 400 and reply.json()["id"] == 3
    assert "-Infinity is not a finite number" in reply.json()["error"]["message"]


def test_http_accepts_the_bearer_scheme_in_any_case(http_url: str):
    import httpx

    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
    for scheme in ("bearer", "BEARER", "Bearer"):
        headers = {"Accept": "application/json, text/event-stream", "Authorization": f"{scheme} {TOKEN}"}
        reply = httpx.post(http_url, json=init, headers=headers, timeout=10)
        assert reply.status_code == 200, (scheme, reply.status_code)


def test_non_loopback_host_needs_a_token():
    with pytest.raises(ValueError, match="non-loopback"):
        http_app(Config(), host="0.0.0.0", port=free_port(), token=None)
    assert http_app(Config(), host="0.0.0.0", port=free_port(), token=TOKEN) is not None


def test_cli_lists_the_tools():
    from agent.cli import app

    result = CliRunner().invoke(app, ["mcp", "--list"])
    assert result.exit_code == 0, result.output
    assert [line.split(":")[0] for line in result.output.splitlines() if line] == [*REGISTRY, *SERVER_TOOLS]


def test_stdio_answers_malformed_and_deeply_nested_lines(images: Path):
    """Lines that are not JSON-RPC get an error reply (the SDK's transport gave none) and the server reads on."""
    import json
    import subprocess
    import sys

    env = {**os.environ, "UAV_AGENT_ALLOWED_ROOTS": str(images), "PYTHONPATH": str(ROOT)}
    deep = '{"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": ' + "[" * 100_000 + "]" * 100_000 + "}"
    init = {"jsonrpc": "2.0", "id": 9, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
    nan = '{"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "clock_direction", ' \
          '"arguments": {"target": [1, 2], "image_size": [40, 40], "heading_deg": NaN}}}'
    lines = [deep, "this is not json", '{"jsonrpc": "2.0", "id": 8}', nan, json.dumps(init)]
    proc = subprocess.run([sys.executable, "-m", "agent.cli", "mcp"], input="\n".join(lines) + "\n", env=env,
                          cwd=str(ROOT), capture_output=True, text=True, timeout=120)  # fmt: skip
    replies = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    assert [r.get("id") for r in replies] == [7, None, 8, 6, 9], proc.stdout[:500]
    assert replies[0]["error"]["code"] == -32700 and "nested" in replies[0]["error"]["message"]
    assert replies[1]["error"]["code"] == -32700 and replies[2]["error"]["code"] == -32600
    assert replies[3]["error"]["code"] == -32602 and "NaN is not a finite number" in replies[3]["error"]["message"]
    assert replies[4]["result"]["serverInfo"]["name"] == "uav-spatial-agent"


@pytest.mark.parametrize("roots,message", [([""], "empty"), (["/no/such/folder"], "not an existing folder")])
def test_cli_refuses_empty_and_missing_roots(roots: list[str], message: str):
    from agent.cli import app

    args = ["mcp"] + [a for r in roots for a in ("--root", r)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2 and message in result.output


def test_default_root_is_refused_where_unsafe(tmp_path: Path):
    from mcp_server.cli import choose_roots

    with pytest.raises(ValueError, match="filesystem root"):
        choose_roots([], [], Path("/"))
    with pytest.raises(ValueError, match="home folder"):
        choose_roots([], [], Path.home())
    roots, source = choose_roots([], [], tmp_path)
    assert roots == [str(tmp_path.resolve())] and "working directory" in source
