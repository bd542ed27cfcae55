"""The OpenAI-compatible chat model and the one way the planner calls it.

* :func:`make_chat_model` builds a LangChain ``ChatOpenAI`` whose HTTP connections belong to the event loop that
  opened them (:class:`LoopLocalTransport`): ``Agent.ask`` runs each question in its own ``asyncio.run`` loop, and a
  keep-alive connection opened by a closed loop fails with ``RuntimeError: Event loop is closed`` when reused.
  It also sets ``max_tokens``, the request timeout and the SDK's retries (exponential backoff on connection errors,
  timeouts, HTTP 408/409/429/5xx).
* :func:`complete` sends messages and turns every failure of the endpoint (down, HTTP error, timeout, malformed
  reply) into :class:`LLMError` with a one-line message naming the endpoint.
"""

from __future__ import annotations

import asyncio
import functools
import os
import time
import weakref
from dataclasses import dataclass
from typing import Any

DEFAULT_MAX_TOKENS = 512
DEFAULT_TIMEOUT_S = 120.0
DEFAULT_MAX_RETRIES = 2
ERROR_CHARS = 200


class LLMError(RuntimeError):
    """The language model endpoint failed (unreachable, HTTP error, timeout, malformed reply); one-line message."""


@dataclass
class Reply:
    """One chat completion: the assistant message, its text, why it stopped and how long it took (seconds)."""

    message: Any  # langchain_core AIMessage
    text: str
    finish_reason: str | None
    tool_calls: list[dict]
    seconds: float
    prompt_tokens: int | None


def _httpx() -> Any:
    """The httpx library the installed openai SDK is built on (``httpx2`` for openai>=3, ``httpx`` before)."""
    try:
        from langchain_openai._compat import httpx
    except ImportError:  # older langchain-openai: the SDK used httpx itself
        import httpx
    return httpx


@functools.lru_cache(maxsize=1)
def _transport_class() -> type:
    httpx = _httpx()

    class LoopLocalTransport(httpx.AsyncBaseTransport):
        """An async transport with one connection pool per event loop.

        A pool's keep-alive connections are tied to the loop that opened them; a pool whose loop has closed is
        dropped instead of reused. :func:`release_connections` closes the running loop's pools before it ends.
        """

        def __init__(self) -> None:
            self._pools: dict[int, tuple[Any, Any]] = {}  # id(loop) -> (weakref to loop, AsyncHTTPTransport)
            _TRANSPORTS.add(self)

        def _pool(self) -> Any:
            loop = asyncio.get_running_loop()
            for key, (ref, _) in list(self._pools.items()):
                if ref() is None or ref().is_closed():
                    del self._pools[key]  # its sockets go with it; the loop that owned them is gone
            entry = self._pools.get(id(loop))
            if entry is None or entry[0]() is not loop:
                entry = (weakref.ref(loop), httpx.AsyncHTTPTransport())
                self._pools[id(loop)] = entry
            return entry[1]

        async def handle_async_request(self, request: Any) -> Any:
            return await self._pool().handle_async_request(request)

        async def aclose_running_loop(self) -> None:
            entry = self._pools.pop(id(asyncio.get_running_loop()), None)
            if entry is not None:
                await entry[1].aclose()

        async def aclose(self) -> None:
            await self.aclose_running_loop()

    return LoopLocalTransport


_TRANSPORTS: "weakref.WeakSet[Any]" = weakref.WeakSet()


async def release_connections() -> None:
    """Close the running loop's connection pools of every chat model built here (call before the loop ends)."""
    for transport in list(_TRANSPORTS):
        await transport.aclose_running_loop()


