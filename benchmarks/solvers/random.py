"""Task-aware random baseline: a uniformly random answer in the task's own answer format.

Each sample draws from its own stream ``default_rng([seed, crc32(sample id)])``, so an answer does not depend on
sample order, worker count or resumption. The solver never reads the target or ground-truth metadata; it sees
only what a model sees (the question, option letters, image sizes).

Draws: option letter among the sample's options (A–D when none are listed); clock hour 1–12; arrow label 1–6
(SpatialUAV path planning draws six arrows); region ids from 0–9 plus any id the question names; 1–3 regions for
region sets and lists; 1–4 region pairs; a box inside image 2 (object matching) or inside the unit square
(TDBench grounding); heading offset uniform in (−180, 180] deg and signed distance uniform in [−100, 100] m; a
metric quantity log-uniform in [0.1, 100] m; yes/no; a free-text motion description from a small vocabulary.
"""

from __future__ import annotations

import json
import re
import zlib

import numpy as np

from agent.answer_formats import AnswerFormat
from benchmarks.sample import Sample
from benchmarks.solvers import Solution

REGION_POOL = tuple(range(10))
N_ARROWS = 6
DISTANCE_RANGE_M = (-100.0, 100.0)
QUANTITY_RANGE_M = (0.1, 100.0)
MOTIONS = ("moves forward", "moves backward", "rotates to the left", "rotates to the right", "ascends",
           "descends", "moves to the left", "moves to the right", "hovers in place", "orbits around the scene")
CAMERA = ("tilts down", "tilts up", "keeps a steady angle", "pans left", "pans right")
FOCUS = ("buildings", "trees", "a road", "parked cars", "an open field", "a river")
ACTIONS = ("move", "rotate", "adjust", "zoom")


def sample_rng(seed: int, sample_id: str) -> np.random.Generator:
    """The random stream of one sample (independent of the others)."""
    return np.random.default_rng([int(seed), zlib.crc32(sample_id.encode())])


def _regions(rng: np.random.Generator, question: str, k_max: int) -> list[int]:
    named = {int(x) for x in re.findall(r"[Rr]egion\s+(\d+)", question)}
    pool = sorted(set(REGION_POOL) | named)
    k = int(rng.integers(1, k_max + 1))
    return [int(x) for x in rng.choice(pool, size=min(k, len(pool)), replace=False)]


def _image_size(path: str) -> tuple[int, int]:
    from PIL import Image

    with Image.open(path) as im:
        return im.size


def _box(rng: np.random.Generator, width: float, height: float) -> tuple[float, float, float, float]:
    xs, ys = np.sort(rng.uniform(0, width, 2)), np.sort(rng.uniform(0, height, 2))
    return float(xs[0]), float(ys[0]), float(xs[1]), float(ys[1])


def _motion_text(rng: np.random.Generator) -> str:
    return (f"The drone {rng.choice(MOTIONS)} while the camera {rng.choice(CAMERA)}, and the view finally "
            f"focuses on {rng.choice(FOCUS)}.")


def _spatialuav(rng: np.random.Generator, sample: Sample) -> str:
    from benchmarks.scoring.spatialuav import task_spec

    spec, q = task_spec(sample.task), sample.question
    if spec.rule == "option":
        return str(rng.choice(sorted(sample.options) or list("ABCD")))
    if spec.answer_format is AnswerFormat.CLOCK:
        return f"{int(rng.integers(1, 13))} o'clock"
    if spec.answer_format is AnswerFormat.DIRECTION_LABEL:
        return f"Direction {int(rng.integers(1, N_ARROWS + 1))}"
    if spec.rule == "pairs":
        return ", ".join(f"{a}-{b}" for a, b in rng.choice(REGION_POOL, size=(int(rng.integers(1, 5)), 2)))
    if spec.rule == "camera":
        angle = f"{180.0 - rng.uniform(0.0, 360.0):.1f} degrees"
        wants_distance = re.search(r"distance|translation|meters|metres", q, re.IGNORECASE)
        return angle + (f", {rng.uniform(*DISTANCE_RANGE_M):.1f} meters" if wants_distance else "")
    if spec.rule == "object_matching" and re.search(r"bounding box|\[x1", q, re.IGNORECASE):
        w, h = _image_size(sample.images[-1])
        return "[" + ", ".join(str(int(round(v))) for v in _box(rng, w, h)) + "]"
    if spec.rule == "judge":
        return _motion_text(rng)
    k_max = 1 if spec.rule == "object_matching" else 3
    return "Region " + ", ".join(map(str, _regions(rng, q, k_max)))


def _bedi(rng: np.random.Generator, sample: Sample) -> str:
    from benchmarks.scoring import bedi

    if sample.task in bedi.CLOCK_TYPES:
        return f"{int(rng.integers(1, 13))} o'clock"
    if sample.task in bedi.SET_TYPES:
        return "Region " + ", ".join(map(str, _regions(rng, sample.question, 3)))
    if sample.task in bedi.ACTION_TYPES:
        action = {"action": str(rng.choice(ACTIONS)), "direction": 0, "distance": int(rng.integers(0, 20)),
                  "speed": int(rng.integers(0, 5)), "duration": int(rng.integers(0, 10)), "rotate_direction": 0,
                  "adjust_direction": 0, "zoom_level": 0}
        return json.dumps([action])
    return _motion_text(rng)


def _open3dvqa(rng: np.random.Generator, sample: Sample) -> str:
    qa_type = str((sample.metadata.get("qa_info") or {}).get("type", ""))
    if "o'clock" in sample.question.lower() or "clock" in sample.question.lower():
        return f"{int(rng.integers(1, 13))} o'clock"
    if qa_type == "quantitative":
        lo, hi = np.log(QUANTITY_RANGE_M)
        return f"{float(np.exp(rng.uniform(lo, hi))):.2f} meters"
    return str(rng.choice(["Yes.", "No."]))


def _tdbench(rng: np.random.Generator, sample: Sample) -> str:
    if sample.options:
        return str(rng.choice(sorted(sample.options)))
    return "[" + ", ".join(f"{v:.3f}" for v in _box(rng, 1.0, 1.0)) + "]"


_BY_BENCHMARK = {"spatialuav": _spatialuav, "synth": _spatialuav, "bedi": _bedi, "open3dvqa": _open3dvqa,
                 "tdbench": _tdbench,
                 "aircopbench": lambda rng, s: str(rng.choice(sorted(s.options) or list("ABCD")))}


class RandomSolver:
    """Random answers in each task's format; ``seed`` fixes every draw (per sample, see module docstring)."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.seed = int(seed)
        self.model_id = f"random-seed{self.seed}"

    def solve(self, sample: Sample) -> Solution:
        try:
            draw = _BY_BENCHMARK[sample.benchmark]
        except KeyError:
            raise ValueError(f"random solver: unknown benchmark {sample.benchmark!r}") from None
        return Solution(raw=draw(sample_rng(self.seed, sample.id), sample))
