"""An unread box's id from the consecutive numbering of the others (planners.region_numbering): the truth is the
numbering each case is built from; a case that two numberings fit, or with two boxes unread, names no id."""

from __future__ import annotations

import pytest
from mcp.server.fastmcp import FastMCP
from planner_fakes import H, W, ask, clock_of

from planners.region_numbering import INFERRED_ID_CONFIDENCE, ids_left_over, infer_unread_id, with_inferred_id

BOX = [10.0, 20.0, 50.0, 60.0]


@pytest.mark.parametrize("read, unread_id", [
    ([0, 1, 2, 3, 4], 5),      # 0..5 with the last one unread (1..6 would not hold 0)
    ([0, 1, 3, 4, 5], 2),      # 0..5 with a gap
    ([1, 3], 2),               # 1..3 (0..2 would not hold 3)
    ([1, 2, 4], 3),            # 1..4 with a gap
    ([1, 2], None),            # 0..2 leaves 0, 1..3 leaves 3: either could be the unread box
    ([1, 2, 3, 4], None),
])
def test_the_one_unread_box_gets_the_id_its_numbering_leaves(read: list[int], unread_id: int | None) -> None:
    assert infer_unread_id(read, [BOX]) == ({} if unread_id is None else {unread_id: BOX})


def test_two_numberings_that_fit_name_no_id() -> None:
    assert ids_left_over([1, 2, 3], 4) is None  # 0..3 leaves 0, 1..4 leaves 4
    assert infer_unread_id([1, 2, 3], [BOX]) == {}


def test_an_id_outside_any_numbering_names_no_id() -> None:
    assert ids_left_over([0, 1, 7], 4) is None
    assert infer_unread_id([0, 1, 7], [BOX]) == {}


def test_two_unread_boxes_name_no_id() -> None:
    assert infer_unread_id([0, 1, 2], [BOX, BOX]) == {}


def test_with_inferred_id_adds_the_box_at_reduced_confidence() -> None:
    regions = {0: {"id": 0, "bbox": [0, 0, 5, 5], "confidence": 1.0}, 2: {"id": 2, "bbox": [9, 9, 15, 15]}}
    out, unread = with_inferred_id(regions, [BOX])
    assert unread == [] and out[1]["bbox"] == BOX and out[1]["confidence"] == INFERRED_ID_CONFIDENCE
    assert out[1]["id_from"] == "numbering" and out[0] == regions[0]
    same, still = with_inferred_id(regions, [BOX, BOX])
    assert same == regions and still == [BOX, BOX]


# --- through the agent: a clock question about the box whose label was not read -----------------------------
CLOCK_Q = ("With the front facing the 12 o'clock direction, in which o'clock direction is the target in Region 2 "
           "relative to the drone? Answer formatted exactly like `N o'clock`. No explanation.")
READ = {0: [60, 60, 100, 100], 1: [540, 60, 580, 100], 3: [60, 380, 100, 420]}
BELOW_CENTRE = [300, 400, 340, 440]   # region 2, drawn straight below the image centre: 6 o'clock


def numbered_server(unread: list[list[float]]) -> FastMCP:
    """Regions 0, 1 and 3 read; ``unread`` drawn boxes whose label was not read (none when ids are asked for)."""
    srv = FastMCP("test-numbering")

    @srv.tool()
    def read_regions(image: str, expected_ids: list[int] | None = None, annotate: bool = False) -> dict:
        ids = expected_ids or sorted(READ)
        return {"regions": [{"id": i, "bbox": READ[i], "confidence": 0.9} for i in ids if i in READ],
                "image_size": [W, H], "unlabeled_boxes": [] if expected_ids else unread}

    @srv.tool()
    def clock_direction(target: list[float], image: str | None = None, image_size: list[int] | None = None,
                        anchor: list[float] | None = None, heading_deg: float = 0.0, rounding: str = "nearest",
                        annotate: bool = False) -> dict:
        hour, ang = clock_of(target, anchor)
        return {"hour": hour, "angle_deg": ang}

    return srv


def test_a_clock_question_about_the_unread_box_uses_the_id_the_numbering_leaves(agent, images) -> None:
    ans = ask(agent, numbered_server([BELOW_CENTRE]), images[:1], CLOCK_Q)
    assert not ans.abstained and ans.text == "6 o'clock", ans.reason
    assert ans.confidence <= INFERRED_ID_CONFIDENCE


def test_two_unread_boxes_leave_the_region_unread(agent, images) -> None:
    ans = ask(agent, numbered_server([BELOW_CENTRE, [560, 200, 600, 240]]), images[:1], CLOCK_Q)
    assert ans.abstained and "could not be read" in (ans.reason or "")
