"""The LangGraph planner: understand → plan → act → compose → verify, looping back to plan (next strategy) when
verification fails, at most :data:`MAX_ATTEMPTS` times. The state is small and JSON-safe so that a checkpointer
(``InMemorySaver`` by default) can store every step for inspection and resumption; the MCP session, images and
LLM travel in the run's context (``GraphContext``), never in the state.

The nodes and edges are declared once (:data:`NODES`, :data:`NEXT`, :func:`after_verify`) and run two ways:
:func:`build_graph` compiles them into a LangGraph graph (checkpoints, inspection), and :func:`run_in_order` runs
the same nodes in the same order with the same state updates in plain asyncio, for a one-shot process (the CLI's
``ask``) that cannot inspect its run after it exits and would otherwise import LangGraph for it (about 0.8 s of
CPU on a 2-core machine, more than the rest of the question's planning). LangGraph is imported only by
:func:`build_graph`.
"""

from __future__ import annotations

import inspect
import operator
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, TypedDict, get_origin, get_type_hints

from planners.compose import abstention, compose, verify
from planners.plans import PLANS, undecided
from planners.program import Program
from planners.router import Understanding, route
from planners.toolbox import ToolCallError, ToolContext

if TYPE_CHECKING:
    from langgraph.runtime import Runtime

MAX_ATTEMPTS = 3
START, END = "__start__", "__end__"  # langgraph.graph's START and END (a test checks that they agree)


class PlannerState(TypedDict, total=False):
    question: str
    n_images: int
    task_hint: str | None
    understanding: dict
    plan: dict  # {name, outline, strategy, attempt}
    attempt: int
    evidence: dict
    answer: dict
    issues: list[str]
    history: Annotated[list[dict], operator.add]  # one record per attempt (plan, evidence, issues)
    timings: Annotated[list[dict], operator.add]  # node name, seconds


@dataclass
class GraphContext:
    """Run-time objects for one question (not checkpointed)."""

    tools: ToolContext
    use_embeddings: bool = False
    minilm_dir: str | None = None
    understanding: Understanding | None = None  # set by understand
    extra: dict[str, Any] = field(default_factory=dict)


def _timed(name: str, t0: float) -> list[dict]:
    return [{"node": name, "seconds": time.perf_counter() - t0}]


async def understand(state: PlannerState, runtime: Runtime[GraphContext]) -> dict:
    t0 = time.perf_counter()
    ctx = runtime.context
    u = route(state["question"], state["n_images"], task_hint=state.get("task_hint"),
              use_embeddings=ctx.use_embeddings, minilm_dir=ctx.minilm_dir)
    if u.task is None and ctx.tools.llm is not None:  # unplaced: the LLM writes the program, else picks tools
        u = await _llm_understanding(ctx, state["question"], state["n_images"], u)
    ctx.understanding = u
    return {"understanding": u.to_dict(), "attempt": 0, "timings": _timed("understand", t0)}


async def _llm_understanding(ctx: GraphContext, question: str, n_images: int, u: Understanding) -> Understanding:
    """The understanding of the program the LLM writes; when it writes none the executor can run, the LLM
    chooses among the MCP tools and answers in free text."""
    from planners.llm_program import write_program
    from planners.router import program_understanding

    program, why = await write_program(ctx.tools.llm, question, n_images, ctx.tools.trace)
    named = program_understanding(program, u.conventions) if program is not None else None
    if named is not None:
        named.method = "llm_program"
        return named
    u.plan, u.answer_format, u.method = "llm_tools", "FREE_TEXT", "llm"
    return u


async def plan(state: PlannerState, runtime: Runtime[GraphContext]) -> dict:
    t0 = time.perf_counter()
    u = runtime.context.understanding or Understanding.from_dict(state["understanding"])
    attempt = state.get("attempt", 0)
    if u.plan == "llm_tools":
        outline = ["llm chooses MCP tools"]
    elif u.plan and u.plan.startswith("ask:"):
        outline = [f"program: {u.plan.removeprefix('ask:')}", *(u.program or {}).get("understood", [])]
    elif u.plan in PLANS:
        outline = list(PLANS[u.plan].outline)
    else:
        outline = []
    return {"plan": {"name": u.plan, "outline": outline, "attempt": attempt}, "timings": _timed("plan", t0)}


async def act(state: PlannerState, runtime: Runtime[GraphContext]) -> dict:
    t0 = time.perf_counter()
    ctx = runtime.context
    u = ctx.understanding or Understanding.from_dict(state["understanding"])
    attempt = state.get("attempt", 0)
    n_before = len(ctx.tools.trace)
    try:
        if u.plan is None:
            evidence = undecided(_not_understood(u))
        elif u.plan.startswith("ask:"):
            from planners.execute_compound import run_program

            evidence = await run_program(ctx.tools, Program.model_validate(u.program))
        elif u.plan == "llm_tools":
            from planners import llm

            evidence = await llm.answer_with_tools(ctx.tools, state["question"])
        else:
            evidence = await PLANS[u.plan].strategies[attempt](ctx.tools, u)
    except ToolCallError as exc:
        evidence = undecided(f"tool error: {exc}")
    calls = ctx.tools.trace[n_before:]
    tool_s = sum(c["seconds"] for c in calls)
    return {"evidence": evidence, "timings": [{"node": "act", "seconds": time.perf_counter() - t0,
                                                "tool_seconds": tool_s}]}


