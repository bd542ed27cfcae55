"""The Ray engine on a local Ray instance (2 CPUs, no dashboard): same rows and resume semantics as the pool."""

from __future__ import annotations

import pytest
from PIL import Image

from benchmarks.runner import read_rows, run
from benchmarks.sample import Sample
from benchmarks.solvers import SolverSpec

ray = pytest.importorskip("ray")


def _samples(image: str, n: int) -> list[Sample]:
    return [Sample(f"Direction_Recognition_{i:05d}", "spatialuav", "Direction_Recognition", [image],
                   "In which o'clock direction is Region 1?", f"{1 + i % 12} o'clock") for i in range(n)]


def test_ray_engine_matches_inline_and_resumes(tmp_path):
    image = tmp_path / "a.png"
    Image.new("RGB", (16, 16)).save(image)
    samples = _samples(str(image), 10)
    spec = SolverSpec.of("random", seed=11)
    run(samples, spec, tmp_path / "inline.jsonl", progress=False)
    out = tmp_path / "ray.jsonl"
    run(samples[:4], spec, out, engine="ray", workers=2, progress=False)  # a first, partial run
    assert not ray.is_initialized()  # the local instance the runner started is shut down again
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:  # an existing instance is used (and left running)
        stats = run(samples, spec, out, engine="ray", workers=2, progress=False)
        assert ray.is_initialized()
    finally:
        ray.shutdown()
    assert (stats.skipped, stats.done, stats.errors) == (4, 6, 0)
    rows = read_rows(out)
    inline = {r["question_id"]: r["prediction"] for r in read_rows(tmp_path / "inline.jsonl")}
    assert {r["question_id"]: r["prediction"] for r in rows} == inline
    assert all(r["worker"]["solver_loads"] == 1 for r in rows)
