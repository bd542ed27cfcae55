"""Every registered tool called through the real MCP client (in-memory transport) on real images.

Ground truth comes from known geometry: view B is view A (a real NEON orthophoto) warped by a known homography,
region overlays are drawn at known boxes, ground-plane sizes follow from altitude and focal length; EXIF values are
the files' own. Error cases each return an MCP error result and the next valid call on the same session succeeds.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import anyio
import cv2
import numpy as np
import pytest

from agent.config import Config
from mcp_server.client import ToolCallError, ToolReply, call, call_full, connect
from mcp_server.catalog import REGISTRY, tool_catalog
from mcp_server.server import SERVER_TOOLS

THETA_DEG = 12.0  # rotation of view B relative to view A (image plane, about the centre)
SHIFT_PX = (18.0, -11.0)


def known_h(size: int = 400) -> np.ndarray:
    """A → B: rotation by THETA_DEG about the image centre, then a shift (pixels)."""
    c = size / 2
    t = math.radians(THETA_DEG)
    rot = np.array([[math.cos(t), -math.sin(t), 0], [math.sin(t), math.cos(t), 0], [0, 0, 1]])
    to_c, back = np.array([[1, 0, -c], [0, 1, -c], [0, 0, 1.0]]), np.array([[1, 0, c], [0, 1, c], [0, 0, 1.0]])
    shift = np.array([[1, 0, SHIFT_PX[0]], [0, 1, SHIFT_PX[1]], [0, 0, 1.0]])
    return shift @ back @ rot @ to_c


def warp_pts(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    return cv2.perspectiveTransform(np.asarray(pts, np.float64).reshape(-1, 1, 2), H).reshape(-1, 2)


@pytest.fixture(scope="module")
def scene(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Files in a temporary root: view A, view B = warp(A, known H), an unrelated thermal frame, a region overlay."""
    from benchmarks.synth.overlay import draw_regions

    root = tmp_path_factory.mktemp("mcp_root")
    a = cv2.imread(str(shared_data / "deepforest_neon" / "OSBS_029.png"))
    H = known_h(a.shape[1])
    cv2.imwrite(str(root / "a.png"), a)
    cv2.imwrite(str(root / "b.png"), cv2.warpPerspective(a, H, (a.shape[1], a.shape[0])))
    thermal = shared_data / "hit_uav_thermal" / "images" / "0_130_90_0_09869.jpg"
    (root / "thermal.jpg").write_bytes(thermal.read_bytes())
    regions = [(3, [40, 60, 150, 140]), (7, [230, 200, 360, 330])]
    overlay = draw_regions(cv2.cvtColor(a, cv2.COLOR_BGR2RGB), regions)
    cv2.imwrite(str(root / "regions.png"), cv2.cvtColor(overlay, cv2.COLOR_RGB2BGR))
    (root / "corrupt.png").write_bytes((root / "a.png").read_bytes()[:64] + b"\x00" * 64)
    config = Config(allowed_roots=[str(root), str(shared_data)], call_timeout_s=120.0)
    return {"root": root, "H": H, "regions": regions, "config": config, "data": shared_data}


def run(config: Config, name: str, args: dict[str, Any]) -> ToolReply:
    async def go() -> ToolReply:
        async with connect(config) as session:
            return await call_full(session, name, args)

    return anyio.run(go)


def decode_png(data: bytes) -> np.ndarray:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    assert img is not None and img.ndim == 3
    return img


