"""Relative pose of two photos from their metadata (any vendor), and the GPS baseline that scales a vision pose.

The horizontal baseline is the WGS84 geodesic between the two GPS fixes (pyproj ``Geod.inv``: distance and the
azimuth from A to B, clockwise from north), split into local east/north metres. Headings are the compass bearings
of each image's up direction (``tools.geometry.camera.camera_heading_deg``: gimbal/camera yaw of any vendor, else the
aircraft's yaw). Conventions as in ``tools/views/pose.py``: translation (forward, right, up) in A's heading frame.
"""

from __future__ import annotations

import math
from dataclasses import replace

from tools.geometry.camera import CameraMetadata, camera_heading_deg
from tools.common import ToolError
from tools.views.pose_types import (METADATA_POSITION_SIGMA_M, METADATA_YAW_SIGMA_DEG, RelativePose, clock_hour,
                                    signed_angle, undecided_pose, wrap360)

#: A GPS baseline shorter than this (m) does not set a vision pose's scale: two consumer fixes (1.5 m each) differ
#: by about 2 m, so 10 m keeps the scale error near 20 % at worst and a few percent typically.
MIN_GPS_BASELINE_M = 10.0


def gps_baseline(meta_a: CameraMetadata, meta_b: CameraMetadata) -> tuple[float, float, float, float] | None:
    """(east_m, north_m, distance_m, azimuth_deg) from A's GPS position to B's, or None when either lacks GPS."""
    from pyproj import Geod

    if None in (meta_a.lat, meta_a.lon, meta_b.lat, meta_b.lon):
        return None
    azimuth, _, dist = Geod(ellps="WGS84").inv(meta_a.lon, meta_a.lat, meta_b.lon, meta_b.lat)
    az = wrap360(azimuth) if dist > 0 else 0.0
    return dist * math.sin(math.radians(az)), dist * math.cos(math.radians(az)), float(dist), az


def _source(meta: CameraMetadata, names: tuple[str, ...], fallback: str) -> str:
    return next((meta.sources[n] for n in names if n in meta.sources), fallback)


def pose_from_metadata(meta_a: CameraMetadata, meta_b: CameraMetadata) -> RelativePose:
    """The flight log's answer: baseline from the GPS fixes, heading change from the heading tags of any vendor.

    ``compass_bearing_deg`` is the direction from A's position to B's (clockwise from north); ``bearing_deg`` and
    ``clock`` are relative to A's image-up direction and need A's heading. Without GPS on either photo the pose is
    not confident (the reason names the missing values); with GPS but without a heading, the distance and compass
    bearing are reported and the heading-relative values are None (``reason`` says why). The vertical component
    comes from the relative altitudes (else the sea-level ones). Uncertainties are the nominal consumer-grade
    figures :data:`METADATA_POSITION_SIGMA_M` and :data:`METADATA_YAW_SIGMA_DEG`, combined for two photos.
    """
    for name, meta in (("a", meta_a), ("b", meta_b)):
        if not isinstance(meta, CameraMetadata):
            raise ToolError(f"meta_{name} must be a CameraMetadata, got {type(meta).__name__}")
    method = "metadata:gps+yaw"
    yaw_a, yaw_b = camera_heading_deg(meta_a), camera_heading_deg(meta_b)
    no_gps = [f"GPS of image {n}" for n, m in (("a", meta_a), ("b", meta_b)) if m.lat is None or m.lon is None]
    no_yaw = [f"yaw of image {n}" for n, y in (("a", yaw_a), ("b", yaw_b)) if y is None]
    sources = {f"position_{n}": _source(m, ("lat",), "none") for n, m in (("a", meta_a), ("b", meta_b))}
    sources.update({f"heading_{n}": _source(m, ("camera_yaw_deg", "gimbal_yaw_deg", "flight_yaw_deg"), "none")
                    for n, m in (("a", meta_a), ("b", meta_b))})
    base = gps_baseline(meta_a, meta_b)
    if base is None:
        pose = undecided_pose("metadata lacks " + ", ".join(no_gps + no_yaw), method, scale_known=True)
        return replace(pose, sources=sources)
    east, north, dist, azimuth = base
    up = vertical_offset(meta_a, meta_b, sources)
    heading = wrap360(yaw_b - yaw_a) if yaw_a is not None and yaw_b is not None else None
    forward = right = bearing = None
    if yaw_a is not None:
        rel = math.radians(azimuth - yaw_a)
        forward, right = dist * math.cos(rel), dist * math.sin(rel)
        bearing = wrap360(math.degrees(math.atan2(right, forward))) if dist > 0 else 0.0
    reason = None if not no_yaw else "metadata lacks " + ", ".join(no_yaw) + ": heading-relative values unknown"
    return RelativePose(heading, None if heading is None else signed_angle(heading),
                        None if forward is None else (forward, right, up), dist, bearing,
                        None if bearing is None else clock_hour(bearing), True, "m", 0, None,
                        None if heading is None else math.sqrt(2) * METADATA_YAW_SIGMA_DEG,
                        math.sqrt(2) * METADATA_POSITION_SIGMA_M, True, reason, method,
                        ["heading = camera yaw (gimbal/camera tag of any vendor, else aircraft yaw); "
                         "position = GPS (WGS84 geodesic)"],
                        compass_bearing_deg=azimuth, east_north_m=(east, north), sources=sources)


