"""Optional LLM/VLM: any LangChain chat model, or an OpenAI-compatible endpoint (base URL + model name, key from
an environment variable). Two uses:

* semantic sub-questions (region contents, anomalies, descriptions, multiple choice) asked on images or region
  crops, the reply parsed into the task's canonical answer format;
* questions the router cannot place: the model chooses among the MCP tools (tool calls are executed through the
  same MCP session and traced), then answers in free text.
"""

from __future__ import annotations

import base64
import dataclasses
import io
import json
import os
from typing import Any

from agent.answers import ANSWER_TYPES, AnswerFormat, AnswerParseError, YesNo
from planners.plans import found, read_regions, undecided
from planners.router import Understanding
from planners.toolbox import ToolCallError, ToolContext

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


def make_chat_model(base_url: str | None, model: str | None, api_key_env: str = "OPENAI_API_KEY",
                    timeout_s: float = 120.0) -> Any | None:
    """A LangChain chat model for an OpenAI-compatible endpoint, or ``None`` when no model is configured."""
    if not base_url and not model:
        return None
    if not (base_url and model):
        raise ValueError("an OpenAI-compatible LLM needs both a base URL (--llm-base-url) and a model (--llm-model)")
    from langchain_openai import ChatOpenAI

    key = os.environ.get(api_key_env) or "not-needed"  # local servers often need no key
    return ChatOpenAI(base_url=base_url, model=model, api_key=key, temperature=0, timeout=timeout_s, max_retries=0)


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


def _image_message(text: str, urls: list[str]) -> Any:
    from langchain_core.messages import HumanMessage

    parts: list[dict] = [{"type": "text", "text": text}]
    parts += [{"type": "image_url", "image_url": {"url": u}} for u in urls]
    return HumanMessage(content=parts)


def _text(reply: Any) -> str:
    content = reply.content
    if isinstance(content, list):
        return " ".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content)
    return str(content)


async def ask_images(llm: Any, text: str, urls: list[str]) -> str:
    return _text(await llm.ainvoke([_image_message(text, urls)]))


async def answer_semantic(ctx: ToolContext, u: Understanding) -> dict:
    """Evidence for a semantic task from the VLM: per-region crops for region tasks, whole images otherwise."""
    if not ctx.image_paths or not all(ctx.image_paths):
        return undecided("the LLM path needs local image files")
    if u.plan == "semantic_regions":
        return await _regions_by_crops(ctx, u)
    fmt = u.answer_format or "FREE_TEXT"
    urls = [image_data_url(p) for p in ctx.image_paths]
    reply = await ask_images(ctx.llm, f"{ctx.question}\n{FORMAT_HINTS.get(fmt, '')}", urls)
    return _parsed(fmt, reply, "llm")


def _parsed(fmt: str, reply: str, source: str) -> dict:
    try:
        obj = ANSWER_TYPES[AnswerFormat[fmt]].parse(reply)
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
    yes = []
    for rid in sorted(regions):
        url = image_data_url(ctx.image_paths[0], regions[rid]["bbox"])
        reply = await ask_images(ctx.llm, f"{ask} Answer yes or no.", [url])
        try:
            if YesNo.parse(reply).value:
                yes.append(rid)
        except AnswerParseError:
            return undecided(f"the LLM reply about region {rid} was neither yes nor no: {reply[:80]!r}")
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


async def answer_with_tools(ctx: ToolContext, question: str) -> dict:
    """Let the LLM choose MCP tools for an unplaced question; its final reply becomes a free-text answer."""
    from langchain_core.messages import SystemMessage, ToolMessage

    aliases = {f"image_{i + 1}": img for i, img in enumerate(ctx.images)}
    system = SystemMessage(content=(
        "You answer questions about drone (UAV) images using the tools. Pass images to tools by these names: "
        + ", ".join(aliases) + ". Conventions: angles in degrees clockwise, distances in metres, pixel boxes "
        "[x1, y1, x2, y2]. When the tools cannot decide, say so."))
    urls = [image_data_url(p) for p in ctx.image_paths if p]
    messages: list[Any] = [system, _image_message(question, urls)]
    model = ctx.llm.bind_tools(await _tool_schemas(ctx))
    for _ in range(MAX_TOOL_ROUNDS):
        reply = await model.ainvoke(messages)
        messages.append(reply)
        calls = getattr(reply, "tool_calls", None) or []
        if not calls:
            text = _text(reply).strip()
            return found({"text": text}, LLM_CONFIDENCE, "answered by the language model with tools") if text \
                else undecided("the language model gave an empty answer")
        for call in calls:
            try:
                result = await ctx.call(call["name"], **_resolve_aliases(call.get("args") or {}, aliases))
                content = json.dumps(result, default=str)[:4000]
            except ToolCallError as exc:
                content = f"error: {exc}"
            messages.append(ToolMessage(content=content, tool_call_id=call["id"]))
    return undecided(f"the language model did not finish within {MAX_TOOL_ROUNDS} tool rounds")
