"""The one tool registry: every MCP tool is registered here once; the server and the planner both read it.

A tool is a handler ``fn(ctx: ToolContext, <typed MCP arguments>..., annotate: bool = False) -> ToolOutput``
registered with :func:`register`. Its typed parameters (with ``Annotated[..., Field(description=...)]``) become the
MCP input schema, its ``result`` pydantic model the output schema, its description is what a language model reads
when choosing tools. Handlers adapt ``tools/`` (lazy imports, no geometry here) and live in
``mcp_server/handlers_*.py``, imported at the bottom of this module.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from agent.config import Config
from mcp_server import images as _images
from mcp_server.images import LoadedImage, RequestError

#: An image argument: a file path under an allowed root, or base64 (optionally a ``data:image/...;base64,`` URL).
ImageArg = Annotated[str, Field(description="image: file path under the server's allowed roots, or base64 / data URL")]
Box = Annotated[list[float], Field(description="box [x1, y1, x2, y2] in pixels, origin top-left, x right, y down")]
AnnotateArg = Annotated[bool, Field(description="also return an annotated PNG of what the tool found")]
Altitude = Annotated[float | None, Field(description="drone height above the ground in metres, if known")]
Pitch = Annotated[float | None, Field(description="camera pitch in degrees: -90 = straight down, 0 = horizon")]
Focal = Annotated[float | None, Field(description="focal length in pixels, if known")]


class RegionArg(BaseModel):
    """A numbered region: its id and its box in pixels."""

    id: int
    bbox: list[float] = Field(description="[x1, y1, x2, y2] in pixels")


class Result(BaseModel):
    """Base of result schemas: the listed fields are guaranteed, tools may add more."""

    model_config = ConfigDict(extra="allow")


@dataclass
class ToolOutput:
    """What a handler returns: JSON-able ``data`` and, when annotation was asked for, an RGB picture."""

    data: dict[str, Any]
    annotated: np.ndarray | None = None


@dataclass
class ToolContext:
    """Per-call context handed to handlers: configuration and image loading under its limits."""

    config: Config
    loaded: list[LoadedImage] = field(default_factory=list)

    def image(self, arg: str) -> LoadedImage:
        """Load an image argument (path under the allowed roots, or base64) with the configured size limits."""
        img = _images.load(arg, self.config)
        self.loaded.append(img)
        return img


@dataclass(frozen=True)
class ToolSpec:
    """One registered tool. ``image_params`` name the arguments holding images (str or list of str)."""

    name: str
    description: str
    handler: Callable[..., ToolOutput]
    can_annotate: bool = True
    image_params: tuple[str, ...] = ()
    result: type[BaseModel] | None = None

    def signature(self) -> inspect.Signature:
        """The MCP-facing signature: the handler's parameters without ``ctx``, annotations evaluated."""
        sig = inspect.signature(self.handler, eval_str=True)
        return sig.replace(parameters=[p for p in sig.parameters.values() if p.name != "ctx"])

    def count_images(self, args: dict[str, Any]) -> int:
        """Number of images a call's arguments carry."""
        n = 0
        for name in self.image_params:
            value = args.get(name)
            if isinstance(value, str):
                n += 1
            elif isinstance(value, Sequence):
                n += len(value)
        return n


REGISTRY: dict[str, ToolSpec] = {}


def register(name: str, description: str, *, images: Sequence[str] = ("image",), result: type[BaseModel] | None = None,
             can_annotate: bool = True) -> Callable[[Callable[..., ToolOutput]], Callable[..., ToolOutput]]:  # fmt: skip
    """Decorator adding a handler to :data:`REGISTRY` under ``name`` (names are unique)."""

    def deco(fn: Callable[..., ToolOutput]) -> Callable[..., ToolOutput]:
        if name in REGISTRY:
            raise ValueError(f"tool {name!r} registered twice")
        params = inspect.signature(fn).parameters
        if next(iter(params), None) != "ctx" or "annotate" not in params:
            raise TypeError(f"handler for {name!r} must take ctx first and an 'annotate' argument")
        REGISTRY[name] = ToolSpec(name, " ".join(description.split()), fn, can_annotate, tuple(images), result)
        return fn

    return deco


def check_box(box: Sequence[float], what: str = "box") -> list[float]:
    """A ``[x1, y1, x2, y2]`` list of four numbers, else :class:`RequestError`."""
    if len(box) != 4:
        raise RequestError(f"{what} must be [x1, y1, x2, y2] (4 numbers), got {list(box)}")
    return [float(v) for v in box]


def tool_catalog() -> list[dict[str, Any]]:
    """Name, description and input JSON schema of every tool (for planners and docs), registry order."""
    from mcp.server.fastmcp.utilities.func_metadata import func_metadata

    out = []
    for spec in REGISTRY.values():
        def probe(**kwargs: Any) -> None: ...

        probe.__signature__ = spec.signature().replace(return_annotation=None)  # type: ignore[attr-defined]
        probe.__name__ = spec.name
        schema = func_metadata(probe, structured_output=False).arg_model.model_json_schema(by_alias=True)
        out.append({"name": spec.name, "description": spec.description, "input_schema": schema,
                    "can_annotate": spec.can_annotate})  # fmt: skip
    return out


# Handler modules register themselves on import (keep at the bottom: they import names defined above).
from mcp_server import handlers_pair, handlers_view  # noqa: E402,F401
from mcp_server import handlers_pitch  # noqa: E402,F401  (after the view tools: keeps their listing order)
