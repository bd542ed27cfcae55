"""Scoring prediction files into tables and plots; expected figures are worked out by hand from the rules."""

from __future__ import annotations

import json

import pytest
from PIL import Image
from typer.testing import CliRunner

from benchmarks.judge import TokenF1Judge
from benchmarks.published import SPATIALUAV
from benchmarks.report import build_report, render_markdown, sample_errors, write_report
from benchmarks.sample import Sample

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _row(qid: str, pred: str, gt: str, benchmark: str = "synth", **kw) -> dict:
    task = kw.pop("task", qid.rsplit("_", 1)[0])
    return {"question_id": qid, "question": "q", "gt": gt, "prediction": pred, "raw_prediction": pred,
            "source": benchmark, "image": [], "model_id": kw.pop("model_id", "m"), "benchmark": benchmark,
            "task": task, "options": kw.pop("options", {}), "metadata": kw.pop("metadata", {}),
            "solver": kw.pop("solver", "agent"), "seconds": 0.5, "error": kw.pop("error", None), **kw}


AGENT = [
    _row("Direction_Recognition_00001", "3 o'clock", "3 o'clock"),
    _row("Direction_Recognition_00002", "4 o'clock", "3 o'clock"),
    _row("A2A_Camera_Transformation_00001", "-175 degrees, 25 meters", "170.0 degrees, 20.0 meters"),  # 15 deg off
    _row("A2A_Camera_Transformation_00002", "175 degrees, 12 meters", "170.0 degrees, 20.0 meters"),  # 5 deg, 8 m
    _row("Region_Recognition_00001", "Region 1", "Region 1, 2"),  # recall 1/2
    _row("Region_Recognition_00002", "", "Region 4", error="RuntimeError: x", abstained=True),
]
RANDOM = [_row(r["question_id"], "Region 9", r["gt"], solver="random", model_id="random-seed0") for r in AGENT]


def test_per_task_format_group_and_overall_figures():
    report = build_report({"agent": AGENT, "random": RANDOM}, "synth", judge=TokenF1Judge())
    agent = report["runs"]["agent"]
    per_task = {k: v["score"] for k, v in agent["summary"]["per_task"].items()}
    assert per_task == pytest.approx({"Direction_Recognition": 50.0, "A2A_Camera_Transformation": 50.0,
                                      "Region_Recognition": 25.0})
    assert agent["summary"]["overall"] == pytest.approx(100 * 2.5 / 6)
    assert agent["summary"]["per_answer_format"]["angle_distance"]["count"] == 2
    assert agent["summary"]["per_group"]["spatial"]["score"] == pytest.approx(50.0)
    assert (agent["errors"], agent["abstained"], agent["missing"]) == (1, 1, 0)
    assert report["runs"]["random"]["summary"]["overall"] == 0.0
    assert report["published"]["GPT-5.4"]["Direction_Recognition"] == 50.6
    assert agent["error_stats"]["heading_deg"]["median"] == pytest.approx(10.0)
    assert agent["error_stats"]["distance_m"]["max"] == pytest.approx(8.0)
    assert agent["error_stats"]["clock_hours"]["mean"] == pytest.approx(0.5)


def test_markdown_puts_published_rows_and_targets_beside_ours():
    md = render_markdown(build_report({"agent": AGENT, "random": RANDOM}, "synth", judge=TokenF1Judge()), "cmd x")
    header = next(line for line in md.splitlines() if line.startswith("| task |"))
    assert header.split(" | ")[2:4] == ["agent", "random"]
    assert all(f"{name} (published)" in header for name in SPATIALUAV) and header.endswith("target |")
    line = next(line for line in md.splitlines() if line.startswith("| Direction_Recognition |"))
    assert line.split(" | ")[1:5] == ["2", "50.0", "0.0", "95.4"]
    assert line.rstrip(" |").endswith("95.0")  # the target for this task
    assert "cmd x" in md


