"""The one tool registry: every MCP tool is registered here once; the server and the planner both read it.

A tool is a handler ``fn(ctx: ToolContext, <typed MCP arguments>..., annotate: bool = False) -> ToolOutput[R]``
registered with :func:`register`. Its typed parameters (with ``Annotated[..., Field(description=...)]``) become the
MCP input schema; its return annotation names the result type ``R`` (a pydantic model, or the tool's own result
dataclass), which becomes the output schema; its description is what a language model reads when choosing tools. Handlers adapt ``tools/`` (lazy imports, no geometry here) and live in
``mcp_server/handlers_*.py``; ``mcp_server.catalog`` imports them all, so read the filled registry from there.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Generic, TypeVar, get_args, get_origin

import numpy as np
from pydantic import BaseModel, ConfigDict, Field
from pydantic.fields import FieldInfo

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

#: Ranges every tool's parameter of that name must lie in (finite numbers only: NaN and infinities are refused by
#: the server for every argument). Added to the handler's own annotation in :meth:`ToolSpec.signature`, so the
#: MCP schema advertises them and validation names them.
PARAM_RANGES: dict[str, Any] = {  # strict: a number, not a string or a boolean that looks like one
    "altitude_m": Field(gt=0, le=100_000, strict=True),  # metres above the ground
    "pitch_deg": Field(ge=-90, le=90, strict=True),  # -90 = nadir, 0 = horizon
    "focal_px": Field(gt=0, le=1_000_000, strict=True),
    "hfov_deg": Field(gt=0, lt=180, strict=True),
    "heading_deg": Field(ge=-360, le=360, strict=True),
}
#: Descriptions for parameters whose handler gives none (one place, shared by every tool using the name).
PARAM_DESCRIPTIONS: dict[str, str] = {
    "expected_ids": "region ids the question mentions, if any (helps reading their labels)",
    "heading_deg": "compass heading of the image's up direction in degrees clockwise; 12 o'clock points there",
    "rounding": '"nearest" hour (benchmarks) or "floor" (Open3D-VQA)',
    "regions": "numbered regions [{id, bbox: [x1, y1, x2, y2]}] in pixels, e.g. from read_regions",
    "regions_a": "numbered regions of image_a [{id, bbox}] in pixels; read from the image when omitted",
    "regions_b": "numbered regions of image_b [{id, bbox}] in pixels; read from the image when omitted",
    "order": "nearest_first or farthest_first",
    "labels": "class names to keep (e.g. [\"person\"]); all classes when omitted",
    "tile": '"auto" cuts large frames into overlapping tiles so small objects are found; "none" does not',
    "boxes": "boxes [[x1, y1, x2, y2], ...] in pixels",
    "method": 'feature matcher: "auto" (SIFT, then learned features), "sift", "orb", "aliked", "aliked_rot", "disk"',
    "use_metadata": "read missing altitude, pitch and focal length from the files' EXIF/DJI XMP",
    "candidates": "candidate images (paths under the allowed roots or base64), in order; results index them",
    "images": "ordered video frames (paths under the allowed roots or base64), at least 2, same size",
    "image": "image: file path under the server's allowed roots, or base64 / data URL",
    "anchor": "point [x, y] or box [x1, y1, x2, y2] in pixels seen from; default the image centre (the drone)",
    "image_a": "first view: file path under the server's allowed roots, or base64 / data URL",
    "image_b": "second view: file path under the server's allowed roots, or base64 / data URL",
    "bbox": "box [x1, y1, x2, y2] in pixels of image_a",
}


class RegionArg(BaseModel):
    """A numbered region: its id and its box in pixels."""

    model_config = ConfigDict(extra="forbid")

    id: int = Field(description="the region's number as drawn on the image")
    bbox: list[float] = Field(description="[x1, y1, x2, y2] in pixels")


class Result(BaseModel):
    """Base of result schemas: the listed fields are guaranteed, tools may add more."""

    model_config = ConfigDict(extra="allow")


R = TypeVar("R")


@dataclass
class ToolOutput(Generic[R]):
    """What a handler returns: JSON-able ``data`` (the fields of the result type ``R``, which the handler's return
    annotation names) and, when annotation was asked for, an RGB picture."""

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
    """One registered tool. ``image_params`` name the arguments holding images (str or list of str).
    ``can_annotate``: the handler draws its own picture; for the others the server writes the result's main values
    on the first image (:func:`mcp_server.annotate.caption`), so ``annotate=true`` is honoured by every tool."""

    name: str
    description: str
    handler: Callable[..., ToolOutput]
    can_annotate: bool = True
    image_params: tuple[str, ...] = ()
    result: type | None = None

    def signature(self) -> inspect.Signature:
        """The MCP-facing signature: the handler's parameters without ``ctx``, annotations evaluated, with
        :data:`PARAM_RANGES` and missing descriptions added."""
        sig = inspect.signature(self.handler, eval_str=True)
        params = [p.replace(annotation=_described(p.name, p.annotation)) for p in sig.parameters.values()
                  if p.name != "ctx"]
        return sig.replace(parameters=params)

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


def _description_of(annotation: Any) -> str | None:
    """The ``Field(description=...)`` inside an ``Annotated`` type, if any."""
    if get_origin(annotation) is not Annotated:
        return None
    return next((m.description for m in get_args(annotation)[1:] if isinstance(m, FieldInfo) and m.description), None)


def _described(name: str, annotation: Any) -> Any:
    """``annotation`` with the range of :data:`PARAM_RANGES` and, when it has none, the shared description."""
    if name in PARAM_RANGES:
        annotation = Annotated[annotation, PARAM_RANGES[name]]
    if _description_of(annotation) is None and name in PARAM_DESCRIPTIONS:
        annotation = Annotated[annotation, Field(description=PARAM_DESCRIPTIONS[name])]
    return annotation


REGISTRY: dict[str, ToolSpec] = {}


def result_type(fn: Callable[..., ToolOutput]) -> type | None:
    """The result type a handler's return annotation names (``-> ToolOutput[ClockResult]``), else None."""
    returns = inspect.signature(fn, eval_str=True).return_annotation
    return get_args(returns)[0] if get_origin(returns) is ToolOutput and get_args(returns) else None


