"""The LLM writes the question program: valid JSON is taken, an invalid program is retried once with the
validation error, and two invalid replies leave the question to the offline parser (a local OpenAI-compatible
server started by the test gives the replies)."""

from __future__ import annotations

import asyncio
import json

import pytest

from planners.llm_client import make_chat_model
from planners.llm_program import write_program
from planners.program import Ask
from tests.fake_openai import FakeChatServer

VALID = {"ask": "distance", "operands": [{"kind": "capture_point", "image": 1}, {"kind": "capture_point", "image": 2}],
         "conventions": {"unit": "ft"}}


@pytest.fixture()
def server():
    servers = []

    def start(script):
        s = FakeChatServer(script).start()
        servers.append(s)
        return s

    yield start
    for s in servers:
        s.close()


def _write(server, question="How far apart were these two photos taken, in feet?"):
    llm = make_chat_model(server.url, "fake-model", max_retries=0)
    trace: list[dict] = []
    program, why = asyncio.run(write_program(llm, question, 2, trace))
    return program, why, trace


def test_a_valid_program_is_taken(server):
    s = server(["Here it is: " + json.dumps(VALID)])
    program, why, trace = _write(s)
    assert why is None and program.ask == Ask.DISTANCE and program.conventions.unit == "ft"
    assert program.question.startswith("How far") and trace[-1]["tool"] == "llm_program"
    assert "JSON schema" in s.requests[-1]["body"]["messages"][0]["content"]


def test_an_invalid_program_is_retried_with_the_error(server):
    s = server([json.dumps({"ask": "weather"}), json.dumps(VALID)])
    program, why, trace = _write(s)
    assert program is not None and program.ask == Ask.DISTANCE
    retry = s.requests[-1]["body"]["messages"][-1]["content"]
    assert "not a valid program" in retry and "ask" in retry
    assert [t.get("error") is not None for t in trace] == [True, False]


def test_two_invalid_replies_give_no_program(server):
    s = server(["no json here", json.dumps({"ask": "distance", "colour": "red"})])
    program, why, _ = _write(s)
    assert program is None and "not valid" in why


def test_a_program_comparing_with_a_stated_number_is_taken_and_checked(server):
    """The comparison is part of the schema the LLM fills: a valid one is taken, a malformed one is retried."""
    compared = {"ask": "altitude", "operands": [{"kind": "camera", "image": 1}], "form": "yes_no",
                "compare": {"op": "gt", "value": 100, "unit": "m"}}
    bad = {**compared, "compare": {"op": "bigger", "value": 100}}
    s = server([json.dumps(bad), json.dumps(compared)])
    llm = make_chat_model(s.url, "fake-model", max_retries=0)
    program, why = asyncio.run(write_program(llm, "Is the drone higher than 100 m?", 1, []))
    assert why is None and program.compare is not None and (program.compare.op, program.compare.value) == ("gt", 100)
    assert "compare" in s.requests[-1]["body"]["messages"][-1]["content"]
