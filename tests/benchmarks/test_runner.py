"""The runner: prediction rows, errors that do not stop a run, resumption after a kill, the process pool."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PIL import Image

from benchmarks import solvers
from benchmarks.runner import RunnerError, read_rows, run, select
from benchmarks.sample import Sample
from benchmarks.solvers import Solution, SolverSpec

ROOT = Path(__file__).resolve().parents[2]


class FlakySolver:
    """Answers "A" except for ids listed in ``fail`` (raises); counts its calls."""

    name = "flaky"
    model_id = "flaky-1"
    calls: list[str] = []

    def __init__(self, fail: tuple[str, ...] = ()) -> None:
        self.fail = set(fail)

    def solve(self, sample: Sample) -> Solution:
        FlakySolver.calls.append(sample.id)
        if sample.id in self.fail:
            raise RuntimeError(f"boom on {sample.id}")
        return Solution(raw="<think>hmm</think>A", trace=[{"tool": "none"}], timings={"total_s": 0.001})


@pytest.fixture
def flaky(monkeypatch):
    monkeypatch.setitem(solvers.SOLVERS, "flaky", f"{__name__}:FlakySolver")
    FlakySolver.calls = []
    return FlakySolver


@pytest.fixture(scope="module")
def image(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("img") / "a.png"
    Image.new("RGB", (16, 16)).save(path)
    return str(path)


def _samples(image: str, n: int = 6) -> list[Sample]:
    return [Sample(f"q{i}", "aircopbench", "Object Counting", [image], f"Question {i}?", "AB"[i % 2],
                   options={"A": "yes", "B": "no"}, metadata={"question_type": "2.2 Object Counting (UAV1)"})
            for i in range(n)]


def test_rows_have_the_spatialuav_fields_and_a_failure_does_not_stop_the_run(flaky, image, tmp_path):
    out = tmp_path / "p.jsonl"
    stats = run(_samples(image), SolverSpec.of("flaky", fail=("q2",)), out, progress=False)
    rows = {r["question_id"]: r for r in read_rows(out)}
    assert (stats.done, stats.errors) == (6, 1) and len(rows) == 6
    for key in ("question_id", "question", "gt", "prediction", "raw_prediction", "source", "image", "model_id",
                "trace", "timings"):
        assert key in rows["q0"]
    assert rows["q0"]["prediction"] == "A" and rows["q0"]["raw_prediction"] == "<think>hmm</think>A"
    assert rows["q0"]["question"].endswith("Answer with the option's letter from the given choices directly.")
    assert rows["q2"]["error"] == "RuntimeError: boom on q2" and rows["q2"]["prediction"] == ""
    # restart: finished samples are skipped, the failed one is retried (and now succeeds)
    flaky.calls = []
    stats = run(_samples(image), SolverSpec.of("flaky"), out, progress=False)
    assert flaky.calls == ["q2"] and (stats.skipped, stats.done, stats.errors) == (5, 1, 0)
    assert read_rows(out)[-1]["error"] is None and len(read_rows(out)) == 6


def test_a_torn_last_line_is_dropped_and_its_sample_redone(flaky, image, tmp_path):
    out = tmp_path / "p.jsonl"
    run(_samples(image, 3), SolverSpec.of("flaky"), out, progress=False)
    text = out.read_text()
    out.write_text(text + text.splitlines()[0][:40])  # a kill in the middle of writing a fourth row
    samples = _samples(image, 5)
    flaky.calls = []
    run(samples, SolverSpec.of("flaky"), out, progress=False)
    lines = out.read_text().splitlines()
    assert flaky.calls == ["q3", "q4"]
    assert [json.loads(line)["question_id"] for line in lines] == ["q0", "q1", "q2", "q3", "q4"]


def test_a_solver_that_cannot_be_built_stops_the_run_with_its_reason(image, tmp_path):
    with pytest.raises(RunnerError, match="--vlm-base-url"):
        run(_samples(image), SolverSpec.of("vlm"), tmp_path / "p.jsonl", progress=False)
    with pytest.raises(RunnerError, match="--vlm-base-url"):
        run(_samples(image), SolverSpec.of("vlm"), tmp_path / "p.jsonl", workers=2, progress=False)


def test_process_pool_builds_the_solver_once_per_worker_and_matches_inline(image, tmp_path):
    samples = _samples(image, 12)
    run(samples, SolverSpec.of("random", seed=4), tmp_path / "inline.jsonl", progress=False)
    stats = run(samples, SolverSpec.of("random", seed=4), tmp_path / "pool.jsonl", workers=2, progress=False)
    inline = {r["question_id"]: r["prediction"] for r in read_rows(tmp_path / "inline.jsonl")}
    rows = read_rows(tmp_path / "pool.jsonl")
    assert stats.done == 12 and {r["question_id"]: r["prediction"] for r in rows} == inline
    pids = {r["worker"]["pid"] for r in rows}
    assert 1 <= len(pids) <= 2 and os.getpid() not in pids
    assert all(r["worker"]["solver_loads"] == 1 for r in rows)


def test_select_keeps_rotated_copies_together_and_names_unknown_tasks(image):
    rotated = [Sample(f"{q}_r{r}", "tdbench", "counting", [image], "q", "A", options={"A": "1"},
                      metadata={"question_index": q, "rotation": r}) for q in ("7", "8", "9") for r in (0, 90, 180, 270)]
    kept = select(rotated, limit=2)
    assert [s.id for s in kept] == [f"{q}_r{r}" for q in ("7", "8") for r in (0, 90, 180, 270)]
    with pytest.raises(ValueError, match="tasks in this data: counting"):
        select(rotated, tasks=["grounding"])


def test_a_killed_cli_run_resumes_with_the_same_command_and_loses_nothing(image, tmp_path):
    from fake_openai import FakeEndpoint

    ep = FakeEndpoint()
    ep.delay_s = 0.4
    ep.thread.start()
    try:
        data = tmp_path / "aircop.json"
        data.write_text(json.dumps([{"question_id": f"k{i}", "question_type": "2.2 Object Counting (UAV1)",
                                     "question": f"How many cars, case {i}?", "options": {"A": "1", "B": "2"},
                                     "correct_answer": "B", "uav_paths": {"UAV1": image}} for i in range(8)]))
        out = tmp_path / "preds.jsonl"
        cmd = [sys.executable, "-m", "agent.cli", "bench", "run", "--suite", "aircopbench", "--data", str(data),
               "--solver", "vlm", "--vlm-base-url", ep.url, "--vlm-model", "m", "--output", str(out),
               "--cache-dir", str(tmp_path / "cache"), "--no-progress"]
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.time() + 60
        while time.time() < deadline and (not out.exists() or len(out.read_text().splitlines()) < 3):
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        killed_at = len(out.read_text().splitlines())
        assert 3 <= killed_at < 8
        done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert f"{killed_at} already done" in done.stdout
        ids = [json.loads(line)["question_id"] for line in out.read_text().splitlines()]
        assert sorted(ids) == [f"k{i}" for i in range(8)]  # every sample exactly once
        assert len(ep.asked()) <= 8 + 1  # at most the one in flight at the kill is asked twice
    finally:
        ep.server.shutdown()
        ep.server.server_close()
