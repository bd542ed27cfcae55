"""Relative pose of two photos fused from their metadata and their pixels, each value with the source it came from.

When both photos carry GPS positions the baseline is the GPS one (WGS84 geodesic, local east/north metres): two
consumer fixes are good to a couple of metres at any baseline, while a single-view ground fit scales with an
altitude that survey files often lack (a Parrot Sequoia records only the height above sea level) and bends with
relief and lens distortion. The heading change comes from the pixels when the vision fit is confident (a ground
fit measures the image rotation to a degree or two; compass-based yaw tags of fixed-wing cameras scatter by 5-15
degrees), else from the two photos' yaw tags of any vendor (``tools.geometry.camera.camera_heading_deg``).

Forward/right and the clock need the compass bearing of image A's top (its "frame"). Three estimates exist: A's
yaw tag; B's yaw tag minus the pixels' heading change; the GPS track azimuth minus the direction of B seen in A's
pixels. They are cross-checked: a tag that the pixels contradict by more than :data:`CONTRADICTION_DEG` (a rotated
or otherwise edited file keeps its original tags) is overruled, and the result says so. Without GPS on both photos
the vision pose is returned as it is (vision only). Conventions as in ``tools/views/pose.py``.
"""

from __future__ import annotations

import math
from dataclasses import replace

from tools.geometry.camera import CameraMetadata, camera_heading_deg
from tools.views.pose_metadata import MIN_GPS_BASELINE_M, gps_baseline, vertical_offset
from tools.views.pose_types import (METADATA_POSITION_SIGMA_M, METADATA_YAW_SIGMA_DEG, RelativePose, clock_hour,
                              signed_angle, wrap360)

#: Disagreement (deg) between a yaw tag and the pixels above which the tag is taken to be wrong (an edited file):
#: well above the scatter of honest tags against a confident vision fit (up to ~15 deg on the Sequoia pairs of
#: ``garfield_dev``, ~30 deg for the GPS-track estimate, which depends on the nadir points of tilted views) and well
#: below the quarter turn of a rotated copy.
CONTRADICTION_DEG = 45.0

_YAW_TAGS = ("camera_yaw_deg", "gimbal_yaw_deg", "flight_yaw_deg")


def angle_between(a: float, b: float) -> float:
    """Unsigned difference of two compass angles, degrees in [0, 180]."""
    return abs(signed_angle(a - b))


def _tag(meta: CameraMetadata) -> str:
    return next((meta.sources[n] for n in _YAW_TAGS if n in meta.sources), "yaw tag")


def frame_heading(vision: RelativePose, meta_a: CameraMetadata, meta_b: CameraMetadata, azimuth: float,
                  distance: float, notes: list[str]) -> tuple[float | None, str]:
    """Compass bearing of A's image top and its source, from A's tag cross-checked against the pixels."""
    tag_a, tag_b = camera_heading_deg(meta_a), camera_heading_deg(meta_b)
    sees = vision.confident and vision.heading_deg is not None
    via_b = wrap360(tag_b - vision.heading_deg) if sees and tag_b is not None else None
    via_track = None
    if sees and vision.bearing_deg is not None and distance >= MIN_GPS_BASELINE_M:
        via_track = wrap360(azimuth - vision.bearing_deg)
    if tag_a is None:
        if via_b is not None:
            return via_b, f"image b's {_tag(meta_b)} minus the heading change seen in the pixels"
        if via_track is not None:
            return via_track, "GPS track minus the direction of image b seen in image a's pixels"
        return None, "none"
    if via_b is not None and angle_between(tag_a, via_b) > CONTRADICTION_DEG:
        off = signed_angle(via_b - tag_a)
        if via_track is not None and angle_between(via_track, via_b) < angle_between(via_track, tag_a):
            notes.append(f"image a's {_tag(meta_a)} contradicts the pixels by {off:+.0f} deg (an edited or rotated "
                         "file?): its frame comes from image b's tag and the pixels")
            return via_b, f"image b's {_tag(meta_b)} minus the heading change seen in the pixels"
        notes.append(f"the yaw tags contradict the pixels' heading change by {off:+.0f} deg (an edited or rotated "
                     "file?): the heading change is the pixels' one")
    elif via_b is None and via_track is not None and angle_between(tag_a, via_track) > CONTRADICTION_DEG:
        notes.append(f"image a's {_tag(meta_a)} contradicts the GPS track seen in the pixels by "
                     f"{signed_angle(via_track - tag_a):+.0f} deg (an edited or rotated file?): frame from the track")
        return via_track, "GPS track minus the direction of image b seen in image a's pixels"
    return tag_a, _tag(meta_a)


