"""Counting objects inside a drawn region: the detector's boxes whose centre lies inside the region read on the photo,
not every box of the frame. The fake tools place people at known pixels, two of them inside region 3."""

from __future__ import annotations

from mcp.server.fastmcp import FastMCP
from planner_fakes import ask

REGIONS = {3: [400, 200, 560, 320], 5: [40, 40, 200, 160]}
PEOPLE = [[420, 220, 440, 260], [500, 250, 520, 300], [100, 60, 120, 100], [300, 400, 320, 440],
          [550, 310, 570, 350]]  # inside 3, inside 3, inside 5, outside both, straddling 3's corner (centre outside)


def _server() -> FastMCP:
    srv = FastMCP("test-count-region")
    srv.detections = 0  # type: ignore[attr-defined]

    @srv.tool()
    def read_regions(image: str, expected_ids: list[int] | None = None, annotate: bool = False) -> dict:
        ids = expected_ids or sorted(REGIONS)
        return {"regions": [{"id": i, "bbox": REGIONS[i], "confidence": 0.9} for i in ids if i in REGIONS],
                "image_size": [640, 480]}

    @srv.tool()
    def detect(image: str, labels: list[str] | None = None, conf: float | None = None, tile: str = "auto",
               annotate: bool = False) -> dict:
        srv.detections += 1  # type: ignore[attr-defined]
        rows = [{"label": "person", "score": 0.8, "bbox": b} for b in PEOPLE]
        return {"detections": rows, "counts": {"person": len(rows)}, "known_labels": ["person"],
                "count_reliable": True, "reason": None, "model": "fake", "count_accuracy": {}}

    return srv


def test_a_count_inside_a_region_counts_the_boxes_centred_in_it(agent, images) -> None:
    a = ask(agent, _server(), images[:1], "How many people are standing in region 3?")
    assert not a.abstained and a.text.startswith("2"), a.text
    b = ask(agent, _server(), images[:1], "how many persons inside box 5")
    assert not b.abstained and b.text.startswith("1"), b.text


def test_a_count_in_a_region_that_cannot_be_read_abstains_naming_it_without_running_the_detector(agent, images) -> None:
    srv = _server()
    a = ask(agent, srv, images[:1], "How many people are in region 8?")
    assert a.abstained and "8" in a.reason and srv.detections == 0


def test_two_counts_of_named_classes_in_one_question_get_two_answers(agent, images) -> None:
    srv = FastMCP("test-two-counts")

    @srv.tool()
    def detect(image: str, labels: list[str] | None = None, conf: float | None = None, tile: str = "auto",
               annotate: bool = False) -> dict:
        return {"detections": [], "counts": {"car": 3, "person": 2}, "known_labels": ["car", "person"],
                "count_reliable": True, "reason": None, "model": "fake", "count_accuracy": {}}

    a = ask(agent, srv, images[:1], "How many cars are there and how many people?")
    assert not a.abstained and "3" in a.text and "2" in a.text and "car" in a.text and "person" in a.text, a.text
