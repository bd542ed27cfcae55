"""Single-photo facts (altitude, tilt, heading, GSD, footprint) on real photos: truths are the tag values of the data
READMEs / exif_summary.csv put through the pinhole formulas by hand here, never the code under test."""

from __future__ import annotations

import csv
import math
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import pytest

from agent.config import Config
from tools.geometry.camera import CameraMetadata, read_metadata
from tools.common import ToolError
from tools.geometry.photo_geometry import photo_geometry

# ../shared/data/dji_survey_dev/README.md: RelAlt, GimbalYaw; FC300S focal 3.61 mm, 1/2.3" sensor 6.17 mm wide.
DJI = {"DJI_0018": (39.80, 45.0), "DJI_0019": (40.10, 42.8), "DJI_0020": (40.10, 44.2), "DJI_0035": (40.00, 45.3)}
DJI_FOCAL_PX = 3.61 / 6.17 * 4000
SEQUOIA_PX_PER_MM = 746.2686793  # FocalPlaneXResolution of the Sequoia RGB photos (exiftool -n)


@pytest.mark.parametrize("name", sorted(DJI))
def test_dji_altitude_gsd_footprint_heading(shared_data: Path, name: str) -> None:
    geo = photo_geometry(read_metadata(shared_data / "dji_survey_dev" / "images" / f"{name}.JPG"))
    rel, yaw = DJI[name]
    gsd = rel / DJI_FOCAL_PX
    assert geo.altitude_m == pytest.approx(rel) and "RelativeAltitude" in geo.altitude_source
    assert geo.focal_px == pytest.approx(DJI_FOCAL_PX, rel=1e-3)
    assert geo.gsd_m_per_px == pytest.approx(gsd / math.sin(math.radians(89.9)), rel=1e-3)
    assert geo.footprint_m == pytest.approx([gsd * 4000, gsd * 2250], rel=1e-3)
    assert (geo.view, geo.heading_deg) == ("nadir", pytest.approx(yaw))
    assert geo.pitch_deg == pytest.approx(-89.9) and geo.missing == {}


def test_sequoia_altitude_needs_the_ground_elevation(shared_data: Path) -> None:
    with open(shared_data / "garfield_dev" / "exif_summary.csv", newline="") as fh:
        row = next(csv.DictReader(fh))
    meta = read_metadata(shared_data / "garfield_dev" / row["SourceFile"])
    geo = photo_geometry(meta)
    assert geo.altitude_m is None and geo.gsd_m_per_px is None and geo.footprint_m is None
    assert "sea level" in geo.missing["altitude_m"] and "altitude_m" in geo.missing["gsd_m_per_px"]
    assert geo.heading_deg == pytest.approx(float(row["Yaw"]) % 360) and "Camera:Yaw" in geo.heading_source
    assert geo.view == "nadir"  # Pix4D pitch a few degrees from nadir
    ground = 255.0
    geo = photo_geometry(meta, ground_elevation_m=ground)
    alt = float(row["GPSAltitude"]) - ground
    focal = float(row["FocalLength"]) * SEQUOIA_PX_PER_MM
    depression = 90.0 - float(row["Pitch"])  # tilt from nadir = Pix4D pitch
    assert geo.altitude_m == pytest.approx(alt) and "ground elevation" in geo.altitude_source
    assert geo.gsd_m_per_px == pytest.approx(alt / math.sin(math.radians(depression)) / focal, rel=1e-4)
    tilt, half = math.radians(float(row["Pitch"])), math.atan(3456 / 2 / focal)
    along = alt * (math.tan(tilt + half) - math.tan(tilt - half))  # ground between the top and bottom edges
    assert geo.footprint_m == pytest.approx([geo.gsd_m_per_px * 4608, along], rel=1e-4)


@pytest.mark.parametrize("tilt, refused", [(0.0, False), (12.0, False), (16.0, True)])
def test_near_nadir_footprint_is_width_at_centre_by_ground_length(tilt: float, refused: bool) -> None:
    meta = CameraMetadata(width=1000, height=750)
    geo = photo_geometry(meta, altitude_m=100.0, pitch_deg=-90.0 + tilt, focal_px=1000.0)
    if refused:
        assert geo.footprint_m is None and "trapezoid" in geo.missing["footprint_m"]
        return
    t, half = math.radians(tilt), math.atan(375 / 1000)
    slant = 100.0 / math.cos(t)
    assert geo.footprint_m == pytest.approx([slant / 1000 * 1000, 100 * (math.tan(t + half) - math.tan(t - half))])


def test_thermal_frame_every_value_missing_with_reasons(shared_data: Path) -> None:
    geo = photo_geometry(read_metadata(shared_data / "hit_uav_thermal" / "images" / "0_80_50_0_06967.jpg"))
    for name in ("altitude_m", "pitch_deg", "view", "heading_deg", "focal_px", "gsd_m_per_px", "footprint_m",
                 "lat", "lon"):
        assert getattr(geo, name) is None and geo.missing[name], name
    assert (geo.width, geo.height) == (640, 512)
    assert "altitude" in geo.missing["altitude_m"].lower() and "focal" in geo.missing["focal_px"]