def test_list_tools_matches_the_registry_with_schemas(scene):
    async def go() -> list:
        async with connect(scene["config"]) as session:
            return (await session.list_tools()).tools

    tools = anyio.run(go)
    assert [t.name for t in tools] == [*REGISTRY, *SERVER_TOOLS]
    for t in tools[: len(REGISTRY)]:
        assert len(t.description) > 60, t.name  # written for a model choosing tools
        assert "annotate" in t.inputSchema["properties"]
        assert t.outputSchema is not None and t.outputSchema["type"] == "object"
    required = {"read_regions", "clock_direction", "rank_by_distance", "detect", "segment", "measure_objects",
                "image_quality", "camera_metadata", "match_views", "relative_pose", "pose_from_metadata",
                "associate_regions", "transfer_box", "rank_candidate_views", "ego_motion"}  # fmt: skip
    assert required <= set(REGISTRY)
    catalog = {c["name"]: c for c in tool_catalog()}  # what planners read without a session
    assert list(catalog) == list(REGISTRY)
    assert all(catalog[t.name]["input_schema"]["properties"] == t.inputSchema["properties"] for t in tools[:-1])


def test_output_schemas_are_the_handlers_result_types_and_results_satisfy_them(scene):
    """One source: a tool's output schema is the result type its handler's return annotation names (the tool's own
    dataclass where it has one), and what the server returns validates against it."""
    import dataclasses

    import jsonschema

    from tools.geometry.clock import ClockResult
    from tools.views.pose_types import RelativePose

    async def go() -> dict:
        async with connect(scene["config"]) as session:
            return {t.name: t.outputSchema for t in (await session.list_tools()).tools}

    schemas = anyio.run(go)
    assert REGISTRY["clock_direction"].result is ClockResult and REGISTRY["relative_pose"].result is RelativePose
    for name, result in (("clock_direction", ClockResult), ("pose_from_metadata", RelativePose)):
        assert set(schemas[name]["properties"]) == {f.name for f in dataclasses.fields(result)}, name
    clock = run(scene["config"], "clock_direction", {"target": [350, 200], "image_size": [400, 400]}).data
    jsonschema.validate(clock, schemas["clock_direction"])
    pose = run(scene["config"], "pose_from_metadata", {"image_a": str(scene["root"] / "a.png"),
                                                       "image_b": str(scene["root"] / "a.png")}).data
    jsonschema.validate(pose, schemas["pose_from_metadata"])


def test_match_views_recovers_the_known_homography_and_draws_matches(scene):
    root = scene["root"]
    reply = run(scene["config"], "match_views",
                {"image_a": str(root / "a.png"), "image_b": str(root / "b.png"), "method": "sift", "annotate": True})
    assert reply.data["confident"] and reply.data["n_inliers"] >= 30
    corners = np.array([[0, 0], [399, 0], [399, 399], [0, 399]], float)
    err = np.linalg.norm(warp_pts(np.array(reply.data["H"]), corners) - warp_pts(scene["H"], corners), axis=1)
    assert err.max() < 3.0
    assert decode_png(reply.images[0]).shape[1] == 800  # both views side by side


def test_transfer_box_lands_on_the_known_warp(scene):
    root, box = scene["root"], [120.0, 150.0, 220.0, 230.0]
    args = {"image_a": str(root / "a.png"), "image_b": str(root / "b.png"), "bbox": box}
    data = run(scene["config"], "transfer_box", args).data
    pts = warp_pts(scene["H"], np.array([[box[0], box[1]], [box[2], box[1]], [box[2], box[3]], [box[0], box[3]]]))
    expected = [*pts.min(axis=0), *pts.max(axis=0)]
    assert data["confident"] and data["visible_fraction"] > 0.99
    assert np.allclose(data["bbox"], expected, atol=3.0)


def test_associate_regions_pairs_boxes_through_the_warp(scene):
    root, H = scene["root"], scene["H"]
    regions_a = [{"id": i, "bbox": b} for i, b in scene["regions"]]
    regions_b = []
    for new_id, (_, b) in zip((11, 4), scene["regions"]):
        pts = warp_pts(H, np.array([[b[0], b[1]], [b[2], b[1]], [b[2], b[3]], [b[0], b[3]]]))
        regions_b.append({"id": new_id, "bbox": [*pts.min(axis=0).tolist(), *pts.max(axis=0).tolist()]})
    data = run(scene["config"], "associate_regions", {"image_a": str(root / "a.png"), "image_b": str(root / "b.png"),
                                                      "regions_a": regions_a, "regions_b": regions_b}).data
    assert {(p["a"], p["b"]) for p in data["pairs"]} == {(3, 11), (7, 4)}
    assert data["only_in_a"] == [] and data["only_in_b"] == [] and data["confident"]


