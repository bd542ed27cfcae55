"""Bad input gets a clear error from ``Agent.ask`` and a non-zero exit code from ``uav-agent ask``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.agent import Agent, AgentInputError
from agent.cli import app
from agent.config import Config

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
IMG = str(EXAMPLES / "regions_nadir.png")


@pytest.fixture(scope="module")
def agent() -> Agent:
    return Agent(Config.from_env(), use_embeddings=False)


@pytest.fixture
def corrupt(tmp_path) -> str:
    p = tmp_path / "broken.jpg"
    p.write_bytes(b"\xff\xd8\xff\xe0 definitely not a complete jpeg")
    return str(p)


@pytest.mark.parametrize("images,question,message", [
    ([], "Which region is closest to the drone?", "no images"),
    ([IMG], "   ", "question is empty"),
    (["/no/such/file.png"], "Which region is closest to the drone?", "image not found"),
    ([IMG], "List all shared region pairs between the two UAV images.", "takes 2 image"),
])
def test_bad_input_is_refused_clearly(agent, images, question, message):
    with pytest.raises(AgentInputError, match=message):
        agent.ask(images, question)


def test_corrupt_image_and_task_hint_mismatch(agent, corrupt):
    with pytest.raises(AgentInputError, match="unreadable image"):
        agent.ask([corrupt], "Which region is closest to the drone?")
    with pytest.raises(AgentInputError, match="takes 2"):
        agent.ask([IMG], "anything", task="A2A_Camera_Transformation")
    with pytest.raises(AgentInputError, match="unknown task type"):
        agent.ask([IMG], "anything", task="No_Such_Task")


def test_cli_exit_codes(corrupt):
    runner = CliRunner()
    cases = [["ask", "Which region is closest?"], ["ask", IMG, ""], ["ask", corrupt, "Which region is closest?"],
             ["ask", "/no/such.png", "Which region is closest?"]]
    for args in cases:
        res = runner.invoke(app, args)
        assert res.exit_code == 2, (args, res.output)
        assert "error:" in res.output


def test_cli_json_explain_and_abstention(tmp_path):
    runner = CliRunner()
    res = runner.invoke(app, ["ask", IMG, "Which regions in the image contain a parking lot?", "--json"])
    assert res.exit_code == 3  # abstained
    out = json.loads(res.output)
    assert out["abstained"] and out["task"] == "Region_Recognition" and "no LLM" in out["reason"]
    png = tmp_path / "seen.png"
    res = runner.invoke(app, ["ask", IMG, "The drone looks straight down from 60 m. Which region is the farthest "
                                          "from the drone?", "--explain", "--annotate", str(png)])
    assert res.exit_code == 0, res.output
    assert "plan: " in res.output and "[1] read_regions" in res.output and "[2] rank_by_distance" in res.output
    assert res.output.strip().splitlines()[-1].startswith("Region ")
