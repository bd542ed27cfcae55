"""Pass activity (benchmarks.measure.pass_activity): a watched pass is noted exactly when its output differs from
its stand-in's, the reader's own functions are restored afterwards, and the counts add up per style."""

from __future__ import annotations

import numpy as np

import tools.regions.pipeline as regions
from benchmarks.measure.ablate_regions import PASSES
from benchmarks.measure.pass_activity import _watched, activity, passes_changing
from benchmarks.synth.overlay import RegionStyle, draw_regions


def test_a_pass_is_noted_only_when_it_changes_its_input() -> None:
    changed: set[str] = set()
    keep = _watched("keep", lambda xs: list(xs), lambda xs: xs, changed)
    grow = _watched("grow", lambda xs: [*xs, 9], lambda xs: xs, changed)
    assert keep([1, 2]) == [1, 2] and grow([1, 2]) == [1, 2, 9]
    assert changed == {"grow"}


def test_the_stand_in_sees_the_input_before_the_pass_changes_it_in_place() -> None:
    changed: set[str] = set()

    def appends(xs: list[int]) -> list[int]:
        xs.append(9)
        return xs

    _watched("appends", appends, lambda xs: xs, changed)([1])
    assert changed == {"appends"}


def test_reading_an_overlay_restores_every_pass(tmp_path) -> None:
    import cv2

    img = draw_regions(np.full((300, 420, 3), 120, np.uint8), [(3, [60, 50, 200, 150]), (7, [260, 80, 380, 220])],
                       [RegionStyle(color=(255, 0, 0), label_background=True, label_color=(255, 255, 255))] * 2)
    path = tmp_path / "overlay.png"
    cv2.imwrite(str(path), img[:, :, ::-1])
    before = {attr: getattr(regions, attr) for attr, _ in PASSES.values()}
    names = passes_changing(str(path))
    assert set(names) <= set(PASSES)
    assert {attr: getattr(regions, attr) for attr, _ in PASSES.values()} == before


def test_activity_counts_images_per_pass_and_style() -> None:
    res = activity(["suav", "suav", "som"], [["letter_boxes"], [], ["letter_boxes", "second_look"]])
    assert res["images"] == 3 and res["styles"] == {"suav": 2, "som": 1}
    assert res["passes"]["letter_boxes"] == {"images_changed": 2, "per_style": {"som": 1, "suav": 1}}
    assert res["passes"]["second_look"]["images_changed"] == 1
    assert res["passes"]["unglued"] == {"images_changed": 0, "per_style": {}}
    named = activity(["suav", "som"], [["letter_boxes"], ["second_look"]], ["a.jpg", "b.jpg"])
    assert named["passes"]["letter_boxes"]["changed_on"] == ["a.jpg"]
    assert named["passes"]["unglued"]["changed_on"] == []
