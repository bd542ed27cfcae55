"""The region-reader ablation (benchmarks.measure.ablate_regions): each pass switched off really is, only inside the
block, its stand-in fits the call read_regions makes, and the baseline counts what the overlay benchmark scores."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import tools.regions.pipeline as regions
from benchmarks.measure.ablate_regions import PASSES, ablate, count, switched_off
from benchmarks.region_overlays import score
from benchmarks.synth.overlay import RegionStyle, draw_regions

DRAWN = [(3, [60, 50, 200, 150]), (7, [260, 80, 380, 220])]


@pytest.fixture(scope="module")
def overlay() -> np.ndarray:
    grey = np.full((300, 420, 3), 120, np.uint8)
    styles = [RegionStyle(color=(255, 0, 0), label_background=True, label_color=(255, 255, 255)),
              RegionStyle(color=(255, 0, 0), label_position="inside_top_left")]
    return draw_regions(grey, DRAWN, styles)


def test_registry_names_calls_the_reader_makes() -> None:
    source = inspect.getsource(regions)
    for name, (attr, _) in PASSES.items():
        assert callable(getattr(regions, attr)), name
        assert f"{attr}(" in source, f"tools.regions.pipeline no longer calls {attr} ({name})"


@pytest.mark.parametrize("name", list(PASSES))
def test_pass_switched_off_inside_the_block_only(name: str, overlay: np.ndarray) -> None:
    attr = PASSES[name][0]
    real = getattr(regions, attr)
    with switched_off(name):
        assert getattr(regions, attr) is not real
        found = regions.read_regions(overlay)   # the stand-in takes the reader's call as it is made
    assert getattr(regions, attr) is real
    assert all(isinstance(r, regions.Region) for r in found)


def test_every_pass_on_reads_the_overlay(overlay: np.ndarray) -> None:
    with switched_off(None):
        found = regions.read_regions(overlay)
    assert score(found, DRAWN) == (2, 0)


def _scored(n: int, seed: int, off: str | None) -> tuple[int, int]:
    """(exact, extra) of the benchmark's first ``n`` overlays of ``seed``, counted here, in this process."""
    rows = count((off, seed, n))[2]
    return sum(h for h, _ in rows), sum(e for _, e in rows)


def test_worker_processes_count_what_the_benchmark_scores_with_and_without_the_pass() -> None:
    # the switch must reach the worker processes: they count what this process counts with every pass on, and on the
    # first overlay of seed 4 label_by_siblings changes the count (one overlay: three reads in all). A switch that did
    # not reach the worker would read it as with the pass, a change of (0, 0): the run without it is not recounted here.
    res = ablate(["label_by_siblings"], seeds=[4], n=1, workers=1)
    assert (res["exact"], res["extra"]) == _scored(1, 4, None)
    change = res["passes"]["label_by_siblings"]
    assert (change["exact_change"], change["extra_change"]) != (0, 0), change   # the pass matters: the switch arrived
