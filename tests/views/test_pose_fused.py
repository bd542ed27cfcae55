"""The pair pose fused from GPS, yaw tags and pixels (``tools.views.pose_fused``) on real photos, and its cross-check of
the tags against the pixels. Truths: the flight log as the datasets document it (``dji_survey_dev/README.md``'s
table, ``garfield_dev/exif_summary.csv``) put through a spherical-Earth local approximation written here, and for
edited copies the log's yaw turned by the known edit; never the code under test."""

from __future__ import annotations

import csv
import math
import shutil
from pathlib import Path

import pytest

from benchmarks.photo_edits import rotated_copy
from photo_pairs import DJI_LOG, R_EARTH, truth

from tools.geometry.camera import CameraMetadata
from tools.views.pose import relative_pose
from tools.views.pose_fused import CONTRADICTION_DEG, frame_heading, fuse_with_metadata
from tools.views.pose_types import RelativePose, clock_hour, undecided_pose

def garfield_log(shared_data: Path) -> dict[str, tuple[float, float, float]]:
    with open(shared_data / "garfield_dev" / "exif_summary.csv", newline="") as fh:
        return {r["FileName"].split("_")[3]: (float(r["GPSLatitude"]), float(r["GPSLongitude"]), float(r["Yaw"]))
                for r in csv.DictReader(fh)}


def herr(a: float, b: float) -> float:
    return abs((a - b + 180.0) % 360.0 - 180.0)


def check(pose: RelativePose, want: dict[str, float], heading_tol: float = 10.0) -> None:
    assert pose.confident and pose.units == "m", pose.reason
    assert herr(pose.heading_deg, want["heading"]) <= heading_tol
    assert math.hypot(pose.translation_m[0] - want["forward"], pose.translation_m[1] - want["right"]) <= 2.0
    assert pose.horizontal_m == pytest.approx(want["distance"], rel=0.01)
    near_boundary = abs(want["bearing"] % 30.0 - 15.0) <= 5.0  # hour boundaries lie at 15 deg + 30 deg k
    assert pose.clock == clock_hour(want["bearing"]) or (near_boundary and (pose.clock - clock_hour(want["bearing"]))
                                                         % 12 in (1, 11))
    assert pose.sources["distance"].startswith("GPS")


@pytest.mark.parametrize("pair", [("0157", "0158"), ("0137", "0157"), ("0000", "0137")])
def test_sequoia_pairs_are_placed_by_gps_and_turned_by_pixels_or_tags(shared_data: Path,
                                                                      pair: tuple[str, str]) -> None:
    log = garfield_log(shared_data)
    pa, pb = (next((shared_data / "garfield_dev" / "images").glob(f"*_{n}_RGB.JPG")) for n in pair)
    pose = relative_pose(pa, pb, match_method="sift")
    check(pose, truth(log[pair[0]], log[pair[1]]))
    assert pose.sources["heading_change"].split(" (")[0] in ("pixels", "yaw tags")
    assert "XMP-Camera:Yaw" in pose.sources["frame_a"]


def test_dji_pair_the_pixels_cannot_match_takes_the_yaw_tags(shared_data: Path) -> None:
    pa, pb = (shared_data / "dji_survey_dev" / "images" / f"DJI_{n}.JPG" for n in ("0018", "0020"))
    pose = relative_pose(pa, pb, match_method="sift")
    check(pose, truth(DJI_LOG["0018"], DJI_LOG["0020"]), heading_tol=0.5)
    if not relative_pose(pa, pb, match_method="sift", fuse=False).confident:
        assert pose.sources["heading_change"].startswith("yaw tags")


@pytest.mark.skipif(shutil.which("exiftool") is None, reason="exiftool program not installed")
@pytest.mark.parametrize("turn_a,turn_b", [(0, 1), (1, 0)])
def test_rotated_copy_with_its_original_tags_is_overruled_by_the_pixels(shared_data: Path, tmp_path: Path,
                                                                         turn_a: int, turn_b: int) -> None:
    pa, pb = (shared_data / "dji_survey_dev" / "images" / f"DJI_{n}.JPG" for n in ("0018", "0019"))
    ca = rotated_copy(pa, tmp_path / "a.jpg", turn_a) if turn_a else pa
    cb = rotated_copy(pb, tmp_path / "b.jpg", turn_b) if turn_b else pb
    pose = relative_pose(ca, cb, match_method="sift")
    check(pose, truth(DJI_LOG["0018"], DJI_LOG["0019"], turn_a, turn_b))
    assert pose.sources["heading_change"].startswith("pixels")
    assert any("contradict" in note for note in pose.assumptions)


