"""The planner graph against a tiny in-memory FastMCP server exposing the contract's tool names.

The test server's geometry is set by each test (regions at known places, pose results with known values), so
the expected answers follow from construction, not from the code under test. Exercises: clock with the drone or
a region as anchor, counter-clockwise numbering, the verify → plan retry loop (next strategy), abstentions
(unconfident tools, tool errors, semantics without an LLM, unplaced questions) and the checkpointer.
"""

from __future__ import annotations

import pytest
from planner_fakes import DECIDED, REGIONS, UNDECIDED, ask, clock_of, make_server


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
    assert b.abstained and "counting 'car'" in b.reason and "detector" in b.reason


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
