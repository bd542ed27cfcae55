"""Optional LLM/VLM: any LangChain chat model, or an OpenAI-compatible endpoint (base URL + model name, key from
an environment variable). Two uses:

* semantic sub-questions (region contents, anomalies, descriptions, multiple choice) asked on images or region
  crops, the reply parsed into the task's canonical answer format;
* questions the router cannot place: the model chooses among the MCP tools (tool calls are executed through the
  same MCP session and traced), then answers in free text.

Every call goes through :func:`planners.llm_client.complete` (limits, retries, one-line errors) and is recorded in
the trace (tool ``llm``), after the endpoint's capabilities (``llm_capabilities``, probed once per endpoint by
:mod:`planners.llm_caps`): a model that cannot see gets no images, and a question that needs them is an abstention
saying so. Replies pass :mod:`planners.llm_checks` before they are parsed; a failing endpoint, a refused reply or
an unreadable one is an abstention with the reason.
"""

from __future__ import annotations

import base64
import dataclasses
import io
import json
import time
from typing import Any

from agent.answers import ANSWER_TYPES, AnswerFormat, AnswerParseError, YesNo
from planners.llm_caps import Capabilities, traced_capabilities
from planners.llm_checks import echo_problem, reply_problem, strip_think, without_echo
from planners.llm_client import LLMError, Reply, complete, endpoint_of, make_chat_model
from planners.plans import found, read_regions, undecided
from planners.router import Understanding
from planners.toolbox import ToolCallError, ToolContext, summarize_args

__all__ = ["FORMAT_HINTS", "LLMError", "answer_semantic", "answer_with_tools", "ask_images", "endpoint_failure",
           "image_data_url", "make_chat_model"]
ENDPOINT_TRACE_TOOLS = ("llm", "llm_capabilities")  # trace entries of requests to the endpoint (errors: it failed)

MAX_TOOL_ROUNDS = 4
MAX_SIDE_PX = 1024
LLM_CONFIDENCE = 0.5  # we cannot check a language model's answer: it is reported at medium confidence
FORMAT_HINTS = {
    "OPTION_LETTER": "Answer with only the option letter.",
    "REGION_SET": "Answer with only the region labels, formatted like `Region 1, 2`.",
    "REGION_LIST": "Answer with only the region label(s) in order, formatted like `Region 1, 2`.",
    "DIRECTION_LABEL": "Answer with only the direction label, formatted like `Direction 3`.",
    "CLOCK": "Answer like `3 o'clock`.",
    "QUANTITY": "Answer with a number of meters, like `3.5 meters`.",
    "ACTIONS": "Answer with a JSON list of action dicts.",
    "FREE_TEXT": "Answer in one or two sentences.",
}


def image_data_url(path: str, box: list[float] | None = None, max_side: int = MAX_SIDE_PX) -> str:
    """A JPEG data URL of a local image (or of the crop ``box`` [x1, y1, x2, y2] in pixels), downscaled."""
    from PIL import Image

    with Image.open(path) as im:
        im = im.convert("RGB")
        if box is not None:
            x1, y1, x2, y2 = (int(round(v)) for v in box)
            im = im.crop((max(0, x1), max(0, y1), min(im.width, max(x2, x1 + 1)), min(im.height, max(y2, y1 + 1))))
        im.thumbnail((max_side, max_side))
        buf = io.BytesIO()
        im.save(buf, format="JPEG", quality=90)
    return "data:image/jpeg;base64," + base64.b64encode(buf.getvalue()).decode()


def user_message(text: str, urls: list[str]) -> Any:
    """A user message: plain string content without images (some chat templates drop content lists), else the
    text followed by ``image_url`` parts."""
    from langchain_core.messages import HumanMessage

    if not urls:
        return HumanMessage(content=text)
    parts: list[dict] = [{"type": "text", "text": text}]
    parts += [{"type": "image_url", "image_url": {"url": u}} for u in urls]
    return HumanMessage(content=parts)


def endpoint_failure(trace: list[dict]) -> str | None:
    """The first failure of the language model endpoint recorded in ``trace`` (unreachable, HTTP error, timeout),
    or ``None``; a reply refused by the checks or an invalid question program is not an endpoint failure."""
    return next((c["error"] for c in trace if c.get("tool") in ENDPOINT_TRACE_TOOLS and c.get("error")), None)


