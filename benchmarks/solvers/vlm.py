"""Raw-VLM baseline: each benchmark's own prompt sent to an OpenAI-compatible chat endpoint, images inline.

Request: ``POST {base_url}/chat/completions`` with one user message whose content is the images (``image_url``
parts holding ``data:<mime>;base64,…`` of the original file bytes, in the benchmark's order) followed by the prompt
text; ``temperature`` 0. The reply's ``<think>…</think>`` block is stripped for the prediction (the runner keeps
the raw reply). Transient failures (connection errors, timeouts, HTTP 408/409/429/5xx) are retried with
exponential backoff; other HTTP errors raise :class:`VLMError` at once. Replies are cached on disk under
``cache_dir`` keyed by sha256 of (endpoint URL, model, generation parameters, prompt, sha256 of every image), so
that a rerun or a resumed run costs nothing and a different server under the same model name is asked afresh.
A reply that is not an answer (cut off at ``max_tokens``, empty, junk: :func:`planners.llm_checks.reply_problem`)
is returned as the prediction (the model's failure scores 0) with the reason in ``extra["junk"]``, and never cached.

Before its first request with images, the solver learns whether the endpoint can take them at all
(:mod:`planners.llm_caps`, three one-token requests, once per process): text-only servers refuse image parts in
several ways (HTTP 400 naming a chat template, HTTP 500 from llama.cpp's server, which would be retried as a crash,
or no refusal but the image dropped or read as base64 text). When it cannot, every sample with images fails at
once with that reason instead of being sent.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import mimetypes
import os
import time
from pathlib import Path
from typing import Any

from benchmarks.sample import Sample
from benchmarks.solvers import Solution, prompt
from planners.llm_checks import reply_problem, strip_think
from tools.common import file_sha256

RETRY_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})
DEFAULT_CACHE_DIR = Path(".cache") / "vlm"
TEXT_ONLY_HINT = (" (servers of text-only models refuse image parts this way, often without naming them: the raw-VLM"
                  " baseline needs a model that takes images)")


class VLMError(RuntimeError):
    """The endpoint failed for good (non-retryable status, retries exhausted, or a malformed reply)."""


def cache_key(endpoint: str, model: str, text: str, image_hashes: list[str], params: dict[str, Any]) -> str:
    """sha256 over endpoint URL, model, generation parameters, prompt and image hashes (order matters)."""
    blob = json.dumps({"endpoint": endpoint, "model": model, "params": params, "prompt": text,
                       "images": image_hashes}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def image_part(path: str | Path) -> dict[str, Any]:
    """An OpenAI ``image_url`` content part with the file inline as a base64 data URL."""
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"image not found: {p}")
    mime = mimetypes.guess_type(p.name)[0] or "image/jpeg"
    return {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{base64.b64encode(p.read_bytes()).decode()}"}}


def reply_text(body: Any) -> str:
    """The text of ``choices[0].message.content`` (string or list of text parts); :class:`VLMError` otherwise."""
    return reply_of(body)[0]


def reply_of(body: Any) -> tuple[str, str | None]:
    """(the text of ``choices[0].message.content``, ``choices[0].finish_reason``); :class:`VLMError` when malformed."""
    try:
        choice = body["choices"][0]
        content = choice["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise VLMError(f"malformed chat completion reply: {str(body)[:200]}") from None
    if isinstance(content, list):
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ("" if content is None else str(content)), choice.get("finish_reason")


def _has_images(payload: dict) -> bool:
    return any(isinstance(m.get("content"), list) and any(p.get("type") == "image_url" for p in m["content"])
               for m in payload.get("messages", []))


class VLMSolver:
    """Raw VLM baseline. ``base_url`` like ``http://host:8000/v1``; the API key comes from ``api_key_env`` (may be
    unset for local servers). ``max_retries`` retries after the first try, sleeping ``backoff_s · 2^k`` seconds."""

    name = "vlm"

    def __init__(self, base_url: str | None = None, model: str | None = None, api_key_env: str = "OPENAI_API_KEY",
                 cache_dir: str | Path | None = DEFAULT_CACHE_DIR, max_tokens: int = 1024, timeout_s: float = 120.0,
                 max_retries: int = 4, backoff_s: float = 1.0) -> None:
        if not (base_url and model):
            raise ValueError("solver vlm needs --vlm-base-url and --vlm-model (an OpenAI-compatible endpoint)")
        if max_retries < 0 or backoff_s < 0:
            raise ValueError(f"max_retries and backoff_s must be >= 0, got {max_retries}, {backoff_s}")
        import httpx

        self.base_url = base_url.rstrip("/")
        self.url = self.base_url + "/chat/completions"
        self.api_key_env, self.timeout_s = api_key_env, float(timeout_s)
        self.image_refusal: str | None = None  # why the endpoint cannot take images ("" = it can; None = not asked)
        self.model = self.model_id = model
        self.params = {"temperature": 0, "max_tokens": int(max_tokens)}
        self.cache_dir = Path(cache_dir) if cache_dir else None
        self.max_retries, self.backoff_s = int(max_retries), float(backoff_s)
        key = os.environ.get(api_key_env)
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self.client = httpx.Client(timeout=timeout_s, headers=headers)

    def solve(self, sample: Sample) -> Solution:
        """Send the sample's prompt and images; cached replies are returned without a request."""
        text = prompt(sample)
        t0 = time.perf_counter()
        key = cache_key(self.url, self.model, text, [file_sha256(p) for p in sample.images], self.params)
        cached = self._cache_get(key)
        if cached is not None:
            return Solution(raw=cached, timings={"total_s": round(time.perf_counter() - t0, 4)},
                            extra={"cached": True, "attempts": 0})
        if sample.images and self._cannot_see():
            raise VLMError(f"the model {self.model} at {self.base_url} cannot take images ({self.image_refusal}): "
                           "the raw-VLM baseline needs a model that takes images")
        payload = {"model": self.model, **self.params,
                   "messages": [{"role": "user", "content": [*map(image_part, sample.images),
                                                             {"type": "text", "text": text}]}]}
        (raw, finish), attempts = self._post(payload)
        extra: dict[str, Any] = {"cached": False, "attempts": attempts, "finish_reason": finish}
        junk = reply_problem(strip_think(raw), finish)
        if junk:
            extra["junk"] = junk
        else:
            self._cache_put(key, raw)
        return Solution(raw=raw, timings={"total_s": round(time.perf_counter() - t0, 4)}, extra=extra)

    def _post(self, payload: dict) -> tuple[tuple[str, str | None], int]:
        """((reply text, finish reason), attempts used); retries transient failures with exponential backoff."""
        import httpx

        last = ""
        for attempt in range(self.max_retries + 1):
            if attempt:
                time.sleep(self.backoff_s * 2 ** (attempt - 1))
            try:
                resp = self.client.post(self.url, json=payload)
            except (httpx.TransportError, httpx.TimeoutException) as exc:
                last = f"{type(exc).__name__}: {exc}"
                continue
            if resp.status_code in RETRY_STATUS:
                last = f"HTTP {resp.status_code}: {resp.text[:200]}"
                continue
            if resp.status_code >= 400:
                hint = TEXT_ONLY_HINT if resp.status_code < 500 and _has_images(payload) else ""
                raise VLMError(f"{self.url} answered HTTP {resp.status_code}: {resp.text[:300]}{hint}")
            try:
                body = resp.json()
            except ValueError:
                raise VLMError(f"{self.url} answered non-JSON: {resp.text[:200]}") from None
            return reply_of(body), attempt + 1
        raise VLMError(f"{self.url}: gave up after {self.max_retries + 1} attempts (last: {last})")

    def _cannot_see(self) -> bool:
        """Whether the endpoint cannot take images, probed on first need; an endpoint that is down or busy gives
        no verdict (the request itself then fails or succeeds) and is probed again next time."""
        if self.image_refusal is None:
            from planners.llm_caps import capabilities
            from planners.llm_client import LLMError, make_chat_model, release_connections

            llm = make_chat_model(self.base_url, self.model, self.api_key_env, timeout_s=self.timeout_s)

            async def probe() -> Any:
                try:
                    return (await capabilities(llm))[0]
                finally:
                    await release_connections()

            try:
                caps = asyncio.run(probe())
            except LLMError:
                return False
            self.image_refusal = "" if caps.images else (caps.images_note or "refused")
        return bool(self.image_refusal)

    def _cache_path(self, key: str) -> Path | None:
        return None if self.cache_dir is None else self.cache_dir / key[:2] / f"{key}.json"

    def _cache_get(self, key: str) -> str | None:
        path = self._cache_path(key)
        if path is None or not path.is_file():
            return None
        try:
            return str(json.loads(path.read_text(encoding="utf-8"))["reply"])
        except (ValueError, KeyError, OSError):
            return None  # a torn or foreign cache file: ask again (it is rewritten below)

    def _cache_put(self, key: str, reply: str) -> None:
        path = self._cache_path(key)
        if path is None:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"endpoint": self.url, "model": self.model, "reply": reply}), encoding="utf-8")
        os.replace(tmp, path)  # atomic: concurrent workers never see half a file
