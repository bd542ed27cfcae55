"""The agent's LLM path against a realistic local OpenAI-compatible server (``fake_openai``): HTTP/1.1 keep-alive,
streaming, token limits, HTTP errors, slow replies and text-only modes. Tools come from the in-memory test MCP
server of ``test_planner_graph``; each ask runs in its own event loop, as ``Agent.ask`` does.
"""

from __future__ import annotations

import pytest
from fake_openai import LLAMA_SERVER_IMAGE_REFUSAL, FakeChatServer, body_has_image
from fake_openai import NO_PROGRAM, asked, offering_tools, tool_call, tool_loop, tools_called
from planner_fakes import DECIDED, REGIONS, ask, make_server

from agent.agent import Agent
from agent.config import Config
from planners.llm_client import make_chat_model

SCENE = "Describe the scene below."
UNPLACED = "Wibble the frobnicator?"
CHOICE = ("Question: Where is the car?\nOptions:\nA. top-right\nB. bottom-left\nC. centre\n"
          "Please select the correct answer from the options above.")


@pytest.fixture
def serve():
    servers: list[FakeChatServer] = []

    def start(script: list | None = None, **kw) -> FakeChatServer:
        servers.append(FakeChatServer(script, **kw).start())
        return servers[-1]

    yield start
    for s in servers:
        s.close()


def agent_for(url: str, **limits) -> Agent:
    return Agent(Config(llm_base_url=url, llm_model="m", **limits), use_embeddings=False)


def scene(agent: Agent, imgs: list[str], question: str = SCENE, **kw):
    return ask(agent, make_server(DECIDED, DECIDED), imgs[:1], question, **kw)


def has_image(request: dict) -> bool:
    return body_has_image(request["body"])


# --- 1: keep-alive connections and event loops ---------------------------------------------------------------
def test_consecutive_asks_reuse_nothing_from_a_closed_event_loop(serve, images):
    server = serve(default="A sports field.")
    agent = agent_for(server.url)
    answers = [scene(agent, images) for _ in range(4)]  # each ask: a new asyncio.run loop
    assert [a.text for a in answers] == ["A sports field."] * 4
    assert all(a.timings["llm_s"] > 0 and a.timings["tool_s"] == pytest.approx(0, abs=1e-9) for a in answers)
    assert server.connections < len(server.requests)  # keep-alive was in use within an ask


def test_streamed_replies_are_read_like_whole_ones(serve, images):
    server = serve(default=tool_loop([tool_call("clock_direction", {"target": REGIONS[3], "image_size": [640, 480]}),
                                      "The box is at 3 o'clock."]))
    agent = Agent(Config(), llm=make_chat_model(server.url, "m", streaming=True), use_embeddings=False)
    a = scene(agent, images, UNPLACED)
    assert a.text == "The box is at 3 o'clock." and [c["tool"] for c in tools_called(a)] == ["clock_direction"]
    assert len(offering_tools(server)) == 2 and all(r["body"]["stream"] for r in asked(server))


# --- 2: failures are abstentions with one line ---------------------------------------------------------------
@pytest.mark.parametrize("script, words", [([(400, "Invalid request")], "HTTP 400: Invalid request"),
                                           ([(500, "kaput")] * 3, "HTTP 500: kaput")])
def test_http_errors_are_one_line_abstentions(serve, images, script, words):
    server = serve(script)
    a = scene(agent_for(server.url, llm_max_retries=2), images)
    assert a.abstained and words in a.reason and "\n" not in a.reason
    assert [c["error"] for c in a.trace if c["tool"] == "llm"] == [a.reason]


def test_an_unreachable_server_is_an_abstention_naming_it(images):
    a = scene(agent_for("http://127.0.0.1:9/v1", llm_max_retries=0), images)
    assert a.abstained and "http://127.0.0.1:9/v1 could not be reached" in a.reason and "\n" not in a.reason


def test_a_slow_reply_times_out_at_the_configured_limit(serve, images):
    server = serve([{"content": "late", "delay_s": 3.0}])
    a = scene(agent_for(server.url, llm_timeout_s=0.5, llm_max_retries=0), images)
    assert a.abstained and "timed out" in a.reason


# --- 3: limits and retries ---------------------------------------------------------------------------------
def test_max_tokens_is_sent_and_transient_errors_are_retried(serve, images):
    server = serve([(503, "loading model"), "A quiet street."])
    a = scene(agent_for(server.url, llm_max_tokens=64, llm_max_retries=1), images)
    assert a.text == "A quiet street."
    assert [r["body"]["max_tokens"] for r in asked(server)] == [64, 64]  # the 503, then its retry


# --- 4: replies that are not answers -------------------------------------------------------------------------
def test_a_reply_cut_at_the_token_limit_is_refused(serve, images):
    server = serve(["| " * 1000])  # a model that does not stop: the server cuts it at max_tokens
    a = scene(agent_for(server.url, llm_max_tokens=100), images)
    assert a.abstained and "cut off at the token limit" in a.reason