def make_chat_model(base_url: str | None, model: str | None, api_key_env: str = "OPENAI_API_KEY",
                    timeout_s: float = DEFAULT_TIMEOUT_S, max_tokens: int | None = DEFAULT_MAX_TOKENS,
                    max_retries: int = DEFAULT_MAX_RETRIES, streaming: bool = False) -> Any | None:
    """A LangChain chat model for an OpenAI-compatible endpoint, or ``None`` when no model is configured.

    ``timeout_s``: seconds per request; ``max_tokens``: reply length limit (``None``: the server's); ``max_retries``:
    retries after the first try with the SDK's exponential backoff; ``streaming``: ask for server-sent events.
    """
    if not base_url and not model:
        return None
    if not (base_url and model):
        raise ValueError("an OpenAI-compatible LLM needs both a base URL (--llm-base-url) and a model (--llm-model)")
    if timeout_s <= 0 or max_retries < 0 or (max_tokens is not None and max_tokens < 1):
        raise ValueError(f"LLM limits out of range: timeout {timeout_s} s (> 0), retries {max_retries} (>= 0), "
                         f"max tokens {max_tokens} (>= 1)")
    from langchain_openai import ChatOpenAI

    key = os.environ.get(api_key_env) or "not-needed"  # local servers often need no key
    client = _httpx().AsyncClient(transport=_transport_class()(), timeout=timeout_s)
    return ChatOpenAI(base_url=base_url, model=model, api_key=key, temperature=0, timeout=timeout_s,
                      max_retries=max_retries, streaming=streaming, http_async_client=client,
                      extra_body=_token_limit(max_tokens))


def _token_limit(max_tokens: int | None) -> dict | None:
    """The reply length limit as the request field ``max_tokens``: every OpenAI-compatible server reads it, while
    LangChain's own setting is sent as ``max_completion_tokens``, which older servers (llama-cpp-python 0.3) ignore,
    letting a model that does not stop run to the end of its context."""
    return None if max_tokens is None else {"max_tokens": int(max_tokens)}


def endpoint_of(llm: Any) -> tuple[str, str]:
    """(base URL or model class, model name) identifying where ``llm`` sends its requests."""
    base = getattr(llm, "openai_api_base", None) or type(llm).__name__
    name = getattr(llm, "model_name", None) or getattr(llm, "model", None) or "?"
    return str(base), str(name)


def describe_error(exc: BaseException) -> str:
    """One line saying what went wrong with a request (HTTP status and the server's message, timeout, refusal)."""
    import openai

    if isinstance(exc, openai.APITimeoutError):
        return "timed out (raise --llm-timeout for a slow model)"
    if isinstance(exc, openai.APIStatusError):
        body = exc.body if isinstance(exc.body, dict) else {}
        message = body.get("message") or body.get("error") or exc.message
        return f"answered HTTP {exc.status_code}: {_one_line(str(message))}"
    if isinstance(exc, openai.APIConnectionError):
        cause = _root_cause(exc)
        return f"could not be reached ({_one_line(f'{type(cause).__name__}: {cause}')})"
    return "failed: " + _one_line(f"{type(exc).__name__}: {exc}")


def _root_cause(exc: BaseException) -> BaseException:
    """The innermost exception of a chain (the socket error under the SDK's and LangChain's wrappers)."""
    seen = {id(exc)}
    while (nxt := exc.__cause__ or exc.__context__) is not None and id(nxt) not in seen:
        seen.add(id(nxt))
        exc = nxt
    return exc


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= ERROR_CHARS else text[: ERROR_CHARS - 3] + "..."


def message_text(message: Any) -> str:
    """The text of a chat message whose content is a string or a list of parts."""
    content = message.content
    if isinstance(content, list):
        return " ".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content)
    return "" if content is None else str(content)


async def complete(llm: Any, messages: list[Any], *, tools: list[dict] | None = None,
                   max_tokens: int | None = None) -> Reply:
    """Send ``messages`` (optionally offering ``tools``) and return the reply; :class:`LLMError` on any failure.

    ``max_tokens`` overrides the model's limit for this request (a capability probe asks for one token).
    """
    base, name = endpoint_of(llm)
    t0 = time.perf_counter()
    try:
        model = llm.bind_tools(tools) if tools else llm  # a model class without tools refuses here
        if max_tokens is not None and hasattr(llm, "extra_body"):
            model = model.bind(extra_body={**(llm.extra_body or {}), **_token_limit(max_tokens)})
        message = await model.ainvoke(messages)
    except Exception as exc:  # the SDK, httpx and LangChain raise many types; each becomes one clear line
        raise LLMError(f"the language model {name} at {base} {describe_error(exc)}") from exc
    meta = getattr(message, "response_metadata", None) or {}
    usage = getattr(message, "usage_metadata", None) or {}
    return Reply(message=message, text=message_text(message), finish_reason=meta.get("finish_reason"),
                 tool_calls=list(getattr(message, "tool_calls", None) or []), seconds=time.perf_counter() - t0,
                 prompt_tokens=usage.get("input_tokens"))
