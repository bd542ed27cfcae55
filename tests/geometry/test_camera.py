"""Camera metadata and intrinsics on real DJI photos (values from the data READMEs, read there with exiftool)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from tools.geometry.camera import (DEFAULT_HFOV_DEG, CameraMetadata, Intrinsics, camera_heading_deg, intrinsics_for,
                                   read_metadata)
from tools.common import ToolError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "dji"

# ../shared/data/dji_survey_dev/README.md (exiftool -n): lat, lon, RelAlt, FlightYaw, GimbalYaw
DJI_TABLE = {
    "DJI_0018": (46.8426070833, -91.9945598889, 39.80, 46.0, 45.0),
    "DJI_0019": (46.8426906667, -91.9944272778, 40.10, 40.1, 42.8),
    "DJI_0020": (46.8427775833, -91.9942993889, 40.10, 42.8, 44.2),
    "DJI_0034": (46.8426292778, -91.9935786667, 40.00, 43.5, 44.7),
    "DJI_0035": (46.8427165556, -91.9934553056, 40.00, 45.6, 45.3),
}
PELICAN = "deepforest_neon/AWPE Pigeon Lake 2020 DJI_0005.JPG"


def test_example_photo_metadata_matches_the_drone_log() -> None:
    meta = read_metadata(EXAMPLES / "DJI_0018.JPG")
    assert (meta.make, meta.model, meta.width, meta.height) == ("DJI", "FC300S", 4000, 2250)
    assert meta.focal_mm == pytest.approx(3.61) and meta.focal_35mm == 20
    assert meta.gimbal_pitch_deg == pytest.approx(-89.9) and meta.gimbal_roll_deg == 0.0
    assert meta.datetime == "2016-06-23T16:31:59"
    assert meta.abs_altitude_m == pytest.approx(198.31, abs=0.01)


@pytest.mark.parametrize("name", sorted(DJI_TABLE))
def test_survey_photos_gps_altitude_yaw(shared_data: Path, name: str) -> None:
    meta = read_metadata(shared_data / "dji_survey_dev" / "images" / f"{name}.JPG")
    lat, lon, rel, flight_yaw, gimbal_yaw = DJI_TABLE[name]
    assert meta.lat == pytest.approx(lat, abs=1e-8) and meta.lon == pytest.approx(lon, abs=1e-8)
    assert meta.rel_altitude_m == pytest.approx(rel)
    assert meta.flight_yaw_deg == pytest.approx(flight_yaw) and meta.gimbal_yaw_deg == pytest.approx(gimbal_yaw)
    assert camera_heading_deg(meta) == pytest.approx(gimbal_yaw)


def test_pelican_photo_full_xmp(shared_data: Path) -> None:
    meta = read_metadata(shared_data / PELICAN)
    assert (meta.model, meta.width, meta.height) == ("FC6310", 1058, 997)
    assert meta.lat == pytest.approx(45 + 2 / 60 + 16.77 / 3600, abs=1e-7)
    assert meta.lon == pytest.approx(-(94 + 20 / 60 + 55.53 / 3600), abs=1e-7)
    assert (meta.rel_altitude_m, meta.abs_altitude_m) == (pytest.approx(61.10), pytest.approx(422.55))
    assert (meta.gimbal_yaw_deg, meta.gimbal_pitch_deg) == (pytest.approx(111.3), pytest.approx(-88.0))
    assert (meta.flight_yaw_deg, meta.flight_pitch_deg, meta.flight_roll_deg) == (
        pytest.approx(110.6), pytest.approx(3.2), pytest.approx(6.5))
    assert meta.calibrated_focal_px == pytest.approx(3666.666504)
    intr = intrinsics_for(meta.width, meta.height, meta)
    # A crop of the 5472-px frame: the calibrated focal applies unchanged; GSD ≈ 61.1 m / 3666.7 px ≈ 1.67 cm.
    assert intr.fx == pytest.approx(3666.666504) and "crop" in intr.source
    assert meta.rel_altitude_m / intr.fx == pytest.approx(0.01666, abs=2e-4)
    assert (intr.cx, intr.cy) == (529.0, 498.5)


def test_fc6310_sensor_table_agrees_with_the_real_calibration(shared_data: Path) -> None:
    calibrated = read_metadata(shared_data / PELICAN).calibrated_focal_px
    from_mm = intrinsics_for(5472, 3648, CameraMetadata(model="FC6310", focal_mm=8.8)).fx  # 8.8/13.2*5472
    assert from_mm == pytest.approx(calibrated, rel=0.01)


def test_dji_focal_from_focal_length_and_sensor_width() -> None:
    meta = read_metadata(EXAMPLES / "DJI_0018.JPG")
    intr = intrinsics_for(meta.width, meta.height, meta)
    assert intr.fx == pytest.approx(3.61 / 6.17 * 4000) and intr.fy == intr.fx
    assert (intr.cx, intr.cy) == (2000.0, 1125.0) and "focal_mm" in intr.source
    assert intr.K.shape == (3, 3) and intr.K[0, 2] == 2000.0
    # The 35 mm equivalent (20 mm, 16:9 image → 36 mm ↔ width) is an independent estimate of the same focal.
    from35 = intrinsics_for(4000, 2250, CameraMetadata(focal_35mm=meta.focal_35mm))
    assert from35.fx == pytest.approx(intr.fx, rel=0.06) and "35mm" in from35.source


def test_quarter_turned_copy_takes_the_sensor_width_along_its_height() -> None:
    # DJI FC300S (dji_survey_dev/README.md): 3.61 mm over a 6.17 mm wide sensor, frame recorded 4000 x 2250.
    meta = CameraMetadata(focal_mm=3.61, sensor_width_mm=6.17, recorded_size=(4000, 2250))
    assert intrinsics_for(4000, 2250, meta).fx == pytest.approx(3.61 / 6.17 * 4000)
    turned = intrinsics_for(2250, 4000, meta)
    assert turned.fx == pytest.approx(3.61 / 6.17 * 4000) and "quarter-turned" in turned.source
    assert intrinsics_for(1125, 2000, meta).fx == pytest.approx(3.61 / 6.17 * 2000)  # a turned, halved copy
    assert intrinsics_for(1000, 1000, meta).fx == pytest.approx(3.61 / 6.17 * 1000)  # a square crop: not turned


def test_precedence_override_beats_metadata() -> None:
    meta = CameraMetadata(model="FC300S", focal_mm=3.61, focal_35mm=20, calibrated_focal_px=3000.0)
    assert intrinsics_for(4000, 3000, meta, focal_px=1234.0).fx == 1234.0
    assert intrinsics_for(4000, 3000, meta, hfov_deg=90.0).fx == pytest.approx(2000.0)
    assert intrinsics_for(4000, 3000, meta).fx == 3000.0  # calibrated beats focal_mm
    no_cal = CameraMetadata(model="FC300S", focal_mm=3.61, focal_35mm=20)
    assert intrinsics_for(4000, 3000, no_cal, sensor_width_mm=7.22).fx == pytest.approx(2000.0)
    assert intrinsics_for(4000, 3000, CameraMetadata(focal_mm=3.61, focal_35mm=20)).source.startswith("focal_35mm")


def test_35mm_equivalent_is_diagonal_based() -> None:
    # 3:2 frame: diagonal and width conventions coincide (24 mm on 36 mm → f = 2/3 of the width).
    assert intrinsics_for(6000, 4000, CameraMetadata(focal_35mm=24)).fx == pytest.approx(4000.0)
    # 4:3 frame: 43.27 mm ↔ 5000 px diagonal.
    f = intrinsics_for(4000, 3000, CameraMetadata(focal_35mm=20)).fx
    assert f == pytest.approx(20 / math.hypot(36, 24) * 5000)


def test_calibrated_focal_scaled_for_a_resized_frame() -> None:
    meta = CameraMetadata(calibrated_focal_px=3666.0, calibrated_cx_px=2736.0, calibrated_cy_px=1824.0)
    full = intrinsics_for(5472, 3648, meta)
    half = intrinsics_for(2736, 1824, meta)
    assert (full.fx, full.cx) == (3666.0, 2736.0)
    assert (half.fx, half.cx, half.cy) == (1833.0, 1368.0, 912.0) and "resized" in half.source


def test_default_hfov_when_nothing_is_known(shared_data: Path) -> None:
    meta = read_metadata(shared_data / "opencv_aero" / "aero1.jpg")  # no EXIF at all
    assert (meta.width, meta.height) == (640, 480)
    assert meta.lat is None and meta.focal_mm is None and meta.gimbal_yaw_deg is None and meta.model is None
    intr = intrinsics_for(640, 480, meta)
    assert intr.hfov_deg == pytest.approx(DEFAULT_HFOV_DEG) and intr.source.startswith("default")
    assert camera_heading_deg(meta) is None


def test_heading_prefers_gimbal_then_flight_and_wraps() -> None:
    assert camera_heading_deg(CameraMetadata(gimbal_yaw_deg=-135.0, flight_yaw_deg=10.0)) == 225.0
    assert camera_heading_deg(CameraMetadata(flight_yaw_deg=-10.0)) == 350.0


def test_bad_inputs_raise_clear_errors(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("not an image")
    with pytest.raises(ToolError, match="not a readable image"):
        read_metadata(text)
    with pytest.raises(ToolError, match="not found"):
        read_metadata(tmp_path / "missing.jpg")
    with pytest.raises(ToolError, match="positive integers"):
        intrinsics_for(0, 100)
    with pytest.raises(ToolError, match="focal_px"):
        intrinsics_for(100, 100, focal_px=-5.0)
    with pytest.raises(ToolError, match="hfov_deg"):
        intrinsics_for(100, 100, hfov_deg=180.0)
    with pytest.raises(ToolError, match="sensor_width_mm"):
        intrinsics_for(100, 100, sensor_width_mm=0.0)


def test_intrinsics_matrix_layout() -> None:
    intr = Intrinsics(800.0, 810.0, 480.0, 270.0, 960, 540, "test")
    np.testing.assert_array_equal(intr.K, [[800, 0, 480], [0, 810, 270], [0, 0, 1]])
    assert intr.hfov_deg == pytest.approx(math.degrees(2 * math.atan(0.6)))