def register(name: str, description: str, *, images: Sequence[str] = ("image",),
             can_annotate: bool = True) -> Callable[[Callable[..., ToolOutput]], Callable[..., ToolOutput]]:  # fmt: skip
    """Decorator adding a handler to :data:`REGISTRY` under ``name`` (names are unique); its output schema is the
    result type of its return annotation."""

    def deco(fn: Callable[..., ToolOutput]) -> Callable[..., ToolOutput]:
        if name in REGISTRY:
            raise ValueError(f"tool {name!r} registered twice")
        params = inspect.signature(fn).parameters
        if next(iter(params), None) != "ctx" or "annotate" not in params:
            raise TypeError(f"handler for {name!r} must take ctx first and an 'annotate' argument")
        REGISTRY[name] = ToolSpec(name, " ".join(description.split()), fn, can_annotate, tuple(images),
                                  result_type(fn))
        return fn

    return deco


def run_handler(name: str, config: Config, args: dict[str, Any]) -> ToolOutput:
    """Run the registered handler ``name`` (module level and light to import, so that worker processes receive
    it by reference). A tool that draws no picture of its own (``can_annotate=False``) gets its result's main
    values written on its first image when ``annotate`` is asked for."""
    from mcp_server import annotate as draw
    from tools.common import to_jsonable

    spec, ctx = REGISTRY[name], ToolContext(config)
    out = spec.handler(ctx, **args)
    if args.get("annotate") and out.annotated is None and not spec.can_annotate and ctx.loaded:
        out.annotated = draw.caption(ctx.loaded[0].rgb, draw.summary_lines(to_jsonable(out.data)))
    return out


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
