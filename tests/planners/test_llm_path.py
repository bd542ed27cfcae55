"""The optional LLM path against a local OpenAI-compatible HTTP server that returns scripted replies.

The server (started here, on 127.0.0.1) speaks ``POST /v1/chat/completions``, records every request and answers
from a script, including tool calls. Tools come from the in-memory test MCP server of ``test_planner_graph``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from fake_openai import FakeChatServer
from fake_openai import asked, offering_tools, tool_call, tool_loop, tools_called
from planner_fakes import DECIDED, REGIONS, ask, make_server

from agent.agent import Agent
from agent.config import Config
from planners.llm import make_chat_model


@pytest.fixture
def llm_server():
    servers: list[FakeChatServer] = []

    def start(replies: list[dict] | None = None, **kw: Any) -> FakeChatServer:
        servers.append(FakeChatServer(replies, **kw).start())
        return servers[-1]

    yield start
    for s in servers:
        s.close()


def llm_agent(server: FakeChatServer, monkeypatch) -> Agent:
    monkeypatch.setenv("TEST_LLM_KEY", "sk-test")
    cfg = Config(llm_base_url=server.url, llm_model="scripted", llm_api_key_env="TEST_LLM_KEY")
    return Agent(cfg, use_embeddings=False)


def test_unplaced_question_lets_the_llm_call_mcp_tools(llm_server, images, monkeypatch):
    server = llm_server(default=tool_loop([
        tool_call("clock_direction", {"target": REGIONS[3], "image_size": [640, 480]}),
        {"content": "The box is at 3 o'clock from the image centre."}]))
    a = ask(llm_agent(server, monkeypatch), make_server(DECIDED, DECIDED), images[:1], "Wibble the frobnicator?")
    assert not a.abstained and a.text == "The box is at 3 o'clock from the image centre."
    assert a.understanding["method"] == "llm" and a.format == "FREE_TEXT"
    calls = tools_called(a)
    assert [c["tool"] for c in calls] == ["clock_direction"] and calls[0]["args"]["target"] == REGIONS[3]
    assert [c["tool"] for c in a.trace if c["tool"] != "llm_program"] == ["llm_capabilities", "llm",
                                                                          "clock_direction", "llm"]
    first, second = offering_tools(server)
    assert first["auth"] == "Bearer sk-test"
    offered = {t["function"]["name"] for t in first["body"]["tools"]}
    assert {"read_regions", "clock_direction", "relative_pose"} <= offered
    tool_msgs = [m for m in second["body"]["messages"] if m["role"] == "tool"]
    assert json.loads(tool_msgs[0]["content"])["hour"] == 3  # the MCP tool's result went back to the model


def test_image_aliases_are_resolved_for_tool_calls(llm_server, images, monkeypatch):
    server = llm_server(default=tool_loop([tool_call("read_regions", {"image": "image_1"}), "Three regions."]))
    a = ask(llm_agent(server, monkeypatch), make_server(DECIDED, DECIDED), images[:1], "Wibble the frobnicator?")
    assert tools_called(a)[0]["args"]["image"] == images[0] and a.text == "Three regions."


def test_region_contents_are_judged_on_crops(llm_server, images, monkeypatch):
    server = llm_server([{"content": "Yes."}, {"content": "No, it does not."}, {"content": "yes"}])
    q = "Which regions in the image contain a parking lot? Answer with only the region labels."
    a = ask(llm_agent(server, monkeypatch), make_server(DECIDED, DECIDED), images[:1], q)
    assert a.text == "Region 3, 7" and a.format == "REGION_SET" and 0 < a.confidence < 1
    assert len(asked(server)) == 3  # one crop per region (3, 5, 7)
    content = asked(server)[0]["body"]["messages"][0]["content"]
    assert "parking lot" in content[0]["text"] and content[1]["image_url"]["url"].startswith("data:image/jpeg")


def test_unreadable_llm_reply_is_an_abstention(llm_server, images, monkeypatch):
    server = llm_server([{"content": "I would rather talk about the weather."}])
    a = ask(llm_agent(server, monkeypatch), make_server(DECIDED, DECIDED), images[:2],
            "Standing where the ground photo was taken, which numbered arrow leads to the red region?")
    assert a.abstained and "could not be read as DIRECTION_LABEL" in a.reason


def test_semantic_text_answer(llm_server, images, monkeypatch):
    server = llm_server([{"content": "A sports field with a few people."}])
    a = ask(llm_agent(server, monkeypatch), make_server(DECIDED, DECIDED), images[:1], "Describe the scene below.")
    assert (a.text, a.task, a.abstained) == ("A sports field with a few people.", "Scene_Description", False)


def test_chat_model_needs_url_and_model():
    assert make_chat_model(None, None) is None
    with pytest.raises(ValueError, match="both a base URL"):
        make_chat_model("http://127.0.0.1:1/v1", None)
