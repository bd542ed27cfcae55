"""Loaders on the official files the issue names: unknown SpatialUAV tasks, BEDI action answer files, Open3D-VQA
``*_tfqa`` records and its released image layout, TDBench's per-rotation TSVs and prompts, AirCopBench datasets."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from benchmarks.aggregate import aggregate
from benchmarks.loaders import load
from benchmarks.loaders.tdbench import prompt as tdbench_prompt
from benchmarks.sample import RecordError
from benchmarks.scoring import score, score_detailed


def test_spatialuav_unknown_and_path_planning_tasks_load_and_score(tmp_path):
    f = tmp_path / "ann.jsonl"
    recs = [{"id": "Path_Planning_00001", "image": ["a.jpg"], "GT": "Direction 4",
             "conversations": [{"from": "human", "value": "q"}]},
            {"id": "Region_Counting_00002", "image": ["a.jpg"], "GT": "three cars",
             "conversations": [{"from": "human", "value": "q"}]}]  # fmt: skip
    f.write_text("".join(json.dumps(r) + "\n" for r in recs))
    pp, rc = load("spatialuav", f, check_images=False)
    assert (pp.task, pp.metadata["known_task"], rc.task) == ("Path_Planning", False, "Region_Counting")
    assert score(pp, "I would take arrow 4") == 1.0  # official: first integer
    assert score(rc, "three red cars") == pytest.approx(0.8)  # official: token F1 (P 2/3, R 1)


def _action_file(folder: Path, name: str, answer_type: str, standard, generated) -> Path:
    f = folder / f"{name}_ans.json"
    f.write_text(json.dumps({"instructions": "Fly forward 10 m.", "answer_type": answer_type,
                             "Standard Answer": standard, "Generated Answer": generated}))
    return f


def test_bedi_action_answer_files_load_and_score_their_stored_answers(tmp_path):
    move = {"action": "move", "direction": "forward", "distance": 10, "speed": 0}
    _action_file(tmp_path, "a1", "dictionary", move, move)
    _action_file(tmp_path, "a2", "list", [move, move], [move])
    a1, a2 = load("bedi", tmp_path)
    assert (a1.id, a1.task, a1.images, a1.metadata["answer_type"]) == ("action/a1", "Action", [], "dictionary")
    assert score(a1, a1.metadata["generated_answer"]) == 1.0
    assert score(a2, a2.metadata["generated_answer"]) == pytest.approx(0.5)  # one pair of two: t/s = 1/2
    # the prompt's own single-quoted Python dict is what the official parser reads
    assert score(a1, "{'action': 'move', 'direction': 'forward', 'distance': 10, 'speed': 0}") == 1.0
    _action_file(tmp_path, "a3", "tuple", move, move)
    with pytest.raises(RecordError, match="answer_type 'tuple'"):
        load("bedi", tmp_path / "a3_ans.json")


def test_open3dvqa_tfqa_records_and_released_image_layout(tmp_path):
    Image.new("RGB", (8, 6)).save(_mkdir(tmp_path / "O3DVQA" / "EmbodiedCity" / "scene_a") / "rgb_1.png")
    rec = {"id": "t0", "image_info": {"image_path": "rgb_1.png"},
           "qa_info": {"question_name": "left_predicate_tfqa", "is_embodied": False},
           "conversation": [{"from": "human", "value": "<image>\nIs the van left of the tree?"},
                            {"from": "gpt", "value": "In fact, the van is to the right of the tree."}]}  # fmt: skip
    f = tmp_path / "test_qa.json"
    f.write_text(json.dumps({"EmbodiedCity": {"scene_a": [rec]}}))
    (s,) = load("open3dvqa", f)
    assert s.images == [str(tmp_path / "O3DVQA" / "EmbodiedCity" / "scene_a" / "rgb_1.png")]
    assert s.metadata["qa_info"]["type"] == "qualitative"
    assert score(s, "Incorrect, it is on the right side.") == 1.0  # both "no"
    assert score(s, "Indeed, the van is on the left.") == 0.0
    res = score_detailed(s, "")
    assert not res.counted and aggregate([res])["not_scored"] == 1  # the official denominator skips it


def _mkdir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


def _b64_png() -> str:
    buf = io.BytesIO()
    Image.fromarray(np.zeros((4, 4, 3), np.uint8)).save(buf, format="PNG")
    return base64.b64encode(buf.getvalue()).decode()


def _rot_tsv(path: Path, answers: list[str]) -> Path:
    cols = ["index", "image", "question", "A", "B", "answer", "category"]
    rows = [[str(i), _b64_png(), "Which side?", "left", "right", a, "localization"] for i, a in enumerate(answers)]
    path.write_text("\n".join("\t".join(r) for r in [cols, *rows]) + "\n")
    return path


def test_tdbench_official_rotation_files_load_as_their_rotations(tmp_path):
    for rot in (0, 90, 180):  # rot270 missing: the official evaluation uses the three present
        _rot_tsv(tmp_path / f"tdbench_rot{rot}.tsv", ["A", "B"])
    samples = load("tdbench", tmp_path, cache_dir=tmp_path / "c")
    assert [(s.id, s.metadata["rotation"]) for s in samples][:3] == [("0_r0", 0), ("1_r0", 0), ("0_r90", 90)]
    assert {s.metadata["rotation"] for s in samples} == {0, 90, 180}
    assert samples[2].question == "Which side?"  # already rotated in the file: no rewriting
    results = [score_detailed(s, s.target if s.metadata["question_index"] == "0" or s.metadata["rotation"] == 0
                              else "A") for s in samples]
    rot = aggregate(results)["rotation_hit_all"]
    assert rot["table"]["localization"]["rot270"] == "No Data"
    assert rot["score"] == pytest.approx(50.0) and rot["table"]["localization"]["miss_all"] == 0.0
    with pytest.raises(RecordError, match="already holds the 90"):
        load("tdbench", tmp_path / "tdbench_rot90.tsv", rotations=True, cache_dir=tmp_path / "c")


def test_tdbench_prompts_are_vlmevalkits(tmp_path):
    (s,) = load("tdbench", _rot_tsv(tmp_path / "tdbench_rot0.tsv", ["A"]), cache_dir=tmp_path / "c")
    assert tdbench_prompt(s) == ("Question: Which side?\nOptions:\nA. left\nB. right\n"
                                 "Please select the correct answer from the options above. \n")
    g = tmp_path / "tdbench_grounding_rot0.tsv"
    g.write_text("index\timage\tquestion\tanswer\n3\t" + _b64_png() + "\twhite car\t[0.1, 0.2, 0.3, 0.4]\n")
    (gs,) = load("tdbench", g, cache_dir=tmp_path / "c")
    assert gs.task == "visual_grounding" and gs.target == "[0.1, 0.2, 0.3, 0.4]"
    assert tdbench_prompt(gs).startswith("\nPlease output the coordinates of the white car in the image in the "
                                         "format [x1, y1, x2, y2]. Do not include any additional text.")


def test_aircopbench_dataset_name_feeds_the_per_dataset_tables(tmp_path):
    rec = {"question_id": "Q1", "question_type": "2.2 Object Counting (UAV1)", "question": "How many?",
           "options": {"A": "1", "B": "2"}, "correct_answer": "A", "uav_paths": {"UAV1": "u1.png"}}
    f = tmp_path / "Real2_VQA_test.json"
    f.write_text(json.dumps([rec]))
    (s,) = load("aircopbench", f, check_images=False)
    assert s.metadata["dataset"] == "Real2_VQA"
    summary = aggregate([score_detailed(s, "A")])
    assert summary["per_dataset"]["Real2_VQA"]["score"] == 100.0
    assert summary["per_dataset_group"]["Real2_VQA----Object Understanding"]["count"] == 1
