"""Vendor metadata on real photos (truths from the data READMEs / exif_summary.csv, read there with exiftool) and
on files written here with each vendor's tags; the Pillow fallback reads the same values."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import tools.metadata.read as metadata_read
from tools.geometry.camera import CameraMetadata, camera_heading_deg, intrinsics_for, metadata_from_tags, read_metadata
from tools.metadata.read import TagSet

# ../shared/data/dji_survey_dev/README.md (exiftool -n): RelAlt, GimbalYaw, GimbalPitch
DJI = {"DJI_0018": (39.80, 45.0, -89.9), "DJI_0034": (40.00, 44.7, -89.9)}
# FocalPlaneXResolution of the Sequoia RGB photos (exiftool -n: 746.2686793 pixels per mm, unit code 4).
SEQUOIA_PX_PER_MM = 746.2686793


def garfield_rows(shared_data: Path) -> list[dict[str, str]]:
    with open(shared_data / "garfield_dev" / "exif_summary.csv", newline="") as fh:
        return list(csv.DictReader(fh))


def test_exiftool_is_the_reader_when_installed(shared_data: Path) -> None:
    if metadata_read.shutil.which("exiftool") is None:
        pytest.skip("exiftool not installed (make setup installs libimage-exiftool-perl)")
    meta = read_metadata(shared_data / "dji_survey_dev" / "images" / "DJI_0018.JPG")
    assert meta.reader.startswith("exiftool") and meta.reader_note is None


@pytest.mark.parametrize("name", sorted(DJI))
def test_dji_values_name_their_tags(shared_data: Path, name: str) -> None:
    meta = read_metadata(shared_data / "dji_survey_dev" / "images" / f"{name}.JPG")
    rel, yaw, pitch = DJI[name]
    assert meta.rel_altitude_m == pytest.approx(rel) and "RelativeAltitude" in meta.sources["rel_altitude_m"]
    assert meta.camera_yaw_deg == pytest.approx(yaw) and "GimbalYawDegree" in meta.sources["camera_yaw_deg"]
    assert meta.camera_pitch_deg == pytest.approx(pitch)
    assert meta.sensor_width_mm == 6.17 and "FC300S" in meta.sources["sensor_width_mm"]  # 1/2.3" sensor (README)


def test_parrot_sequoia_matches_the_exif_summary(shared_data: Path) -> None:
    for row in garfield_rows(shared_data):
        meta = read_metadata(shared_data / "garfield_dev" / row["SourceFile"])
        assert (meta.make, meta.model) == ("Parrot", row["Model"])
        assert meta.lat == pytest.approx(float(row["GPSLatitude"]), abs=1e-9)
        assert meta.lon == pytest.approx(float(row["GPSLongitude"]), abs=1e-9)
        assert meta.abs_altitude_m == pytest.approx(float(row["GPSAltitude"]))
        assert meta.rel_altitude_m is None  # no height above ground in these files (README)
        assert camera_heading_deg(meta) == pytest.approx(float(row["Yaw"]) % 360.0)
        assert "XMP-Camera:Yaw" in meta.sources["camera_yaw_deg"]
        assert meta.camera_pitch_deg == pytest.approx(float(row["Pitch"]) - 90.0)  # Pix4D pitch 0 = nadir
        assert meta.sensor_width_mm == pytest.approx(int(row["ImageWidth"]) / SEQUOIA_PX_PER_MM)


def test_thermal_frame_without_metadata_has_none_of_it(shared_data: Path) -> None:
    meta = read_metadata(shared_data / "hit_uav_thermal" / "images" / "0_60_90_0_01830.jpg")
    assert (meta.width, meta.height) == (640, 512)
    values = [meta.rel_altitude_m, meta.abs_altitude_m, meta.lat, meta.lon, meta.camera_yaw_deg,
              meta.camera_pitch_deg, meta.focal_mm, meta.focal_35mm, meta.sensor_width_mm, meta.make]
    assert values == [None] * len(values) and meta.sources == {}


def test_geotiff_pixel_size(shared_data: Path) -> None:
    meta = read_metadata(shared_data / "deepforest_neon" / "OSBS_029.tif")  # README: a GeoTIFF at 0.1 m/px
    if meta.reader == "pillow":
        pytest.skip("GeoTIFF keys need exiftool")
    assert meta.pixel_size_m == pytest.approx(0.1) and "GeoTIFF" in meta.sources["pixel_size_m"]
    assert read_metadata(shared_data / "deepforest_neon" / "OSBS_029.png").pixel_size_m is None


def test_pillow_fallback_reads_the_same_values(shared_data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = [shared_data / "dji_survey_dev" / "images" / "DJI_0019.JPG",
             shared_data / "garfield_dev" / "images" / "IMG_161122_164720_0137_RGB.JPG"]
    full = [read_metadata(p) for p in paths]
    monkeypatch.setattr(metadata_read.shutil, "which", lambda name: None)
    for path, ref in zip(paths, full):
        meta = read_metadata(path)
        assert meta.reader == "pillow" and "exiftool not installed" in meta.reader_note
        for name in ("lat", "lon", "rel_altitude_m", "camera_yaw_deg", "camera_pitch_deg", "focal_mm",
                     "sensor_width_mm", "abs_altitude_m"):
            want = getattr(ref, name)
            assert getattr(meta, name) == (None if want is None else pytest.approx(want, abs=1e-6)), name
        assert (meta.make, meta.model, meta.width, meta.height) == (ref.make, ref.model, ref.width, ref.height)


def _xmp(prefix: str, uri: str, fields: dict[str, str], struct: str | None = None) -> bytes:
    body = "".join(f"<{prefix}:{k}>{v}</{prefix}:{k}>" for k, v in fields.items())
    if struct:
        body = f'<{prefix}:{struct} rdf:parseType="Resource">{body}</{prefix}:{struct}>'
    return (f'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
            f'<rdf:Description rdf:about="" xmlns:{prefix}="{uri}">{body}</rdf:Description></rdf:RDF></x:xmpmeta>'
            ).encode()


@pytest.mark.parametrize("fallback", [False, True])
def test_written_vendor_xmp_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fallback: bool) -> None:
    """Files carrying senseFly, Skydio (a struct) and Parrot ANAFI tags, read back by either reader."""
    if fallback:
        monkeypatch.setattr(metadata_read.shutil, "which", lambda name: None)
    elif metadata_read.shutil.which("exiftool") is None:
        pytest.skip("exiftool not installed")
    rgb = np.full((60, 80, 3), 128, np.uint8)
    cases = {
        "sensefly": (_xmp("sensefly", "http://ns.sensefly.com/sensefly/1.0/",
                          {"Height": "74.2", "Heading": "231.8", "PitchAngle": "-2.5", "Latitude": "41.03"}),
                     {"rel_altitude_m": 74.2, "camera_yaw_deg": 231.8, "camera_pitch_deg": -92.5, "lat": 41.03}),
        "skydio": (_xmp("drone-skydio", "https://www.skydio.com/drone-skydio/1.0/",
                        {"Yaw": "-120.5", "Pitch": "-60.0", "Roll": "0.5"}, struct="CameraOrientationNED"),
                   {"camera_yaw_deg": -120.5, "camera_pitch_deg": -60.0, "camera_roll_deg": 0.5}),
        "anafi": (_xmp("drone-parrot", "http://www.parrot.com/drone-parrot/1.0/",
                       {"CameraPitchDegree": "-45", "CameraYawDegree": "12.5"}) ,
                  {"camera_pitch_deg": -45.0, "camera_yaw_deg": 12.5}),
    }
    for name, (xmp, want) in cases.items():
        path = tmp_path / f"{name}.jpg"
        Image.fromarray(rgb).save(path, xmp=xmp)
        meta = read_metadata(path)
        for field, value in want.items():
            assert getattr(meta, field) == pytest.approx(value), (name, field, meta.sources)


def test_tag_table_conversions_and_precedence() -> None:
    tags = {"XMP-Camera:Pitch": 12.0, "XMP-Camera:Yaw": -30.0, "XMP-Camera:AboveGroundAltitude": 55.0,
            "GPS:GPSImgDirection": 99.0, "Composite:GPSLatitude": 0.0, "Composite:GPSLongitude": 0.0,
            "ExifIFD:FocalPlaneXResolution": 2000.0, "ExifIFD:FocalPlaneResolutionUnit": 3,
            "ExifIFD:ExifImageWidth": 1200}
    meta = metadata_from_tags(TagSet(tags, "test"), (600, 400))
    assert meta.camera_pitch_deg == -78.0 and camera_heading_deg(meta) == 330.0  # Camera:Yaw before GPSImgDirection
    assert meta.rel_altitude_m == 55.0 and "above ground" in meta.sources["rel_altitude_m"]
    assert meta.lat is None and meta.lon is None  # (0, 0) = no fix
    assert meta.sensor_width_mm == pytest.approx(1200 / 2000 * 10.0)  # the recorded frame, not the resized file
    only_dir = metadata_from_tags(TagSet({"GPS:GPSImgDirection": 271.5}, "test"), (10, 10))
    assert camera_heading_deg(only_dir) == 271.5 and "GPSImgDirection" in only_dir.sources["camera_yaw_deg"]


def test_resized_copy_keeps_the_focal_ratio(shared_data: Path, tmp_path: Path) -> None:
    src = shared_data / "garfield_dev" / "images" / "IMG_161122_164720_0137_RGB.JPG"
    with Image.open(src) as im:
        exif = im.info["exif"]
        im.resize((im.width // 4, im.height // 4)).save(tmp_path / "quarter.jpg", exif=exif)
    full, quarter = read_metadata(src), read_metadata(tmp_path / "quarter.jpg")
    f_full = intrinsics_for(full.width, full.height, full).fx
    f_quarter = intrinsics_for(quarter.width, quarter.height, quarter).fx
    assert f_full == pytest.approx(4.88 * SEQUOIA_PX_PER_MM, rel=1e-6)  # focal mm x pixels per mm
    assert f_quarter == pytest.approx(f_full / 4, rel=1e-3)
    assert math.isclose(quarter.sensor_width_mm, full.sensor_width_mm, rel_tol=1e-9)


def test_camera_metadata_defaults_stay_empty() -> None:
    meta = CameraMetadata()
    assert meta.sources == {} and camera_heading_deg(meta) is None


def test_a_failing_exiftool_falls_back_to_pillow(shared_data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess

    if metadata_read.shutil.which("exiftool") is None:
        pytest.skip("exiftool not installed")

    def hung(*args: object, **kwargs: object) -> None:
        raise subprocess.TimeoutExpired("exiftool", metadata_read.EXIFTOOL_TIMEOUT_S)

    monkeypatch.setattr(metadata_read.subprocess, "run", hung)
    meta = read_metadata(shared_data / "dji_survey_dev" / "images" / "DJI_0018.JPG")
    assert meta.reader == "pillow" and "exiftool failed" in meta.reader_note
    assert meta.rel_altitude_m == pytest.approx(39.8)  # README: DJI XMP RelativeAltitude
