"""Loaders on records written in each benchmark's exact schema, and malformed input giving clear errors."""

from __future__ import annotations

import base64
import io
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from benchmarks.loaders import load
from benchmarks.loaders.tdbench import rotate_box, rotate_direction_words
from benchmarks.sample import RecordError


def _jpg(path: Path, size=(64, 48)) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", size, (10, 20, 30)).save(path)
    return path


def _record(qid="Region_Recognition_00001", image="./SpatialUAV/samples_Single_Image/img0001.jpg", gt="Region 3, 4."):
    return {"id": qid, "image": [image], "conversations": [{"from": "human", "value": "<image>\nWhich regions?"}],
            "source": "SpatialUAV", "GT": gt}  # fmt: skip


# --- SpatialUAV / synth ---------------------------------------------------------------------------------------
def test_spatialuav_readme_record(shared_data):
    samples = load("spatialuav", shared_data / "spatialuav" / "readme_example_record.jsonl", check_images=False)
    assert len(samples) == 1
    s = samples[0]
    assert (s.id, s.benchmark, s.task, s.target) == ("Region_Recognition_00001", "spatialuav", "Region_Recognition", "Region 3, 4.")
    assert s.question.startswith("Which regions in the image contain a parking lot?")
    assert s.metadata["source"] == "SpatialUAV"


def test_spatialuav_images_resolve_with_dataset_folder_stripped(tmp_path):
    img = _jpg(tmp_path / "samples_Single_Image" / "img0001.jpg")
    f = tmp_path / "annotations.jsonl"
    f.write_text(json.dumps(_record()) + "\n\n" + json.dumps(_record("A2A_Camera_Transformation_00002", gt="5")) + "\n")
    samples = load("synth", f)
    assert [s.task for s in samples] == ["Region_Recognition", "A2A_Camera_Transformation"]
    assert samples[0].images == [str(img)] and samples[0].benchmark == "synth"
    assert samples[0].question == "Which regions?"


def test_spatialuav_missing_image_names_the_record(tmp_path):
    f = tmp_path / "a.jsonl"
    f.write_text(json.dumps(_record()) + "\n")
    with pytest.raises(RecordError, match=r"a\.jsonl:1 .*img0001\.jpg.*not found"):
        load("spatialuav", f)


@pytest.mark.parametrize(
    ("line", "pattern"),
    [
        ('{"id": "Region_Recognition_00002", "image": [', r"bad\.jsonl:2.*invalid JSON"),
        (json.dumps({k: v for k, v in _record("Region_Recognition_00002").items() if k != "GT"}), r"bad\.jsonl:2.*missing field 'GT'"),
        (json.dumps(_record("Region_Recognition_00001")), r"bad\.jsonl:2.*duplicate id"),
        (json.dumps([1, 2]), r"bad\.jsonl:2.*expected a JSON object"),
        (json.dumps(dict(_record("Region_Recognition_00002"), conversations=[])), r"bad\.jsonl:2.*no human turn"),
    ],
)
def test_spatialuav_malformed_lines(tmp_path, line, pattern):
    f = tmp_path / "bad.jsonl"
    f.write_text(json.dumps(_record()) + "\n" + line + "\n")
    with pytest.raises(RecordError, match=pattern):
        load("spatialuav", f, check_images=False)


def test_unknown_suite_and_missing_file(tmp_path):
    with pytest.raises(ValueError, match="unknown benchmark suite 'vqa2'"):
        load("vqa2", tmp_path / "x.jsonl")
    with pytest.raises(RecordError, match="file not found"):
        load("spatialuav", tmp_path / "x.jsonl")


# --- BEDI -----------------------------------------------------------------------------------------------------
def _bedi_file(folder: Path, image_id="DJI_0001") -> Path:
    _jpg(folder / f"{image_id}.JPG")
    data = {
        "Spatial_PosRelDis": {"1": {"Question": "In which o'clock direction is Region 3?", "Standard Answer": "5 o'clock.",
                                    "Generated Answer": "4 o'clock"}},
        "Semantic_InfoDet": {"2": {"Question": "Which regions contain a fire truck?", "Standard Answer": "Region 2 and 3",
                                   "Generated Answer": ""}},
    }  # fmt: skip
    f = folder / f"{image_id}_ans.json"
    f.write_text(json.dumps(data))
    return f


