"""Camera metadata (EXIF + DJI XMP) and pinhole intrinsics.

Metadata is read with Pillow (``getexif`` for EXIF/GPS, ``getxmp`` for XMP, parsed by defusedxml) — no hand-written
parser. DJI writes its flight log values into the ``drone-dji`` XMP namespace (``RelativeAltitude``,
``GimbalYawDegree`` …); Pillow strips namespace prefixes, so they appear under their local names.

Conventions: angles in degrees; yaw clockwise from north; gimbal pitch −90 = nadir (straight down), 0 = horizon;
altitudes in metres (``rel_altitude_m`` above the take-off point, ``abs_altitude_m`` above sea level).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from PIL import ExifTags, Image, UnidentifiedImageError

from tools.common import ToolError

#: Horizontal field of view used when nothing else is known: a 24 mm-equivalent lens (2·atan(18/24)), the most
#: common focal length of current DJI survey cameras (Phantom 4 Pro, Mavic 2/3, Air 2S, Mini).
DEFAULT_HFOV_DEG = 73.74

#: Sensor widths (mm) by EXIF camera model, from the manufacturers' published sensor formats
#: (1/2.3" = 6.17 mm, 1" = 13.2 mm, 4/3" = 17.3 mm). Used with ``FocalLength`` (mm).
SENSOR_WIDTH_MM: dict[str, float] = {
    "FC300S": 6.17,  # Phantom 3 Professional/Advanced
    "FC300X": 6.17,  # Phantom 3 Professional
    "FC300C": 6.17,  # Phantom 3 Standard
    "FC330": 6.17,  # Phantom 4
    "FC220": 6.17,  # Mavic Pro
    "FC7203": 6.17,  # Mavic Mini
    "FC7303": 6.17,  # Mini 2
    "FC6310": 13.2,  # Phantom 4 Pro
    "FC6310S": 13.2,  # Phantom 4 Pro V2
    "FC6310R": 13.2,  # Phantom 4 RTK
    "L1D-20C": 13.2,  # Mavic 2 Pro (Hasselblad)
    "FC3411": 13.2,  # Air 2S
    "FC6520": 17.3,  # Zenmuse X5S
}

#: Diagonal of a 36 x 24 mm frame (mm): the reference of the EXIF/CIPA "35 mm equivalent" focal length.
FULL_FRAME_DIAGONAL_MM = math.hypot(36.0, 24.0)


@dataclass
class CameraMetadata:
    """What a photo says about its camera and pose; every field is ``None`` when the file does not record it."""

    make: str | None = None
    model: str | None = None
    width: int | None = None
    height: int | None = None
    focal_mm: float | None = None
    focal_35mm: float | None = None
    calibrated_focal_px: float | None = None  # DJI CalibratedFocalLength, pixels of the full sensor frame
    calibrated_cx_px: float | None = None  # DJI CalibratedOpticalCenterX/Y, pixels of the full sensor frame
    calibrated_cy_px: float | None = None
    lat: float | None = None  # degrees, north positive
    lon: float | None = None  # degrees, east positive
    abs_altitude_m: float | None = None  # above sea level (DJI AbsoluteAltitude, else EXIF GPSAltitude)
    rel_altitude_m: float | None = None  # above the take-off point (DJI RelativeAltitude)
    gimbal_yaw_deg: float | None = None
    gimbal_pitch_deg: float | None = None
    gimbal_roll_deg: float | None = None
    flight_yaw_deg: float | None = None
    flight_pitch_deg: float | None = None
    flight_roll_deg: float | None = None
    datetime: str | None = None  # ISO 8601 local time without zone, e.g. "2016-06-23T16:31:59"


@dataclass(frozen=True)
class Intrinsics:
    """Pinhole intrinsics in pixels of a ``width`` x ``height`` image; ``source`` says where the focal came from."""

    fx: float
    fy: float
    cx: float
    cy: float
    width: int
    height: int
    source: str

    @property
    def K(self) -> np.ndarray:
        """3x3 camera matrix."""
        return np.array([[self.fx, 0.0, self.cx], [0.0, self.fy, self.cy], [0.0, 0.0, 1.0]])

    @property
    def hfov_deg(self) -> float:
        """Horizontal field of view in degrees."""
        return math.degrees(2 * math.atan(self.width / (2 * self.fx)))


_XMP_FIELDS = {
    "RelativeAltitude": "rel_altitude_m",
    "AbsoluteAltitude": "abs_altitude_m",
    "GimbalYawDegree": "gimbal_yaw_deg",
    "GimbalPitchDegree": "gimbal_pitch_deg",
    "GimbalRollDegree": "gimbal_roll_deg",
    "FlightYawDegree": "flight_yaw_deg",
    "FlightPitchDegree": "flight_pitch_deg",
    "FlightRollDegree": "flight_roll_deg",
    "CalibratedFocalLength": "calibrated_focal_px",
    "CalibratedOpticalCenterX": "calibrated_cx_px",
    "CalibratedOpticalCenterY": "calibrated_cy_px",
}


def read_metadata(path: str | Path) -> CameraMetadata:
    """Read EXIF, GPS and DJI XMP from an image file. Missing fields are ``None``.

    Raises :class:`ToolError` for a missing file or a file that is not an image.
    """
    p = Path(path)
    if not p.exists():
        raise ToolError(f"image not found: {p}")
    if not p.is_file():
        raise ToolError(f"not a file: {p}")
    try:
        with Image.open(p) as im:
            width, height = im.size
            exif = im.getexif()
            with warnings.catch_warnings():  # Pillow warns (and returns {}) when defusedxml is absent
                warnings.simplefilter("ignore")
                xmp = im.getxmp() if hasattr(im, "getxmp") else {}
    except UnidentifiedImageError as exc:
        raise ToolError(f"not a readable image (cannot read metadata): {p}") from exc
    except OSError as exc:
        raise ToolError(f"cannot read metadata of {p}: {exc}") from exc
    meta = CameraMetadata(width=width, height=height)
    _fill_from_exif(meta, exif)
    _fill_from_xmp(meta, _flatten_xmp(xmp))
    return meta


def _text(value: Any) -> str | None:
    if value is None:
        return None
    text = value.decode("ascii", "ignore") if isinstance(value, bytes) else str(value)
    text = text.replace("\x00", "").strip()
    return text or None


def _number(value: Any) -> float | None:
    """EXIF rationals, ints and DJI signed strings ("+39.80") → float; ``None`` when absent or not finite."""
    if value is None:
        return None
    try:
        x = float(value)
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    return x if math.isfinite(x) else None


def _dms_to_deg(dms: Any, ref: Any) -> float | None:
    try:
        d, m, s = (float(v) for v in dms)
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    deg = d + m / 60.0 + s / 3600.0
    return -deg if _text(ref) in ("S", "W") else deg


def _fill_from_exif(meta: CameraMetadata, exif: Image.Exif) -> None:
    meta.make = _text(exif.get(ExifTags.Base.Make))
    meta.model = _text(exif.get(ExifTags.Base.Model))
    sub = exif.get_ifd(ExifTags.IFD.Exif)
    meta.focal_mm = _number(sub.get(ExifTags.Base.FocalLength))
    f35 = _number(sub.get(ExifTags.Base.FocalLengthIn35mmFilm))
    meta.focal_35mm = f35 if f35 else None  # 0 means "unknown" in EXIF
    stamp = _text(sub.get(ExifTags.Base.DateTimeOriginal) or exif.get(ExifTags.Base.DateTime))
    if stamp and len(stamp) >= 19:
        meta.datetime = stamp[:10].replace(":", "-") + "T" + stamp[11:19]
    gps = exif.get_ifd(ExifTags.IFD.GPSInfo)
    if gps:
        meta.lat = _dms_to_deg(gps.get(ExifTags.GPS.GPSLatitude), gps.get(ExifTags.GPS.GPSLatitudeRef))
        meta.lon = _dms_to_deg(gps.get(ExifTags.GPS.GPSLongitude), gps.get(ExifTags.GPS.GPSLongitudeRef))
        alt = _number(gps.get(ExifTags.GPS.GPSAltitude))
        if alt is not None and gps.get(ExifTags.GPS.GPSAltitudeRef) in (1, b"\x01"):
            alt = -alt
        meta.abs_altitude_m = alt


def _flatten_xmp(node: Any, out: dict[str, str] | None = None) -> dict[str, str]:
    """Collect every ``name: text`` leaf of Pillow's nested XMP dict (first occurrence wins)."""
    out = {} if out is None else out
    if isinstance(node, dict):
        for key, value in node.items():
            if isinstance(value, (str, bytes, int, float)):
                out.setdefault(str(key), _text(value) or "")
            else:
                _flatten_xmp(value, out)
    elif isinstance(node, (list, tuple)):
        for item in node:
            _flatten_xmp(item, out)
    return out


