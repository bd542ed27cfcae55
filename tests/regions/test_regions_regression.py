"""Overlays the reader once got wrong, drawn again from their layouts (tests/data/regions_regression.jsonl) and read
whole: each listed id must come back exactly (that id, IoU >= 0.9 with the drawn box) and, where every region of the
overlay is listed, nothing else. Ground truth is the layout drawn (benchmarks.synth.overlay) on real aerial images
of ../shared/data; new cases are one line each in the data file."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from benchmarks.region_overlays import recovered, score
from benchmarks.synth.overlay import RegionStyle
from overlay_drawings import drawn_overlay
from tools.common import load_image
from tools.regions.pipeline import read_regions

CASES = [json.loads(line) for line in
         (Path(__file__).parents[1] / "data" / "regions_regression.jsonl").read_text().splitlines() if line.strip()]


def _style(fields: dict) -> RegionStyle:
    """A RegionStyle from its JSON fields (colours as lists)."""
    return RegionStyle(**{k: tuple(v) if isinstance(v, list) else v for k, v in fields.items()})


@pytest.mark.parametrize("case", CASES, ids=[c["case"][:40] for c in CASES])
def test_an_overlay_once_read_wrong_is_read(shared_data, case):
    img = load_image(shared_data / case["image"])
    if case["size"] is not None:
        img = cv2.resize(img, tuple(case["size"]), interpolation=cv2.INTER_AREA)
    layout = [(r["id"], r["box"], _style(r["style"])) for r in case["regions"]]
    found = read_regions(drawn_overlay(img, layout, case["quality"]))
    boxes = {rid: box for rid, box, _ in layout}
    assert [rid for rid in case["ids"] if not recovered(found, rid, boxes[rid])] == []
    if len(case["ids"]) == len(layout):
        assert score(found, [(rid, box) for rid, box, _ in layout]) == (len(layout), 0)