def test_bedi_folder_of_answer_files(tmp_path):
    _bedi_file(tmp_path, "DJI_0001")
    _bedi_file(tmp_path, "DJI_0002")
    samples = load("bedi", tmp_path)
    assert [s.id for s in samples] == ["DJI_0001/Spatial_PosRelDis/1", "DJI_0001/Semantic_InfoDet/2",
                                       "DJI_0002/Spatial_PosRelDis/1", "DJI_0002/Semantic_InfoDet/2"]  # fmt: skip
    assert samples[0].images == [str(tmp_path / "DJI_0001.JPG")]
    assert samples[0].target == "5 o'clock." and samples[0].metadata["generated_answer"] == "4 o'clock"


def test_bedi_missing_standard_answer_names_question(tmp_path):
    f = _bedi_file(tmp_path)
    data = json.loads(f.read_text())
    del data["Semantic_InfoDet"]["2"]["Standard Answer"]
    f.write_text(json.dumps(data))
    with pytest.raises(RecordError, match=r"DJI_0001_ans\.json \['Semantic_InfoDet'\]\['2'\]: missing field 'Standard Answer'"):
        load("bedi", f)
    f.write_text("{not json")
    with pytest.raises(RecordError, match="invalid JSON at line 1"):
        load("bedi", f)


# --- Open3D-VQA -----------------------------------------------------------------------------------------------
def _o3d_record(rid="q0", question_name="egocentric_distance", answer="3.2 meters"):
    return {"id": rid, "image_info": {"image_path": "images/rgb_3.png", "depth_path": "images/depth_3.png"},
            "qa_info": {"type": "quantitative", "question_name": question_name, "is_embodied": True},
            "conversation": [{"from": "human", "value": "<image>\nHow far is the van?"}, {"from": "gpt", "value": answer}],
            "query_question": "How far is the van?"}  # fmt: skip


def test_open3dvqa_nested_file_with_real_image(tmp_path, shared_data):
    shutil.copytree(shared_data / "open3d-vqa" / "images", tmp_path / "images")
    f = tmp_path / "test_qa.json"
    f.write_text(json.dumps({"EmbodiedCity": {"scene_a": [_o3d_record("q0"), _o3d_record("q1", "allocentric_size", "Yes")]}}))
    samples = load("open3dvqa", f)
    assert [(s.id, s.task, s.target) for s in samples] == [("q0", "egocentric_distance", "3.2 meters"), ("q1", "allocentric_size", "Yes")]
    assert samples[0].images == [str(tmp_path / "images" / "rgb_3.png")]
    assert samples[0].question == "How far is the van?" and samples[0].metadata["scene"] == "scene_a"


def test_open3dvqa_missing_qa_info_names_record(tmp_path):
    rec = _o3d_record()
    del rec["qa_info"]["question_name"]
    f = tmp_path / "test_qa.json"
    f.write_text(json.dumps({"d": {"s": [rec]}}))
    with pytest.raises(RecordError, match=r"\['d'\]\['s'\]\[0\] \(id 'q0'\) qa_info: missing field 'question_name'"):
        load("open3dvqa", f, check_images=False)


# --- AirCopBench ----------------------------------------------------------------------------------------------
def _air(qid="Q1", answer="A"):
    return {"question_id": qid, "question_type": "2.2 Object Counting (UAV1)", "question": "How many cars?",
            "options": {"A": "1", "B": "2", "C": "3", "D": "4"}, "correct_answer": answer,
            "uav_paths": {"UAV1": "Samples/u1.png", "UAV2": "Samples/u2.png"}}  # fmt: skip


def test_aircopbench_records_and_prompt(tmp_path):
    _jpg(tmp_path / "Samples" / "u1.png")
    _jpg(tmp_path / "Samples" / "u2.png")
    f = tmp_path / "Sim3_VQA_test.json"
    f.write_text(json.dumps({"results": [_air()]}))
    (s,) = load("aircopbench", f)
    assert s.task == "Object Counting" and s.target == "A" and s.metadata["uavs"] == ["UAV1", "UAV2"]
    assert s.images == [str(tmp_path / "Samples" / "u1.png"), str(tmp_path / "Samples" / "u2.png")]
    from benchmarks.loaders.aircopbench import prompt

    assert prompt(s) == "How many cars?\nA. 1\nB. 2\nC. 3\nD. 4\nAnswer with the option's letter from the given choices directly."