def test_rank_candidate_views_puts_the_overlapping_view_first(scene):
    root = scene["root"]
    data = run(scene["config"], "rank_candidate_views",
               {"image": str(root / "a.png"), "candidates": [str(root / "thermal.jpg"), str(root / "b.png")],
                "method": "sift"}).data
    assert data["ranking"][0]["index"] == 1 and data["ranking"][0]["overlap"] > 0.8 and data["confident"]


def test_read_regions_through_mcp_equals_the_direct_call_with_annotation(scene):
    from tools.common import to_jsonable
    from tools.regions.pipeline import read_regions

    path = scene["root"] / "regions.png"
    reply = run(scene["config"], "read_regions", {"image": str(path), "annotate": True})
    assert reply.data["regions"] == to_jsonable(read_regions(str(path), outer_edges=True))
    assert reply.data["unlabeled_boxes"] == []    # both drawn boxes carry a label
    assert reply.data["image_size"] == [400, 400]
    assert decode_png(reply.images[0]).shape == (400, 400, 3)


def test_read_regions_reports_a_drawn_box_without_a_label(scene):
    """A third box drawn in the overlay's colour and width but with no label: not a region, yet reported."""
    from benchmarks.synth.overlay import RegionStyle
    from tools.regions.pipeline import iou

    style, box = RegionStyle(), [250, 40, 370, 150]
    img = cv2.imread(str(scene["root"] / "regions.png"))
    cv2.rectangle(img, box[:2], box[2:], style.color[::-1], style.line_width)   # BGR
    path = scene["root"] / "unlabeled.png"
    cv2.imwrite(str(path), img)
    reply = run(scene["config"], "read_regions", {"image": str(path)})
    assert sorted(r["id"] for r in reply.data["regions"]) == [3, 7]
    assert len(reply.data["unlabeled_boxes"]) == 1 and iou(reply.data["unlabeled_boxes"][0], box) >= 0.9, reply.data


def test_rank_by_distance_follows_ground_geometry(scene):
    # Oblique camera: on flat ground, a lower foot point in the image is nearer to the drone.
    regions = [{"id": 1, "bbox": [100, 300, 140, 340]}, {"id": 2, "bbox": [200, 120, 240, 160]},
               {"id": 5, "bbox": [300, 220, 340, 260]}]  # fmt: skip
    data = run(scene["config"], "rank_by_distance", {"image": str(scene["root"] / "a.png"), "regions": regions,
                                                     "altitude_m": 40.0, "pitch_deg": -45.0, "focal_px": 400.0}).data
    assert data["order"] == [1, 5, 2]
    d = data["distances_m"]
    assert d["1"] < d["5"] < d["2"]


def test_measure_objects_on_flat_ground_at_nadir(scene):
    # Nadir at 100 m with f = 400 px: one pixel spans 0.25 m on the ground; the centre box is 10 m wide.
    data = run(scene["config"], "measure_objects", {"image": str(scene["root"] / "a.png"),
                                                    "boxes": [[180, 180, 220, 220], [280, 180, 320, 220]],
                                                    "altitude_m": 100.0, "pitch_deg": -90.0, "focal_px": 400.0}).data
    first = data["objects"][0]
    assert first["distance_m"] == pytest.approx(100.0, rel=0.02)
    assert first["width_m"] == pytest.approx(10.0, rel=0.15)
    assert data["separations"][0]["horizontal_m"] == pytest.approx(25.0, rel=0.05)  # 100 px apart
    assert {c["hour"] for c in data["clock_between"] if c["from"] == 0} == {3}  # object 1 is to the right
    assert data["depth_source"] == "flat ground plane"


