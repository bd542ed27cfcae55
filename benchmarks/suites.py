"""Each benchmark as one unit: loader + prompt + scorer + published numbers + where its official code lives.

A ``Suite`` plays the part of inspect_ai's ``Task(dataset, solver, scorer)``: ``suite.load(path)`` gives the
samples in the benchmark's own record format, ``suite.prompt(sample)`` the text the benchmark's own inference
sends, ``suite.score(sample, reply)`` the official score (strict mode by default) and ``suite.evaluate`` the
report figures of many replies. ``SUITES`` is the one registry: ``benchmarks.loaders.load`` and the CLI's suite
names read it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.sample import Sample


def _question(sample: Sample) -> str:
    """The benchmark sends its question as written (SpatialUAV's carries the answer-format instruction)."""
    return sample.question


def _module_prompt(module: str) -> Callable[[Sample], str]:
    def prompt(sample: Sample) -> str:
        return importlib.import_module(module).prompt(sample)

    prompt.__doc__ = f"``{module}.prompt``: the official prompt text."
    return prompt


@dataclass(frozen=True)
class Suite:
    """One benchmark: its loader module (with fixed keyword arguments), prompt, official code and published
    figures (``published``: per-task rows by model; ``note``: headline figures where no table is published)."""

    name: str
    loader: str
    official: str
    prompt: Callable[[Sample], str] = _question
    loader_kwargs: Mapping[str, Any] = field(default_factory=dict)
    published: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    note: str | None = None

    def load(self, path: str | Path, **kw: Any) -> list[Sample]:
        """Samples of one benchmark file (or folder) in the benchmark's own format; ``RecordError`` names a bad
        record, ``TypeError`` an option this loader does not take."""
        return importlib.import_module(self.loader).load(path, **kw, **self.loader_kwargs)

    def score(self, sample: Sample, reply: Any, mode: str = "strict", **kw: Any) -> Any:
        """``benchmarks.scoring.score_detailed`` of one reply (``judge``, ``raw`` and ``draw`` pass through)."""
        from benchmarks.scoring import score_detailed

        if sample.benchmark != self.benchmark:
            raise ValueError(f"sample {sample.id!r} is a {sample.benchmark!r} sample, not {self.name!r}")
        return score_detailed(sample, reply, mode=mode, **kw)

    @property
    def benchmark(self) -> str:
        """The ``Sample.benchmark`` value of this suite's samples."""
        return str(self.loader_kwargs.get("benchmark", self.name))

    def evaluate(self, pairs: Iterable[tuple[Sample, Any]], mode: str = "strict", **kw: Any) -> dict[str, Any]:
        """Figures (``benchmarks.aggregate.aggregate``) of (sample, reply) pairs scored in ``mode``; AirCopBench's
        random letters come from one ``LetterDraw`` (seed ``kw["seed"]``, default 0) in pair order."""
        from benchmarks.aggregate import aggregate
        from benchmarks.scoring.aircopbench import DEFAULT_SEED, LetterDraw

        draw = LetterDraw(int(kw.pop("seed", DEFAULT_SEED)))
        return aggregate(self.score(s, r, mode, draw=draw, **kw) for s, r in pairs)


def _suites() -> dict[str, Suite]:
    from benchmarks.published import NOTES, SPATIALUAV

    spatial = "github:Hyu-Zhang/SpatialUAV eval_spatialuav.py (think stripping: run_spatialuav_inference.py)"
    return {s.name: s for s in (
        Suite("spatialuav", "benchmarks.loaders.spatialuav", spatial, published=SPATIALUAV),
        Suite("synth", "benchmarks.loaders.spatialuav", spatial + "; our generator's suite",
              loader_kwargs={"benchmark": "synth"}, published=SPATIALUAV),
        Suite("bedi", "benchmarks.loaders.bedi", "github:lostwolves/BEDI test/score_calculation/*_score.py, "
              "test/task_testing/model_action_answer.py", note=NOTES["bedi"]),
        Suite("open3dvqa", "benchmarks.loaders.open3dvqa", "github:EmbodiedCity/Open3D-VQA.code evaluation.py "
              "(GPT-4o judge)", note=NOTES["open3dvqa"]),
        Suite("aircopbench", "benchmarks.loaders.aircopbench", "github:zhajirong/AirCopBench "
              "AirCopBench_evaluation/evaluation.py", prompt=_module_prompt("benchmarks.loaders.aircopbench"),
              note=NOTES["aircopbench"]),
        Suite("tdbench", "benchmarks.loaders.tdbench", "github:open-compass/VLMEvalKit vlmeval/dataset/"
              "image_mcq.py TDBench, image_vqa.py TDBenchGrounding, utils/tdbench.py, utils/matching_util.py",
              prompt=_module_prompt("benchmarks.loaders.tdbench"), note=NOTES["tdbench"]),
    )}  # fmt: skip


SUITES: dict[str, Suite] = _suites()


def get_suite(name: str) -> Suite:
    """The suite called ``name``; ``ValueError`` naming the known ones otherwise."""
    try:
        return SUITES[name]
    except KeyError:
        raise ValueError(f"unknown benchmark suite {name!r}; known: {', '.join(SUITES)}") from None
