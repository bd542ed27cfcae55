"""Single-photo facts with units and their sources: altitude above ground, tilt (nadir or oblique), compass heading
of the image top, focal length in pixels, ground sampling distance and ground footprint.

Values stated by the caller (the question) win over the file's metadata; every value that cannot be had is ``None``
and ``missing`` says why, so an answer can abstain with a reason instead of guessing. An image size is never an
altitude: the altitude comes only from an above-ground/take-off tag, from the GPS altitude minus a given ground
elevation, or from the caller.

Geometry (pinhole camera, flat ground, principal point at the image centre):
- GSD at the image centre = slant range / focal_px, slant range = altitude / sin(depression), depression = −pitch
  (nadir: altitude / focal_px). This is the across-track size of a centre pixel; oblique pixels are longer along
  the view direction.
- Footprint = GSD x (width, height) for a nadir view; up to 15 deg from nadir, the width at the image centre x the
  ground length along the view (altitude x (tan(tilt + a) - tan(tilt - a)), a = half the vertical field of view);
  a more oblique footprint is a trapezoid, not a width x height, and is refused.
- A north-up GeoTIFF in metres gives its pixel size directly (GSD and footprint), heading 0 and a nadir view.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

from tools.geometry.camera import CameraMetadata, camera_heading_deg, intrinsics_for
from tools.common import ToolError

NADIR_TOLERANCE_DEG = 10.0  # |pitch + 90| at or below this is a nadir view
MIN_DEPRESSION_DEG = 2.0  # the image centre must look at least this far below the horizon for a ground GSD
#: Up to this tilt from nadir the ground patch is nearly a rectangle: its footprint is reported as the width at the
#: image centre x the exact ground length along the view (a trapezoid whose two widths differ by under ~20 % for
#: a 60 deg vertical field of view); beyond it the footprint is refused.
NEAR_NADIR_FOOTPRINT_DEG = 15.0
ALTITUDE_RANGE_M = (0.5, 20000.0)  # above-ground altitudes outside this are not flight heights
ALTITUDE_TAGS = "RelativeAltitude, AboveGroundAltitude, senseFly Height"
HEADING_TAGS = "GimbalYawDegree, Camera:Yaw, senseFly Heading, GPSImgDirection, FlightYawDegree"
PITCH_TAGS = "GimbalPitchDegree, Camera:Pitch, senseFly PitchAngle"

PitchEstimator = Callable[[float | None], Any]  # focal_px -> tools.geometry.pitch.PitchEstimate
SkyCheck = Callable[[], bool]  # True when the image shows sky above a horizon (tools.geometry.view_cues.sky_at_top)
#: () -> tools.geometry.thermal_tilt.TiltEstimate, or None where the learned estimate does not apply (colour photos)
LearnedTilt = Callable[[], Any]


@dataclass
class PhotoGeometry:
    """Facts of one photo; ``missing`` maps each value that is ``None`` to the reason."""

    altitude_m: float | None = None  # above ground / the take-off point
    altitude_source: str | None = None
    pitch_deg: float | None = None  # −90 = nadir, 0 = horizon
    pitch_source: str | None = None
    view: str | None = None  # "nadir" or "oblique"
    view_source: str | None = None
    view_confidence: float | None = None  # measured accuracy of an estimated view (None: read or given, not estimated)
    heading_deg: float | None = None  # compass bearing of the image's up direction, clockwise from north, [0, 360)
    heading_source: str | None = None
    focal_px: float | None = None
    focal_source: str | None = None
    gsd_m_per_px: float | None = None  # at the image centre
    gsd_source: str | None = None
    footprint_m: list[float] | None = None  # [width, height] of the ground covered, nadir only
    lat: float | None = None
    lon: float | None = None
    make: str | None = None
    model: str | None = None
    width: int | None = None
    height: int | None = None
    missing: dict[str, str] = field(default_factory=dict)
    assumptions: list[str] = field(default_factory=list)
    metadata_reader: str | None = None


def _check(name: str, value: float | None, lo: float, hi: float, unit: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ToolError(f"{name} must be a finite number of {unit}, got {value!r}")
    if not lo <= value <= hi:
        raise ToolError(f"{name} must be in [{lo:g}, {hi:g}] {unit}, got {value!r}")
    return float(value)


def view_of(pitch_deg: float | None) -> str | None:
    """"nadir" when the pitch is within :data:`NADIR_TOLERANCE_DEG` of −90, "oblique" otherwise, None unknown."""
    if pitch_deg is None:
        return None
    return "nadir" if abs(pitch_deg + 90.0) <= NADIR_TOLERANCE_DEG else "oblique"


def photo_geometry(meta: CameraMetadata, *, altitude_m: float | None = None, pitch_deg: float | None = None,
                   focal_mm: float | None = None, sensor_width_mm: float | None = None,
                   focal_px: float | None = None, ground_width_m: float | None = None,
                   ground_elevation_m: float | None = None,
                   estimate_pitch: PitchEstimator | None = None, sky_visible: SkyCheck | None = None,
                   learned_tilt: LearnedTilt | None = None) -> PhotoGeometry:
    """The single-photo facts of a photo with metadata ``meta``; keyword values (from the question) override it.

    ``ground_elevation_m``: height of the ground above sea level, turning a GPS (sea-level) altitude into one above
    ground. ``estimate_pitch``: called with the focal (px or None) when no pitch is stated or tagged; its estimate is
    used only when confident and its interval lies wholly on one side of the nadir/oblique boundary.
    ``learned_tilt``: asked before ``estimate_pitch`` (no pitch stated or tagged, no sky seen); its estimate is used
    only when confident (its measured view accuracy is high enough), and its accuracy is the view's confidence.
    """
    if meta.width is None or meta.height is None:
        raise ToolError("the image size is unknown")
    altitude_m = _check("altitude_m", altitude_m, *ALTITUDE_RANGE_M, "metres")
    pitch_deg = _check("pitch_deg", pitch_deg, -180.0, 0.0, "degrees (-90 = nadir, 0 = horizon)")
    focal_mm = _check("focal_mm", focal_mm, 0.5, 2000.0, "millimetres")
    sensor_width_mm = _check("sensor_width_mm", sensor_width_mm, 1.0, 100.0, "millimetres")
    focal_px = _check("focal_px", focal_px, 1.0, 1e6, "pixels")
    ground_width_m = _check("ground_width_m", ground_width_m, 1e-3, 1e6, "metres")
    ground_elevation_m = _check("ground_elevation_m", ground_elevation_m, -500.0, 9000.0, "metres")
    geo = PhotoGeometry(lat=meta.lat, lon=meta.lon, make=meta.make, model=meta.model, width=meta.width,
                        height=meta.height, metadata_reader=meta.reader)
    if meta.reader_note:
        geo.assumptions.append(meta.reader_note)
    _altitude(geo, meta, altitude_m, ground_elevation_m)
    _focal(geo, meta, focal_px, focal_mm, sensor_width_mm)
    _pitch(geo, meta, pitch_deg, estimate_pitch, sky_visible, learned_tilt)
    _heading(geo, meta)
    _ground(geo, meta, ground_width_m)
    if geo.lat is None or geo.lon is None:
        geo.lat = geo.lon = None
        geo.missing["lat"] = geo.missing["lon"] = "no GPS position in the file"
    for name in ("make", "model"):
        if getattr(geo, name) is None:
            geo.missing[name] = f"no camera {name} tag"
    return geo


def _altitude(geo: PhotoGeometry, meta: CameraMetadata, given: float | None, ground: float | None) -> None:
    if given is not None:
        geo.altitude_m, geo.altitude_source = given, "given in the question"
        return
    rel = meta.rel_altitude_m
    if rel is not None and ALTITUDE_RANGE_M[0] <= rel <= ALTITUDE_RANGE_M[1]:
        geo.altitude_m, geo.altitude_source = rel, meta.sources.get("rel_altitude_m", "relative altitude tag")
        return
    if meta.abs_altitude_m is not None and ground is not None:
        above = meta.abs_altitude_m - ground
        if ALTITUDE_RANGE_M[0] <= above <= ALTITUDE_RANGE_M[1]:
            geo.altitude_m = above
            geo.altitude_source = (f"{meta.sources.get('abs_altitude_m', 'GPS altitude')} {meta.abs_altitude_m:.1f} m "
                                   f"minus the given ground elevation {ground:.1f} m")
            return
        geo.missing["altitude_m"] = (f"GPS altitude {meta.abs_altitude_m:.1f} m minus the ground elevation "
                                     f"{ground:.1f} m is not a flight height")
        return
    reason = f"no altitude-above-ground tag ({ALTITUDE_TAGS}) and none given"
    if rel is not None:
        reason = f"relative altitude tag {rel:g} m is not a flight height; none given"
    elif meta.abs_altitude_m is not None:
        reason += (f"; the GPS altitude {meta.abs_altitude_m:.1f} m is above sea level, not above ground "
                   "(give the ground elevation)")
    geo.missing["altitude_m"] = reason


def _focal(geo: PhotoGeometry, meta: CameraMetadata, focal_px: float | None, focal_mm: float | None,
           sensor_mm: float | None) -> None:
    w, h = int(meta.width or 0), int(meta.height or 0)
    if focal_px is not None:
        geo.focal_px, geo.focal_source = focal_px, "given in the question"
        return
    if focal_mm is not None or sensor_mm is not None:
        f_mm, s_mm = focal_mm or meta.focal_mm, sensor_mm or meta.sensor_width_mm
        if f_mm and s_mm:
            geo.focal_px = f_mm / s_mm * w
            geo.focal_source = f"focal {f_mm:g} mm / sensor width {s_mm:g} mm x {w} px (question and metadata)"
            return
    intr = intrinsics_for(w, h, meta)
    if intr.source.startswith("default_hfov"):
        geo.missing["focal_px"] = ("no focal length (EXIF FocalLength with a known sensor width, 35 mm equivalent "
                                   "or calibrated focal) and none given")
        return
    geo.focal_px = intr.fx
    src = intr.source
    if src.startswith("focal_mm/sensor_width"):
        src += f" x {w} px; sensor width from {meta.sources.get('sensor_width_mm', 'the camera table')}"
    geo.focal_source = src


def _pitch(geo: PhotoGeometry, meta: CameraMetadata, given: float | None, estimator: PitchEstimator | None,
           sky_visible: SkyCheck | None, learned: LearnedTilt | None = None) -> None:
    if given is not None:
        geo.pitch_deg, geo.pitch_source = given, "given in the question"
    elif meta.camera_pitch_deg is not None:
        geo.pitch_deg = meta.camera_pitch_deg
        geo.pitch_source = meta.sources.get("camera_pitch_deg", "camera pitch tag")
    elif meta.pixel_size_m is not None:
        geo.pitch_deg, geo.pitch_source = -90.0, "georeferenced north-up raster (orthophoto: vertical view)"
    elif sky_visible is not None and sky_visible():
        geo.view, geo.view_source = "oblique", "sky above a horizon at the top of the image"
        geo.missing["pitch_deg"] = f"no camera pitch tag ({PITCH_TAGS}) and none given (the view is oblique: sky seen)"
        return
    elif learned is not None and _learned_tilt(geo, learned):
        return
    elif estimator is not None:
        _estimated_pitch(geo, estimator)
        _note_unsure_learned(geo)
        return
    else:
        geo.missing["pitch_deg"] = f"no camera pitch tag ({PITCH_TAGS}) and none given"
    geo.view = view_of(geo.pitch_deg)
    geo.view_source = geo.pitch_source
    if geo.view is None:
        geo.missing["view"] = geo.missing["pitch_deg"]
    _note_unsure_learned(geo)


def _estimated_pitch(geo: PhotoGeometry, estimator: PitchEstimator) -> None:
    est = estimator(geo.focal_px)
    lo, hi = sorted(float(v) for v in est.interval_deg)
    sides = {view_of(lo), view_of(hi)}
    if est.confident and len(sides) == 1 and not (lo < -90.0 - NADIR_TOLERANCE_DEG):
        geo.pitch_deg, geo.view = float(est.pitch_deg), sides.pop()
        geo.view_source = "estimated from the image"
        geo.pitch_source = (f"estimated from the image (texture foreshortening; interval {lo:.0f} to {hi:.0f} deg"
                            f"{', focal assumed' if est.focal_assumed else ''})")
        return
    why = est.reason if not est.confident else f"the estimate's interval {lo:.0f} to {hi:.0f} deg spans both views"
    geo.missing["pitch_deg"] = (f"no camera pitch tag ({PITCH_TAGS}), none given, and the image estimate is unsure: "
                                f"{why}")
    geo.missing["view"] = geo.missing["pitch_deg"]


def _learned_tilt(geo: PhotoGeometry, learned: LearnedTilt) -> bool:
    """Use the learned tilt estimate when it applies and is confident (True); otherwise keep its reason for
    ``missing`` (see :func:`_note_unsure_learned`) and return False."""
    est = learned()
    if est is None:
        return False
    if not est.confident:
        geo.missing["learned_tilt"] = f"the learned thermal tilt estimate is unsure: {est.reason}"
        return False
    geo.pitch_deg, geo.pitch_source = float(est.pitch_deg), est.source
    geo.view, geo.view_source, geo.view_confidence = est.view, est.source, est.accuracy
    return True


def _note_unsure_learned(geo: PhotoGeometry) -> None:
    """Append an unsure learned estimate's reason to the pitch and view left unknown (then not used)."""
    note = geo.missing.pop("learned_tilt", None)
    if note is None:
        return
    for key in ("pitch_deg", "view"):
        if key in geo.missing:
            geo.missing[key] += f"; {note}"


