"""``uav-agent bench score`` on a prediction file in SpatialUAV's own format (no --data): the strict figures
are those ``eval_spatialuav.py --motion-judge-mode token_f1`` gives, worked out by hand row by row."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

# (question_id, gt, prediction as the official inference script wrote it) -> official per-row score
ROWS = [
    ("Direction_Recognition_00001", "3 o'clock", "3 o'clock"),  # 1
    ("Direction_Recognition_00001", "3 o'clock", "4 o'clock"),  # 0: a duplicate row counts again
    ("A2A_Camera_Transformation_00001", "-160.0 degrees, -70.0 meters", "205 degrees, -65 meters"),  # 1: 5°, 5 m
    ("A2A_Camera_Transformation_00002", "30.0", "45"),  # 0: 15° off, angle only
    ("A2A_Camera_Transformation_00003", "30.0", "30, 10"),  # 0: two numbers for one
    ("A2A_Shared_Association_00001", "1-3, 2-5", "1-3, 4-4"),  # pair F1 0.5
    ("Path_Planning_00001", "Direction 2", "<THINK>1</THINK> 2"),  # 0: first int 1 (upper-case tags stay)
    ("Motion_Understanding_00001", "The drone rotated left.", "The drone turned left."),  # token F1 0.75
]  # fmt: skip


def _write(path) -> None:
    path.write_text("".join(json.dumps({"question_id": q, "question": "q", "gt": gt, "prediction": p,
                                        "raw_prediction": p, "source": "SpatialUAV", "image": [], "model_id": "m"})
                            + "\n" for q, gt, p in ROWS))


def _score(tmp_path, *extra: str) -> dict:
    from agent.cli import app

    preds = tmp_path / "preds.jsonl"
    _write(preds)
    out = tmp_path / ("rep" + "".join(extra))
    res = CliRunner().invoke(app, ["bench", "score", "--suite", "spatialuav", "--predictions", str(preds),
                                   "--out", str(out), "--judge", "token_f1", *extra])
    assert res.exit_code == 0, res.output
    assert ("strict" if not extra else "lenient") in res.output
    report = json.loads((out / "report.json").read_text())
    report["markdown"] = (out / "report.md").read_text()
    return report


def test_strict_score_equals_the_official_script_on_its_own_file_format(tmp_path):
    report = _score(tmp_path)
    run = report["runs"]["preds"]
    assert report["mode"] == "strict" and "Scoring mode: **strict**" in report["markdown"]
    assert run["summary"]["count"] == 8 and run["summary"]["overall"] == pytest.approx(100 * 3.25 / 8)
    official = run["official_metrics"]
    assert official["overall"]["exact_match_correct"] == 2 and official["total_samples"] == 8
    cam = official["tasks"]["A2A_Camera_Transformation"]
    assert cam["camera_format_counts"] == {"angle_distance": 1, "angle_only": 1, "invalid": 1}
    assert cam["angle_metrics"]["mean_absolute_error"] == pytest.approx(10.0)  # (5 + 15) / 2; invalid left out
    assert [cam["angle_metrics"][f"within_{d}_deg_pct"] for d in (5, 10, 20)] == pytest.approx([50, 50, 100])
    coda = cam["codabench_camera_metrics"]
    assert coda["final_score"] == pytest.approx((5 / 200 + 5 / 70) / 2)  # angle mod 360: -160 -> 200
    assert (coda["valid_samples"], coda["invalid_samples"]) == (1, 2)
    pairs = official["tasks"]["A2A_Shared_Association"]["pair_metrics"]
    assert pairs["macro_f1"] == pytest.approx(0.5) and pairs["micro_precision"] == pytest.approx(0.5)
    tokens = official["tasks"]["Motion_Understanding"]["token_metrics"]
    assert tokens["macro_f1"] == pytest.approx(0.75)
    assert "Official secondary metrics" in report["markdown"]


def test_lenient_score_reads_the_file_our_own_way(tmp_path):
    run = _score(tmp_path, "--mode", "lenient")["runs"]["preds"]
    # last row per id (Direction 0), think tags stripped in any case (Path_Planning 1): 3.25 over 7 rows
    assert run["summary"]["count"] == 7 and run["summary"]["overall"] == pytest.approx(100 * 3.25 / 7)


def test_unknown_mode_is_refused(tmp_path):
    from agent.cli import app

    preds = tmp_path / "p.jsonl"
    _write(preds)
    res = CliRunner().invoke(app, ["bench", "score", "--suite", "spatialuav", "--predictions", str(preds),
                                   "--out", str(tmp_path / "r"), "--mode", "loose"])
    assert res.exit_code == 2 and "unknown scoring mode 'loose'" in res.output


def test_bedi_answer_folder_is_scored_from_its_stored_answers(tmp_path):
    from agent.cli import app

    answers = tmp_path / "answers"
    answers.mkdir()
    (answers / "DJI_0001_ans.json").write_text(json.dumps({
        "Spatial_PosRelDis": {"1": {"Question": "q", "Standard Answer": "5 o'clock.", "Generated Answer": "17 o'clock"}},
        "Semantic_InfoDet": {"2": {"Question": "q", "Standard Answer": "Region 2 and 3", "Generated Answer": "Region 3"}},
    }))  # fmt: skip
    move = {"action": "move", "direction": "forward", "distance": 10, "speed": 0}
    (answers / "7_ans.json").write_text(json.dumps({"instructions": "Fly forward 10 m.", "answer_type": "list",
                                                    "Standard Answer": [move, move], "Generated Answer": [move]}))
    out = tmp_path / "rep"
    res = CliRunner().invoke(app, ["bench", "score", "--suite", "bedi", "--predictions", str(answers), "--out", str(out)])
    assert res.exit_code == 0, res.output
    run = json.loads((out / "report.json").read_text())["runs"]["answers"]["summary"]
    # clock: |5 − 17| = 12 → official 1 − min(12, 0)/6 = 1; Jaccard 1/2; actions: one pair of two → t/s = 1/2
    assert run["per_task"]["Spatial_PosRelDis"]["score"] == pytest.approx(100.0)
    assert run["per_task"]["Semantic_InfoDet"]["score"] == pytest.approx(50.0)
    assert run["per_task"]["Action"]["score"] == pytest.approx(50.0)
    assert run["action_structure"] == {"score": pytest.approx(50.0), "count": 1}


def test_spatialuav_annotations_fill_a_missing_gt_without_images(tmp_path):
    from agent.cli import app

    ann = tmp_path / "annotations.jsonl"  # images are not needed to score (none exist here)
    ann.write_text(json.dumps({"id": "Direction_Recognition_00001", "image": ["./SpatialUAV/x.jpg"], "GT": "3 o'clock",
                               "conversations": [{"from": "human", "value": "q"}]}) + "\n")
    preds = tmp_path / "preds.jsonl"
    preds.write_text(json.dumps({"question_id": "Direction_Recognition_00001", "prediction": "3 o'clock"}) + "\n")
    out = tmp_path / "rep"
    res = CliRunner().invoke(app, ["bench", "score", "--suite", "spatialuav", "--predictions", str(preds),
                                   "--data", str(ann), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert json.loads((out / "report.json").read_text())["runs"]["preds"]["summary"]["overall"] == 100.0
