"""The planner graph against a tiny in-memory FastMCP server exposing the contract's tool names.

The test server's geometry is set by each test (regions at known places, pose results with known values), so
the expected answers follow from construction, not from the code under test. Exercises: clock with the drone or
a region as anchor, counter-clockwise numbering, the verify → plan retry loop (next strategy), abstentions
(unconfident tools, tool errors, semantics without an LLM, unplaced questions) and the checkpointer.
"""

from __future__ import annotations

import asyncio
import math

import numpy as np
import pytest
from mcp.server.fastmcp import FastMCP
from mcp.shared.memory import create_connected_server_and_client_session
from PIL import Image

from agent.agent import Agent
from agent.config import Config

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


@pytest.fixture(scope="module")
def images(tmp_path_factory) -> list[str]:
    d = tmp_path_factory.mktemp("imgs")
    paths = []
    for i in range(2):
        p = d / f"view{i}.png"
        Image.fromarray(np.full((H, W, 3), 90 + 40 * i, np.uint8)).save(p)
        paths.append(str(p))
    return paths


@pytest.fixture(scope="module")
def agent() -> Agent:
    return Agent(Config(), use_embeddings=False)


def ask(agent: Agent, server: FastMCP, images: list[str], question: str, **kw):
    async def run():
        async with create_connected_server_and_client_session(server._mcp_server) as session:
            return await agent.aask(images, question, session=session, **kw)

    return asyncio.run(run())


@pytest.mark.parametrize("rid", sorted(REGIONS))
def test_clock_from_the_drone(agent, images, rid):
    srv = make_server(DECIDED, DECIDED)
    q = (f"With the front facing the 12 o'clock direction, in which o'clock direction is the target in Region {rid} "
         "relative to the drone? Answer with only the clock direction, formatted exactly like `3 o'clock`.")
    a = ask(agent, srv, images[:1], q)
    expected = {3: 3, 5: 6, 7: 10}[rid]  # right, below, up-left at 45° (= 315° → 10.5 → nearest 10)
    assert (a.text, a.task, a.abstained) == (f"{expected} o'clock", "Direction_Recognition", False)
    assert [c["tool"] for c in a.trace] == ["read_regions", "clock_direction"]
    assert a.trace[1]["args"]["target"] == REGIONS[rid]


def test_clock_from_a_region_and_counterclockwise(agent, images):
    srv = make_server(DECIDED, DECIDED)
    a = ask(agent, srv, images[:1], "Seen from region 7, at what o'clock is region 3?")
    assert a.text == f"{clock_of(REGIONS[3], REGIONS[7])[0]} o'clock"
    assert a.trace[1]["args"]["anchor"] == REGIONS[7]
    b = ask(agent, srv, images[:1], "Counting counter-clockwise, in which o'clock direction is region 3 relative "
                                    "to the drone?")
    assert b.text == "9 o'clock"  # 3 o'clock mirrored


def test_retry_loop_uses_the_next_strategy(agent, images):
    srv = make_server(UNDECIDED, DECIDED)
    a = ask(agent, srv, images, "What are the aligned heading offset angle and relative translation distance from "
                                "Image 1 to Image 2's target pose?")
    assert srv.calls == ["relative_pose", "pose_from_metadata"]
    assert a.text == "-30.0 degrees, 13.0 meters" and not a.abstained
    assert len(a.attempts) == 2 and "too few inliers" in a.attempts[0]["evidence"]["reason"]
    signed = ask(agent, make_server(DECIDED, DECIDED), images, "What is the heading offset angle from Image 1 to "
                 "Image 2? The distance is the signed displacement along Image 1's forward direction, angle only.")
    assert signed.format == "ANGLE"


def test_forward_distance_convention(agent, images):
    q = ("What are the aligned heading offset angle and relative translation distance from Image 1 to Image 2's "
         "target pose? The distance is the signed horizontal displacement along Image 1's forward direction.")
    a = ask(agent, make_server(DECIDED, DECIDED), images, q)
    assert a.text == "-30.0 degrees, 12.0 meters"


def test_both_strategies_fail_gives_abstention_with_reasons(agent, images):
    srv = make_server(UNDECIDED, dict(UNDECIDED, reason="no GPS in metadata"))
    a = ask(agent, srv, images, "How far apart were these two photos taken?")
    assert a.abstained and a.text == "" and a.value is None
    assert "too few inliers" in a.reason and "no GPS" in a.reason


def test_tool_error_becomes_abstention(agent, images):
    a = ask(agent, make_server(DECIDED, DECIDED), images[:1], "How many people are in this picture?")
    assert a.abstained and "detector weights missing" in a.reason
    assert a.trace[-1]["error"]


def test_semantics_without_llm_abstains(agent, images):
    srv = make_server(DECIDED, DECIDED)
    a = ask(agent, srv, images[:1], "Which regions in the image contain a parking lot? Answer with only the region "
                                    "labels, formatted exactly like `Region 1, 2`. No explanation.")
    assert a.abstained and a.task == "Region_Recognition" and "no LLM" in a.reason
    assert srv.calls == []  # never a guess, not even a tool call
    b = ask(agent, srv, images[:1], "Count the cars in the image.")
    assert b.abstained and "counting 'vehicle'" in b.reason and "detector" in b.reason


def test_unplaced_question_abstains(agent, images):
    a = ask(agent, make_server(DECIDED, DECIDED), images[:1], "Wibble the frobnicator quietly.")
    assert a.abstained and a.task is None and "could not be placed" in a.reason


def test_checkpointer_keeps_every_step(agent, images):
    # the camera transformation's named program tries the pixels, then (looping back) the metadata
    a = ask(agent, make_server(UNDECIDED, DECIDED), images,
            "What are the aligned heading offset angle and relative translation distance from Image 1 to Image 2's "
            "target pose?")
    states = agent.inspect(a.run_id)
    assert states[-1]["answer"]["text"] == a.text == "-30.0 degrees, 13.0 meters"
    visited = [s["next"] for s in states if s["next"]]
    assert ["plan"] in visited and visited.count(["act"]) == 2  # looped back once