def _heading(geo: PhotoGeometry, meta: CameraMetadata) -> None:
    heading = camera_heading_deg(meta)
    if heading is not None:
        geo.heading_deg = heading
        for name in ("camera_yaw_deg", "gimbal_yaw_deg", "flight_yaw_deg"):
            if name in meta.sources:
                geo.heading_source = meta.sources[name]
                break
    elif meta.pixel_size_m is not None:
        geo.heading_deg, geo.heading_source = 0.0, "georeferenced north-up raster (image top = grid north)"
    else:
        geo.missing["heading_deg"] = f"no camera or aircraft yaw tag ({HEADING_TAGS}) and no georeferencing"


def _ground(geo: PhotoGeometry, meta: CameraMetadata, ground_width: float | None) -> None:
    w, h = int(meta.width or 0), int(meta.height or 0)
    if ground_width is not None:
        geo.gsd_m_per_px, geo.gsd_source = ground_width / w, f"given ground width {ground_width:g} m / {w} px"
    elif meta.pixel_size_m is not None:
        geo.gsd_m_per_px, geo.gsd_source = meta.pixel_size_m, meta.sources.get("pixel_size_m", "georeferencing")
    elif geo.altitude_m is None or geo.focal_px is None:
        need = [n for n, v in (("altitude_m", geo.altitude_m), ("focal_px", geo.focal_px)) if v is None]
        geo.missing["gsd_m_per_px"] = "needs " + " and ".join(
            f"{n} ({geo.missing.get(n, 'unknown')})" for n in need)
        geo.missing["footprint_m"] = geo.missing["gsd_m_per_px"]
        return
    elif geo.pitch_deg is None and geo.view == "oblique":
        geo.missing["gsd_m_per_px"] = "oblique view of unknown pitch: the ground scale varies across the image"
        geo.missing["footprint_m"] = geo.missing["gsd_m_per_px"]
        return
    else:
        pitch = geo.pitch_deg
        if pitch is None:
            pitch = -90.0
            geo.assumptions.append("pitch unknown: GSD computed for a nadir view")
        depression = -pitch if pitch >= -90.0 else 180.0 + pitch
        if depression < MIN_DEPRESSION_DEG:
            geo.missing["gsd_m_per_px"] = f"the image centre looks at or above the horizon (pitch {pitch:.1f} deg)"
            geo.missing["footprint_m"] = geo.missing["gsd_m_per_px"]
            return
        slant = geo.altitude_m / math.sin(math.radians(depression))
        geo.gsd_m_per_px = slant / geo.focal_px
        geo.gsd_source = f"altitude {geo.altitude_m:g} m / sin({depression:.1f} deg) / focal {geo.focal_px:.1f} px"
    _footprint(geo, ground_width is not None or meta.pixel_size_m is not None)


