"""``uav-agent ask IMAGE [IMAGE ...] "QUESTION"``: answer one question with the agent.

Exit codes: 0 answered, 3 abstained (the reason is printed), 2 bad input (clear message on stderr).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import typer

from tools.import_gc import imports_without_gc

EXIT_ABSTAINED = 3
EXIT_BAD_INPUT = 2


DAEMON_REPLY_TIMEOUT_S = 900.0  # a daemon silent this long is treated as absent (the ask then runs here)


def register(app: typer.Typer) -> None:
    app.command("ask")(ask)
    app.command("serve")(serve)


def serve(
    socket_path: Path | None = typer.Option(None, "--socket", help="Unix socket to listen on (default "
                                            "$XDG_RUNTIME_DIR/uav-spatial-agent/ask.sock; `ask` finds another "
                                            "one through UAV_AGENT_SOCKET)"),
) -> None:
    """Keep the agent and its tools loaded and answer `uav-agent ask` from here (warm mode; Ctrl-C stops)."""
    with imports_without_gc(freeze=True):
        from agent import daemon
        from agent.agent import Agent
        from agent.config import Config

        path = socket_path or daemon.socket_path()
        agent = Agent(Config.from_env())
    daemon.warm_up(agent)
    typer.echo(f"answering `uav-agent ask` on {path} (Ctrl-C stops)", err=True)
    try:
        daemon.serve(path, agent)
    except RuntimeError as exc:
        _fail(str(exc))
    except KeyboardInterrupt:
        pass


def ask(
    args: list[str] | None = typer.Argument(None, metavar="IMAGE [IMAGE ...] QUESTION", show_default=False,
                                            help="image files in order, then the question (quoted)"),
    as_json: bool = typer.Option(False, "--json", help="print the answer and its trace as JSON"),
    explain: bool = typer.Option(False, "--explain", help="print the plan and every tool call"),
    annotate: Path | None = typer.Option(None, "--annotate", help="save a PNG of what the tools saw"),
    task: str | None = typer.Option(None, "--task", help="task type or benchmark alias (skips routing), e.g. "
                                    "A2A_Camera_Transformation, Region_Recognition, Distance_Comparison; "
                                    "`--task list` prints every value"),
    timeout: float | None = typer.Option(None, "--timeout", min=0.1, help="seconds one tool call may run "
                                         "(default 120; UAV_AGENT_CALL_TIMEOUT_S)"),
    mcp_url: str | None = typer.Option(None, "--mcp-url", help="remote MCP server (streamable HTTP)"),
    llm_base_url: str | None = typer.Option(None, "--llm-base-url", help="OpenAI-compatible endpoint"),
    llm_model: str | None = typer.Option(None, "--llm-model", help="model name at that endpoint"),
    llm_api_key_env: str = typer.Option("OPENAI_API_KEY", "--llm-api-key-env", help="env variable with the key"),
    llm_max_tokens: int | None = typer.Option(None, "--llm-max-tokens", min=1, help="LLM reply limit (default 512)"),
    llm_timeout: float | None = typer.Option(None, "--llm-timeout", min=0.1, help="seconds per LLM request (120)"),
) -> None:
    """Answer a spatial QUESTION about one or more drone IMAGEs (through `uav-agent serve` when it runs)."""
    if task == "list":
        _print_tasks()
        return
    if len(args or []) < 2:
        _fail("give at least one image and a question: uav-agent ask IMAGE [IMAGE ...] \"QUESTION\"")
    *images, question = args or []
    problem = image_arg_problem(images)
    if problem:
        _fail(problem)
    own_settings = (annotate, timeout, mcp_url, llm_base_url, llm_model, llm_max_tokens, llm_timeout)
    if all(v is None for v in own_settings) and llm_api_key_env == "OPENAI_API_KEY":
        from agent.daemon import ask_daemon

        reply = ask_daemon(images, question, task, DAEMON_REPLY_TIMEOUT_S)
        if reply is not None:
            _print_reply(reply, as_json, explain)
            return
    from agent.inputs import AgentInputError, check_images, check_question

    try:  # refused before the planner and the tools are imported (the agent checks again)
        check_question(question)
        check_images(images)
    except AgentInputError as exc:
        _fail(str(exc))
    with imports_without_gc(freeze=True):
        from agent.agent import Agent, AgentInputError
        from agent.config import Config
        from planners.llm_client import LLMError

        if mcp_url is None:  # the in-process MCP server's modules, loaded at the first question otherwise
            import mcp.shared.memory  # noqa: F401
            import mcp_server.server  # noqa: F401

    overrides: dict = {"llm_api_key_env": llm_api_key_env, "llm_max_tokens": llm_max_tokens,
                       "llm_timeout_s": llm_timeout, "call_timeout_s": timeout}
    overrides = {k: v for k, v in overrides.items() if v is not None}
    if llm_base_url:
        overrides["llm_base_url"] = llm_base_url
    if llm_model:
        overrides["llm_model"] = llm_model
    try:
        with stdout_to_stderr() if as_json else contextlib.nullcontext():  # stdout carries the JSON alone
            # no checkpoints: this process ends with the answer, nothing could inspect them (saves importing LangGraph)
            agent = Agent(Config.from_env(**overrides), mcp_url=mcp_url, checkpoints=False)
            answer = agent.ask(images, question, task=task, annotate=annotate is not None)
    except (AgentInputError, LLMError, ValueError) as exc:
        _fail(str(exc))
    if annotate is not None:
        _save_annotation(annotate, answer.annotations)
    _print_answer(answer.to_dict(), answer, as_json, explain)


def _print_answer(data: dict, answer: Any, as_json: bool, explain: bool) -> None:
    """Print an answer (``data`` = its ``to_dict()``); exit 3 when it abstained."""
    if as_json:
        typer.echo(json.dumps(data, default=str, indent=2))
    else:
        if explain:
            _explain(answer)
        typer.echo(f"abstained: {answer.reason}" if answer.abstained else answer.text)
    if answer.abstained:
        raise typer.Exit(EXIT_ABSTAINED)


def _print_reply(reply: dict, as_json: bool, explain: bool) -> None:
    """Print the daemon's reply as the in-process ask would print its answer."""
    if not reply.get("ok"):
        if reply.get("bad_input"):
            _fail(str(reply.get("error")))
        typer.echo(f"error: {reply.get('error')}", err=True)
        raise typer.Exit(1)
    data = reply["answer"]
    _print_answer(data, SimpleNamespace(**data), as_json, explain)