def test_junk_within_the_limit_is_refused(serve, images):
    server = serve(["| " * 300])
    a = scene(agent_for(server.url), images)
    assert a.abstained and "not text" in a.reason and a.text == ""


@pytest.mark.parametrize("echo", ["A. top-right\nB. bottom-left\nC. centre",
                                  "Please select the correct answer from the options above."])
def test_an_echo_of_the_prompt_is_not_an_answer(serve, images, echo):
    server = serve([echo, "The car is B. bottom-left"])
    agent = agent_for(server.url)
    a = scene(agent, images, CHOICE, task="TD_Localization")
    assert a.abstained and "only repeated the prompt" in a.reason
    assert scene(agent, images, CHOICE, task="TD_Localization").text == "B"


def test_an_echoed_instruction_is_not_read_as_yes(serve, images):
    q = "Which regions in the image contain a parking lot? Answer with only the region labels."
    server = serve(["Answer yes or no.", "no", "yes"])
    a = scene(agent_for(server.url), images, q)
    assert a.abstained and "region 3 was refused" in a.reason


# --- 5: capabilities -----------------------------------------------------------------------------------------
def test_a_text_only_server_gets_no_images_and_semantic_questions_abstain(serve, images):
    server = serve(default=tool_loop([tool_call("read_regions", {"image": "image_1"}), "Three regions."]),
                   images=False)
    agent = agent_for(server.url)
    a = scene(agent, images, UNPLACED)
    assert a.text == "Three regions." and tools_called(a)[0]["args"]["image"] == images[0]
    assert not any(has_image(r) for r in asked(server))
    assert all(isinstance(m["content"], str) for r in asked(server) for m in r["body"]["messages"]
               if m["role"] == "user")
    caps = next(c for c in a.trace if c["tool"] == "llm_capabilities")
    assert caps["result"].startswith("images: no (answered HTTP 400") and len(offering_tools(server)) == 2
    b = scene(agent, images)
    caps = next(c for c in b.trace if c["tool"] == "llm_capabilities")
    assert b.abstained and "cannot see images" in b.reason and caps["result"].endswith("(cached)")
    assert len([r for r in server.requests if not has_image(r)]) == len(server.requests) - 1  # one image probe


def test_a_refused_reply_of_a_blind_model_says_it_could_not_see(serve, images):
    """llama.cpp's own server refuses image parts with HTTP 500 (not 400); a question no task type fits then goes
    to the model as text, and when its reply is junk the abstention says the model was blind."""
    server = serve(default=tool_loop(["Is there a parking lot? " * 200]), images=False,
                   image_refusal=LLAMA_SERVER_IMAGE_REFUSAL)
    a = scene(agent_for(server.url, llm_max_tokens=64, llm_max_retries=0), images, "Is there a parking lot here?")
    caps = next(c for c in a.trace if c["tool"] == "llm_capabilities")
    assert caps["result"].startswith("images: no (answered HTTP 500: image input is not supported")
    assert a.abstained and "cut off at the token limit" in a.reason and "m cannot see images" in a.reason
    assert not any(has_image(r) for r in asked(server))


@pytest.mark.parametrize("mode, words", [("drop", "drops messages made of parts"),
                                         ("text", "reads images as text")])
def test_a_server_that_does_not_see_content_parts_is_treated_as_blind(serve, images, mode, words):
    server = serve(list_content=mode)
    a = scene(agent_for(server.url), images)
    assert a.abstained and words in a.reason and not asked(server)


def test_a_server_without_tools_gets_the_question_and_images_alone(serve, images):
    server = serve(default=lambda body: "It looks like a frobnicator." if body_has_image(body) else NO_PROGRAM,
                   tools=False)
    a = scene(agent_for(server.url), images, UNPLACED)
    caps = next(c for c in a.trace if c["tool"] == "llm_capabilities")
    assert a.text == "It looks like a frobnicator." and "tools: no (answered HTTP 400" in caps["result"]
    (request,) = [r for r in asked(server) if has_image(r)]
    assert "tools" not in request["body"]


def test_capabilities_are_probed_once_per_endpoint(serve, images):
    first, second = serve(default="A field."), serve(default="A field.", images=False)
    for server in (first, second):
        agent = agent_for(server.url)
        scene(agent, images), scene(agent, images)
    probes = [len([r for r in s.requests if r["body"].get("max_tokens") == 1]) for s in (first, second)]
    assert probes == [3, 3]


def test_a_busy_server_is_probed_again_next_time(serve, images):
    server = serve(default="A field.")
    server.outage = [(503, "loading model")]
    agent = agent_for(server.url, llm_max_retries=0)
    first = scene(agent, images)
    assert first.abstained and "HTTP 503: loading model" in first.reason
    second = scene(agent, images)
    caps = next(c for c in second.trace if c["tool"] == "llm_capabilities")
    assert second.text == "A field." and caps["result"] == "images: yes; tools: yes"  # probed again: not cached
