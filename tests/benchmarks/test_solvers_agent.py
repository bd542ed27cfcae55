"""The agent solvers: the agent's answer, trace and timings reach the prediction row; agent+vlm consults the VLM."""

from __future__ import annotations

from dataclasses import replace

import pytest

from benchmarks.loaders import load
from benchmarks.runner import read_rows, run
from benchmarks.solvers import SolverSpec, make_solver
from fake_openai import FakeEndpoint

UNPLACED = "What colour is the roof of the largest building?"  # no geometric task type: only a VLM can answer


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    from benchmarks.synth.generate import generate

    ann = generate(["A2A_Camera_Transformation"], 1, 5, tmp_path_factory.mktemp("synth"), progress=False)
    return load("synth", ann)[0]


@pytest.fixture
def endpoint():
    ep = FakeEndpoint()
    ep.default = (200, "The roof is red.")
    ep.thread.start()
    yield ep
    ep.server.shutdown()
    ep.server.server_close()


def test_agent_row_carries_trace_timings_and_the_answer_text(sample, tmp_path):
    out = tmp_path / "p.jsonl"
    stats = run([sample], SolverSpec.of("agent"), out, progress=False)
    (row,) = read_rows(out)
    assert stats.done == 1 and row["error"] is None
    assert row["trace"] and all("tool" in t and "seconds" in t for t in row["trace"])
    assert row["timings"]["total_s"] > 0 and row["model_id"].startswith("uav-agent-")
    assert isinstance(row["abstained"], bool)
    assert row["prediction"] != "" or (row["abstained"] and row["reason"])  # an abstention says why


def test_agent_input_errors_become_error_rows(sample, tmp_path):
    broken = replace(sample, id="A2A_Camera_Transformation_99999", images=[str(tmp_path / "gone.jpg")] * 2)
    out = tmp_path / "p.jsonl"
    stats = run([broken, sample], SolverSpec.of("agent"), out, progress=False)
    rows = {r["question_id"]: r for r in read_rows(out)}
    assert stats.errors == 1 and rows[broken.id]["error"].startswith("AgentInputError: image not found")
    assert rows[sample.id]["error"] is None


def test_agent_plus_vlm_asks_the_vlm_what_the_tools_cannot_answer(sample, endpoint):
    question = replace(sample, question=UNPLACED)
    alone = make_solver(SolverSpec.of("agent")).solve(question)
    assert alone.raw == "" and alone.extra["abstained"] and "no LLM" in alone.extra["reason"]
    with_vlm = make_solver(SolverSpec.of("agent+vlm", base_url=endpoint.url, model="fake-vlm")).solve(question)
    assert with_vlm.raw == "The roof is red." and not with_vlm.extra["abstained"]
    tool_loop = [r for r in endpoint.requests if r["body"].get("tools") and r["body"].get("max_tokens") != 1]
    assert tool_loop and tool_loop[0]["body"]["model"] == "fake-vlm"  # not a capability probe or question program
    parts = tool_loop[0]["body"]["messages"][-1]["content"]
    assert any(p.get("type") == "image_url" for p in parts)  # the images went with the question
