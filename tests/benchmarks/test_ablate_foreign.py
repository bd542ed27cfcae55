"""ablate_foreign (benchmarks.measure.ablate_foreign): the scorer is the one beside the set, and only passes active
on a few named images are read again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.measure import ablate_foreign


def _set(tmp_path: Path) -> Path:
    (tmp_path / "overlays").mkdir()
    (tmp_path / "score_overlays.py").write_text(
        "def score_image(gt, pred, thr):\n"
        "    exact = sum(1 for g in gt for p in pred if g['id'] == p['id'] and g['bbox'] == p['bbox'])\n"
        "    return {'exact': exact, 'extra': len(pred) - exact}\n")
    regions = tmp_path / "overlays" / "regions.jsonl"
    regions.write_text(json.dumps({"image": "a.jpg", "regions": [{"id": 3, "bbox": [0, 0, 9, 9]}]}) + "\n")
    return regions


def test_the_scorer_beside_the_set_scores_a_read(tmp_path: Path) -> None:
    scorer = ablate_foreign.foreign_scorer(_set(tmp_path))
    truth = [{"id": 3, "bbox": [0, 0, 9, 9]}]
    assert ablate_foreign.exact_extra(scorer, truth, {"regions": [{"id": 3, "bbox": [0, 0, 9, 9]}]}) == (1, 0)
    assert ablate_foreign.exact_extra(scorer, truth, {"regions": [{"id": 4, "bbox": [0, 0, 9, 9]}]}) == (0, 1)


def test_a_set_without_its_scorer_is_refused(tmp_path: Path) -> None:
    regions = _set(tmp_path)
    (tmp_path / "score_overlays.py").unlink()
    with pytest.raises(SystemExit, match="no scorer"):
        ablate_foreign.foreign_scorer(regions)


def test_only_passes_active_on_few_named_images_are_read(tmp_path: Path, monkeypatch) -> None:
    reads: list[str] = []
    monkeypatch.setattr(ablate_foreign, "read_one", lambda path: reads.append(path) or
                        {"regions": [{"id": 3, "bbox": [0, 0, 9, 9]}]})
    activity = {"passes": {"letter_boxes": {"changed_on": ["a.jpg"]}, "unglued": {"changed_on": []},
                           "second_look": {"changed_on": ["a.jpg"] * 3}}}
    res = ablate_foreign.ablate(_set(tmp_path), activity, most=2)
    assert list(res) == ["letter_boxes"] and len(reads) == 2   # with the pass and without it
    assert res["letter_boxes"]["exact_on"] == res["letter_boxes"]["exact_off"] == 1


def test_a_pass_the_reader_no_longer_has_is_skipped(tmp_path: Path, monkeypatch) -> None:
    # an activity file written before a pass was removed still names it: it is left out, not switched off
    reads: list[str] = []
    monkeypatch.setattr(ablate_foreign, "read_one", lambda path: reads.append(path) or {"regions": []})
    activity = {"passes": {"a_removed_pass": {"changed_on": ["a.jpg"]}}}
    assert ablate_foreign.ablate(_set(tmp_path), activity, most=2) == {} and reads == []
