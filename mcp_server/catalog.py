"""The filled tool registry: importing this module imports every handler module, which registers its tools in
:data:`mcp_server.registry.REGISTRY` (in this order, which is the order clients list them). The registry module
itself holds only the mechanism, so handlers can import it without an import loop."""

from __future__ import annotations

from mcp_server import handlers_pair, handlers_view  # noqa: F401  (registers the tools)
from mcp_server import handlers_pitch  # noqa: F401  (after the view tools: keeps their listing order)
from mcp_server import handlers_photo  # noqa: F401
from mcp_server.registry import REGISTRY, ToolContext, ToolOutput, ToolSpec, run_handler, tool_catalog

__all__ = ["REGISTRY", "ToolContext", "ToolOutput", "ToolSpec", "run_handler", "tool_catalog"]