def _heading(vision: RelativePose, meta_a: CameraMetadata, meta_b: CameraMetadata,
             notes: list[str]) -> tuple[float | None, float | None, str]:
    """Heading change (deg), its one-sigma uncertainty and its source: the pixels when confident, else the tags."""
    tag_a, tag_b = camera_heading_deg(meta_a), camera_heading_deg(meta_b)
    tags = None if tag_a is None or tag_b is None else wrap360(tag_b - tag_a)
    if vision.confident and vision.heading_deg is not None:
        if tags is not None and angle_between(tags, vision.heading_deg) <= CONTRADICTION_DEG:
            notes.append(f"heading change: pixels {signed_angle(vision.heading_deg):+.1f} deg, yaw tags "
                         f"{signed_angle(tags):+.1f} deg")
        return vision.heading_deg, vision.heading_uncertainty_deg, "pixels (ground-plane fit)"
    if tags is not None:
        notes.append(f"heading change from the yaw tags: the pixels could not decide ({vision.reason})")
        return tags, math.sqrt(2) * METADATA_YAW_SIGMA_DEG, f"yaw tags ({_tag(meta_a)}; {_tag(meta_b)})"
    return None, None, "none"


def fuse_with_metadata(vision: RelativePose, meta_a: CameraMetadata | None, meta_b: CameraMetadata | None,
                       notes: list[str]) -> RelativePose:
    """The pair's pose from GPS, yaw tags and the vision fit ``vision`` (confident or not); see the module doc.

    Without metadata or GPS on both photos, ``vision`` is returned (with A's compass heading added when its yaw
    tag is known). Otherwise distance and compass bearing come from GPS, and heading change, forward/right,
    bearing and clock from the first heading source that exists; when none does (no yaw tag and the pixels could
    not decide), the result is not confident, ``reason`` names what is missing and only the GPS values are given.
    ``sources`` names where each value came from.
    """
    base = None if meta_a is None or meta_b is None else gps_baseline(meta_a, meta_b)
    if base is None:
        return _vision_only(vision, meta_a, notes)
    east, north, dist, azimuth = base
    notes = list(notes)
    heading, heading_sigma, heading_src = _heading(vision, meta_a, meta_b, notes)
    frame, frame_src = frame_heading(vision, meta_a, meta_b, azimuth, dist, notes)
    sources = {"position_a": meta_a.sources.get("lat", "GPS"), "position_b": meta_b.sources.get("lat", "GPS"),
               "distance": "GPS positions (WGS84 geodesic)", "heading_change": heading_src, "frame_a": frame_src}
    up = vertical_offset(meta_a, meta_b, sources)
    forward = right = bearing = None
    sigma_t = math.sqrt(2) * METADATA_POSITION_SIGMA_M
    metric_vision = vision.confident and vision.scale_known and vision.translation_m is not None
    if metric_vision and dist < MIN_GPS_BASELINE_M:  # two fixes ~2 m apart at random: the pixels place B better
        forward, right = vision.translation_m[0], vision.translation_m[1]
        sigma_t = vision.translation_uncertainty_m
        sources["translation"] = "pixels (metric from the altitude): GPS baseline under " \
                                 f"{MIN_GPS_BASELINE_M:g} m"
    elif frame is not None:
        rel = math.radians(azimuth - frame)
        forward, right = dist * math.cos(rel), dist * math.sin(rel)
        sources["translation"] = "GPS positions in image a's frame"
    if forward is not None:
        bearing = wrap360(math.degrees(math.atan2(right, forward))) if math.hypot(forward, right) > 0 else 0.0
    missing = [name for name, v in (("heading change", heading), ("image a's heading", forward)) if v is None]
    reason = None if not missing else ("no " + " or ".join(missing) + " (no yaw tag and the pixels could not "
                                       f"decide: {vision.reason}): heading-relative values unknown")
    return replace(vision, heading_deg=heading, heading_signed_deg=None if heading is None else signed_angle(heading),
                   translation_m=None if forward is None else (forward, right, up), horizontal_m=dist,
                   bearing_deg=bearing, clock=None if bearing is None else clock_hour(bearing), scale_known=True,
                   units="m", heading_uncertainty_deg=heading_sigma, translation_uncertainty_m=sigma_t,
                   confident=not missing, reason=reason, method=f"fused: distance from GPS, heading change from "
                   f"{heading_src.split(' (')[0]}, vision {vision.method}", assumptions=notes,
                   compass_bearing_deg=azimuth, east_north_m=(east, north), sources=sources)


def _vision_only(vision: RelativePose, meta_a: CameraMetadata | None, notes: list[str]) -> RelativePose:
    yaw_a = camera_heading_deg(meta_a) if meta_a is not None else None
    sources = {"heading_change": "pixels (ground-plane fit)" if vision.confident else "none",
               "translation": "pixels" if vision.confident else "none"}
    compass = vision.compass_bearing_deg
    if vision.confident and vision.bearing_deg is not None and yaw_a is not None and compass is None:
        compass = wrap360(yaw_a + vision.bearing_deg)
        sources["compass_bearing"] = f"image a's {_tag(meta_a)} plus the pixels' bearing"
    return replace(vision, compass_bearing_deg=compass, sources={**sources, **vision.sources},
                   assumptions=list(notes) + ["no GPS on both photos: pose from the pixels only"])
