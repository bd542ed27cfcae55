"""A local OpenAI-compatible chat server for tests (127.0.0.1 only): scripted replies, recorded requests.

Each ``POST /v1/chat/completions`` pops the next ``script`` entry, else uses ``default``. An entry is a message
dict (``{"content": ...}`` or ``{"content": None, "tool_calls": [...]}``), a plain string (the content), or a
``(status, message-or-string)`` pair; a non-200 status answers ``{"error": ...}``.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeChatServer:
    def __init__(self, script: list[Any] | None = None, default: Any = "script exhausted") -> None:
        self.requests: list[dict] = []
        self.script: list[Any] = list(script or [])
        self.default: Any = default
        self.delay_s = 0.0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server API)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
                time.sleep(outer.delay_s)
                status, msg = outer._next()
                data = json.dumps(_payload(status, msg, body.get("model", ""))).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def _next(self) -> tuple[int, Any]:
        entry = self.script.pop(0) if self.script else self.default
        status, msg = entry if isinstance(entry, tuple) else (200, entry)
        return status, ({"content": msg} if isinstance(msg, str) else msg)

    def start(self) -> "FakeChatServer":
        self.thread.start()
        return self

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _payload(status: int, msg: dict, model: str) -> dict:
    if status != 200:
        return {"error": str(msg.get("content", msg))}
    finish = "tool_calls" if msg.get("tool_calls") else "stop"
    return {"id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", **msg}, "finish_reason": finish}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
