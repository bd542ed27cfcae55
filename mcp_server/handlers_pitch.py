"""MCP handler for single-image pitch estimation (``tools/geometry/pitch.py``). Thin adapter: no geometry here."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from mcp_server.registry import AnnotateArg, Focal, ImageArg, Result, ToolContext, ToolOutput, register


class PitchResult(Result):
    pitch_deg: float
    uncertainty_deg: float
    interval_deg: list[float]
    confident: bool


@register("estimate_pitch", """Estimate the camera pitch of one drone image over roughly flat ground (-90 = straight
    down, 0 = horizon) from how the ground texture's scale changes from the bottom to the top of the image and how
    much more it is squashed vertically than horizontally (foreshortening). Returns
    the pitch, an interval that should contain the true pitch, and confident=false when the texture says too
    little. focal_px (or hfov_deg) improves it; without them a 73.7 deg horizontal FOV is assumed.""", can_annotate=False)  # fmt: skip
def estimate_pitch(ctx: ToolContext, image: ImageArg, focal_px: Focal = None,
                   hfov_deg: Annotated[float | None, Field(description="horizontal field of view in degrees")] = None,
                   annotate: AnnotateArg = False) -> ToolOutput[PitchResult]:  # fmt: skip
    from tools.geometry.pitch import estimate_pitch as estimate

    img = ctx.image(image)
    return ToolOutput(estimate(img.rgb, focal_px=focal_px, hfov_deg=hfov_deg).as_dict())
