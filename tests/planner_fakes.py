"""A tiny in-memory FastMCP server exposing the contract's tool names, whose geometry each test sets (regions at
known places, pose results with known values), and a helper asking the agent through it: the planner tests' fakes."""

from __future__ import annotations

import asyncio
import math

from mcp.server.fastmcp import FastMCP
from mcp.shared.memory import create_connected_server_and_client_session

from agent.agent import Agent

W, H = 640, 480


# Region boxes placed by construction: 3 straight right of the centre, 5 straight below, 7 up-left at 45°.
REGIONS = {3: [500, 220, 540, 260], 5: [300, 400, 340, 440], 7: [140, 60, 180, 100]}


def clock_of(target: list[float], anchor: list[float] | None) -> tuple[int, float]:
    """Reference clock convention (12 = image up, clockwise, nearest hour) on box centres."""
    tx, ty = (target[0] + target[2]) / 2, (target[1] + target[3]) / 2
    ax, ay = ((anchor[0] + anchor[2]) / 2, (anchor[1] + anchor[3]) / 2) if anchor else (W / 2, H / 2)
    ang = math.degrees(math.atan2(tx - ax, -(ty - ay))) % 360
    return (round(ang / 30) % 12) or 12, ang


def make_server(pose: dict, meta_pose: dict) -> FastMCP:
    srv = FastMCP("test-tools")
    calls: list[str] = []

    @srv.tool()
    def read_regions(image: str, expected_ids: list[int] | None = None, annotate: bool = False) -> dict:
        calls.append("read_regions")
        ids = expected_ids or sorted(REGIONS)
        return {"regions": [{"id": i, "bbox": REGIONS[i], "label_text": f"Region {i}", "confidence": 0.9}
                            for i in ids if i in REGIONS], "image_size": [W, H]}

    @srv.tool()
    def clock_direction(target: list[float], image: str | None = None, image_size: list[int] | None = None,
                        anchor: list[float] | None = None, heading_deg: float = 0.0, rounding: str = "nearest",
                        annotate: bool = False) -> dict:
        calls.append("clock_direction")
        hour, ang = clock_of(target, anchor)
        return {"hour": hour, "angle_deg": ang, "anchor": anchor, "convention": "12 = image up"}

    @srv.tool()
    def relative_pose(image_a: str, image_b: str, altitude_m: float | None = None, pitch_deg: float | None = None,
                      focal_px: float | None = None, hfov_deg: float | None = None, use_metadata: bool = True,
                      annotate: bool = False) -> dict:
        calls.append("relative_pose")
        return pose

    @srv.tool()
    def pose_from_metadata(image_a: str, image_b: str, annotate: bool = False) -> dict:
        calls.append("pose_from_metadata")
        return meta_pose

    @srv.tool()
    def detect(image: str, labels: list[str] | None = None, conf: float = 0.25, tile: str = "auto",
               annotate: bool = False) -> dict:
        raise ValueError("detector weights missing: set Config.yolo_weights")

    srv.calls = calls  # type: ignore[attr-defined]
    return srv


UNDECIDED = {"heading_deg": None, "heading_signed_deg": None, "translation_m": None, "horizontal_m": None,
             "scale_known": False, "confident": False, "reason": "too few inliers (4)"}


DECIDED = {"heading_deg": 330.0, "heading_signed_deg": -30.0, "translation_m": [12.0, -5.0, 0.0],
           "horizontal_m": 13.0, "scale_known": True, "heading_uncertainty_deg": 1.0, "confident": True,
           "reason": None}


def ask(agent: Agent, server: FastMCP, images: list[str], question: str, **kw):
    async def run():
        async with create_connected_server_and_client_session(server._mcp_server) as session:
            return await agent.aask(images, question, session=session, **kw)

    return asyncio.run(run())


CROSSVIEW_REGIONS = {1: [100, 100, 140, 140], 2: [300, 200, 340, 240], 3: [500, 50, 540, 90]}


def make_crossview_server(not_visible: list[int], order_for_pitch) -> FastMCP:
    srv = FastMCP("test-crossview")
    srv.pitches = []  # type: ignore[attr-defined]

    @srv.tool()
    def read_regions(image: str, expected_ids: list[int] | None = None, annotate: bool = False) -> dict:
        ids = expected_ids or sorted(CROSSVIEW_REGIONS)
        return {"regions": [{"id": i, "bbox": CROSSVIEW_REGIONS[i], "confidence": 0.9} for i in ids if i in CROSSVIEW_REGIONS],
                "image_size": [640, 480]}

    @srv.tool()
    def region_visibility(image_a: str, image_b: str, regions_a: list[dict] | None = None) -> dict:
        return {"regions": [], "not_visible": not_visible, "match_confidence": 0.9, "confident": True, "reason": None}

    @srv.tool()
    def rank_by_distance(image: str, regions: list[dict], altitude_m: float | None = None,
                         pitch_deg: float | None = None, focal_px: float | None = None,
                         order: str = "nearest_first") -> dict:
        srv.pitches.append(pitch_deg)  # type: ignore[attr-defined]
        assumed = ["pitch_deg"] if pitch_deg is None else []
        return {"order": order_for_pitch(-45.0 if pitch_deg is None else pitch_deg), "assumed": assumed,
                "confident": not assumed, "reason": "camera pitch unknown, assumed -45.0 deg" if assumed else None}

    return srv
