"""Each benchmark as one unit (``benchmarks.suites``): load, prompt, score and evaluate through the suite."""

from __future__ import annotations

import json

import pytest

from benchmarks.loaders import SUITES as LOADER_SUITES
from benchmarks.sample import Sample
from benchmarks.suites import SUITES, get_suite


def test_one_registry_for_loaders_and_suites():
    assert set(LOADER_SUITES) == set(SUITES) == {"spatialuav", "synth", "bedi", "open3dvqa", "aircopbench", "tdbench"}
    for name, suite in SUITES.items():
        assert LOADER_SUITES[name][0] == suite.loader and suite.official.startswith("github:")
        assert suite.published or suite.note
    with pytest.raises(ValueError, match="unknown benchmark suite 'vqa'"):
        get_suite("vqa")


def test_aircopbench_suite_end_to_end(tmp_path):
    suite = get_suite("aircopbench")
    rec = {"question_id": "Q1", "question_type": "1.1 Scene Description (UAV1)", "question": "What is shown?",
           "options": {"A": "a road", "B": "a lake"}, "correct_answer": "B", "uav_paths": {"UAV1": "u.png"}}
    f = tmp_path / "Sim3_VQA_test.json"
    f.write_text(json.dumps([rec, {**rec, "question_id": "Q2"}]))
    samples = suite.load(f, check_images=False)
    assert suite.prompt(samples[0]).endswith("Answer with the option's letter from the given choices directly.")
    assert suite.score(samples[0], "(B)").score == 1.0
    # the second reply has no A-D at all: strict draws the official random letter (seed 0 draws D first)
    figures = suite.evaluate(zip(samples, ["(B)", "???"]))
    assert figures["overall"] == 50.0 and figures["guessed"] == 1 and figures["per_dataset"]["Sim3_VQA"]["count"] == 2
    assert suite.evaluate(zip(samples, ["(B)", "???"]), mode="lenient")["overall"] == 50.0


def test_suite_refuses_another_benchmarks_sample():
    with pytest.raises(ValueError, match="not 'bedi'"):
        get_suite("bedi").score(Sample("x", "tdbench", "c", [], "q", "A", options={"A": "1"}), "A")
    assert get_suite("synth").benchmark == "synth" and get_suite("spatialuav").prompt(
        Sample("R_1", "spatialuav", "R", [], "Which regions? Answer like `Region 1`.", "Region 1")).startswith("Which")