def test_camera_metadata_reads_the_dji_exif(scene):
    data = run(scene["config"], "camera_metadata",
               {"image": str(scene["data"] / "dji_survey_dev" / "images" / "DJI_0018.JPG")}).data
    assert data["metadata"]["model"] == "FC300S" and data["metadata"]["make"] == "DJI"
    assert data["intrinsics"]["width"] == 4000 and data["intrinsics"]["height"] == 2250
    assert data["metadata"]["lat"] is not None and data["metadata"]["rel_altitude_m"] is not None


def test_pose_from_metadata_equals_the_tool_called_directly(scene):
    from tools.geometry.camera import read_metadata
    from tools.common import to_jsonable
    from tools.views.pose import pose_from_metadata

    a, b = (scene["data"] / "dji_survey_dev" / "images" / n for n in ("DJI_0018.JPG", "DJI_0019.JPG"))
    data = run(scene["config"], "pose_from_metadata", {"image_a": str(a), "image_b": str(b)}).data
    direct = to_jsonable(pose_from_metadata(read_metadata(a), read_metadata(b)))
    assert data == direct


def test_relative_pose_and_ego_motion_recover_the_rotation(scene):
    root = scene["root"]
    pose = run(scene["config"], "relative_pose", {"image_a": str(root / "a.png"), "image_b": str(root / "b.png"),
                                                  "altitude_m": 50.0, "pitch_deg": -90.0, "focal_px": 400.0}).data
    assert pose["confident"] and abs(pose["heading_signed_deg"]) == pytest.approx(THETA_DEG, abs=1.0)
    motion = run(scene["config"], "ego_motion", {"images": [str(root / "a.png"), str(root / "b.png")],
                                                 "altitude_m": 50.0, "annotate": True})  # fmt: skip
    step = motion.data["steps"][0]
    assert abs(step["yaw_deg"]) == pytest.approx(THETA_DEG, abs=1.0)
    assert isinstance(motion.data["description"], str) and motion.data["description"]
    decode_png(motion.images[0])


@pytest.mark.slow  # loads ultralytics and the bundled YOLOv8s (~10 s on 2 cores)
def test_detect_through_mcp_equals_the_direct_call(scene):
    from tools.perception.detect import detect

    image = scene["data"] / "deepforest_neon" / "AWPE Pigeon Lake 2020 DJI_0005.JPG"
    data = run(scene["config"], "detect", {"image": str(image), "conf": 0.1, "tile": "none"}).data
    direct = detect(str(image), conf=0.1, tile=None, config=scene["config"])
    assert len(direct) > 0 and len(data["detections"]) == len(direct)
    assert np.allclose([d["bbox"] for d in data["detections"]], [d.bbox for d in direct])
    assert sum(data["counts"].values()) == len(direct)
    assert all(d["grid"] in {"top-left", "top", "top-right", "left", "center", "right", "bottom-left", "bottom",
                             "bottom-right"} for d in data["detections"])  # fmt: skip


def test_errors_are_mcp_error_results_and_the_session_keeps_serving(scene):
    root = scene["root"]
    good = {"image_a": str(root / "a.png"), "image_b": str(root / "b.png"), "bbox": [120, 150, 220, 230]}
    bad_calls = [
        ("transfer_box", {**good, "image_a": "/etc/hostname"}, "path not allowed"),
        ("transfer_box", {**good, "image_a": str(root / "corrupt.png")}, "not a readable image"),
        ("transfer_box", {**good, "bbox": "wide"}, "validation error"),
        ("transfer_box", {**good, "bbox": [1, 2, 3]}, "4 numbers"),
        ("no_such_tool", {}, "Unknown tool"),
        ("segment", {"image": str(root / "a.png"), "boxes": [[10, 10, 50, 50]]}, "sam_checkpoint"),
    ]

    async def go() -> None:
        async with connect(Config(**{**scene["config"].__dict__, "sam_checkpoint": None})) as session:
            for name, args, message in bad_calls:
                with pytest.raises(ToolCallError, match=message):
                    await call(session, name, args)
                assert (await call(session, "transfer_box", good))["confident"]

    anyio.run(go)


