"""The MCP server: every tool of :data:`mcp_server.registry.REGISTRY` on one FastMCP instance.

Transports: stdio (:func:`run_stdio`), streamable HTTP (:func:`run_http`, loopback by default, optional bearer
token) and in-memory (``mcp_server.client.connect``). Each call: check the number of images
(``max_images_per_call``), run the handler in a worker thread (so the server keeps serving) under
``call_timeout_s``, and return a ``CallToolResult`` with structured JSON (+ a PNG when ``annotate`` is true).
Bad input comes back as an MCP error result (``isError``) whose text names the rule or limit; the server goes on.
Models load lazily inside ``tools/`` on first use and are cached per process.
"""

from __future__ import annotations

import base64
import functools
import hmac
import ipaddress
import json
import os
from typing import Annotated, Any

import anyio
from mcp.server.fastmcp import FastMCP
from mcp.types import CallToolResult, ImageContent, TextContent, ToolAnnotations

from agent.config import Config
from mcp_server import annotate as draw
from mcp_server.images import RequestError
from mcp_server.registry import REGISTRY, ToolContext, ToolOutput, ToolSpec
from tools.common import to_jsonable

SERVER_NAME = "uav-spatial-agent"
TOKEN_ENV_DEFAULT = "UAV_AGENT_MCP_TOKEN"
INSTRUCTIONS = (
    "Vision and geometry tools for drone (UAV) images. Pass images as file paths under the server's allowed roots "
    "or as base64. Pixel boxes are [x1, y1, x2, y2], origin top-left; angles in degrees clockwise; distances in "
    "metres. Results are JSON; a result with confident=false gives its reason instead of a guess. Set annotate=true "
    "to also get a PNG showing what a tool found."
)


def to_call_result(out: ToolOutput, annotate: bool) -> CallToolResult:
    """Structured JSON (also as text for older clients) plus an annotated PNG when asked for and available."""
    data = to_jsonable(out.data)
    content: list[TextContent | ImageContent] = [TextContent(type="text", text=json.dumps(data))]
    if annotate and out.annotated is not None:
        png = base64.b64encode(draw.png(out.annotated)).decode("ascii")
        content.append(ImageContent(type="image", data=png, mimeType="image/png"))
    return CallToolResult(content=content, structuredContent=data)


async def run_tool(spec: ToolSpec, config: Config, args: dict[str, Any]) -> CallToolResult:
    """Run one registered tool with limits: images per call, worker thread, per-call timeout."""
    n_images = spec.count_images(args)
    if n_images > config.max_images_per_call:
        raise RequestError(f"too many images: {n_images} in one call, limit max_images_per_call="
                           f"{config.max_images_per_call}")  # fmt: skip
    ctx = ToolContext(config)
    call = functools.partial(spec.handler, ctx, **args)
    try:
        with anyio.fail_after(config.call_timeout_s):
            out = await anyio.to_thread.run_sync(call, abandon_on_cancel=True)
    except TimeoutError:
        raise RequestError(f"{spec.name} did not finish within the per-call timeout of {config.call_timeout_s} s "
                           "(call_timeout_s)") from None  # fmt: skip
    return to_call_result(out, bool(args.get("annotate", False)))


def _tool_function(spec: ToolSpec, config: Config) -> Any:
    """An async function with the handler's MCP signature (for FastMCP's schema) that runs :func:`run_tool`."""

    async def tool(**kwargs: Any) -> CallToolResult:
        return await run_tool(spec, config, kwargs)

    ret = Annotated[CallToolResult, spec.result] if spec.result is not None else CallToolResult
    tool.__signature__ = spec.signature().replace(return_annotation=ret)  # type: ignore[attr-defined]
    tool.__name__ = spec.name
    tool.__doc__ = spec.description
    return tool


def build_server(config: Config | None = None, *, host: str = "127.0.0.1", port: int = 8765) -> FastMCP:
    """A FastMCP server with every registered tool; ``host``/``port`` matter only for HTTP."""
    cfg = config or Config.from_env()
    body_limit = int(cfg.max_image_bytes * 4 / 3) * 2 + 1_000_000  # two base64 images at the byte limit, plus JSON
    mcp = FastMCP(SERVER_NAME, instructions=INSTRUCTIONS, host=host, port=port, max_request_body_size=body_limit,
                  log_level="WARNING")  # fmt: skip
    hints = ToolAnnotations(readOnlyHint=True, destructiveHint=False, openWorldHint=False)
    for spec in REGISTRY.values():
        mcp.add_tool(_tool_function(spec, cfg), name=spec.name, description=spec.description, annotations=hints)
    return mcp


def run_stdio(config: Config | None = None) -> None:
    """Serve over stdio (the process is spawned by the MCP client)."""
    build_server(config).run("stdio")


def is_loopback(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and ``localhost``."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class BearerAuth:
    """ASGI middleware: HTTP requests need ``Authorization: Bearer <token>`` (constant-time comparison)."""

    def __init__(self, app: Any, token: str) -> None:
        self.app, self.expected = app, f"Bearer {token}".encode()

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            got = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(got, self.expected):
                body = b'{"error": "missing or wrong bearer token"}'
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def http_app(config: Config | None = None, *, host: str = "127.0.0.1", port: int = 8765,
             token: str | None = None) -> Any:  # fmt: skip
    """The streamable-HTTP ASGI app (endpoint ``/mcp``), behind :class:`BearerAuth` when ``token`` is set.

    A non-loopback ``host`` is refused without a token.
    """
    if not is_loopback(host) and not token:
        raise ValueError(f"refusing to serve on non-loopback host {host!r} without a bearer token: set the token "
                         "environment variable (default UAV_AGENT_MCP_TOKEN)")  # fmt: skip
    mcp = build_server(config, host=host, port=port)
    if not is_loopback(host):  # DNS-rebinding protection only knows loopback names; the token guards the rest
        mcp.settings.transport_security = None
    app = mcp.streamable_http_app()
    return BearerAuth(app, token) if token else app


def run_http(config: Config | None = None, *, host: str = "127.0.0.1", port: int = 8765,
             token_env: str = TOKEN_ENV_DEFAULT) -> None:  # fmt: skip
    """Serve streamable HTTP at ``http://host:port/mcp`` until interrupted (token read from ``token_env``)."""
    import uvicorn

    app = http_app(config, host=host, port=port, token=os.environ.get(token_env) or None)
    uvicorn.run(app, host=host, port=port, log_level="warning")
