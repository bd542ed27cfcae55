"""Pair pose from the metadata of non-DJI photos (Parrot Sequoia, garfield_dev/exif_summary.csv) and the GPS
baseline that scales a vision pose. Truths: the CSV's positions and yaws put through a spherical-Earth local
approximation written here (independent of pyproj's ellipsoidal geodesic used by the code)."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pytest

from tools.geometry.camera import CameraMetadata, read_metadata
from tools.views.pose import pose_from_metadata, relative_pose

R_EARTH = 6371008.8


def rows(shared_data: Path) -> dict[str, dict[str, str]]:
    with open(shared_data / "garfield_dev" / "exif_summary.csv", newline="") as fh:
        return {r["FileName"].split("_")[3]: r for r in csv.DictReader(fh)}


def local_east_north(a: dict[str, str], b: dict[str, str]) -> tuple[float, float]:
    lat_a, lat_b = float(a["GPSLatitude"]), float(b["GPSLatitude"])
    lon_a, lon_b = float(a["GPSLongitude"]), float(b["GPSLongitude"])
    north = math.radians(lat_b - lat_a) * R_EARTH
    east = math.radians(lon_b - lon_a) * R_EARTH * math.cos(math.radians((lat_a + lat_b) / 2))
    return east, north


@pytest.mark.parametrize("pair", [("0157", "0158"), ("0135", "0137"), ("0000", "0093")])
def test_sequoia_pair_baseline_bearing_and_heading(shared_data: Path, pair: tuple[str, str]) -> None:
    table = rows(shared_data)
    a, b = table[pair[0]], table[pair[1]]
    ma, mb = (read_metadata(shared_data / "garfield_dev" / r["SourceFile"]) for r in (a, b))
    pose = pose_from_metadata(ma, mb)
    east, north = local_east_north(a, b)
    compass = math.degrees(math.atan2(east, north)) % 360
    assert pose.confident and pose.units == "m"
    assert pose.horizontal_m == pytest.approx(math.hypot(east, north), rel=0.005)
    assert pose.east_north_m == pytest.approx((east, north), rel=0.01, abs=0.1)
    assert abs((pose.compass_bearing_deg - compass + 180) % 360 - 180) < 0.5
    yaw_a, yaw_b = float(a["Yaw"]), float(b["Yaw"])
    assert pose.heading_signed_deg == pytest.approx((yaw_b - yaw_a + 180) % 360 - 180)
    assert abs((pose.bearing_deg - (compass - yaw_a) + 180) % 360 - 180) < 0.5  # relative to A's image top
    assert "XMP-Camera:Yaw" in pose.sources["heading_a"] and "GPS" in pose.sources["position_b"]


def test_pair_without_gps_names_the_missing_value(shared_data: Path) -> None:
    sequoia = read_metadata(next((shared_data / "garfield_dev" / "images").glob("*_0157_RGB.JPG")))
    thermal = read_metadata(shared_data / "hit_uav_thermal" / "images" / "0_60_90_0_01830.jpg")
    pose = pose_from_metadata(sequoia, thermal)
    assert not pose.confident and pose.horizontal_m is None and pose.compass_bearing_deg is None
    assert "GPS of image b" in pose.reason and "yaw of image b" in pose.reason and "image a" not in pose.reason


def test_gps_without_heading_gives_distance_and_compass_only() -> None:
    a = CameraMetadata(lat=46.0, lon=7.0)
    b = CameraMetadata(lat=46.0 + math.degrees(100.0 / R_EARTH), lon=7.0)  # 100 m due north
    pose = pose_from_metadata(a, b)
    assert pose.confident and pose.horizontal_m == pytest.approx(100.0, rel=0.01)
    assert pose.compass_bearing_deg == pytest.approx(0.0, abs=0.01) or pose.compass_bearing_deg == pytest.approx(
        360.0, abs=0.01)
    assert pose.heading_deg is None and pose.clock is None and pose.translation_m is None
    assert "yaw of image a" in pose.reason


def test_vision_pose_of_a_non_dji_pair_is_scaled_by_the_gps_baseline(shared_data: Path) -> None:
    table = rows(shared_data)
    pa, pb = (shared_data / "garfield_dev" / table[n]["SourceFile"] for n in ("0157", "0158"))
    vision = relative_pose(pa, pb, match_method="sift", fuse=False)
    east, north = local_east_north(table["0157"], table["0158"])
    assert vision.confident, vision.reason
    assert vision.units == "m" and vision.scale_known
    assert vision.horizontal_m == pytest.approx(math.hypot(east, north), rel=0.01)
    assert any("GPS baseline" in note for note in vision.assumptions)
    # The heading is the pixels' own: within 10 deg of the yaw tags (README: crabbed flight, noisy IMU yaw).
    tags = float(table["0158"]["Yaw"]) - float(table["0157"]["Yaw"])
    assert abs((vision.heading_signed_deg - tags + 180) % 360 - 180) <= 10.0