def image_arg_problem(images: list[str]) -> str | None:
    """What is wrong with the image arguments, said so that the user can fix it (folders, an unquoted question),
    else None. Missing and unreadable files are left to :func:`agent.agent.check_images`."""
    for raw in images:
        path = Path(raw).expanduser()
        if path.is_dir():
            return (f"{raw} is a folder, not an image: pass image files, e.g. uav-agent ask {raw.rstrip('/')}/a.jpg "
                    f"{raw.rstrip('/')}/b.jpg \"QUESTION\"")  # fmt: skip
        if not path.exists() and not path.suffix and len(images) > 1:
            return (f"image not found: {raw}; if this is a word of the question, put the question in quotes: "
                    "uav-agent ask IMAGE \"Which region is closest to the drone?\"")  # fmt: skip
    return None


@contextlib.contextmanager
def stdout_to_stderr() -> Iterator[None]:
    """Send everything written to stdout meanwhile — Python prints, loggers holding the old ``sys.stdout`` (e.g.
    ultralytics' first-run banner) and C-level writes to file descriptor 1 — to stderr instead."""
    original = sys.stdout
    original.flush()
    try:
        saved = os.dup(1)
    except OSError:  # no file descriptor 1 (embedded use): Python-level redirection only
        saved = None
    if saved is not None:
        os.dup2(2, 1)
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        original.flush()
        if saved is not None:
            os.dup2(saved, 1)
            os.close(saved)


def _print_tasks() -> None:
    from planners.tasks import TASKS

    for name, spec in TASKS.items():
        aliases = ", ".join(spec.aliases)
        typer.echo(f"{name}" + (f"  (aliases: {aliases})" if aliases else ""))


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(EXIT_BAD_INPUT)


def _explain(answer) -> None:
    u = answer.understanding
    typer.echo(f"task: {u.get('task')} (by {u.get('method')}, confidence {u.get('confidence')}); "
               f"format: {answer.format}")
    conv = {k: v for k, v in (u.get("conventions") or {}).items() if v not in (None, [], {}, False, "")}
    typer.echo(f"conventions: {conv}")
    typer.echo("plan: " + " -> ".join(answer.plan or ["(none)"]))
    for i, call in enumerate(answer.trace, 1):
        outcome = f"ERROR {call['error']}" if call.get("error") else call.get("result", "")
        typer.echo(f"  [{i}] {call['tool']}({json.dumps(call['args'], default=str)}) {call['seconds']:.2f}s -> {outcome}")
    for a in answer.attempts:
        if a.get("issues") or (a.get("evidence") or {}).get("reason"):
            typer.echo(f"  attempt {a['plan'].get('attempt')}: {a.get('issues') or a['evidence'].get('reason')}")
    typer.echo(f"confidence: {answer.confidence:.2f}; time: {answer.timings.get('total_s', 0):.2f}s "
               f"(tools {answer.timings.get('tool_s', 0):.2f}s)")


def _save_annotation(path: Path, annotations: list[tuple[str, bytes]]) -> None:
    """Save the last annotated PNG the tools returned (the step closest to the answer)."""
    if not annotations:
        typer.echo("note: no tool returned an annotated image; nothing saved", err=True)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(annotations[-1][1])
    typer.echo(f"annotated image ({annotations[-1][0]}) saved to {path}", err=True)
