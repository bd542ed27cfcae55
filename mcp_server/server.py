"""The MCP server: every tool of :data:`mcp_server.catalog.REGISTRY` on one FastMCP instance, plus ``list_roots``.

Transports: stdio (:func:`run_stdio`, with :mod:`mcp_server.stdio`), streamable HTTP (:func:`run_http`, loopback
by default, optional bearer token) and in-memory (``mcp_server.client.connect``). Each call: refuse argument names
the tool does not take, check the number of images (``max_images_per_call``), run the handler — in a worker
process for served transports (:mod:`mcp_server.workers`: a call past ``call_timeout_s`` or cancelled by the client
is really stopped), in a thread for the in-process agent — send a progress notification every
:data:`PROGRESS_EVERY_S` seconds while it runs (clients that asked for progress keep waiting instead of timing
out), and return a ``CallToolResult`` with structured JSON (+ a PNG when ``annotate`` is true). Bad input comes back
as an MCP error result (``isError``) whose text names the rule or limit and quotes at most a few dozen characters
of the input; the server goes on. Models load lazily inside ``tools/`` on first use and are cached per process.
"""

from __future__ import annotations

import base64
import functools
import hmac
import ipaddress
import json
import math
import os
import time
from collections.abc import Sequence
from typing import Annotated, Any, Literal

import anyio
from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ToolError as McpToolError
from mcp.types import CallToolResult, ClientCapabilities, ImageContent, RootsCapability, TextContent, ToolAnnotations

from agent.config import Config
from mcp_server import annotate as draw
from mcp_server.images import RequestError, allowed_roots, shown
from mcp_server.catalog import REGISTRY, ToolOutput, ToolSpec, run_handler
from mcp_server.stdio import error_line, non_finite_literal
from mcp_server.workers import WorkerError, WorkerPool
from tools.common import ToolError, to_jsonable

SERVER_NAME = "uav-spatial-agent"
TOKEN_ENV_DEFAULT = "UAV_AGENT_MCP_TOKEN"
PROGRESS_EVERY_S = 2.0
ERROR_CHARS = 600  # longest error text sent to a client (inputs inside it are already cut to a few dozen chars)
TIMEOUT_HINT = ("raise it with the environment variable UAV_AGENT_CALL_TIMEOUT_S, `uav-agent mcp --call-timeout` "
                "or `uav-agent ask --timeout`")  # fmt: skip
INSTRUCTIONS = (
    "Vision and geometry tools for drone (UAV) images. Pass images as file paths under the server's allowed roots "
    "(see the list_roots tool) or as base64. Pixel boxes are [x1, y1, x2, y2], origin top-left; angles in degrees "
    "clockwise; distances in metres. Results are JSON; a result with confident=false gives its reason instead of "
    "a guess. Set annotate=true (where offered) to also get a PNG showing what a tool found. Slow tools send "
    "progress notifications when the request carries a progress token."
)
Isolation = Literal["process", "thread"]
SERVER_TOOLS = ("list_roots",)  # tools about the server itself, listed after the registry's


def to_call_result(out: ToolOutput, annotate: bool) -> CallToolResult:
    """Structured JSON (also as text for older clients) plus an annotated PNG when asked for and available."""
    data = to_jsonable(out.data)
    content: list[TextContent | ImageContent] = [TextContent(type="text", text=json.dumps(data))]
    if annotate and out.annotated is not None:
        png = base64.b64encode(draw.png(out.annotated)).decode("ascii")
        content.append(ImageContent(type="image", data=png, mimeType="image/png"))
    return CallToolResult(content=content, structuredContent=data)


