"""A local OpenAI-compatible chat server for tests and the LLM-path benchmark (127.0.0.1 only).

It behaves like the real servers the agent meets (llama.cpp, vLLM, Ollama behind uvicorn) where that matters to a
client: HTTP/1.1 with keep-alive (one connection serves many requests; ``connections`` counts them), replies with
``Content-Length`` or, for ``"stream": true``, server-sent events in chunked transfer encoding; tool calls;
``max_tokens`` honoured (a longer reply is cut and ends with ``finish_reason: "length"``); errors in OpenAI's
``{"error": {"message", "type", "code"}}`` shape; slow replies (``delay_s``).

Modes of a text-only server: ``images=False`` answers HTTP 400 to any image part with a message that never mentions
images (as llama-cpp-python does for a model without a vision projector), or ``image_refusal`` instead, e.g.
``LLAMA_SERVER_IMAGE_REFUSAL`` (llama.cpp's own server: HTTP 500, which clients otherwise retry as a crash);
``tools=False`` answers HTTP 400 to a request offering tools (as vLLM does without ``--enable-auto-tool-choice``);
``list_content="drop"`` silently ignores messages whose content is a list of parts (as some chat templates do) and
``list_content="text"`` renders image parts as their base64 text (as others do); both show only in
``usage.prompt_tokens``.

Replies: each ``POST /v1/chat/completions`` pops the next ``script`` entry, else uses ``default`` (which may be a
callable taking the request body). An entry is a message dict (``{"content": ...}`` or ``{"content": None,
"tool_calls": [...]}``; optional keys ``finish_reason`` and ``delay_s``), a plain string (the content), or a
``(status, message-or-string)`` pair; a non-200 status answers an error. One-token requests (``max_tokens: 1``,
health checks and capability probes) are answered ``OK`` without taking a scripted reply, but still meet the
text-only checks. ``outage`` entries ``(status, message)`` answer the next requests of any kind, probes included.
``requests`` records every request.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

TOKEN = re.compile(r"\S+\s*")  # a "token" of this fake: one word with its trailing space
IMAGE_REFUSAL = "Failed to apply the chat template: messages[0].content is not a string"
LLAMA_SERVER_IMAGE_REFUSAL = (500, "image input is not supported - hint: if this is unexpected, you may need to "
                                   "provide the mmproj")
TOOLS_REFUSAL = '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'


class FakeChatServer:
    """Start with :meth:`start`, stop with :meth:`close`; ``url`` is the ``/v1`` base URL."""

    def __init__(self, script: list[Any] | None = None, default: Any = "script exhausted", *, images: bool = True,
                 tools: bool = True, list_content: str = "keep", delay_s: float = 0.0,
                 image_refusal: tuple[int, str] = (400, IMAGE_REFUSAL)) -> None:
        if list_content not in ("keep", "drop", "text"):
            raise ValueError(f"list_content must be 'keep', 'drop' or 'text', got {list_content!r}")
        self.requests: list[dict] = []
        self.script: list[Any] = list(script or [])
        self.default: Any = default
        self.images, self.tools, self.list_content = images, tools, list_content
        self.image_refusal = image_refusal
        self.delay_s = delay_s
        self.outage: list[tuple[int, str]] = []  # (status, message) answered to the next requests of any kind
        self.connections = 0  # TCP connections accepted (keep-alive shows as fewer connections than requests)
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self) -> "FakeChatServer":
        self.thread.start()
        return self

    def close(self) -> None:
        """Stop serving and drop every open connection (clients see the peer close them)."""
        self.server.shutdown()
        self.server.server_close()
        with self._lock:
            for s in self._sockets:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    # --- replies ------------------------------------------------------------------------------------------------
    def reply(self, body: dict) -> tuple[int, dict]:
        """(HTTP status, message or error text) for one request, after the text-only checks."""
        with self._lock:
            if self.outage:  # the server is down for this request, whatever it is
                status, message = self.outage.pop(0)
                return status, {"content": message}
        if not self.images and body_has_image(body):
            return self.image_refusal[0], {"content": self.image_refusal[1]}
        if not self.tools and body.get("tools"):
            return 400, {"content": TOOLS_REFUSAL}
        if _max_tokens(body) == 1:  # a health check or capability probe: one token carries no answer
            return 200, {"content": "OK"}
        with self._lock:
            entry = self.script.pop(0) if self.script else self.default
        if callable(entry):
            entry = entry(body)
        status, msg = entry if isinstance(entry, tuple) else (200, entry)
        return status, ({"content": msg} if isinstance(msg, str) else dict(msg))

    def asked(self) -> list[dict]:
        """The requests that asked something: all but the one-token ones (capability probes, health checks)."""
        return [r for r in self.requests if _max_tokens(r["body"]) != 1]

    def prompt_tokens(self, body: dict) -> int:
        """Tokens of the text this server reads: list-content messages count as nothing when they are dropped."""
        n = 0
        for m in body.get("messages", []):
            content = m.get("content")
            if isinstance(content, str):
                n += len(TOKEN.findall(content))
            elif isinstance(content, list) and self.list_content != "drop":
                n += sum(self._part_tokens(p) for p in content)
        return n

    def _part_tokens(self, part: dict) -> int:
        """A text part's words; an image is 256 tokens to a vision model, its base64 in pieces of 3 as text."""
        if part.get("type") == "text":
            return len(TOKEN.findall(part.get("text", "")))
        return len(part["image_url"]["url"]) // 3 if self.list_content == "text" else 256


