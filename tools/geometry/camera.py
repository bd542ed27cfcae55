"""Camera metadata of any drone or camera vendor, and pinhole intrinsics.

Tags are read by ExifTool (``tools/metadata/read.py``; Pillow when ExifTool is not installed) and interpreted by
one table of vendor tag names (``tools/metadata/vendors.py``): DJI, Autel, Skydio, Parrot (ANAFI and Sequoia),
MicaSense, senseFly, plain EXIF GPS. ``CameraMetadata.sources`` names the tag each value came from.

Conventions: angles in degrees; yaw clockwise from north; pitch −90 = nadir (straight down), 0 = horizon;
altitudes in metres (``rel_altitude_m`` above the take-off point or the ground, ``abs_altitude_m`` above sea level).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image, UnidentifiedImageError

from tools.common import ToolError
from tools.metadata.read import TagSet, read_tags
from tools.metadata.vendors import (SENSOR_WIDTH_MM, RULES, first_text, first_value, georeference, number,
                                    sensor_width_from_focal_plane, sensor_width_from_model)

__all__ = ["SENSOR_WIDTH_MM", "CameraMetadata", "Intrinsics", "DEFAULT_HFOV_DEG", "camera_heading_deg",
           "intrinsics_for", "metadata_from_tags", "read_metadata"]

#: Horizontal field of view used when nothing else is known: a 24 mm-equivalent lens (2·atan(18/24)), the most
#: common focal length of current DJI survey cameras (Phantom 4 Pro, Mavic 2/3, Air 2S, Mini).
DEFAULT_HFOV_DEG = 73.74

#: Diagonal of a 36 x 24 mm frame (mm): the reference of the EXIF/CIPA "35 mm equivalent" focal length.
FULL_FRAME_DIAGONAL_MM = math.hypot(36.0, 24.0)


@dataclass
class CameraMetadata:
    """What a photo says about its camera and pose; every value is ``None`` when the file does not record it.

    ``camera_yaw_deg``/``camera_pitch_deg``/``camera_roll_deg`` are the camera's orientation from whichever vendor
    tag exists (converted to the conventions above); ``gimbal_*`` and ``flight_*`` keep the gimbal and aircraft
    angles where a vendor records them separately. ``sources`` maps each field name to the tag it came from.
    """

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
    abs_altitude_m: float | None = None  # above sea level (DJI AbsoluteAltitude, senseFly AMSL, else EXIF GPS)
    rel_altitude_m: float | None = None  # above the take-off point or ground (RelativeAltitude, Height ...)
    gimbal_yaw_deg: float | None = None
    gimbal_pitch_deg: float | None = None
    gimbal_roll_deg: float | None = None
    flight_yaw_deg: float | None = None
    flight_pitch_deg: float | None = None
    flight_roll_deg: float | None = None
    datetime: str | None = None  # ISO 8601 local time without zone, e.g. "2016-06-23T16:31:59"
    camera_yaw_deg: float | None = None  # compass bearing of the image's up direction, any vendor
    camera_pitch_deg: float | None = None  # −90 = nadir, any vendor
    camera_roll_deg: float | None = None
    sensor_width_mm: float | None = None  # from EXIF FocalPlaneXResolution, else the camera table
    pixel_size_m: float | None = None  # ground size of a pixel of a georeferenced (GeoTIFF) raster
    recorded_size: tuple[int, int] | None = None  # (width, height) the camera recorded (EXIF ExifImageWidth/Height)
    sources: dict[str, str] = field(default_factory=dict)
    reader: str | None = None  # "exiftool 12.57", or "pillow" with ``reader_note`` saying what it cannot read
    reader_note: str | None = None


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


def read_metadata(path: str | Path) -> CameraMetadata:
    """Read the camera metadata of an image file (any vendor). Missing values are ``None``.

    Raises :class:`ToolError` for a missing file or a file that is not an image.
    """
    p = Path(path)
    tags = read_tags(p)
    try:
        with Image.open(p) as im:
            size = im.size
    except UnidentifiedImageError as exc:
        raise ToolError(f"not a readable image (cannot read metadata): {p}") from exc
    except OSError as exc:
        raise ToolError(f"cannot read metadata of {p}: {exc}") from exc
    return metadata_from_tags(tags, size)


def metadata_from_tags(tagset: TagSet, size: tuple[int, int]) -> CameraMetadata:
    """Interpret raw tags (``"Group:Tag" -> value``) of an image of ``size`` (width, height) pixels."""
    tags = tagset.tags
    meta = CameraMetadata(width=int(size[0]), height=int(size[1]), reader=tagset.reader,
                          reader_note=tagset.note)
    for name in RULES:
        found = first_value(tags, name)
        if found is not None:
            setattr(meta, name, found[0])
            meta.sources[name] = found[1]
    if meta.lat is not None and meta.lon is not None and meta.lat == 0.0 and meta.lon == 0.0:
        meta.lat = meta.lon = None  # (0, 0) is what receivers write before a fix
        meta.sources["gps"] = "GPS tags are (0, 0): no fix"
    for name in ("make", "model", "datetime"):
        text = first_text(tags, name)
        if text is not None:
            setattr(meta, name, text[0])
            meta.sources[name] = text[1]
    if meta.datetime:
        stamp = meta.datetime
        meta.datetime = stamp[:10].replace(":", "-") + "T" + stamp[11:19] if len(stamp) >= 19 else None
    if meta.focal_35mm is not None and meta.focal_35mm <= 0:  # 0 means "unknown" in EXIF
        meta.focal_35mm = None
    recorded = [number(tags.get(f"ExifIFD:ExifImage{side}")) for side in ("Width", "Height")]
    if all(recorded):
        meta.recorded_size = (int(recorded[0]), int(recorded[1]))
    sensor = sensor_width_from_focal_plane(tags, meta.width) or sensor_width_from_model(meta.model)
    if sensor is not None:
        meta.sensor_width_mm, meta.sources["sensor_width_mm"] = sensor
    georef = georeference(tags)
    if georef is not None:
        meta.pixel_size_m, meta.sources["pixel_size_m"] = georef
    return meta


def camera_heading_deg(meta: CameraMetadata) -> float | None:
    """Compass bearing of the image's up direction in [0, 360): the camera yaw of any vendor (gimbal yaw first),
    else the aircraft's yaw, else None."""
    yaw = next((y for y in (meta.camera_yaw_deg, meta.gimbal_yaw_deg, meta.flight_yaw_deg) if y is not None), None)
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
    3. ``FocalLength`` (mm) x width / sensor width (``sensor_width_mm``, else the metadata's: EXIF focal-plane
       resolution or :data:`SENSOR_WIDTH_MM` by model); the ratio holds for resized copies too;
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
    sensor = sensor_width_mm or meta.sensor_width_mm or SENSOR_WIDTH_MM.get((meta.model or "").upper())
    if meta.focal_mm and sensor:
        across, src = width, f"focal_mm/sensor_width ({meta.focal_mm} mm / {sensor} mm)"
        if quarter_turned(width, height, meta):
            across, src = height, src + "; a quarter-turned copy: the sensor width runs along the image height"
        f = meta.focal_mm / sensor * across
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


def quarter_turned(width: int, height: int, meta: CameraMetadata) -> bool:
    """Whether a ``width`` x ``height`` image is a quarter-turned copy (or a resize of one) of the frame its metadata
    records: a rotated file keeps the camera's tags, so its sensor width then lies along the image height."""
    if meta.recorded_size is None or width == height or meta.recorded_size[0] == meta.recorded_size[1]:
        return False
    rec_w, rec_h = meta.recorded_size
    return (width > height) != (rec_w > rec_h) and abs(width / height - rec_h / rec_w) <= 0.01 * width / height


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