def failure(tool: str, exc: BaseException) -> RequestError:
    """The client-facing error for a handler failure: the tool's own message for bad input, else the cause named
    and cut short (OpenCV's assertion text and tracebacks are not for clients)."""
    if isinstance(exc, WorkerError):
        kind, message, user = exc.kind, exc.message, exc.user_facing
    else:
        kind, message = type(exc).__name__, str(exc)
        user = isinstance(exc, (ToolError, FileNotFoundError))
    if user:
        return RequestError(message[:ERROR_CHARS])
    if kind == "error" or "cv2" in message[:200]:  # cv2.error
        line = next((ln for ln in message.splitlines() if "error:" in ln), message.splitlines()[0] if message else "")
        return RequestError(f"{tool} could not process this input (OpenCV: {line.strip()[:160]}); check that the "
                            "images are ordinary photos and the boxes lie inside them")  # fmt: skip
    return RequestError(f"{tool} failed ({kind}: {message[:200]})")


async def _heartbeat(server: FastMCP, tool: str) -> None:
    """Progress notifications (elapsed seconds) every PROGRESS_EVERY_S while a tool runs, if the client asked."""
    try:
        ctx = server.get_context()
        meta = ctx.request_context.meta  # ValueError outside a request (a direct call_tool): no one to tell
        if meta is None or meta.progressToken is None:
            return
        t0 = time.monotonic()
        while True:
            await anyio.sleep(PROGRESS_EVERY_S)
            elapsed = round(time.monotonic() - t0, 1)
            await ctx.report_progress(elapsed, None, f"{tool} still running ({elapsed:g} s)")
    except Exception:  # noqa: BLE001 - no request or a client gone away: the call itself reports what happens next
        return


async def _execute(spec: ToolSpec, config: Config, args: dict[str, Any], workers: WorkerPool | None,
                   server: FastMCP | None) -> ToolOutput:  # fmt: skip
    """The handler's output, computed in a worker (or a thread) while progress is reported; raises its error."""
    outcome: list[Any] = []
    async with anyio.create_task_group() as tg:
        if server is not None:
            tg.start_soon(_heartbeat, server, spec.name)
        try:
            if workers is not None:
                outcome.append(await workers.call(run_handler, spec.name, config, args,
                                                  timeout_s=config.call_timeout_s))  # fmt: skip
            else:
                call = functools.partial(run_handler, spec.name, config, args)
                with anyio.fail_after(config.call_timeout_s):
                    outcome.append(await anyio.to_thread.run_sync(call, abandon_on_cancel=True))
        except Exception as exc:  # noqa: BLE001 - raised again below, outside the task group (no ExceptionGroup)
            # (TimeoutError included: the timeout counts the tool's own time, not the wait for a free worker)
            outcome.append(exc)
        tg.cancel_scope.cancel()
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    return outcome[0]


async def run_tool(spec: ToolSpec, config: Config, args: dict[str, Any], *, workers: WorkerPool | None = None,
                   server: FastMCP | None = None) -> CallToolResult:  # fmt: skip
    """Run one registered tool with limits: images per call, worker process (or thread), timeout, progress."""
    n_images = spec.count_images(args)
    if n_images > config.max_images_per_call:
        raise RequestError(f"too many images: {n_images} in one call, limit max_images_per_call="
                           f"{config.max_images_per_call}")  # fmt: skip
    try:
        out = await _execute(spec, config, args, workers, server)
    except TimeoutError:
        stopped = "and was stopped" if workers is not None else "(its thread finishes in the background)"
        raise RequestError(f"{spec.name} did not finish within call_timeout_s={config.call_timeout_s:g} s {stopped}; "
                           f"{TIMEOUT_HINT}") from None  # fmt: skip
    except RequestError:
        raise
    except Exception as exc:  # noqa: BLE001 - named and cut short for the client
        raise failure(spec.name, exc) from None
    return to_call_result(out, bool(args.get("annotate", False)))


def _tool_function(spec: ToolSpec, config: Config, server: FastMCP, workers: WorkerPool | None) -> Any:
    """An async function with the handler's MCP signature (for FastMCP's schema) that runs :func:`run_tool`."""

    async def tool(**kwargs: Any) -> CallToolResult:
        return await run_tool(spec, config, kwargs, workers=workers, server=server)

    ret = Annotated[CallToolResult, spec.result] if spec.result is not None else CallToolResult
    tool.__signature__ = spec.signature().replace(return_annotation=ret)  # type: ignore[attr-defined]
    tool.__name__ = spec.name
    tool.__doc__ = spec.description
    return tool


