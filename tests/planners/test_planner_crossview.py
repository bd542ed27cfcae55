"""Cross-view and distance plans against a tiny in-memory FastMCP server whose answers are set by construction:
occlusion reads ``region_visibility``; a distance ranking without a stated pitch is answered only when it is the
same for every plausible pitch (and then with reduced confidence), else the agent abstains."""

from __future__ import annotations

import asyncio

import pytest
from mcp.server.fastmcp import FastMCP
from mcp.shared.memory import create_connected_server_and_client_session

from agent.agent import Agent
from agent.config import Config
from planner_fakes import CROSSVIEW_REGIONS, make_crossview_server
from planners.pitch_sweep import ASSUMED_PITCH_CONFIDENCE, PITCH_SWEEP_DEG

REGIONS = CROSSVIEW_REGIONS
OCCLUSION_Q = ("Image 1 and Image 2 are two UAV images. Which regions marked in Image 1 contain objects that cannot "
               "be seen in Image 2, either because they are outside its view or because they are hidden? List them in "
               "increasing order. Answer with only the region labels, formatted exactly like `Region 1, 2`. "
               "No explanation.")
CLOSEST_Q = ("Which region is closest to the drone? Distances are measured on the ground from the point directly "
             "below the drone. Answer with only the region label, formatted exactly like `Region 1`. No explanation.")


def ask(server: FastMCP, images: list[str], question: str):
    async def run():
        async with create_connected_server_and_client_session(server._mcp_server) as session:
            return await Agent(Config(), use_embeddings=False).aask(images, question, session=session)
    return asyncio.run(run())


def test_occlusion_lists_the_regions_image_2_does_not_show(images) -> None:
    ans = ask(make_crossview_server([1, 3], lambda p: [1, 2, 3]), images, OCCLUSION_Q)
    assert ans.text == "Region 1, 3"


def test_occlusion_with_every_region_visible_abstains(images) -> None:
    ans = ask(make_crossview_server([], lambda p: [1, 2, 3]), images, OCCLUSION_Q)
    assert ans.abstained


def test_unknown_pitch_answers_when_the_ranking_holds_for_every_pitch(images) -> None:
    srv = make_crossview_server([], lambda p: [2, 1, 3] if p > -60 else [2, 3, 1])  # first id stable, tail depends on pitch
    ans = ask(srv, images[:1], CLOSEST_Q)
    assert ans.text == "Region 2"
    assert ans.confidence == pytest.approx(ASSUMED_PITCH_CONFIDENCE)
    assert set(PITCH_SWEEP_DEG) <= set(srv.pitches)


def test_unknown_pitch_abstains_when_the_ranking_depends_on_it(images) -> None:
    ans = ask(make_crossview_server([], lambda p: [1, 2, 3] if p > -60 else [3, 2, 1]), images[:1], CLOSEST_Q)
    assert ans.abstained and "pitch" in (ans.reason or "")


# --- distance with a drawn box whose label could not be read --------------------------------------------------
UNREAD = [200, 400, 240, 440]   # lowest in the image: nearest under the fake ranking below


def unread_server() -> FastMCP:
    """Regions 1-3 read, one more box unread; ``rank_by_distance`` orders by the box's bottom edge (lower =
    nearer, as on a forward-tilted view) over whatever regions it is given."""
    srv = FastMCP("test-unread")

    @srv.tool()
    def read_regions(image: str, expected_ids: list[int] | None = None, annotate: bool = False) -> dict:
        ids = expected_ids or sorted(REGIONS)
        return {"regions": [{"id": i, "bbox": REGIONS[i], "confidence": 0.9} for i in ids if i in REGIONS],
                "image_size": [640, 480], "unlabeled_boxes": [] if expected_ids else [UNREAD]}

    @srv.tool()
    def rank_by_distance(image: str, regions: list[dict], altitude_m: float | None = None,
                         pitch_deg: float | None = None, focal_px: float | None = None,
                         order: str = "nearest_first") -> dict:
        ids = [r["id"] for r in sorted(regions, key=lambda r: -r["bbox"][3])]
        return {"order": ids if order == "nearest_first" else ids[::-1], "assumed": [], "confident": True}

    return srv


NADIR_Q = "The drone looks straight down from 60 m. "


@pytest.mark.parametrize("question", ["Which region is closest to the drone?",
                                      "Rank the regions from nearest to farthest from the drone."])
def test_an_unread_box_that_could_be_the_answer_makes_the_agent_abstain(images, question) -> None:
    ans = ask(unread_server(), images[:1], NADIR_Q + question)
    assert ans.abstained and "could not be read" in (ans.reason or ""), ans


def test_an_unread_box_that_is_not_the_answer_does_not_stop_it(images) -> None:
    ans = ask(unread_server(), images[:1], NADIR_Q + "Which region is the farthest from the drone?")
    assert not ans.abstained and ans.text == "Region 3", ans.reason   # region 3's bottom edge is highest
