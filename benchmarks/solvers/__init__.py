"""Solvers: something that turns a benchmark ``Sample`` into a raw answer string.

A solver has a ``name``, a ``model_id`` (written to every prediction row) and ``solve(sample) -> Solution``.
``SOLVERS`` is the one registry (name → factory); ``make_solver(SolverSpec)`` builds one. Specs are small and
picklable so that worker processes and Ray tasks can build their own solver once and reuse it.

``prompt(sample)`` is each benchmark's own prompt text: SpatialUAV/BEDI/Open3D-VQA ask the question as stored (the
answer-format instruction is inside it), AirCopBench and TDBench append their multiple-choice lines.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from benchmarks.sample import Sample

__all__ = ["SOLVERS", "Solution", "Solver", "SolverSpec", "make_solver", "prompt"]


@dataclass
class Solution:
    """One solver answer. ``raw`` is the reply exactly as produced (may hold a ``<think>`` block); ``trace`` the
    tool calls (agent); ``timings`` seconds by stage; ``extra`` solver-specific fields (abstained, reason, cached)."""

    raw: str
    trace: list[dict] = field(default_factory=list)
    timings: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class Solver(Protocol):
    name: str
    model_id: str

    def solve(self, sample: Sample) -> Solution: ...


@dataclass(frozen=True)
class SolverSpec:
    """A picklable recipe for a solver: registry ``name`` plus keyword ``options`` for its factory
    (e.g. ``seed`` for random; ``base_url``, ``model``, ``cache_dir`` for vlm)."""

    name: str
    options: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def of(cls, name: str, **options: Any) -> "SolverSpec":
        """Spec from keyword options (``None`` values dropped)."""
        return cls(name, tuple(sorted((k, v) for k, v in options.items() if v is not None)))

    def kwargs(self) -> dict[str, Any]:
        return dict(self.options)


# name → "module:factory"; factories take the spec's options as keyword arguments
SOLVERS: dict[str, str] = {
    "agent": "benchmarks.solvers.agent:AgentSolver",
    "agent+vlm": "benchmarks.solvers.agent:AgentVLMSolver",
    "vlm": "benchmarks.solvers.vlm:VLMSolver",
    "random": "benchmarks.solvers.random:RandomSolver",
}


def make_solver(spec: SolverSpec) -> Solver:
    """Build the solver named by ``spec``; ``ValueError`` naming the known solvers for an unknown name."""
    try:
        target = SOLVERS[spec.name]
    except KeyError:
        raise ValueError(f"unknown solver {spec.name!r}; known: {', '.join(SOLVERS)}") from None
    module, factory = target.split(":")
    return getattr(importlib.import_module(module), factory)(**spec.kwargs())


def prompt(sample: Sample) -> str:
    """The benchmark's own prompt for ``sample`` (what a raw VLM is sent and what the agent is asked)."""
    if sample.benchmark == "aircopbench":
        from benchmarks.loaders.aircopbench import prompt as aircop_prompt

        return aircop_prompt(sample)
    if sample.benchmark == "tdbench":  # multiple choice and grounding: VLMEvalKit's prompts
        from benchmarks.loaders.tdbench import prompt as tdbench_prompt

        return tdbench_prompt(sample)
    return sample.question
