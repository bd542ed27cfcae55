"""The random baseline: answers in each task's format, reproducible, and scoring at chance level.

Chance levels follow from the answer space alone (1/12 for a clock hour, 1/4 for a letter among A–D, 1/6 for an
arrow), not from the solver's code; 1,200 draws against uniformly drawn targets pin them to a few points.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image

from benchmarks.sample import Sample
from benchmarks.scoring import score, score_detailed
from benchmarks.scoring.spatialuav import TASKS
from benchmarks.solvers import SolverSpec, make_solver
from benchmarks.solvers.random import RandomSolver

N = 1200


@pytest.fixture(scope="module")
def image(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("img") / "view.jpg"
    Image.new("RGB", (640, 480), (90, 120, 60)).save(path)
    return str(path)


def _sample(task: str, i: int, image: str, question: str = "q", target: str = "", **kw) -> Sample:
    return Sample(f"{task}_{i:05d}", kw.pop("benchmark", "spatialuav"), task, [image, image], question, target, **kw)


def _mean_score(task: str, targets: list[str], image: str, question: str = "q", **kw) -> float:
    solver = RandomSolver(seed=3)
    samples = [_sample(task, i, image, question, t, **kw) for i, t in enumerate(targets)]
    return float(np.mean([score(s, solver.solve(s).raw) for s in samples]))


def test_every_spatialuav_task_gets_a_parseable_answer_in_its_format(image):
    solver = RandomSolver(seed=0)
    gts = {"A2A_Object_Matching": "[10, 20, 110, 90]", "A2A_Camera_Transformation": "-160.0 degrees, -70.0 meters"}
    questions = {"A2A_Object_Matching": "Which bounding box in image2 corresponds to the object at Region 0?",
                 "A2A_Camera_Transformation": "What are the heading offset angle and translation distance?"}
    for task in TASKS:
        s = _sample(task, 1, image, questions.get(task, "Which region? Region 3 is marked."), gts.get(task, "B"))
        res = score_detailed(s, solver.solve(s).raw)
        assert res.parsed, task
        assert res.answer_format != "invalid", task


def test_answers_are_reproducible_and_independent_of_order(image):
    samples = [_sample("Direction_Recognition", i, image) for i in range(30)]
    a = [RandomSolver(seed=7).solve(s).raw for s in samples]
    b = [RandomSolver(seed=7).solve(s).raw for s in reversed(samples)][::-1]
    c = [RandomSolver(seed=8).solve(s).raw for s in samples]
    assert a == b
    assert a != c


def test_clock_direction_scores_one_in_twelve(image):
    rng = np.random.default_rng(0)
    targets = [f"{h} o'clock" for h in rng.integers(1, 13, N)]
    assert abs(_mean_score("Direction_Recognition", targets, image) - 1 / 12) < 0.035


def test_option_letter_scores_one_in_four(image):
    rng = np.random.default_rng(1)
    targets = list(rng.choice(list("ABCD"), N))
    assert abs(_mean_score("A2A_Collaboration_Recognition", targets, image) - 0.25) < 0.05


def test_arrow_label_scores_one_in_six(image):
    rng = np.random.default_rng(2)
    targets = [f"Direction {d}" for d in rng.integers(1, 7, N)]
    assert abs(_mean_score("A2G_Path_Planning", targets, image) - 1 / 6) < 0.04


def test_camera_angle_only_question_gets_one_number_within_ten_degrees_by_chance(image):
    rng = np.random.default_rng(3)
    targets = [f"{a:.1f}" for a in rng.uniform(-180, 180, N)]
    # angle only: a hit iff the circular error is <= 10 deg, i.e. probability 20/360
    assert abs(_mean_score("A2A_Camera_Transformation", targets, image, "What is the heading offset angle?")
               - 20 / 360) < 0.025


def test_object_matching_box_lies_inside_image_two(tmp_path, image):
    small = tmp_path / "small.png"
    Image.new("RGB", (200, 100)).save(small)
    s = Sample("A2A_Object_Matching_00001", "spatialuav", "A2A_Object_Matching", [image, str(small)],
               "Which bounding box in image2 corresponds to Region 0?", "[1, 2, 30, 40]")
    for seed in range(20):
        x1, y1, x2, y2 = json.loads(RandomSolver(seed).solve(s).raw)
        assert 0 <= x1 <= x2 <= 200 and 0 <= y1 <= y2 <= 100


def test_other_benchmarks_use_their_formats(image):
    solver = make_solver(SolverSpec.of("random", seed=1))
    tdb = Sample("t1", "tdbench", "counting", [image], "How many?", "C", options={"A": "1", "B": "2", "C": "3"})
    assert solver.solve(tdb).raw in {"A", "B", "C"}
    ground = Sample("t2", "tdbench", "grounding", [image], "Where is the car?", "[0.1, 0.1, 0.3, 0.3]",
                    metadata={"image_size": [640, 480]})
    assert score_detailed(ground, solver.solve(ground).raw).parsed
    bedi = Sample("b1", "bedi", "Spatial_PosRelDis", [image], "Which o'clock?", "5 o'clock")
    assert solver.solve(bedi).raw.endswith("o'clock")
    o3d = Sample("o1", "open3dvqa", "ego_dist", [image], "How far is the van?", "3 meters",
                 metadata={"qa_info": {"type": "quantitative"}})
    assert solver.solve(o3d).raw.endswith("meters")
    with pytest.raises(ValueError, match="unknown benchmark"):
        solver.solve(Sample("x", "nope", "t", [image], "q", "a"))