def _footprint(geo: PhotoGeometry, scale_given: bool) -> None:
    """Footprint from the GSD (see the module doc); ``scale_given``: the GSD came from a stated ground width or
    georeferencing, not from the altitude."""
    w, h = int(geo.width or 0), int(geo.height or 0)
    tilt = 0.0 if geo.pitch_deg is None else abs(90.0 + geo.pitch_deg)
    if tilt > NEAR_NADIR_FOOTPRINT_DEG:
        geo.missing["footprint_m"] = (f"oblique view (pitch {geo.pitch_deg:.1f} deg): the ground covered is a "
                                      "trapezoid, not a width x height")
        return
    if geo.pitch_deg is None and not scale_given:
        geo.assumptions.append("footprint computed for a nadir view (pitch unknown)")
    if tilt > 1.0 and not scale_given and geo.altitude_m is not None and geo.focal_px is not None:
        half = math.atan(h / 2.0 / geo.focal_px)
        t = math.radians(tilt)
        if math.degrees(t + half) < 90.0 - MIN_DEPRESSION_DEG:
            along = geo.altitude_m * (math.tan(t + half) - math.tan(t - half))
            geo.footprint_m = [geo.gsd_m_per_px * w, along]
            geo.assumptions.append(f"near-nadir tilt {tilt:.1f} deg: footprint = width at the image centre x ground "
                                   "length along the view (the patch is a slight trapezoid)")
            return
    geo.footprint_m = [geo.gsd_m_per_px * w, geo.gsd_m_per_px * h]