def _fill_from_xmp(meta: CameraMetadata, xmp: dict[str, str]) -> None:
    for key, attr in _XMP_FIELDS.items():
        value = _number(xmp.get(key))
        if value is not None:
            setattr(meta, attr, value)
    meta.make = meta.make or _text(xmp.get("Make"))
    meta.model = meta.model or _text(xmp.get("Model"))


def camera_heading_deg(meta: CameraMetadata) -> float | None:
    """Heading of the camera in degrees clockwise from north in [0, 360): gimbal yaw, else flight yaw, else None."""
    yaw = meta.gimbal_yaw_deg if meta.gimbal_yaw_deg is not None else meta.flight_yaw_deg
    return None if yaw is None else (0.0 if float(yaw) % 360.0 >= 360.0 else float(yaw) % 360.0)


def intrinsics_for(width: int, height: int, meta: CameraMetadata | None = None, *, focal_px: float | None = None,
                   hfov_deg: float | None = None, sensor_width_mm: float | None = None) -> Intrinsics:
    """Pinhole intrinsics for a ``width`` x ``height`` image (square pixels).

    Order of precedence for the focal length (``source`` names the rule used):

    1. ``focal_px`` or ``hfov_deg`` given by the caller;
    2. DJI ``CalibratedFocalLength`` (pixels of the full sensor frame, whose width is ``2·CalibratedOpticalCenterX``).
       An image of that width, or of another size but the same aspect ratio (a resize), is scaled by
       ``width / frame_width``; an image of another aspect ratio is taken to be a crop (focal unchanged, principal
       point unknown → image centre);
    3. ``FocalLength`` (mm) x width / sensor width (``sensor_width_mm``, else :data:`SENSOR_WIDTH_MM` by model);
       assumes the image spans the full sensor width (16:9 modes crop the height of a 4:3 sensor);
    4. ``FocalLengthIn35mmFilm``: EXIF/CIPA define the equivalent on the frame DIAGONAL (43.27 mm ↔ image diagonal).
       For images wider than 3:2 — usually a height crop of a 4:3 or 3:2 sensor — 36 mm ↔ image width is used
       instead, since the cropped diagonal would under-estimate the focal;
    5. :data:`DEFAULT_HFOV_DEG`.
    The principal point is the image centre unless the calibrated optical centre applies (rules 2, full frame).
    """
    if not (isinstance(width, (int, np.integer)) and isinstance(height, (int, np.integer)) and width > 0
            and height > 0):
        raise ToolError(f"image size must be positive integers, got {width!r} x {height!r}")
    if focal_px is not None and not (math.isfinite(focal_px) and focal_px > 0):
        raise ToolError(f"focal_px must be a positive number of pixels, got {focal_px!r}")
    if hfov_deg is not None and not (0 < hfov_deg < 180):
        raise ToolError(f"hfov_deg must be in (0, 180) degrees, got {hfov_deg!r}")
    if sensor_width_mm is not None and not (math.isfinite(sensor_width_mm) and sensor_width_mm > 0):
        raise ToolError(f"sensor_width_mm must be a positive number of millimetres, got {sensor_width_mm!r}")
    cx, cy = width / 2.0, height / 2.0
    if focal_px is not None:
        return Intrinsics(focal_px, focal_px, cx, cy, int(width), int(height), "override:focal_px")
    if hfov_deg is not None:
        f = width / (2 * math.tan(math.radians(hfov_deg) / 2))
        return Intrinsics(f, f, cx, cy, int(width), int(height), "override:hfov_deg")
    meta = meta or CameraMetadata()
    calibrated = _from_calibrated(width, height, meta)
    if calibrated is not None:
        return calibrated
    sensor = sensor_width_mm or SENSOR_WIDTH_MM.get((meta.model or "").upper())
    if meta.focal_mm and sensor:
        f = meta.focal_mm / sensor * width
        src = f"focal_mm/sensor_width ({meta.focal_mm} mm / {sensor} mm)"
        return Intrinsics(f, f, cx, cy, int(width), int(height), src)
    if meta.focal_35mm:
        if width / height > 1.5 + 1e-6:
            f = meta.focal_35mm / 36.0 * width
            src = "focal_35mm (36 mm ↔ image width, image wider than 3:2)"
        else:
            f = meta.focal_35mm / FULL_FRAME_DIAGONAL_MM * math.hypot(width, height)
            src = "focal_35mm (43.27 mm diagonal ↔ image diagonal)"
        return Intrinsics(f, f, cx, cy, int(width), int(height), src)
    f = width / (2 * math.tan(math.radians(DEFAULT_HFOV_DEG) / 2))
    return Intrinsics(f, f, cx, cy, int(width), int(height), f"default_hfov ({DEFAULT_HFOV_DEG} deg)")


def _from_calibrated(width: int, height: int, meta: CameraMetadata) -> Intrinsics | None:
    f = meta.calibrated_focal_px
    if not f or f <= 0:
        return None
    if not (meta.calibrated_cx_px and meta.calibrated_cy_px):
        return Intrinsics(f, f, width / 2, height / 2, int(width), int(height),
                          "calibrated_focal_px (frame size unknown: used unscaled)")
    frame_w, frame_h = 2 * meta.calibrated_cx_px, 2 * meta.calibrated_cy_px
    if abs(width - frame_w) <= 2 and abs(height - frame_h) <= 2:
        return Intrinsics(f, f, meta.calibrated_cx_px, meta.calibrated_cy_px, int(width), int(height),
                          "calibrated_focal_px (full frame)")
    scale = width / frame_w
    if abs(height / frame_h - scale) <= 0.01 * scale:
        return Intrinsics(f * scale, f * scale, meta.calibrated_cx_px * scale, meta.calibrated_cy_px * scale,
                          int(width), int(height), "calibrated_focal_px (resized frame)")
    return Intrinsics(f, f, width / 2, height / 2, int(width), int(height),
                      "calibrated_focal_px (crop of the frame: principal point unknown, image centre used)")
