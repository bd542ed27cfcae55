"""Stdio transport that answers every line: a line that is not a valid JSON-RPC message gets an error reply.

The MCP SDK's ``stdio_server`` hands unparsable lines to the session as exceptions, which the session only logs,
so a client that sends, say, a 100 000-deep nested request waits forever. Here such a line is answered at once
with a JSON-RPC error (``-32700`` parse error or ``-32600`` invalid request, the request id when one can be read
from the line, else ``null``) and the server reads on. Lines longer than :data:`MAX_LINE_CHARS` are refused the
same way without being parsed.
"""

from __future__ import annotations

import json
import math
import re
import sys
from io import TextIOWrapper
from typing import Any

import anyio
import mcp.types as types
from mcp.server.fastmcp import FastMCP
from mcp.shared.message import SessionMessage

MAX_LINE_CHARS = 200_000_000  # two base64 images at the default byte limit fit well below this
_SUSPECT = re.compile(rb"NaN|Infinity|\d[eE][+]?\d{3}")  # spellings that may hide a non-finite number
_ID = re.compile(r'"id"\s*:\s*("(?:[^"\\]|\\.){0,100}"|-?\d{1,18})')


def error_line(line: str, code: int, message: str) -> str:
    """A JSON-RPC error response for a bad input line, with the request's id when it can be read cheaply."""
    m = _ID.search(line[:2000])
    rid: Any = json.loads(m.group(1)) if m else None
    return json.dumps({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}})


class _NonFinite(ValueError):
    pass


def _refuse(literal: str) -> float:
    raise _NonFinite(literal)


def _finite_float(text: str) -> float:
    value = float(text)
    return value if math.isfinite(value) else _refuse(text)


def non_finite_literal(text: str | bytes) -> str | None:
    """The first ``NaN``/``Infinity`` literal or overflowing number (``1e999``) in a JSON text, else None.

    The MCP SDK turns such numbers into ``null`` before a tool sees them (so NaN would pass as "unknown altitude");
    this check runs on the raw text first. Texts without those spellings are not parsed at all."""
    if not _SUSPECT.search(text if isinstance(text, bytes) else text.encode("utf-8", "replace")):
        return None
    try:
        json.loads(text, parse_constant=_refuse, parse_float=_finite_float)
    except _NonFinite as exc:
        return str(exc)[:40]
    except (ValueError, RecursionError):  # not JSON: the JSON-RPC parser says so
        return None
    return None


def parse(line: str) -> SessionMessage | str:
    """The message of one input line, or the error reply to write back instead."""
    if len(line) > MAX_LINE_CHARS:
        return error_line(line, -32600, f"request too large: {len(line)} characters, limit {MAX_LINE_CHARS}")
    bad = non_finite_literal(line)
    if bad:
        return error_line(line, -32602, f"invalid params: {bad} is not a finite number (NaN, infinities and "
                                        "numbers beyond the float range are refused)")  # fmt: skip
    try:
        return SessionMessage(types.JSONRPCMessage.model_validate_json(line))
    except RecursionError:
        return error_line(line, -32700, "parse error: JSON nested too deeply")
    except ValueError as exc:  # pydantic's ValidationError, also for JSON that does not parse
        text = str(exc)
        code = -32700 if "json_invalid" in text or "recursion" in text.lower() else -32600
        what = "parse error: not valid JSON" if code == -32700 else "invalid request: not a JSON-RPC 2.0 message"
        if "recursion" in text.lower():
            what = "parse error: JSON nested too deeply"
        return error_line(line, code, what)


async def serve_stdio(server: FastMCP) -> None:
    """Run ``server`` over this process's stdin/stdout until stdin closes."""
    stdin = anyio.wrap_file(TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace"))
    stdout = anyio.wrap_file(TextIOWrapper(sys.stdout.buffer, encoding="utf-8"))
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)
    lock = anyio.Lock()

    async def emit(text: str) -> None:
        async with lock:
            await stdout.write(text + "\n")
            await stdout.flush()

    async def reader() -> None:
        async with read_writer:
            async for line in stdin:
                if not line.strip():
                    continue
                parsed = parse(line)
                if isinstance(parsed, str):
                    await emit(parsed)
                else:
                    await read_writer.send(parsed)

    async def writer() -> None:
        async with write_reader:
            async for message in write_reader:
                await emit(message.message.model_dump_json(by_alias=True, exclude_none=True))

    async with anyio.create_task_group() as tg:
        tg.start_soon(reader)
        tg.start_soon(writer)
        await server._mcp_server.run(read_stream, write_stream, server._mcp_server.create_initialization_options())
        tg.cancel_scope.cancel()
