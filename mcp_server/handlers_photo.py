"""MCP handler for single-photo facts (``tools/geometry/photo_geometry.py``). Thin adapter: no geometry here."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from mcp_server.images import metadata_of
from mcp_server.registry import AnnotateArg, ImageArg, Result, ToolContext, ToolOutput, register
from tools.common import to_jsonable


class PhotoGeometryResult(Result):
    altitude_m: float | None
    altitude_source: str | None
    pitch_deg: float | None
    pitch_source: str | None
    view: str | None
    view_source: str | None
    view_confidence: float | None
    heading_deg: float | None
    heading_source: str | None
    focal_px: float | None
    focal_source: str | None
    gsd_m_per_px: float | None
    footprint_m: list[float] | None
    lat: float | None
    lon: float | None
    make: str | None
    model: str | None
    width: int | None
    height: int | None
    missing: dict[str, str]


AltitudeGiven = Annotated[float | None, Field(description="height above the ground in metres, if the question "
                                                           "states it")]
PitchGiven = Annotated[float | None, Field(description="camera pitch in degrees (-90 = straight down), if stated")]
FocalMm = Annotated[float | None, Field(description="lens focal length in millimetres, if stated")]
SensorMm = Annotated[float | None, Field(description="sensor width in millimetres, if stated")]
FocalPx = Annotated[float | None, Field(description="focal length in pixels, if stated")]
GroundWidth = Annotated[float | None, Field(description="width of the ground the image covers in metres, if stated")]
GroundElevation = Annotated[float | None, Field(description="ground height above sea level in metres, if stated "
                                                            "(turns a GPS altitude into one above ground)")]


@register("photo_geometry", """Facts of one photo with units and where each came from: altitude above ground or the
    take-off point (m), camera pitch (deg, -90 = nadir) and view ("nadir" within 10 deg of straight down, else
    "oblique"; an image showing sky above a horizon is oblique; a grey/thermal frame without tags gets a learned
    estimate, used where its measured accuracy, view_confidence, is high), heading = compass bearing of the image
    top (deg clockwise from north), focal length (px), ground sampling distance at the image centre (m/px) and, for nadir
    and near-nadir views (up to 15 deg), the ground footprint [width, height] (m);
    GPS position, camera make/model, image size. Reads any vendor's metadata (DJI, Autel, Skydio, Parrot, senseFly,
    MicaSense, EXIF GPS, GeoTIFF). Values stated in the question override the file. Every value that cannot be had
    is null and "missing" says why: answer with an abstention naming it, never with the image size.""", can_annotate=False)  # fmt: skip
def photo_geometry(ctx: ToolContext, image: ImageArg, altitude_m: AltitudeGiven = None, pitch_deg: PitchGiven = None,
                   focal_mm: FocalMm = None, sensor_width_mm: SensorMm = None, focal_px: FocalPx = None,
                   ground_width_m: GroundWidth = None, ground_elevation_m: GroundElevation = None,
                   annotate: AnnotateArg = False) -> ToolOutput[PhotoGeometryResult]:  # fmt: skip
    from tools.geometry.photo_geometry import photo_geometry as geometry
    from tools.geometry.pitch import estimate_pitch, is_single_channel
    from tools.geometry.view_cues import sky_at_top

    img = ctx.image(image)
    meta = metadata_of(img)

    def estimator(focal: float | None) -> Any:  # the image may be loaded downscaled: scale the focal with it
        scale = img.size[0] / meta.width if meta.width else 1.0
        return estimate_pitch(img.rgb, focal_px=None if focal is None else focal * scale)

    def learned() -> Any:  # grey/thermal frames only: the estimate was fitted and measured on thermal frames
        return learned_thermal_tilt(img.rgb, ctx.config) if is_single_channel(img.rgb) else None

    geo = geometry(meta, altitude_m=altitude_m, pitch_deg=pitch_deg, focal_mm=focal_mm,
                   sensor_width_mm=sensor_width_mm, focal_px=focal_px, ground_width_m=ground_width_m,
                   ground_elevation_m=ground_elevation_m, estimate_pitch=estimator,
                   sky_visible=lambda: sky_at_top(img.rgb).sky_visible, learned_tilt=learned)
    return ToolOutput(to_jsonable(geo), None)


def learned_thermal_tilt(rgb: Any, config: Any) -> Any:
    """The learned tilt estimate of a thermal frame; missing or mismatched weights make it unavailable (the reason
    names the setting) instead of failing the other photo facts."""
    from agent.config import MissingWeightsError
    from tools.common import ToolError
    from tools.geometry.thermal_tilt import TiltEstimate, estimate_thermal_tilt

    try:
        return estimate_thermal_tilt(rgb, config)
    except (MissingWeightsError, ToolError) as exc:
        return TiltEstimate.unavailable(str(exc))
