"""Which tag gives which camera value, for every common drone and camera vendor: one table, first match wins.

Tags are named as ExifTool names them with ``-G1`` (``tools/metadata/read.py``). Conventions after conversion:
yaw = compass bearing of the image's up direction, degrees clockwise from north; pitch −90 = nadir, 0 = horizon;
altitudes in metres. Vendor conventions (where they differ, the rule converts):

- DJI ``XMP-drone-dji`` (and DJI's older maker notes ``DJI:Camera*``), Autel ``XMP-drone`` (DJI's names),
  Parrot ANAFI ``XMP-drone-parrot``, Skydio ``XMP-drone-skydio`` ``CameraOrientationNED``: gimbal angles already in
  the convention above; ``RelativeAltitude`` is metres above the take-off point.
- Pix4D's camera namespace ``XMP-Camera`` (Parrot Sequoia, MicaSense, senseFly S.O.D.A.): ``Yaw`` 0 = image top
  towards north, ``Pitch`` 0 = nadir (OpenDroneMap ``opendm/photo.py`` normalises the same way), so pitch − 90;
  ``AboveGroundAltitude`` (Parrot) is metres above ground.
- senseFly autopilot ``XMP-sensefly`` on the compact cameras of its planes (Canon, Sony): the camera is fixed in the
  airframe looking down with the image top towards the nose, so ``Heading`` is the image-up bearing and
  ``PitchAngle`` the tilt from nadir (pitch − 90); ``Height`` is metres above the take-off point.
- Plain EXIF: ``GPSImgDirection`` is the direction the image points to (image top for a nadir photo).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

Convert = Callable[[float], float]


def _same(x: float) -> float:
    return x


def _from_nadir_zero(x: float) -> float:
    """Pitch measured from nadir (0 = straight down) → pitch from the horizon (−90 = straight down)."""
    return x - 90.0


@dataclass(frozen=True)
class TagRule:
    """One candidate tag for a value: its ExifTool key, the conversion to our convention and what it means."""

    key: str
    convert: Convert = _same
    meaning: str = ""


def _rules(*items: str | tuple[str, Convert, str]) -> tuple[TagRule, ...]:
    return tuple(TagRule(i) if isinstance(i, str) else TagRule(*i) for i in items)


AIRFRAME_NADIR = "camera fixed in the airframe looking down"

#: Candidate tags per value, in order of preference. The first tag present with a finite number wins.
RULES: dict[str, tuple[TagRule, ...]] = {
    "rel_altitude_m": _rules(
        ("XMP-drone-dji:RelativeAltitude", _same, "above the take-off point"),
        ("XMP-drone:RelativeAltitude", _same, "above the take-off point"),
        ("XMP-drone-skydio:RelativeAltitude", _same, "above the take-off point"),
        ("XMP-drone-parrot:RelativeAltitude", _same, "above the take-off point"),
        ("XMP-Camera:AboveGroundAltitude", _same, "above ground"),
        ("XMP-sensefly:Height", _same, "above the take-off point"),
    ),
    "abs_altitude_m": _rules(
        "XMP-drone-dji:AbsoluteAltitude", "XMP-drone:AbsoluteAltitude", "XMP-drone-skydio:AbsoluteAltitude",
        "XMP-sensefly:AltitudeAMSL", "Composite:GPSAltitude", "XMP-exif:GPSAltitude",
    ),
    "lat": _rules(
        "Composite:GPSLatitude", "XMP-drone-dji:GpsLatitude", "XMP-drone:GpsLatitude", "XMP-drone-skydio:Latitude",
        "XMP-sensefly:Latitude", "XMP-exif:GPSLatitude",
    ),
    "lon": _rules(
        "Composite:GPSLongitude", "XMP-drone-dji:GpsLongitude", "XMP-drone-dji:GpsLongtitude",
        "XMP-drone:GpsLongitude", "XMP-drone:GpsLongtitude", "XMP-drone-skydio:Longitude", "XMP-sensefly:Longitude",
        "XMP-exif:GPSLongitude",
    ),
    "camera_yaw_deg": _rules(
        ("XMP-drone-dji:GimbalYawDegree", _same, "gimbal yaw"),
        ("XMP-drone:GimbalYawDegree", _same, "gimbal yaw"),
        ("XMP-drone-skydio:CameraOrientationNEDYaw", _same, "camera yaw"),
        ("XMP-drone-parrot:CameraYawDegree", _same, "camera yaw"),
        ("DJI:CameraYaw", _same, "gimbal yaw (maker notes)"),
        ("XMP-Camera:Yaw", _same, "camera yaw (0 = image top north)"),
        ("XMP-sensefly:Heading", _same, f"aircraft heading, {AIRFRAME_NADIR}, image top towards the nose"),
        ("GPS:GPSImgDirection", _same, "EXIF direction of the image"),
        ("XMP-exif:GPSImgDirection", _same, "EXIF direction of the image"),
        ("XMP-drone-dji:FlightYawDegree", _same, "aircraft yaw (no camera yaw recorded)"),
        ("XMP-drone:FlightYawDegree", _same, "aircraft yaw (no camera yaw recorded)"),
        ("XMP-drone-parrot:DroneYawDegree", _same, "aircraft yaw (no camera yaw recorded)"),
        ("DJI:Yaw", _same, "aircraft yaw (maker notes; no camera yaw recorded)"),
    ),
    "camera_pitch_deg": _rules(
        ("XMP-drone-dji:GimbalPitchDegree", _same, "gimbal pitch"),
        ("XMP-drone:GimbalPitchDegree", _same, "gimbal pitch"),
        ("XMP-drone-skydio:CameraOrientationNEDPitch", _same, "camera pitch"),
        ("XMP-drone-parrot:CameraPitchDegree", _same, "camera pitch"),
        ("DJI:CameraPitch", _same, "gimbal pitch (maker notes)"),
        ("XMP-Camera:Pitch", _from_nadir_zero, "camera pitch from nadir, minus 90"),
        ("XMP-sensefly:PitchAngle", _from_nadir_zero, f"aircraft pitch, {AIRFRAME_NADIR}: minus 90"),
    ),
    "camera_roll_deg": _rules(
        "XMP-drone-dji:GimbalRollDegree", "XMP-drone:GimbalRollDegree", "XMP-drone-skydio:CameraOrientationNEDRoll",
        "XMP-drone-parrot:CameraRollDegree", "DJI:CameraRoll", "XMP-Camera:Roll",
        ("XMP-sensefly:RollAngle", _same, f"aircraft roll, {AIRFRAME_NADIR}"),
    ),
    "gimbal_yaw_deg": _rules("XMP-drone-dji:GimbalYawDegree", "XMP-drone:GimbalYawDegree", "DJI:CameraYaw"),
    "gimbal_pitch_deg": _rules("XMP-drone-dji:GimbalPitchDegree", "XMP-drone:GimbalPitchDegree", "DJI:CameraPitch"),
    "gimbal_roll_deg": _rules("XMP-drone-dji:GimbalRollDegree", "XMP-drone:GimbalRollDegree", "DJI:CameraRoll"),
    "flight_yaw_deg": _rules("XMP-drone-dji:FlightYawDegree", "XMP-drone:FlightYawDegree",
                             "XMP-drone-parrot:DroneYawDegree", "DJI:Yaw", "XMP-sensefly:Heading"),
    "flight_pitch_deg": _rules("XMP-drone-dji:FlightPitchDegree", "XMP-drone:FlightPitchDegree",
                               "XMP-drone-parrot:DronePitchDegree", "DJI:Pitch", "XMP-sensefly:PitchAngle"),
    "flight_roll_deg": _rules("XMP-drone-dji:FlightRollDegree", "XMP-drone:FlightRollDegree",
                              "XMP-drone-parrot:DroneRollDegree", "DJI:Roll", "XMP-sensefly:RollAngle"),
    "focal_mm": _rules("ExifIFD:FocalLength", "IFD0:FocalLength", "XMP-exif:FocalLength"),
    "focal_35mm": _rules("ExifIFD:FocalLengthIn35mmFormat", "XMP-exif:FocalLengthIn35mmFilm"),
    "calibrated_focal_px": _rules("XMP-drone-dji:CalibratedFocalLength"),
    "calibrated_cx_px": _rules("XMP-drone-dji:CalibratedOpticalCenterX"),
    "calibrated_cy_px": _rules("XMP-drone-dji:CalibratedOpticalCenterY"),
}

TEXT_RULES: dict[str, tuple[str, ...]] = {
    "make": ("IFD0:Make", "XMP-tiff:Make", "DJI:Make"),
    "model": ("IFD0:Model", "XMP-tiff:Model"),
    "datetime": ("ExifIFD:DateTimeOriginal", "IFD0:ModifyDate", "IFD0:DateTime", "XMP-xmp:CreateDate"),
}

#: EXIF FocalPlaneResolutionUnit codes → millimetres per unit (EXIF 2.3: 2 inch, 3 cm; 4 mm and 5 µm are in use).
MM_PER_RESOLUTION_UNIT = {2: 25.4, 3: 10.0, 4: 1.0, 5: 0.001}

#: Sensor widths (mm) by camera model, upper-case, for files whose EXIF lacks FocalPlaneXResolution. The figures
#: are the nominal widths of the sensor formats the makers publish (1/2.3" = 6.17 mm, 1/2" = 6.4 mm,
#: 1/1.7" = 7.44 mm, 1" = 13.2 mm, 4/3" = 17.3 mm, APS-C = 23.5 mm, full frame = 35.9 mm), the same figures as
#: the public sensor databases of OpenSfM (``sensor_data.json``) and OpenDroneMap.
SENSOR_WIDTH_MM: dict[str, float] = {
    "FC300S": 6.17,  # DJI Phantom 3 Professional/Advanced
    "FC300X": 6.17,  # DJI Phantom 3 Professional
    "FC300C": 6.17,  # DJI Phantom 3 Standard
    "FC330": 6.17,  # DJI Phantom 4
    "FC220": 6.17,  # DJI Mavic Pro
    "FC2103": 6.17,  # DJI Mavic Air
    "FC2204": 6.17,  # DJI Mavic 2 Zoom
    "FC7203": 6.17,  # DJI Mavic Mini
    "FC7303": 6.17,  # DJI Mini 2
    "FC3170": 6.4,  # DJI Mavic Air 2 (1/2")
    "FC6310": 13.2,  # DJI Phantom 4 Pro
    "FC6310S": 13.2,  # DJI Phantom 4 Pro V2
    "FC6310R": 13.2,  # DJI Phantom 4 RTK
    "L1D-20C": 13.2,  # DJI Mavic 2 Pro (Hasselblad)
    "FC3411": 13.2,  # DJI Air 2S
    "L2D-20C": 17.3,  # DJI Mavic 3 (Hasselblad 4/3")
    "M3E": 17.3,  # DJI Mavic 3 Enterprise
    "FC6520": 17.3,  # DJI Zenmuse X5S
    "ZENMUSEP1": 35.9,  # DJI Zenmuse P1
    "SEQUOIA": 6.17,  # Parrot Sequoia RGB (1/2.3")
    "CANON POWERSHOT ELPH 300 HS": 6.17,  # 1/2.3" compact flown on senseFly swinglet/eBee
    "CANON POWERSHOT S100": 7.44,  # 1/1.7"
    "CANON POWERSHOT S110": 7.44,  # 1/1.7" (senseFly eBee)
    "CANON IXUS 127 HS": 6.17,  # 1/2.3"
    "DSC-WX220": 6.17,  # Sony 1/2.3" (senseFly eBee)
    "DSC-RX100": 13.2,  # Sony 1"
    "ILCE-6000": 23.5,  # Sony APS-C
    "ILCE-5100": 23.5,  # Sony APS-C
    "ILCE-QX1": 23.2,  # Sony APS-C lens-style camera
}


def number(value: Any) -> float | None:
    """A finite float from a tag value (numbers, numeric strings such as DJI's "+39.80"), else ``None``."""
    if isinstance(value, bool) or value is None:
        return None
    try:
        x = float(value)
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    return x if math.isfinite(x) else None


def first_value(tags: dict[str, Any], field: str) -> tuple[float, str] | None:
    """The first tag of ``RULES[field]`` present in ``tags`` as (converted value, source description)."""
    for rule in RULES[field]:
        x = number(tags.get(rule.key))
        if x is not None:
            source = rule.key if not rule.meaning else f"{rule.key} ({rule.meaning})"
            return rule.convert(x), source
    return None


def first_text(tags: dict[str, Any], field: str) -> tuple[str, str] | None:
    """The first non-empty text tag of ``TEXT_RULES[field]`` as (text, tag key)."""
    for key in TEXT_RULES[field]:
        value = tags.get(key)
        text = str(value).replace("\x00", "").strip() if value is not None else ""
        if text:
            return text, key
    return None


def sensor_width_from_focal_plane(tags: dict[str, Any], image_width: int | None) -> tuple[float, str] | None:
    """Sensor width (mm) from EXIF FocalPlaneXResolution: pixels per unit of the frame the camera recorded.

    The resolution refers to ``ExifImageWidth`` (the recorded frame), not to a later resize of the file, so the
    width is ``ExifImageWidth / FocalPlaneXResolution`` in the resolution unit (``image_width`` when EXIF lacks it).
    """
    res = number(tags.get("ExifIFD:FocalPlaneXResolution"))
    unit = number(tags.get("ExifIFD:FocalPlaneResolutionUnit"))
    mm = MM_PER_RESOLUTION_UNIT.get(int(unit)) if unit is not None else None
    frame = number(tags.get("ExifIFD:ExifImageWidth")) or number(tags.get("InteropIFD:RelatedImageWidth"))
    frame = frame or (float(image_width) if image_width else None)
    if not (res and res > 0 and mm and frame):
        return None
    width = frame / res * mm
    if not 1.0 <= width <= 60.0:  # outside any camera sensor: a bogus tag (some phones write screen dpi here)
        return None
    return width, f"ExifIFD:FocalPlaneXResolution ({frame:.0f} px / {res:g} px per unit)"


def sensor_width_from_model(model: str | None) -> tuple[float, str] | None:
    """Sensor width (mm) of a known camera model from :data:`SENSOR_WIDTH_MM`."""
    key = (model or "").strip().upper()
    if key in SENSOR_WIDTH_MM:
        return SENSOR_WIDTH_MM[key], f"camera table ({model})"
    return None


def georeference(tags: dict[str, Any]) -> tuple[float, str] | None:
    """Ground size of a pixel (m) of a north-up GeoTIFF in a projected metric CRS, else ``None``.

    Needs ``ModelPixelScale`` (no ``ModelTransformation``, which would mean a rotated grid), a projected model
    (GTModelType 1) and metres as the linear unit (ProjLinearUnits 9001, the EPSG code of the metre; a projected CRS
    without the key is taken to be in metres, as UTM and most national grids are).
    """
    scale = tags.get("IFD0:PixelScale")
    if scale is None or tags.get("IFD0:ModelTransform") is not None:
        return None
    parts = [number(v) for v in (scale.split() if isinstance(scale, str) else list(scale))]
    if len(parts) < 2 or not all(p and p > 0 for p in parts[:2]) or abs(parts[0] - parts[1]) > 1e-6 * parts[0]:
        return None
    if number(tags.get("GeoTiff:GTModelType")) != 1:
        return None
    unit = number(tags.get("GeoTiff:ProjLinearUnits"))
    if unit is not None and unit != 9001:
        return None
    return float(parts[0]), "GeoTIFF ModelPixelScale (projected CRS in metres, north-up grid)"