def vertical_offset(meta_a: CameraMetadata, meta_b: CameraMetadata, sources: dict[str, str]) -> float:
    """B's height minus A's (m) from the relative altitudes, else the sea-level ones, else 0; records the source."""
    if meta_a.rel_altitude_m is not None and meta_b.rel_altitude_m is not None:
        sources["vertical"] = "relative altitudes"
        return meta_b.rel_altitude_m - meta_a.rel_altitude_m
    if meta_a.abs_altitude_m is not None and meta_b.abs_altitude_m is not None:
        sources["vertical"] = "sea-level altitudes"
        return meta_b.abs_altitude_m - meta_a.abs_altitude_m
    sources["vertical"] = "unknown: 0 assumed"
    return 0.0


def scale_by_gps(pose: RelativePose, meta_a: CameraMetadata | None, meta_b: CameraMetadata | None,
                 notes: list[str]) -> RelativePose:
    """A confident vision pose without a metric scale (``units="altitude"``), scaled to metres by the GPS baseline.

    The vision fit gives the horizontal translation in units of A's altitude; the GPS fixes give the same baseline
    in metres, so their ratio is A's altitude. Returns ``pose`` unchanged when the scale is already known, a GPS
    fix is missing or the baseline is under :data:`MIN_GPS_BASELINE_M`.
    """
    if pose.scale_known or not pose.confident or meta_a is None or meta_b is None or not pose.horizontal_m:
        return pose
    base = gps_baseline(meta_a, meta_b)
    if base is None:
        return pose
    dist = base[2]
    if dist < MIN_GPS_BASELINE_M:
        notes.append(f"GPS baseline {dist:.1f} m is under {MIN_GPS_BASELINE_M:g} m: too short to set the scale")
        return replace(pose, assumptions=list(notes))
    k = dist / pose.horizontal_m
    notes.append(f"scale from the GPS baseline {dist:.1f} m: altitude of a = {k:.1f} m")
    t = tuple(k * v for v in pose.translation_m) if pose.translation_m is not None else None
    sigma = None if pose.translation_uncertainty_m is None else math.hypot(k * pose.translation_uncertainty_m,
                                                                           METADATA_POSITION_SIGMA_M * math.sqrt(2))
    return replace(pose, translation_m=t, horizontal_m=dist, scale_known=True, units="m",
                   translation_uncertainty_m=sigma, compass_bearing_deg=base[3], assumptions=list(notes))