async def ask_images(llm: Any, text: str, urls: list[str]) -> str:
    """The model's reply text to ``text`` with images ``urls``; :class:`LLMError` when the endpoint fails."""
    return (await complete(llm, [user_message(text, urls)])).text


async def traced_call(ctx: ToolContext, messages: list[Any], tools: list[dict] | None = None) -> Reply:
    """:func:`complete` on ``ctx.llm``, recorded in the trace as tool ``llm`` (reply or error)."""
    base, name = endpoint_of(ctx.llm)
    n_images = sum(1 for m in messages if isinstance(m.content, list)
                   for p in m.content if isinstance(p, dict) and p.get("type") == "image_url")
    entry: dict[str, Any] = {"tool": "llm", "args": summarize_args({"model": name, "images": n_images,
                                                                     "tools": len(tools or [])})}
    t0 = time.perf_counter()
    try:
        reply = await complete(ctx.llm, messages, tools=tools)
    except LLMError as exc:
        ctx.trace.append(entry | {"seconds": time.perf_counter() - t0, "error": str(exc)})
        raise
    said = ", ".join(c["name"] for c in reply.tool_calls) if reply.tool_calls else reply.text
    ctx.trace.append(entry | {"seconds": reply.seconds, "finish_reason": reply.finish_reason,
                              "result": " ".join(said.split())[:300]})
    return reply


async def _seeing_model(ctx: ToolContext) -> Capabilities | dict:
    """The endpoint's capabilities when its model can see, else the abstention saying it cannot."""
    caps = await traced_capabilities(ctx.llm, ctx.trace)
    if not caps.images:
        return undecided(f"the language model {caps.model} cannot see images ({caps.images_note or 'text-only'}) "
                         "and this question is about what the images show")
    return caps


async def answer_semantic(ctx: ToolContext, u: Understanding) -> dict:
    """Evidence for a semantic task from the VLM: per-region crops for region tasks, whole images otherwise."""
    if not ctx.image_paths or not all(ctx.image_paths):
        return undecided("the LLM path needs local image files")
    try:
        caps = await _seeing_model(ctx)
        if isinstance(caps, dict):
            return caps
        if u.plan == "semantic_regions":
            return await _regions_by_crops(ctx, u)
        fmt = u.answer_format or "FREE_TEXT"
        text = f"{ctx.question}\n{FORMAT_HINTS.get(fmt, '')}"
        reply = await traced_call(ctx, [user_message(text, [image_data_url(p) for p in ctx.image_paths])])
    except LLMError as exc:
        return undecided(str(exc))
    return _parsed(fmt, reply, text, "llm")


def checked_text(reply: Reply, prompt: str) -> tuple[str | None, str]:
    """(why the reply is refused or ``None``, the reply without its think block and without what it copies from
    ``prompt``)."""
    text = strip_think(reply.text)
    problem = reply_problem(text, reply.finish_reason) or echo_problem(text, prompt)
    return problem, without_echo(text, prompt)