def non_finite(value: Any, path: str, depth: int = 0) -> str | None:
    """Where the first NaN or infinity sits in an argument (``bbox[2]``), else None; 8 levels deep at most."""
    if isinstance(value, float):
        return None if math.isfinite(value) else path
    if depth >= 8:
        return None
    if isinstance(value, dict):
        items: Any = ((f"{path}.{shown(k, 30)}", v) for k, v in value.items())
    elif isinstance(value, list):
        items = ((f"{path}[{i}]", v) for i, v in enumerate(value))
    else:
        return None
    return next((p for p in (non_finite(v, q, depth + 1) for q, v in items) if p), None)


class ToolServer(FastMCP):
    """FastMCP that refuses unknown argument names and caps error texts before they reach the client."""

    workers: WorkerPool | None = None

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        tool = self._tool_manager.get_tool(name) if isinstance(name, str) and len(name) <= 200 else None
        if tool is None:
            raise McpToolError(f"Unknown tool: {shown(name, 60)}; list_tools gives the names")
        known = set(tool.parameters.get("properties", {}))
        unknown = [k for k in arguments if k not in known]
        if unknown:
            names = ", ".join(shown(k, 40) for k in unknown[:5])
            raise McpToolError(f"unknown argument(s) for {name}: {names}; {name} takes: {', '.join(sorted(known))}")
        bad = next((p for p in (non_finite(v, k) for k, v in arguments.items()) if p), None)
        if bad:
            raise McpToolError(f"{name}: {bad} is not a finite number (NaN and infinities are refused)")
        try:
            return await super().call_tool(name, arguments)
        except Exception as exc:  # noqa: BLE001 - every failure becomes a short error result
            text = str(exc)
            raise McpToolError(text if len(text) <= ERROR_CHARS else text[:ERROR_CHARS] + " …(cut)") from None


async def client_roots(server: FastMCP) -> list[str] | None:
    """Folders the client declared as its roots (MCP roots capability), or ``None`` when it declares none."""
    session = server.get_context().session
    if not session.check_client_capability(ClientCapabilities(roots=RootsCapability())):
        return None
    try:
        with anyio.fail_after(5):
            result = await session.list_roots()
    except Exception:  # noqa: BLE001 - a client that does not answer simply has no roots to report
        return None
    return [str(r.uri) for r in result.roots]


def _add_list_roots(server: FastMCP, config: Config) -> None:
    async def list_roots() -> dict[str, Any]:
        """The folders whose images this server may read when given file paths (anything else is refused; send
        such images as base64), and the client's own roots when it declares them (for information: only the
        server's allowed roots grant access)."""
        try:
            roots = [str(p) for p in allowed_roots(config)]
        except RequestError:
            roots = []
        return {"allowed_roots": roots, "client_roots": await client_roots(server),
                "accepts_base64": True, "max_image_pixels": config.max_image_pixels,
                "max_image_bytes": config.max_image_bytes, "call_timeout_s": config.call_timeout_s}  # fmt: skip

    server.add_tool(list_roots, name="list_roots", description=list_roots.__doc__,
                    annotations=ToolAnnotations(readOnlyHint=True, destructiveHint=False, openWorldHint=False))


def build_server(config: Config | None = None, *, host: str = "127.0.0.1", port: int = 8765,
                 isolation: Isolation = "process") -> ToolServer:  # fmt: skip
    """A server with every registered tool; ``host``/``port`` matter only for HTTP. ``isolation="process"`` runs
    calls in ``config.tool_workers`` worker processes (stoppable; 0 workers: threads); ``"thread"`` in threads of
    this process."""
    cfg = config or Config.from_env()
    body_limit = int(cfg.max_image_bytes * 4 / 3) * 2 + 1_000_000  # two base64 images at the byte limit, plus JSON
    mcp = ToolServer(SERVER_NAME, instructions=INSTRUCTIONS, host=host, port=port, max_request_body_size=body_limit,
                     log_level="WARNING")  # fmt: skip
    use_workers = isolation == "process" and cfg.tool_workers > 0
    mcp.workers = WorkerPool(cfg.tool_workers, cfg.worker_max_rss_mb) if use_workers else None
    hints = ToolAnnotations(readOnlyHint=True, destructiveHint=False, openWorldHint=False)
    for spec in REGISTRY.values():
        mcp.add_tool(_tool_function(spec, cfg, mcp, mcp.workers), name=spec.name, description=spec.description,
                     annotations=hints)  # fmt: skip
    _add_list_roots(mcp, cfg)
    for tool in mcp._tool_manager.list_tools():  # advertise what call_tool enforces: no other argument names
        tool.parameters["additionalProperties"] = False
    return mcp


