"""The planner run without LangGraph (``Agent(checkpoints=False)``, used by the CLI's one-shot ``ask``) gives the
same answers, traces, attempts and understanding as the compiled LangGraph graph, on questions that take every path
of the graph: one attempt, the verify → plan retry, a tool error, abstentions without a tool call, an unplaced
question and a bad image count."""

from __future__ import annotations

import pytest
from planner_fakes import DECIDED, UNDECIDED, ask, make_server

from agent.agent import Agent, AgentInputError
from agent.config import Config

TRANSFORM = ("What are the aligned heading offset angle and relative translation distance from Image 1 to Image 2's "
             "target pose?")
CASES = [  # (pose tool result, metadata pose result, number of images, question)
    (DECIDED, DECIDED, 1, "Seen from region 7, at what o'clock is region 3?"),
    (UNDECIDED, DECIDED, 2, TRANSFORM),
    (UNDECIDED, dict(UNDECIDED, reason="no GPS in metadata"), 2, "How far apart were these two photos taken?"),
    (DECIDED, DECIDED, 1, "How many people are in this picture?"),
    (DECIDED, DECIDED, 1, "Which regions in the image contain a parking lot? Answer with only the region labels."),
    (DECIDED, DECIDED, 1, "Wibble the frobnicator quietly."),
]


def comparable(answer) -> dict:
    """Everything of an answer but its run id and its clock readings."""
    d = answer.to_dict()
    for key in ("run_id", "timings"):
        d.pop(key)
    d["trace"] = [{k: v for k, v in call.items() if k != "seconds"} for call in d["trace"]]
    return d


@pytest.fixture(scope="module")
def plain_agent() -> Agent:
    return Agent(Config(), use_embeddings=False, checkpoints=False)


def test_langgraph_names_agree():
    from langgraph.graph import END, START

    from planners import graph

    assert (graph.START, graph.END) == (START, END)


@pytest.mark.parametrize("pose,meta_pose,n_images,question", CASES)
def test_same_answers_with_and_without_langgraph(agent, plain_agent, images, pose, meta_pose, n_images, question):
    with_graph = ask(agent, make_server(pose, meta_pose), images[:n_images], question)
    plain = ask(plain_agent, make_server(pose, meta_pose), images[:n_images], question)
    assert comparable(plain) == comparable(with_graph)
    assert [t["node"] for t in plain.timings["nodes"]] == [t["node"] for t in with_graph.timings["nodes"]]


def test_plain_run_keeps_the_retry_loop_and_no_checkpoints(plain_agent, images):
    a = ask(plain_agent, make_server(UNDECIDED, DECIDED), images, TRANSFORM)
    assert [t["node"] for t in a.timings["nodes"]] == ["understand", *["plan", "act", "compose", "verify"] * 2]
    assert a.text == "-30.0 degrees, 13.0 meters"
    with pytest.raises(RuntimeError, match="no checkpoints"):
        plain_agent.inspect(a.run_id)


def test_plain_run_reports_bad_image_counts_like_the_graph(agent, plain_agent, images):
    messages = []
    for a in (agent, plain_agent):
        with pytest.raises(AgentInputError) as err:
            a.ask(images[:1], TRANSFORM, task="A2A_Camera_Transformation")  # refused before any tool call
        messages.append(str(err.value))
    assert messages[0] == messages[1] and "image" in messages[0]
