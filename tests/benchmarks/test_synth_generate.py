"""Suites written by ``benchmarks.synth.generate``: reproducible from the seed, loadable and scorable by the
benchmark loader and scorers, and reachable from the ``uav-agent synth`` command."""

from __future__ import annotations

import json

import pytest

from benchmarks.judge import TokenF1Judge
from benchmarks.loaders import load
from benchmarks.scoring import score
from benchmarks.scoring.bedi import score_clock
from benchmarks.synth.generate import TASKS, generate

SMALL = (480, 270)
# The loader/scorer registry covers every generated task, BEDI_Clock included (scored by the BEDI clock rule).
SPATIALUAV_TASKS = list(TASKS)


@pytest.fixture(scope="module")
def suite(tmp_path_factory, shared_data):
    out = tmp_path_factory.mktemp("synth")
    return generate(SPATIALUAV_TASKS, 1, 7, out, image_size=SMALL, data_root=shared_data, progress=False)


def test_record_format_and_manifest(suite) -> None:
    records = [json.loads(line) for line in suite.read_text().splitlines()]
    assert [r["id"].rsplit("_", 1)[0] for r in records] == SPATIALUAV_TASKS
    for r in records:
        assert set(r) == {"id", "image", "conversations", "source", "GT", "meta"}
        assert r["source"] == "SpatialUAV-synth" and r["conversations"][0]["from"] == "human"
        assert all((suite.parent / p).is_file() and p.startswith("images/") for p in r["image"])
    counts = {r["id"].rsplit("_", 1)[0]: len(r["image"]) for r in records}
    assert counts["A2A_Collaboration_Recognition"] == 5 and counts["Motion_Understanding"] == 16
    manifest = json.loads((suite.parent / "manifest.json").read_text())
    assert manifest["seed"] == 7 and manifest["tier"]["name"] == "default"
    assert all(s["license"] and s["gsd_m"] > 0 for s in manifest["sources"])


def test_rendered_file_loads_and_scores_with_the_benchmark_rules(suite) -> None:
    samples = load("synth", suite)
    assert len(samples) == len(SPATIALUAV_TASKS)
    judge = TokenF1Judge()
    for s in samples:
        assert score(s, s.target, judge=judge) == 1.0, s.id
    wrong = {"Direction_Recognition": "13 o'clock", "A2A_Collaboration_Recognition": "E",
             "A2A_Camera_Transformation": "999.0 degrees, 999.0 meters"}
    for s in samples:
        if s.task in wrong:
            assert score(s, wrong[s.task], judge=judge) < 1.0, s.id


def test_bedi_clock_gt_scores_with_partial_credit(tmp_path, shared_data) -> None:
    path = generate(["BEDI_Clock"], 2, 3, tmp_path, image_size=SMALL, data_root=shared_data, progress=False)
    for line in path.read_text().splitlines():
        r = json.loads(line)
        hour = int(r["GT"].split()[0])
        assert r["GT"] == f"{hour} o'clock" and "of the image relative to the drone" in r["conversations"][0]["value"]
        assert score_clock(r["GT"], r["GT"]) == 1.0
        assert score_clock(f"{hour % 12 + 3} o'clock", r["GT"]) == pytest.approx(0.5)


def test_same_seed_same_bytes_other_seed_differs(tmp_path, shared_data) -> None:
    tasks = ["Distance_Comparison", "A2A_Object_Matching"]
    runs = [generate(tasks, 2, s, tmp_path / f"r{k}", image_size=SMALL, data_root=shared_data, progress=False)
            for k, s in enumerate((5, 5, 6))]
    assert runs[0].read_text() == runs[1].read_text()
    for img in sorted((runs[0].parent / "images").iterdir()):
        assert img.read_bytes() == (runs[1].parent / "images" / img.name).read_bytes()
    assert runs[0].read_text() != runs[2].read_text()
    # one task's instances do not depend on the other tasks asked
    alone = generate(tasks[1:], 2, 5, tmp_path / "alone", image_size=SMALL, data_root=shared_data, progress=False)
    assert alone.read_text().splitlines() == runs[0].read_text().splitlines()[2:]


def test_bad_arguments_are_refused(tmp_path) -> None:
    with pytest.raises(ValueError, match="unknown task"):
        generate(["No_Such_Task"], 1, 0, tmp_path)
    with pytest.raises(ValueError, match="per_task"):
        generate(["BEDI_Clock"], 0, 0, tmp_path)
    with pytest.raises(ValueError, match="no texture sources"):
        generate(["BEDI_Clock"], 1, 0, tmp_path, data_root=tmp_path / "empty", progress=False)
    with pytest.raises(ValueError, match="unknown tier"):
        generate(["BEDI_Clock"], 1, 0, tmp_path, tier="extreme")


def test_cli_writes_a_suite_from_a_user_texture(tmp_path, shared_data) -> None:
    from typer.testing import CliRunner

    from agent.cli import app

    tif = shared_data / "deepforest_neon" / "OSBS_029.tif"
    res = CliRunner().invoke(app, ["synth", "--tasks", "Region_Recognition", "--per-task", "2", "--seed", "1",
                                   "--out", str(tmp_path), "--width", "480", "--height", "270", "--texture", str(tif),
                                   "--annotations", str(tif.with_suffix(".xml"))])
    assert res.exit_code == 0, res.output
    recs = [json.loads(line) for line in (tmp_path / "annotations.jsonl").read_text().splitlines()]
    assert len(recs) == 2 and all(r["meta"]["source"] == "OSBS_029" for r in recs)
    assert "a tree?" in recs[0]["conversations"][0]["value"]
    bad = CliRunner().invoke(app, ["synth", "--tasks", "Nope", "--out", str(tmp_path / "x")])
    assert bad.exit_code == 2 and "unknown task" in bad.output