def test_values_from_the_question_override_and_are_checked(shared_data: Path) -> None:
    meta = read_metadata(shared_data / "hit_uav_thermal" / "images" / "0_60_30_0_01609.jpg")
    geo = photo_geometry(meta, altitude_m=60.0, pitch_deg=-30.0, focal_px=800.0)
    assert (geo.altitude_source, geo.pitch_source, geo.focal_source) == ("given in the question",) * 3
    assert geo.view == "oblique" and geo.footprint_m is None and "trapezoid" in geo.missing["footprint_m"]
    assert geo.gsd_m_per_px == pytest.approx(60.0 / math.sin(math.radians(30.0)) / 800.0)
    nadir = photo_geometry(meta, altitude_m=60.0, focal_mm=8.0, sensor_width_mm=6.4)  # no pitch: nadir assumed
    assert nadir.focal_px == pytest.approx(8.0 / 6.4 * 640)
    assert nadir.footprint_m == pytest.approx([60.0 / 800.0 * 640, 60.0 / 800.0 * 512])
    assert any("nadir" in a for a in nadir.assumptions)
    width = photo_geometry(meta, ground_width_m=128.0)
    assert width.gsd_m_per_px == pytest.approx(0.2) and width.footprint_m == pytest.approx([128.0, 102.4])
    for bad in ({"altitude_m": -5.0}, {"altitude_m": math.nan}, {"pitch_deg": 20.0}, {"focal_px": 0.0},
                {"sensor_width_mm": math.inf}, {"ground_width_m": -1.0}):
        with pytest.raises(ToolError):
            photo_geometry(meta, **bad)


def test_georeferenced_orthophoto(shared_data: Path) -> None:
    meta = read_metadata(shared_data / "deepforest_neon" / "OSBS_029.tif")
    if meta.reader == "pillow":
        pytest.skip("GeoTIFF keys need exiftool")
    geo = photo_geometry(meta)  # README: 400 x 400 px at 0.1 m
    assert geo.gsd_m_per_px == pytest.approx(0.1) and geo.footprint_m == pytest.approx([40.0, 40.0])
    assert (geo.heading_deg, geo.view) == (0.0, "nadir") and geo.altitude_m is None


class _Estimate(SimpleNamespace):
    pass


@pytest.mark.parametrize("estimate, view", [
    (_Estimate(pitch_deg=-88.0, interval_deg=(-90.0, -84.0), confident=True, focal_assumed=True, reason=None), "nadir"),
    (_Estimate(pitch_deg=-45.0, interval_deg=(-52.0, -38.0), confident=True, focal_assumed=False, reason=None),
     "oblique"),
    (_Estimate(pitch_deg=-82.0, interval_deg=(-90.0, -70.0), confident=True, focal_assumed=True, reason=None), None),
    (_Estimate(pitch_deg=-45.0, interval_deg=(-50.0, -40.0), confident=False, focal_assumed=True, reason="flat"),
     None),
])
def test_image_pitch_estimate_used_only_when_decisive(estimate: Any, view: str | None) -> None:
    geo = photo_geometry(CameraMetadata(width=640, height=480), estimate_pitch=lambda focal: estimate)
    assert geo.view == view
    if view is None:
        assert geo.pitch_deg is None and "estimate" in geo.missing["view"]
    else:
        assert geo.pitch_deg == estimate.pitch_deg and "estimated from the image" in geo.pitch_source


def test_mcp_tool_reports_the_planner_fields(shared_data: Path) -> None:
    from mcp_server.client import call_full, connect

    config = Config(allowed_roots=[str(shared_data)], call_timeout_s=120.0)

    async def go(path: Path) -> dict[str, Any]:
        async with connect(config) as session:
            return (await call_full(session, "photo_geometry", {"image": str(path)})).data

    dji = anyio.run(go, shared_data / "dji_survey_dev" / "images" / "DJI_0018.JPG")
    fields = ["altitude_m", "altitude_source", "pitch_deg", "pitch_source", "view", "heading_deg", "heading_source",
              "focal_px", "focal_source", "gsd_m_per_px", "footprint_m", "lat", "lon", "make", "model", "width",
              "height", "missing"]
    assert set(fields) <= set(dji) and dji["altitude_m"] == pytest.approx(39.8) and dji["view"] == "nadir"
    thermal = anyio.run(go, shared_data / "hit_uav_thermal" / "images" / "1_130_90_0_07333.jpg")
    assert thermal["altitude_m"] is None and thermal["altitude_m"] not in (512, 640)
    assert {"altitude_m", "gsd_m_per_px", "footprint_m", "heading_deg"} <= set(thermal["missing"])


def test_sky_in_view_makes_an_oblique_view_of_unknown_pitch(shared_data: Path) -> None:
    from tools.common import load_image
    from tools.geometry.view_cues import sky_at_top

    path = shared_data / "opencv_aero" / "aero3.jpg"  # README: oblique aerial photo, no metadata
    rgb = load_image(path)
    geo = photo_geometry(read_metadata(path), altitude_m=300.0, focal_px=1000.0,
                         sky_visible=lambda: sky_at_top(rgb).sky_visible)
    assert (geo.view, geo.pitch_deg) == ("oblique", None) and "sky" in geo.view_source
    assert geo.gsd_m_per_px is None and geo.footprint_m is None and "oblique" in geo.missing["gsd_m_per_px"]
    tagged = photo_geometry(read_metadata(shared_data / "dji_survey_dev" / "images" / "DJI_0018.JPG"),
                            sky_visible=lambda: True)  # a pitch tag wins over any image cue
    assert tagged.view == "nadir" and "GimbalPitch" in tagged.view_source
