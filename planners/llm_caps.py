"""What an OpenAI-compatible endpoint can do, learned once per endpoint with three one-token requests.

Many local servers run text-only models or chat templates without tool support, and they say so badly: an image
part gets HTTP 400 with a message about the chat template, a template that does not know content lists drops such
a message silently (the model then answers a question it never saw). So on first use the planner asks:

1. a plain text message (the endpoint works; its prompt token count is the reference);
2. the same text as content parts with a small image: refused (HTTP error), far fewer prompt tokens than (1)
   (the parts were dropped) or thousands more (the base64 was read as text) means the model cannot see;
3. the text with one tool offered: refused means no tools.

Connection failures, timeouts and busy answers (HTTP 408/409/429/502/503/504, after the retries) are not
verdicts: they raise :class:`planners.llm_client.LLMError` and nothing is cached. Verdicts are cached per
(base URL, model) for the life of the process.
"""

from __future__ import annotations

import base64
import functools
import io
import random
import time
from dataclasses import dataclass
from typing import Any

from planners.llm_client import LLMError, complete, endpoint_of

PROBE_TEXT = ("This is a connection check from a drone image assistant before it asks real questions. "
              "Please reply with the single word OK and nothing else.")
PROBE_TOOL = {"type": "function", "function": {"name": "check", "description": "Connection check; do not call.",
                                               "parameters": {"type": "object", "properties": {}}}}
BUSY_STATUS = frozenset({408, 409, 429, 502, 503, 504})  # a server busy now says nothing about what it accepts
PROBE_SIDE_PX = 48
TEXT_CHARS_PER_TOKEN = 6  # more prompt tokens for the image than its base64 length / this: it was read as text
DROPPED_SHARE = 0.5  # with an image, fewer prompt tokens than this share of the text alone: the parts were dropped


@dataclass(frozen=True)
class Capabilities:
    """Whether an endpoint takes images and tools; ``*_note`` says why not (the server's words)."""

    endpoint: str
    model: str
    images: bool
    tools: bool
    images_note: str = ""
    tools_note: str = ""

    def summary(self) -> str:
        def say(ok: bool, note: str) -> str:
            return "yes" if ok else f"no ({note})" if note else "no"

        return f"images: {say(self.images, self.images_note)}; tools: {say(self.tools, self.tools_note)}"


_CACHE: dict[tuple[str, str], Capabilities] = {}


def forget(llm: Any | None = None) -> None:
    """Drop the cached verdicts of ``llm``'s endpoint (all endpoints when ``None``): the next use probes again."""
    if llm is None:
        _CACHE.clear()
    else:
        _CACHE.pop(endpoint_of(llm), None)


async def capabilities(llm: Any) -> tuple[Capabilities, bool]:
    """(the endpoint's capabilities, whether they came from the cache); :class:`LLMError` when it cannot be reached."""
    key = endpoint_of(llm)
    if key in _CACHE:
        return _CACHE[key], True
    caps = await probe(llm)
    _CACHE[key] = caps
    return caps, False


async def probe(llm: Any) -> Capabilities:
    """Ask the endpoint the three probe requests (see the module docstring)."""
    from langchain_core.messages import HumanMessage

    base, name = endpoint_of(llm)
    text_only = await complete(llm, [HumanMessage(content=PROBE_TEXT)], max_tokens=1)
    parts = [{"type": "text", "text": PROBE_TEXT}, {"type": "image_url", "image_url": {"url": _probe_image()}}]
    images, images_note = await _accepted(llm, [HumanMessage(content=parts)], None)
    if images and text_only.prompt_tokens and images.prompt_tokens is not None:
        images_note = _image_tokens_problem(text_only.prompt_tokens, images.prompt_tokens)
        images = None if images_note else images
    tools, tools_note = await _accepted(llm, [HumanMessage(content=PROBE_TEXT)], [PROBE_TOOL])
    return Capabilities(base, name, images is not None, tools is not None, images_note, tools_note)


def _image_tokens_problem(text_tokens: int, image_tokens: int) -> str:
    """Why the prompt token counts show that the image part was not seen as an image ("" when they do not)."""
    if image_tokens < DROPPED_SHARE * text_tokens:
        return (f"the server drops messages made of parts: {image_tokens} prompt tokens with an image, "
                f"{text_tokens} for the text alone")
    if image_tokens - text_tokens > len(_probe_image()) / TEXT_CHARS_PER_TOKEN:
        return (f"the server reads images as text: {image_tokens - text_tokens} prompt tokens for a "
                f"{PROBE_SIDE_PX}x{PROBE_SIDE_PX} image")
    return ""


async def _accepted(llm: Any, messages: list[Any], tools: list[dict] | None) -> tuple[Any, str]:
    """(the reply, "") when the endpoint accepts the request, (None, the refusal) when it refuses it."""
    import openai

    try:
        return await complete(llm, messages, tools=tools, max_tokens=1), ""
    except LLMError as exc:
        cause = exc.__cause__
        if isinstance(cause, openai.APIConnectionError) or (
                isinstance(cause, openai.APIStatusError) and cause.status_code in BUSY_STATUS):
            raise  # down, timed out or busy: no verdict (nothing is cached)
        return None, str(exc).split(f" at {endpoint_of(llm)[0]} ", 1)[-1]


@functools.lru_cache(maxsize=1)
def _probe_image() -> str:
    """A data URL of a 48x48 PNG of fixed random noise (about 9 KB of base64: incompressible, so that a server
    that reads it as text shows thousands of prompt tokens, where a vision model spends a few hundred at most)."""
    from PIL import Image

    side = PROBE_SIDE_PX
    buf = io.BytesIO()
    Image.frombytes("RGB", (side, side), random.Random(0).randbytes(side * side * 3)).save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def trace_entry(caps: Capabilities, cached: bool, seconds: float) -> dict:
    """The capabilities as an entry of the agent's trace (shown by ``--explain`` and kept in benchmark rows)."""
    return {"tool": "llm_capabilities", "args": {"endpoint": caps.endpoint, "model": caps.model},
            "result": caps.summary() + (" (cached)" if cached else ""), "seconds": seconds}


async def traced_capabilities(llm: Any, trace: list[dict]) -> Capabilities:
    """:func:`capabilities`, recorded once in ``trace`` (an error entry when the endpoint cannot be reached)."""
    t0 = time.perf_counter()
    base, name = endpoint_of(llm)
    try:
        caps, cached = await capabilities(llm)
    except LLMError as exc:
        trace.append({"tool": "llm_capabilities", "args": {"endpoint": base, "model": name},
                      "seconds": time.perf_counter() - t0, "error": str(exc)})
        raise
    if not any(e.get("tool") == "llm_capabilities" for e in trace):
        trace.append(trace_entry(caps, cached, time.perf_counter() - t0))
    return caps