def test_aircopbench_bad_answer_names_record(tmp_path):
    f = tmp_path / "q.json"
    f.write_text(json.dumps([_air("Q1"), _air("Q2", answer="E")]))
    with pytest.raises(RecordError, match=r"q\.json \[1\] \(question_id 'Q2'\): correct_answer 'E'"):
        load("aircopbench", f, check_images=False)


# --- TDBench --------------------------------------------------------------------------------------------------
def _b64_png(arr: np.ndarray) -> str:
    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, format="PNG")
    return base64.b64encode(buf.getvalue()).decode()


def _tsv(path: Path, rows: list[dict]) -> Path:
    cols = ["index", "image", "question", "A", "B", "C", "D", "answer", "category"]
    lines = ["\t".join(cols)] + ["\t".join(str(r.get(c, "")) for c in cols) for r in rows]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_tdbench_rotations_rotate_pixels_words_and_boxes(tmp_path):
    # 80x60 image with a white block at x 4..19, y 2..11 (top-left): a known geometry to follow through rotations
    arr = np.zeros((60, 80, 3), np.uint8)
    arr[2:12, 4:20] = 255
    rows = [
        {"index": 0, "image": _b64_png(arr), "question": "Where is the white car?", "A": "top-left", "B": "top-right",
         "C": "bottom-right", "D": "bottom-left", "answer": "A", "category": "localization"},
        {"index": 1, "image": "0", "question": "Please output the coordinates of the white car",
         "answer": "[0.05, 0.0333333, 0.25, 0.2]", "category": "grounding"},
    ]  # fmt: skip
    samples = load("tdbench", _tsv(tmp_path / "td.tsv", rows), rotations=True, cache_dir=tmp_path / "cache")
    assert len(samples) == 8
    by = {(s.metadata["question_index"], s.metadata["rotation"]): s for s in samples}
    assert by[("0", 90)].options == {"A": "top-right", "B": "bottom-right", "C": "bottom-left", "D": "top-left"}
    assert by[("0", 90)].target == "A" and by[("0", 270)].options["A"] == "bottom-left"
    for rot in (0, 90, 180, 270):
        img = np.asarray(Image.open(by[("1", rot)].images[0]))
        ys, xs = np.nonzero(img[..., 0])
        h, w = img.shape[:2]
        observed = (xs.min() / w, ys.min() / h, (xs.max() + 1) / w, (ys.max() + 1) / h)
        box = json.loads(by[("1", rot)].target)
        assert box == pytest.approx(observed, abs=1e-4), rot
        assert by[("0", rot)].metadata["image_size"] == [w, h]


def test_direction_words_and_box_rotation_helpers():
    assert rotate_direction_words("The Top-left car, upper right truck, leftmost bus", 90) == (
        "The Top-right car, lower right truck, topmost bus"
    )
    assert rotate_direction_words("bottom left", 360) == "bottom left"
    assert rotate_box((0, 0, 10, 20), 90, (100, 50)) == (30, 0, 50, 10)
    with pytest.raises(ValueError):
        rotate_direction_words("left", 45)


def test_tdbench_bad_base64_and_missing_column(tmp_path):
    f = _tsv(tmp_path / "t.tsv", [{"index": 7, "image": "bm90IGFuIGltYWdl", "question": "q", "A": "x", "B": "y", "answer": "A"}])
    with pytest.raises(RecordError, match=r"t\.tsv:2 \(index '7'\): 'image' is not a base64-encoded image"):
        load("tdbench", f, cache_dir=tmp_path / "c")
    g = tmp_path / "g.tsv"
    g.write_text("index\tquestion\n1\tq\n")
    with pytest.raises(RecordError, match=r"missing TSV column\(s\) \['image', 'answer'\]"):
        load("tdbench", g)
