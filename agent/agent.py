"""The public face: ``Agent(config).ask(images, question) -> Answer``.

The agent validates the input, opens an MCP client session (an in-process server by default, or the streamable
HTTP server at ``mcp_url``), runs the LangGraph planner (``planners.graph``) and returns the canonical answer with
the full trace of tool calls. Example::

    answer = Agent().ask(["a.jpg", "b.jpg"], "How far apart were these two photos taken?")
    print(answer.text, answer.confidence, answer.abstained, answer.reason)
"""

from __future__ import annotations

import asyncio
import base64
import time
import uuid
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, AsyncIterator, Sequence

from agent.config import Config
from agent.inputs import AgentInputError, check_images, check_question
from mcp_server.client import connect
from planners.compose import build
from planners.graph import GraphContext, build_graph, run_in_order
from planners.llm import make_chat_model
from planners.llm_client import release_connections
from planners.router import ImageCountError
from planners.toolbox import ToolContext


@dataclass
class Answer:
    """The agent's answer. ``text`` is exactly what the benchmark scorers read (empty when ``abstained``)."""

    text: str
    value: Any  # the answer dataclass (agent.answers), or None when abstained
    format: str | None  # AnswerFormat member name
    task: str | None
    confidence: float
    abstained: bool
    reason: str | None
    trace: list[dict] = field(default_factory=list)  # tool, args, result (summary), seconds, error
    plan: list[str] = field(default_factory=list)
    understanding: dict = field(default_factory=dict)
    attempts: list[dict] = field(default_factory=list)
    timings: dict = field(default_factory=dict)  # total_s, tool_s, llm_s, planner_s, session_s
    run_id: str = ""
    annotations: list[tuple[str, bytes]] = field(default_factory=list, repr=False)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["value"] = None if self.value is None else {k: v for k, v in asdict(self.value).items()}
        d["annotations"] = [name for name, _ in self.annotations]
        return d


