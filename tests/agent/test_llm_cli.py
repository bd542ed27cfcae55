"""``uav-agent ask`` and ``bench run`` when the language model fails: one line, documented exit codes, no traceback.

The agent here is the real one (in-process MCP server); the LLM is the realistic local fake (``fake_openai``).
"""

from __future__ import annotations

import json

import pytest
from fake_openai import FakeChatServer
from PIL import Image
from typer.testing import CliRunner

from agent.cli import app

SCENE = "Describe the scene below."
DOWN = "http://127.0.0.1:9/v1"


@pytest.fixture(scope="module")
def photo(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("cli") / "field.png"
    Image.new("RGB", (64, 48), (40, 140, 40)).save(path)
    return str(path)


@pytest.fixture
def server():
    s = FakeChatServer().start()
    yield s
    s.close()


def ask(photo: str, url: str, *extra: str):
    return CliRunner().invoke(app, ["ask", photo, SCENE, "--llm-base-url", url, "--llm-model", "m", *extra])


def one_line_failure(result) -> str:
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    return lines[0]


def test_an_unreachable_llm_is_exit_3_with_one_line(photo, monkeypatch):
    monkeypatch.setenv("UAV_AGENT_LLM_MAX_RETRIES", "0")
    result = ask(photo, DOWN)
    assert result.exit_code == 3 and f"{DOWN} could not be reached" in one_line_failure(result)


def test_an_http_400_is_exit_3_with_the_servers_message(photo, server):
    server.script = [(400, "the request exceeds the available context size")]
    result = ask(photo, server.url)
    assert result.exit_code == 3 and "HTTP 400: the request exceeds" in one_line_failure(result)


def test_limits_from_the_command_line_reach_the_request(photo, server, monkeypatch):
    monkeypatch.setenv("UAV_AGENT_LLM_MAX_RETRIES", "0")
    server.script = [{"content": "late", "delay_s": 2.0}, "A green field."]
    result = ask(photo, server.url, "--llm-max-tokens", "33", "--llm-timeout", "0.5")
    assert result.exit_code == 3 and "timed out" in one_line_failure(result)
    answered = ask(photo, server.url, "--llm-max-tokens", "33")
    assert answered.exit_code == 0 and answered.output.strip() == "A green field."
    assert {r["body"]["max_tokens"] for r in server.requests if r["body"]["max_tokens"] != 1} == {33}


def test_an_llm_failure_outside_an_abstention_is_exit_2(photo, monkeypatch):
    from agent.agent import Agent
    from planners.llm_client import LLMError

    def fail(*args, **kwargs):
        raise LLMError("the language model m at http://x/v1 answered HTTP 400: bad")

    monkeypatch.setattr(Agent, "ask", fail)
    result = ask(photo, DOWN)
    assert result.exit_code == 2 and one_line_failure(result).startswith("error: the language model m")


def test_bench_run_fails_when_every_sample_errored(photo, server, tmp_path):
    server.default = (400, "Invalid request")
    data = tmp_path / "aircop.json"
    data.write_text(json.dumps([{"question_id": f"q{i}", "question_type": "2.2 Object Counting (UAV1)",
                                 "question": f"How many cars, case {i}?", "options": {"A": "1", "B": "2"},
                                 "correct_answer": "B", "uav_paths": {"UAV1": photo}} for i in range(2)]))

    def bench(output: str):
        return CliRunner().invoke(app, ["bench", "run", "--suite", "aircopbench", "--data", str(data), "--solver",
                                        "vlm", "--vlm-base-url", server.url, "--vlm-model", "m", "--output",
                                        str(tmp_path / output), "--no-progress", "--cache-dir", str(tmp_path / "c")])

    result = bench("failed.jsonl")
    assert result.exit_code == 1 and "all 2 samples failed; first: VLMError" in result.output
    server.default = "B"
    assert bench("solved.jsonl").exit_code == 0

def test_agent_vlm_rows_are_errors_only_when_the_endpoint_fails(photo, server, monkeypatch):
    from benchmarks.sample import Sample
    from benchmarks.solvers import SolverSpec, make_solver
    from planners.llm_client import LLMError

    monkeypatch.setenv("UAV_AGENT_LLM_MAX_RETRIES", "0")
    sample = Sample("s1", "spatialuav", "Scene_Description", [photo], SCENE, "A field.")
    with pytest.raises(LLMError, match="could not be reached"):
        make_solver(SolverSpec.of("agent+vlm", base_url=DOWN, model="m")).solve(sample)
    server.default = "| " * 300  # the endpoint works, the model's reply is junk: an abstention, not an error
    junk = make_solver(SolverSpec.of("agent+vlm", base_url=server.url, model="m")).solve(sample)
    assert junk.raw == "" and junk.extra["abstained"] and "not text" in junk.extra["reason"]