def _not_understood(u: Understanding) -> str:
    """An abstention's reason: what was understood of the question and what was not."""
    p = u.program or {}
    said = "; ".join(p.get("unsure") or ["the question could not be placed on a known task type"])
    understood = ", ".join(x for x in p.get("understood", []) if x)
    return said + (f" (understood: {understood})" if understood else "") + "; no LLM is configured"


async def compose_node(state: PlannerState) -> dict:
    t0 = time.perf_counter()
    fmt = state["understanding"].get("answer_format")
    return {"answer": compose(fmt, state.get("evidence")), "timings": _timed("compose", t0)}


def strategies_left(state: PlannerState) -> bool:
    name = state.get("plan", {}).get("name")
    n = len(PLANS[name].strategies) if name in PLANS else 1
    return state.get("attempt", 0) + 1 < min(n, MAX_ATTEMPTS)


async def verify_node(state: PlannerState) -> dict:
    t0 = time.perf_counter()
    answer = state["answer"]
    issues = verify(answer)
    evidence = state.get("evidence") or {}
    failed = bool(issues) or answer.get("abstained", False)
    record = {"plan": state.get("plan"), "evidence": evidence, "issues": issues}
    out: dict = {"issues": issues, "history": [record]}
    if failed and strategies_left(state):
        out["attempt"] = state.get("attempt", 0) + 1
    elif issues:  # nothing left to try: an explicit abstention naming what failed
        out["answer"] = abstention("answer not verified: " + "; ".join(issues), answer.get("format"))
    out["timings"] = _timed("verify", t0)
    return out


def after_verify(state: PlannerState) -> str:
    answer = state["answer"]
    failed = bool(state.get("issues")) or answer.get("abstained", False)
    last = state.get("history", [{}])[-1].get("plan", {}) or {}
    retry = failed and state.get("attempt", 0) > last.get("attempt", 0)
    return "plan" if retry else END


NODES: dict[str, Callable[..., Awaitable[dict]]] = {
    "understand": understand, "plan": plan, "act": act, "compose": compose_node, "verify": verify_node}
NEXT = {START: "understand", "understand": "plan", "plan": "act", "act": "compose", "compose": "verify"}
BRANCHES = {"verify": (after_verify, ("plan", END))}  # node -> (router, the nodes it may return)


def build_graph(checkpointer: Any | None = None):
    """The compiled planner graph (``checkpointer``: any LangGraph checkpointer; default in-memory)."""
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import StateGraph

    g = StateGraph(PlannerState, context_schema=GraphContext)
    for name, node in NODES.items():
        g.add_node(name, node)
    for source, target in NEXT.items():
        g.add_edge(source, target)
    for source, (router, targets) in BRANCHES.items():
        g.add_conditional_edges(source, router, list(targets))
    return g.compile(checkpointer=checkpointer if checkpointer is not None else InMemorySaver())


@dataclass
class _Runtime:
    """What the nodes read of LangGraph's ``Runtime``: the run's context."""

    context: GraphContext


def _reducers() -> dict[str, Callable[[Any, Any], Any]]:
    """The state keys whose updates are combined (``Annotated[list, operator.add]``), with their combining
    function; every other key's update replaces its value, as in LangGraph."""
    hints = get_type_hints(PlannerState, include_extras=True)
    return {key: hint.__metadata__[0] for key, hint in hints.items() if get_origin(hint) is Annotated}


REDUCERS = _reducers()
_TAKES_RUNTIME = {name: "runtime" in inspect.signature(node).parameters for name, node in NODES.items()}


async def run_in_order(inputs: PlannerState, context: GraphContext) -> dict:
    """The planner's final state for ``inputs``, running :data:`NODES` along :data:`NEXT` and :data:`BRANCHES`
    in this event loop, without LangGraph: what ``build_graph().ainvoke(inputs, context=context)`` returns, with
    no checkpoints. Node errors propagate unchanged."""
    state: dict[str, Any] = {key: [] for key in REDUCERS} | dict(inputs)
    runtime = _Runtime(context)
    node = NEXT[START]
    while node != END:
        fn = NODES[node]
        update = await (fn(state, runtime) if _TAKES_RUNTIME[node] else fn(state))
        for key, value in update.items():
            state[key] = REDUCERS[key](state[key], value) if key in REDUCERS else value
        node = BRANCHES[node][0](state) if node in BRANCHES else NEXT[node]
    return state