def body_has_image(body: dict) -> bool:
    return any(isinstance(m.get("content"), list) and any(p.get("type") == "image_url" for p in m["content"])
               for m in body.get("messages", []))


def _handler(outer: FakeChatServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive: the connection stays open between requests
        timeout = 60  # idle keep-alive connections are closed after a minute

        def setup(self) -> None:
            super().setup()
            with outer._lock:
                outer.connections += 1
                outer._sockets.append(self.connection)

        def do_POST(self) -> None:  # noqa: N802 (http.server API)
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            outer.requests.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
            status, msg = outer.reply(body)
            time.sleep(float(msg.pop("delay_s", outer.delay_s)))
            if status != 200:
                return self._json(status, _error(status, msg))
            message, finish = _limited(msg, _max_tokens(body))
            usage = {"prompt_tokens": outer.prompt_tokens(body),
                     "completion_tokens": len(TOKEN.findall(message.get("content") or ""))}
            usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
            if body.get("stream"):
                return self._stream(_chunks(message, finish, body.get("model", ""), usage, body))
            self._json(200, _completion(message, finish, body.get("model", ""), usage))

        def _json(self, status: int, payload: dict) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _stream(self, events: list[dict]) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for data in [json.dumps(e) for e in events] + ["[DONE]"]:
                chunk = f"data: {data}\n\n".encode()
                self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")

        def log_message(self, *args: Any) -> None:
            pass

    return Handler


def _max_tokens(body: dict) -> int | None:
    value = body.get("max_completion_tokens", body.get("max_tokens"))
    return int(value) if value is not None else None


def _limited(msg: dict, max_tokens: int | None) -> tuple[dict, str]:
    """The message cut to ``max_tokens`` and its finish reason (an explicit ``finish_reason`` entry wins)."""
    finish = msg.pop("finish_reason", None) or ("tool_calls" if msg.get("tool_calls") else "stop")
    content = msg.get("content")
    if content and max_tokens is not None:
        tokens = TOKEN.findall(content)
        if len(tokens) > max_tokens:
            msg["content"], finish = "".join(tokens[:max_tokens]), "length"
    return msg, finish


def _error(status: int, msg: dict) -> dict:
    kind = "invalid_request_error" if status < 500 else "server_error"
    return {"error": {"message": str(msg.get("content", msg)), "type": kind, "code": status}}


def _completion(message: dict, finish: str, model: str, usage: dict) -> dict:
    return {"id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}],
            "usage": usage}


def _chunks(message: dict, finish: str, model: str, usage: dict, body: dict) -> list[dict]:
    """Server-sent event payloads of one streamed reply: role, content word by word, tool calls, finish, usage."""
    def chunk(delta: dict, finish_reason: str | None = None) -> dict:
        return {"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 0, "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}

    events = [chunk({"role": "assistant", "content": ""})]
    events += [chunk({"content": piece}) for piece in TOKEN.findall(message.get("content") or "")]
    for i, call in enumerate(message.get("tool_calls") or []):
        events.append(chunk({"tool_calls": [{"index": i, "id": call["id"], "type": "function",
                                             "function": {"name": call["function"]["name"], "arguments": ""}}]}))
        events.append(chunk({"tool_calls": [{"index": i, "function": {"arguments": call["function"]["arguments"]}}]}))
    events.append(chunk({}, finish))
    if (body.get("stream_options") or {}).get("include_usage"):
        events.append({"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 0, "model": model,
                       "choices": [], "usage": usage})
    return events


# --- helpers of the tests that script it -------------------------------------------------------------------
def tool_call(name: str, args: dict, call_id: str = "call_1") -> dict:
    return {"content": None, "tool_calls": [{"id": call_id, "type": "function",
                                             "function": {"name": name, "arguments": json.dumps(args)}}]}


NO_PROGRAM = "I cannot help with that."  # the reply to requests outside the tool loop (e.g. a question program)


def tool_loop(replies: list) -> Callable[[dict], Any]:
    """A responder that gives ``replies`` in turn to the requests of the tool loop (those offering tools) and
    :data:`NO_PROGRAM` to any other request, so that the tests do not depend on what the planner asks first."""
    queue = list(replies)

    def respond(body: dict) -> Any:
        return queue.pop(0) if body.get("tools") and queue else NO_PROGRAM

    return respond


def offering_tools(server: FakeChatServer) -> list[dict]:
    """The server's requests of the tool loop."""
    return [r for r in server.requests if r["body"].get("tools") and r["body"].get("max_tokens") != 1]


def asked(server: FakeChatServer) -> list[dict]:
    """The server's requests other than the one-token capability probes."""
    return [r for r in server.requests if r["body"].get("max_tokens") != 1]


def tools_called(answer) -> list[dict]:
    """The MCP tool calls of an answer's trace (without the language model's own entries)."""
    return [c for c in answer.trace if not c["tool"].startswith("llm")]


def FakeEndpoint() -> FakeChatServer:  # noqa: N802 (kept for the tests that import it)
    """The chat server with this file's default reply (a think block, then the letter)."""
    return FakeChatServer(default=(200, "<think>The car is left of the tree.</think>B"))