def vision(heading: float, bearing: float) -> RelativePose:
    """A confident pixels-only pose (unit altitude) with the given heading change and bearing of B."""
    return RelativePose(heading, heading, (math.cos(math.radians(bearing)), math.sin(math.radians(bearing)), 0.0),
                        1.0, bearing, clock_hour(bearing), False, "altitude", 100, 1.0, 0.5, 0.05, True, None,
                        "ground-plane")


def meta(lat: float, lon: float, yaw: float | None) -> CameraMetadata:
    return CameraMetadata(lat=lat, lon=lon, camera_yaw_deg=yaw, sources={"camera_yaw_deg": "XMP-Camera:Yaw"})


NORTH_100M = math.degrees(100.0 / R_EARTH)  # B 100 m due north of A


def test_frame_of_a_keeps_tags_the_pixels_agree_with() -> None:
    notes: list[str] = []
    frame, src = frame_heading(vision(12.0, 348.0), meta(0, 0, 10.0), meta(NORTH_100M, 0, 20.0), 0.0, 100.0, notes)
    assert frame == 10.0 and src == "XMP-Camera:Yaw" and not notes


def test_frame_of_a_whose_tag_is_contradicted_comes_from_b_and_the_pixels() -> None:
    notes: list[str] = []  # A's pixels turned a quarter: its top points 90 deg west of its tag, B's tag is honest
    frame, src = frame_heading(vision(100.0, 80.0), meta(0, 0, 10.0), meta(NORTH_100M, 0, 10.0), 0.0, 100.0, notes)
    assert herr(frame, 270.0) < 1e-9 and "image b" in src and "image a" in notes[0]


def test_contradiction_threshold_separates_noise_from_edits() -> None:
    for off, edited in ((CONTRADICTION_DEG - 5.0, False), (CONTRADICTION_DEG + 5.0, True)):
        notes: list[str] = []
        frame_heading(vision(off, 0.0), meta(0, 0, 0.0), meta(NORTH_100M, 0, 0.0), 0.0, 100.0, notes)
        assert bool(notes) == edited


def test_without_a_decided_vision_pose_heading_comes_from_the_tags() -> None:
    pose = fuse_with_metadata(undecided_pose("no overlap", "ground"), meta(0, 0, 30.0), meta(NORTH_100M, 0, 50.0),
                              [])
    assert pose.confident and pose.heading_deg == pytest.approx(20.0)
    assert pose.horizontal_m == pytest.approx(100.0, rel=0.01)
    assert pose.translation_m[0] == pytest.approx(100.0 * math.cos(math.radians(30.0)), rel=0.01)
    assert pose.clock == clock_hour(330.0) and pose.sources["heading_change"].startswith("yaw tags")


def test_without_gps_on_both_the_pose_is_the_pixels_own() -> None:
    v = vision(12.0, 90.0)
    pose = fuse_with_metadata(v, meta(0, 0, 10.0), CameraMetadata(camera_yaw_deg=20.0), [])
    assert pose.heading_deg == 12.0 and pose.units == "altitude" and pose.compass_bearing_deg == pytest.approx(100.0)
    assert any("pixels only" in note for note in pose.assumptions)


def test_without_any_heading_source_only_the_gps_values_are_given() -> None:
    pose = fuse_with_metadata(undecided_pose("no overlap", "ground"), meta(0, 0, None), meta(NORTH_100M, 0, None),
                              [])
    assert not pose.confident and pose.horizontal_m == pytest.approx(100.0, rel=0.01) and pose.heading_deg is None
    assert pose.clock is None and pose.compass_bearing_deg == pytest.approx(0.0, abs=1e-6) and "no heading" in \
        pose.reason