class Agent:
    """Answers spatial questions about drone images with tools reached over MCP.

    ``mcp_url``: a remote streamable-HTTP MCP server (images are then sent as base64); ``llm``: a LangChain chat
    model (default: built from ``config.llm_base_url`` / ``config.llm_model`` if set); ``use_embeddings``: let
    the router fall back to MiniLM embeddings (off by default: it loads a model on the question path);
    ``checkpointer``: a LangGraph checkpointer (default in-memory); ``checkpoints=False`` runs the planner's nodes
    without LangGraph (:func:`planners.graph.run_in_order`: the same answers, no checkpoints, so no
    :meth:`inspect`), for a one-shot process that would otherwise import LangGraph only to throw its checkpoints
    away (the CLI's ``ask``).
    """

    def __init__(self, config: Config | None = None, *, mcp_url: str | None = None, llm: Any = None,
                 use_embeddings: bool = False, checkpointer: Any = None, checkpoints: bool = True) -> None:

        self.config = config or Config.from_env()
        self.mcp_url = mcp_url
        self.llm = llm if llm is not None else make_chat_model(
            self.config.llm_base_url, self.config.llm_model, self.config.llm_api_key_env,
            timeout_s=self.config.llm_timeout_s, max_tokens=self.config.llm_max_tokens,
            max_retries=self.config.llm_max_retries)
        self.use_embeddings = use_embeddings
        self.graph = build_graph(checkpointer) if checkpoints else None

    def ask(self, images: Sequence[str | Path], question: str, *, task: str | None = None,
            annotate: bool = False) -> Answer:
        """Answer ``question`` about ``images`` (file paths, in the order the question refers to them).

        ``task``: a task type or benchmark alias to skip routing. Raises :class:`AgentInputError` on bad input and
        :class:`planners.llm_client.LLMError` when the language model fails where no abstention can say so.
        """
        return asyncio.run(self._ask_in_new_loop(images, question, task, annotate))

    async def _ask_in_new_loop(self, images: Sequence[str | Path], question: str, task: str | None,
                               annotate: bool) -> Answer:
        """:meth:`aask`, then close this loop's LLM connections: ``asyncio.run`` closes the loop, and keep-alive
        connections left open would be dropped unclosed."""

        try:
            return await self.aask(images, question, task=task, annotate=annotate)
        finally:
            await release_connections()

    @asynccontextmanager
    async def session(self, images: Sequence[str] = ()) -> AsyncIterator[Any]:
        """An MCP client session to reuse across many :meth:`aask` calls (in-process server may read ``images``'
        folders in addition to the configured allowed roots)."""

        if self.mcp_url:
            async with connect(self.config, url=self.mcp_url) as s:
                yield s
            return
        roots = list(dict.fromkeys([*self.config.allowed_roots, *(str(Path(p).parent) for p in images)]))
        async with connect(replace(self.config, allowed_roots=roots)) as s:
            yield s

    async def aask(self, images: Sequence[str | Path], question: str, *, task: str | None = None,
                   annotate: bool = False, session: Any = None) -> Answer:
        """Async :meth:`ask`; pass an open ``session`` (from :meth:`session`) to reuse one MCP connection."""
        question = check_question(question)
        paths = check_images(images)
        t0 = time.perf_counter()
        if session is None:
            try:
                async with self.session(paths) as s:
                    t_open = time.perf_counter() - t0
                    answer = await self._run(paths, question, task, annotate, s)
                    answer.timings["session_s"] = t_open
            except BaseExceptionGroup as group:  # the session's task group wraps our own errors
                raise _unwrap(group) from None
        else:
            answer = await self._run(paths, question, task, annotate, session)
        answer.timings["total_s"] = time.perf_counter() - t0
        return answer

    def _image_args(self, paths: list[str]) -> list[str]:
        if not self.mcp_url:
            return paths
        return ["data:image/" + (Path(p).suffix.lstrip(".").lower() or "png") + ";base64,"
                + base64.b64encode(Path(p).read_bytes()).decode() for p in paths]

    async def _run(self, paths: list[str], question: str, task: str | None, annotate: bool, session: Any) -> Answer:

        tools = ToolContext(session, self._image_args(paths), annotate=annotate, llm=self.llm, image_paths=paths,
                            question=question)
        ctx = GraphContext(tools, use_embeddings=self.use_embeddings, minilm_dir=self.config.minilm_dir)
        run_id = uuid.uuid4().hex
        t0 = time.perf_counter()
        inputs = {"question": question, "n_images": len(paths), "task_hint": task}
        try:
            if self.graph is None:
                state = await run_in_order(inputs, ctx)
            else:
                state = await self.graph.ainvoke(inputs, {"configurable": {"thread_id": run_id}}, context=ctx)
        except (ImageCountError, KeyError) as exc:
            raise AgentInputError(str(exc).strip("'\"")) from None
        wall = time.perf_counter() - t0
        return _to_answer(state, tools, run_id, wall)

    def inspect(self, run_id: str) -> list[dict]:
        """The checkpointed states of a past run (oldest first): node by node values for inspection."""
        if self.graph is None:
            raise RuntimeError("this agent keeps no checkpoints (Agent(checkpoints=False)): nothing to inspect")
        history = list(self.graph.get_state_history({"configurable": {"thread_id": run_id}}))
        return [dict(h.values) | {"next": list(h.next)} for h in reversed(history)]


def _unwrap(exc: BaseException) -> BaseException:
    """The first non-group exception inside (nested) exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _to_answer(state: dict, tools: Any, run_id: str, wall_s: float) -> Answer:

    a = state["answer"]
    u = state.get("understanding", {})
    value = build(a["format"], a["value"]) if not a["abstained"] else None
    reason = a.get("reason")
    if a["abstained"]:
        earlier = [h["evidence"].get("reason") for h in state.get("history", [])[:-1] if h.get("evidence")]
        reason = "; ".join(dict.fromkeys([r for r in [*earlier, reason] if r]))
    llm_s = sum(c.get("seconds", 0.0) for c in tools.trace if c["tool"].startswith("llm"))
    tool_s = tools.tool_seconds - llm_s  # MCP tools only: the language model's requests (llm*) are llm_s
    return Answer(text=a["text"], value=value, format=a.get("format") or u.get("answer_format"), task=u.get("task"),
                  confidence=float(a.get("confidence", 0.0)), abstained=bool(a["abstained"]), reason=reason,
                  trace=list(tools.trace), plan=list(state.get("plan", {}).get("outline", [])), understanding=u,
                  attempts=list(state.get("history", [])),
                  timings={"graph_s": wall_s, "tool_s": tool_s, "llm_s": llm_s,
                           "planner_s": max(0.0, wall_s - tool_s - llm_s),
                           "nodes": state.get("timings", [])},
                  run_id=run_id, annotations=list(tools.annotations))
