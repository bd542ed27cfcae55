"""Client side: an initialised ``mcp.ClientSession`` (in-memory, streamable HTTP or stdio) and result decoding.

```python
async with connect() as session:                      # in-memory server in this process
    data = await call(session, "clock_direction", {"target": [10, 20], "image_size": [640, 480]})
```
"""

from __future__ import annotations

import base64
import json
import sys
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
from mcp import ClientSession
from mcp.types import CallToolResult, ImageContent, TextContent

from agent.config import Config


class ToolCallError(RuntimeError):
    """A tool call came back as an MCP error result; the message is the server's."""

    def __init__(self, message: str, tool: str | None = None) -> None:
        super().__init__(message)
        self.message, self.tool = message, tool


@dataclass
class ToolReply:
    """A successful tool result: structured ``data`` and any PNG images (annotations), as bytes."""

    data: dict[str, Any]
    images: list[bytes] = field(default_factory=list)


@asynccontextmanager
async def connect(config: Config | None = None, url: str | None = None, *, token: str | None = None,
                  timeout_s: float = 300.0, isolation: str = "thread") -> AsyncIterator[ClientSession]:  # fmt: skip
    """Yield an initialised session: to an in-memory server built from ``config`` (default), or to the
    streamable-HTTP server at ``url`` (e.g. ``http://127.0.0.1:8765/mcp``; ``token`` sent as a bearer token).

    The in-memory server runs calls in threads of this process (``isolation="thread"``: no worker start-up, models
    shared with the caller) unless ``isolation="process"`` asks for stoppable worker processes."""
    if url is None:
        from mcp.shared.memory import create_connected_server_and_client_session

        from mcp_server.server import build_server

        if isolation == "process":
            server = build_server(config, isolation="process")
        else:
            server = _thread_server(config or Config.from_env())
        try:
            async with create_connected_server_and_client_session(server) as session:
                yield session
        finally:
            if server.workers is not None:
                server.workers.close()
        return
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"} if token else None
    timeout = httpx.Timeout(timeout_s, read=timeout_s)
    async with httpx.AsyncClient(headers=headers, timeout=timeout, follow_redirects=False) as http:
        async with streamable_http_client(url, http_client=http) as (read, write, _):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


_SERVERS: OrderedDict[str, Any] = OrderedDict()
_SERVERS_LOCK = threading.Lock()
SERVERS_KEPT = 4  # in-memory servers kept per process (one per configuration, e.g. per set of allowed roots)


def _thread_server(config: Config) -> Any:
    """An in-memory server running calls in threads, built once per configuration and tool registry and shared by
    the sessions of this process: building one derives every tool's JSON schema (~0.5 s of CPU), which a process
    answering many questions (``uav-agent serve``, benchmarks) would otherwise pay for each of them. Such a server
    holds no state between calls and no worker processes."""
    from mcp_server.catalog import REGISTRY
    from mcp_server.server import build_server

    key = repr((config, [(name, id(spec)) for name, spec in REGISTRY.items()]))
    with _SERVERS_LOCK:
        if key in _SERVERS:
            _SERVERS.move_to_end(key)
            return _SERVERS[key]
    server = build_server(config, isolation="thread")
    with _SERVERS_LOCK:
        _SERVERS[key] = server
        while len(_SERVERS) > SERVERS_KEPT:
            _SERVERS.popitem(last=False)
    return server


@asynccontextmanager
async def connect_stdio(env: dict[str, str] | None = None, cwd: str | None = None) -> AsyncIterator[ClientSession]:
    """Spawn ``python -m agent.cli mcp`` (the stdio server) with ``env``/``cwd`` and yield a session."""
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "agent.cli", "mcp"], env=env, cwd=cwd)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            yield session


def decode(result: CallToolResult, tool: str | None = None) -> ToolReply:
    """Structured content (else the first text content parsed as JSON) and PNG bytes; raises on ``isError``."""
    texts = [c.text for c in result.content if isinstance(c, TextContent)]
    if result.isError:
        raise ToolCallError(" ".join(texts) or "tool call failed without a message", tool)
    data = result.structuredContent
    if data is None:
        if not texts:
            raise ToolCallError("tool result has neither structured content nor text", tool)
        try:
            data = json.loads(texts[0])
        except json.JSONDecodeError as exc:
            raise ToolCallError(f"tool result is not JSON: {texts[0][:200]!r} ({exc})", tool) from None
    images = [base64.b64decode(c.data) for c in result.content if isinstance(c, ImageContent)]
    return ToolReply(data if isinstance(data, dict) else {"result": data}, images)


async def call_full(session: ClientSession, name: str, args: dict[str, Any]) -> ToolReply:
    """Call a tool and return its data and annotation images; raises :class:`ToolCallError` on an error result."""
    return decode(await session.call_tool(name, args), name)


async def call(session: ClientSession, name: str, args: dict[str, Any]) -> dict[str, Any]:
    """Call a tool and return its structured JSON; raises :class:`ToolCallError` on an error result."""
    return (await call_full(session, name, args)).data
