"""Calling MCP tools from the planner: one :class:`ToolContext` per question, recording a trace of every call.

Tools are reached only through an MCP ``ClientSession`` (``mcp_server.client.call_full``); results are the
structured JSON and, when ``annotate`` was asked, the PNG images the tool returned.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from mcp_server.client import ToolCallError, call_full

SUMMARY_CHARS = 300
__all__ = ["ToolCallError", "ToolContext", "summarize", "summarize_args"]


@dataclass
class ToolContext:
    """Everything a plan needs to act: the MCP session, the images (as tool arguments) and the trace."""

    session: Any  # mcp.ClientSession
    images: list[str]
    annotate: bool = False
    llm: Any = None  # optional LangChain chat model (planners.llm)
    question: str = ""
    image_paths: list[str] = field(default_factory=list)  # local files when known (crops, sizes)
    trace: list[dict] = field(default_factory=list)
    annotations: list[tuple[str, bytes]] = field(default_factory=list)  # (tool name, PNG bytes)

    @property
    def tool_seconds(self) -> float:
        return float(sum(t["seconds"] for t in self.trace))

    async def call(self, name: str, **args: Any) -> dict:
        """Call tool ``name`` with ``args`` (``None`` values dropped); raise :class:`ToolCallError` on failure."""
        args = {k: v for k, v in args.items() if v is not None}
        if self.annotate:
            args["annotate"] = True
        entry: dict[str, Any] = {"tool": name, "args": summarize_args(args)}
        t0 = time.perf_counter()
        try:
            reply = await call_full(self.session, name, args)
            data, pngs = reply.data, reply.images
        except ToolCallError as exc:
            entry.update(seconds=time.perf_counter() - t0, error=str(exc))
            self.trace.append(entry)
            raise ToolCallError(f"{name}: {exc}", name) from exc
        except Exception as exc:  # transport failures: report them as tool errors with the cause
            entry.update(seconds=time.perf_counter() - t0, error=f"{type(exc).__name__}: {exc}")
            self.trace.append(entry)
            raise ToolCallError(f"{name}: {type(exc).__name__}: {exc}", name) from exc
        entry.update(seconds=time.perf_counter() - t0, result=summarize(data))
        self.trace.append(entry)
        self.annotations.extend((name, p) for p in pngs)
        return data


def summarize_args(args: dict) -> dict:
    """Arguments for the trace: image strings shortened (paths kept, base64 replaced by its length)."""
    return {k: _short(v) for k, v in args.items()}


def _short(v: Any) -> Any:
    if isinstance(v, str) and len(v) > 200:
        return f"<{len(v)} chars of image data>"
    if isinstance(v, list):
        return [_short(x) for x in v]
    return v


def summarize(data: dict, limit: int = SUMMARY_CHARS) -> str:
    """A one-line JSON summary of a tool result, cut at ``limit`` characters."""
    text = json.dumps(data, default=str, separators=(",", ":"))
    return text if len(text) <= limit else text[: limit - 3] + "..."