def test_tdbench_rotation_hit_all_is_reported():
    rows = [_row(f"{q}_r{r}", "A" if (q == "1" or r != 180) else "B", "A", benchmark="tdbench", task="counting",
                 options={"A": "1", "B": "2"}, metadata={"question_index": q, "rotation": r})
            for q in ("1", "2") for r in (0, 90, 180, 270)]
    report = build_report({"vlm": rows}, "tdbench")
    rot = report["runs"]["vlm"]["summary"]["rotation_hit_all"]
    assert (rot["score"], rot["questions"], rot["incomplete"]) == (50.0, 2, 0)
    assert rot["table"]["Average"]["hit_all"] == 0.5 and rot["table"]["counting"]["rot180"] == 0.5
    assert "rotation score (hit_all)" in render_markdown(report)


def test_numeric_errors_follow_each_convention():
    ct = Sample("c", "synth", "A2A_Camera_Transformation", [], "q", "-170.0 degrees")
    assert sample_errors(ct, "175 degrees") == pytest.approx({"heading_deg": 15.0})
    clock = Sample("d", "spatialuav", "Direction_Recognition", [], "q", "1 o'clock")
    assert sample_errors(clock, "11 o'clock") == {"clock_hours": 2.0}
    qty = Sample("o", "open3dvqa", "dist", [], "q", "2 meters", metadata={"qa_info": {"type": "quantitative"}})
    assert sample_errors(qty, "10 feet") == pytest.approx({"quantity_ratio": abs(3.048 / 2 - 1)})
    assert sample_errors(clock, "no idea") == {}


def test_write_report_files_and_plots(tmp_path):
    paths = write_report(build_report({"agent": AGENT, "random": RANDOM}, "synth", judge=TokenF1Judge()), tmp_path)
    names = sorted(p.name for p in paths)
    assert names == ["errors_clock_hours.png", "errors_distance_m.png", "errors_heading_deg.png", "per_task.png",
                     "report.json", "report.md"]
    for p in paths:
        if p.suffix == ".png":
            assert p.read_bytes()[:8] == PNG_MAGIC and p.stat().st_size > 5000
    data = json.loads((tmp_path / "report.json").read_text())
    assert set(data["runs"]) == {"agent", "random"} and "error_values" not in data["runs"]["agent"]


def test_cli_score_compares_files_and_counts_missing_samples_against_the_data(tmp_path):
    from agent.cli import app

    Image.new("RGB", (8, 8)).save(tmp_path / "a.jpg")
    data = tmp_path / "ann.jsonl"
    data.write_text("".join(json.dumps({"id": r["question_id"], "image": ["a.jpg"], "GT": r["gt"],
                                        "conversations": [{"from": "human", "value": "q"}]}) + "\n" for r in AGENT))
    (tmp_path / "agent.jsonl").write_text("".join(json.dumps(r) + "\n" for r in AGENT[:-1]))  # one not run
    (tmp_path / "random.jsonl").write_text("".join(json.dumps(r) + "\n" for r in RANDOM))
    res = CliRunner().invoke(app, ["bench", "score", "--suite", "synth", "--predictions", str(tmp_path / "agent.jsonl"),
                                   "--predictions", str(tmp_path / "random.jsonl"), "--data", str(data),
                                   "--out", str(tmp_path / "rep"), "--judge", "token_f1"])
    assert res.exit_code == 0, res.output
    report = json.loads((tmp_path / "rep" / "report.json").read_text())
    assert report["runs"]["agent"]["missing"] == 1 and report["runs"]["agent"]["summary"]["count"] == 6
    assert report["runs"]["agent"]["summary"]["overall"] == pytest.approx(100 * 2.5 / 6)
    bad = CliRunner().invoke(app, ["bench", "score", "--suite", "synth", "--predictions", str(tmp_path / "nope.jsonl"),
                                   "--out", str(tmp_path / "rep2")])
    assert bad.exit_code == 2 and "not found" in bad.output