def _parsed(fmt: str, reply: Reply, prompt: str, source: str) -> dict:
    problem, own = checked_text(reply, prompt)
    if problem:
        return undecided(f"the {source} reply was refused: {problem}")
    try:
        obj = ANSWER_TYPES[AnswerFormat[fmt]].parse(strip_think(reply.text).strip() if fmt == "FREE_TEXT" else own)
    except AnswerParseError as exc:
        return undecided(f"the {source} reply could not be read as {fmt}: {exc}")
    value = {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
    return found(value, LLM_CONFIDENCE, f"answered by the language model ({source})")


async def _regions_by_crops(ctx: ToolContext, u: Understanding) -> dict:
    regions, _, _ = await read_regions(ctx, 0, u.conventions.region_ids or None)
    if not regions:
        return undecided("no regions could be read in the image")
    if u.task == "Anomaly_Detection":
        ask = "Does this crop of a drone image show an abnormal event (accident, fire, fight, fall, flood...)?"
    else:
        ask = f"Does this crop of a drone image contain {u.conventions.target_label or 'the object asked about'}?"
    prompt = f"{ask} Answer yes or no."
    yes = []
    for rid in sorted(regions):
        crop = image_data_url(ctx.image_paths[0], regions[rid]["bbox"])
        reply = await traced_call(ctx, [user_message(prompt, [crop])])
        problem, own = checked_text(reply, prompt)
        if problem:
            return undecided(f"the LLM reply about region {rid} was refused: {problem}")
        try:
            if YesNo.parse(own).value:
                yes.append(rid)
        except AnswerParseError:
            return undecided(f"the LLM reply about region {rid} was neither yes nor no: {reply.text[:80]!r}")
    if not yes:
        return undecided("the LLM found the object in none of the regions")
    return found({"ids": tuple(yes)}, LLM_CONFIDENCE, "region contents judged by the language model on crops")


async def _tool_schemas(ctx: ToolContext) -> list[dict]:
    listed = await ctx.session.list_tools()
    return [{"type": "function", "function": {"name": t.name, "description": t.description or "",
                                              "parameters": t.inputSchema}} for t in listed.tools]


def _resolve_aliases(value: Any, aliases: dict[str, str]) -> Any:
    if isinstance(value, str):
        return aliases.get(value, value)
    if isinstance(value, list):
        return [_resolve_aliases(v, aliases) for v in value]
    if isinstance(value, dict):
        return {k: _resolve_aliases(v, aliases) for k, v in value.items()}
    return value


def _system_prompt(aliases: dict[str, str], caps: Capabilities) -> str:
    text = ("You answer questions about drone (UAV) images. Conventions: angles in degrees clockwise, distances "
            "in metres, pixel boxes [x1, y1, x2, y2].")
    if caps.tools:
        text += (" Use the tools; pass images to them by these names: " + ", ".join(aliases) + ". When the tools "
                 "cannot decide, say so.")
    if not caps.images:
        text += " You cannot see the images: learn about them only from the tools' results."
    return text


async def answer_with_tools(ctx: ToolContext, question: str) -> dict:
    """Let the LLM choose MCP tools for an unplaced question; its final reply becomes a free-text answer.

    Images go with the question only when the model can see; tools are offered only when the endpoint takes them.
    """
    try:
        caps = await traced_capabilities(ctx.llm, ctx.trace)
        if not caps.tools and not caps.images:
            return undecided(f"the language model {caps.model} can neither see images ({caps.images_note}) nor call "
                             f"tools ({caps.tools_note})")
        return await _tool_rounds(ctx, question, caps)
    except LLMError as exc:
        return undecided(str(exc))


async def _tool_rounds(ctx: ToolContext, question: str, caps: Capabilities) -> dict:
    from langchain_core.messages import SystemMessage, ToolMessage

    aliases = {f"image_{i + 1}": img for i, img in enumerate(ctx.images)}
    urls = [image_data_url(p) for p in ctx.image_paths if p] if caps.images else []
    messages: list[Any] = [SystemMessage(content=_system_prompt(aliases, caps)), user_message(question, urls)]
    schemas = await _tool_schemas(ctx) if caps.tools else None
    for _ in range(MAX_TOOL_ROUNDS):
        reply = await traced_call(ctx, messages, schemas)
        messages.append(reply.message)
        if not reply.tool_calls:
            problem, _ = checked_text(reply, question)
            if problem:  # a blind model asked about what the images show often answers junk: say it was blind
                blind = "" if caps.images else f" ({caps.model} cannot see images: it had only the tools' results)"
                return undecided(f"the language model's answer was refused: {problem}{blind}")
            return found({"text": strip_think(reply.text).strip()}, LLM_CONFIDENCE,
                         "answered by the language model" + (" with tools" if schemas else ""))
        for call in reply.tool_calls:
            try:
                result = await ctx.call(call["name"], **_resolve_aliases(call.get("args") or {}, aliases))
                content = json.dumps(result, default=str)[:4000]
            except ToolCallError as exc:
                content = f"error: {exc}"
            messages.append(ToolMessage(content=content, tool_call_id=call["id"]))
    return undecided(f"the language model did not finish within {MAX_TOOL_ROUNDS} tool rounds")