def run_stdio(config: Config | None = None) -> None:
    """Serve over stdio (the process is spawned by the MCP client); malformed lines get a JSON-RPC error reply."""
    from mcp_server.stdio import serve_stdio

    server = build_server(config)
    try:
        anyio.run(serve_stdio, server)
    finally:
        if server.workers is not None:
            server.workers.close()


def is_loopback(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and ``localhost``."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def bearer_token(headers: Sequence[tuple[bytes, bytes]]) -> bytes | None:
    """The token of an ``Authorization: Bearer <token>`` header (scheme case-insensitive, RFC 7235), else None."""
    value = dict(headers).get(b"authorization", b"")
    scheme, _, token = value.strip().partition(b" ")
    return token.strip() if scheme.lower() == b"bearer" and token.strip() else None


class BearerAuth:
    """ASGI middleware: HTTP requests need ``Authorization: Bearer <token>`` (constant-time comparison)."""

    def __init__(self, app: Any, token: str) -> None:
        self.app, self.expected = app, token.encode()

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            got = bearer_token(scope.get("headers") or []) or b""
            if not hmac.compare_digest(got, self.expected):
                body = b'{"error": "missing or wrong bearer token"}'
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


class FiniteNumbers:
    """ASGI middleware: a POST whose JSON holds NaN, an infinity or an overflowing number (``1e999``) is answered
    400 with a JSON-RPC error (the SDK would turn those numbers into null, read as "unknown", before any tool)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        chunks, more = [], True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        body = b"".join(chunks)
        bad = non_finite_literal(body)
        if bad:
            reply = error_line(body[:2000].decode("utf-8", "replace"), -32602, f"invalid params: {bad} is not a "
                               "finite number (NaN, infinities and numbers beyond the float range are refused)")
            await send({"type": "http.response.start", "status": 400,
                        "headers": [(b"content-type", b"application/json")]})
            await send({"type": "http.response.body", "body": reply.encode()})
            return
        sent = False

        async def replay() -> dict:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


def http_app(config: Config | None = None, *, host: str = "127.0.0.1", port: int = 8765,
             token: str | None = None, isolation: Isolation = "process") -> Any:  # fmt: skip
    """The streamable-HTTP ASGI app (endpoint ``/mcp``), behind :class:`BearerAuth` when ``token`` is set.

    A non-loopback ``host`` is refused without a token.
    """
    if not is_loopback(host) and not token:
        raise ValueError(f"refusing to serve on non-loopback host {host!r} without a bearer token: set the token "
                         "environment variable (default UAV_AGENT_MCP_TOKEN)")  # fmt: skip
    mcp = build_server(config, host=host, port=port, isolation=isolation)
    if not is_loopback(host):  # DNS-rebinding protection only knows loopback names; the token guards the rest
        mcp.settings.transport_security = None
    app = FiniteNumbers(mcp.streamable_http_app())
    return BearerAuth(app, token) if token else app


def run_http(config: Config | None = None, *, host: str = "127.0.0.1", port: int = 8765,
             token_env: str = TOKEN_ENV_DEFAULT) -> None:  # fmt: skip
    """Serve streamable HTTP at ``http://host:port/mcp`` until interrupted (token read from ``token_env``)."""
    import uvicorn

    app = http_app(config, host=host, port=port, token=os.environ.get(token_env) or None)
    uvicorn.run(app, host=host, port=port, log_level="warning")
