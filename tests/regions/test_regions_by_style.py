"""The region benchmark's breakdown by drawing style (benchmarks.regions_by_style, bench_regions --out)."""

from __future__ import annotations

import json
import sys

from benchmarks.measure import bench_regions
from benchmarks.regions_by_style import ATTRIBUTES, StyleTally, _band
from benchmarks.synth.overlay import RegionStyle


def test_band_edges() -> None:
    assert _band(0.55, (0.65, 0.8)) == "< 0.65"
    assert _band(0.65, (0.65, 0.8)) == "0.65-0.8"
    assert _band(0.8, (0.65, 0.8)) == ">= 0.8"
    assert _band(160, (40, 80, 160)) == ">= 160"


def test_tally_counts_each_region_once_per_attribute() -> None:
    thin = RegionStyle(color=(0, 255, 0), font="dejavu_sans", font_scale=0.56, label_background=False,
                       label_color=(0, 255, 0), label_position="above", line_width=3)
    filled = RegionStyle(color=(255, 0, 0), font="hershey_simplex", font_scale=1.0, label_background=True,
                         label_color=(255, 255, 255), label_position="below", line_width=5)
    tally = StyleTally()
    # a 30 x 50 px box with a thin small stroke label missed, a 100 x 120 px one with a filled label read
    tally.add([(3, [10, 10, 40, 60]), (7, [100, 100, 200, 220])], [thin, filled], 65, [False, True])
    tally.add([(1, [0, 0, 50, 50])], [filled], 92, [True])
    figures = tally.figures()
    assert set(figures) == set(ATTRIBUTES)
    for groups in figures.values():
        assert sum(g["regions"] for g in groups.values()) == 3
        assert sum(g["recovered_exactly"] for g in groups.values()) == 2
    assert figures["label"]["strokes"] == {"regions": 1, "recovered_exactly": 0, "recovered_rate": 0.0}
    assert figures["label"]["filled"]["recovered_rate"] == 1.0
    assert figures["thin_small_strokes"]["true"]["regions"] == 1
    assert figures["box_short_side_px"]["< 40"]["regions"] == 1
    assert figures["box_short_side_px"]["40-80"]["regions"] == 1
    assert figures["box_short_side_px"]["80-160"]["regions"] == 1
    assert figures["jpeg_quality"]["< 70"]["recovered_exactly"] == 1
    assert figures["jpeg_quality"][">= 90"]["regions"] == 1


def test_bench_writes_the_breakdown_where_asked(tmp_path, monkeypatch) -> None:
    out = tmp_path / "regions.json"
    monkeypatch.setattr(sys, "argv", ["bench_regions", "--n", "3", "--seed", "5", "--time-1080p", "0",
                                      "--scaled-n", "0", "--out", str(out)])
    bench_regions.main()
    figures = json.loads(out.read_text())
    assert figures["overlays"] == 3
    for groups in figures["by_style"].values():
        assert sum(g["regions"] for g in groups.values()) == figures["regions"]
        assert sum(g["recovered_exactly"] for g in groups.values()) == figures["recovered_exactly"]