def test_limits_name_the_setting_and_the_server_recovers(scene):
    root = scene["root"]
    config = Config(allowed_roots=[str(root)], max_image_pixels=300 * 300, max_images_per_call=2)
    small = root / "small.png"
    cv2.imwrite(str(small), cv2.resize(cv2.imread(str(root / "a.png")), (200, 200)))

    async def go() -> None:
        async with connect(config) as session:
            with pytest.raises(ToolCallError, match="max_image_pixels"):
                await call(session, "camera_metadata", {"image": str(root / "a.png")})
            with pytest.raises(ToolCallError, match="max_images_per_call"):
                await call(session, "rank_candidate_views", {"image": str(small), "candidates": [str(small)] * 2})
            assert (await call(session, "camera_metadata", {"image": str(small)}))["intrinsics"]["width"] == 200

    anyio.run(go)


def test_per_call_timeout_stops_the_worker_and_the_server_recovers(scene):
    """A served call past call_timeout_s has its worker process killed (no CPU burnt after the caller gave up)."""
    from mcp.shared.memory import create_connected_server_and_client_session

    from mcp_server.server import build_server

    root, frames = scene["root"], scene["data"] / "dji_survey_dev" / "images"
    server = build_server(Config(allowed_roots=[str(root), str(frames)], call_timeout_s=0.5, tool_workers=1))
    slow = {"images": [str(frames / n) for n in ("DJI_0018.JPG", "DJI_0019.JPG", "DJI_0020.JPG")]}  # 3 x 9 MP

    async def go() -> tuple[int | None, int | None]:
        async with create_connected_server_and_client_session(server) as session:
            with pytest.raises(ToolCallError, match="call_timeout_s=0.5 s and was stopped.*UAV_AGENT_CALL_TIMEOUT_S"):
                await call(session, "ego_motion", slow)
            killed = server.workers.last_pid
            data = await call(session, "clock_direction", {"target": [350, 200], "image_size": [400, 400]})
            assert data["hour"] == 3
            return killed, server.workers.last_pid

    try:
        killed, fresh = anyio.run(go)
    finally:
        server.workers.close()
    assert killed is not None and fresh != killed and server.workers.killed == 1
    with pytest.raises(ProcessLookupError):
        os.kill(killed, 0)


def test_clock_direction_image_plane_convention(scene):
    cfg = scene["config"]
    # Anchor = image centre (200, 200), 12 o'clock = image up, 3 o'clock = right (SpatialUAV/BEDI convention).
    right = run(cfg, "clock_direction", {"target": [350, 200], "image": str(scene["root"] / "a.png"), "annotate": True})
    assert right.data["hour"] == 3
    decode_png(right.images[0])
    below_left = run(cfg, "clock_direction", {"target": [100, 300, 140, 340], "image_size": [400, 400]}).data
    assert below_left["hour"] == 7  # centre (120, 320): dx = -80, dy = +120 (down) -> 213.7 deg clockwise from up
    up_from_anchor = run(cfg, "clock_direction", {"target": [50, 0], "anchor": [50, 100], "image_size": [400, 400]})
    assert up_from_anchor.data["hour"] == 12


def test_image_quality_ranks_a_degraded_copy_lower(scene):
    root = scene["root"]
    a = cv2.imread(str(root / "a.png"))
    degraded = (cv2.GaussianBlur(a, (0, 0), 6) * 0.25).astype(np.uint8)  # strong blur and 4x darker
    cv2.imwrite(str(root / "degraded.png"), degraded)
    clean = run(scene["config"], "image_quality", {"image": str(root / "a.png")}).data
    bad = run(scene["config"], "image_quality", {"image": str(root / "degraded.png"), "annotate": True})
    assert bad.data["score"] < clean["score"] and bad.data["labels"]
    decode_png(bad.images[0])
