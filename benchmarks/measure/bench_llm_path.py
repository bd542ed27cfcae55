"""Consecutive ``Agent.ask`` calls in one process against an OpenAI-compatible server: the LLM path's robustness.

Each ask runs in its own event loop (``asyncio.run``), with the real agent and its in-process MCP server. By
default the server is the realistic local fake of the tests (``tests/fake_openai.py``: HTTP/1.1 keep-alive,
``max_tokens`` honoured, HTTP errors), answering from a responder that knows the expected answer of each ask, and
every 25th request answers HTTP 503 first (the agent must retry). The questions cycle through three kinds:

* ``scene``: a semantic question answered by the model from the image (one request);
* ``choice``: a TDBench-style multiple-choice question (one request, the reply read as an option letter);
* ``tools``: a question no task type fits, where the model calls the MCP tool ``clock_direction`` and then
  answers from its result (two requests).

Counted: exceptions out of ``Agent.ask``, abstentions, answers that differ from what the server said. With
``--base-url`` and ``--model`` a real server is asked instead (answers are then not known: only exceptions and
language-model failures count). Run: ``python -m benchmarks.measure.bench_llm_path`` (writes
``docs/figures/llm_path.json``).
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
IMAGE = ROOT / "examples" / "regions_nadir.png"
FIGURE = ROOT / "docs" / "figures" / "llm_path.json"
TRANSIENT_EVERY = 25
SCENE = ("Describe the scene below.", "A car park beside a road, seen from above.")
CHOICE = ("Question: Where is the white car?\nOptions:\nA. top-right\nB. bottom-left\nC. centre\n"
          "Please select the correct answer from the options above.", "B")
TOOLS_Q = "Wibble the frobnicator at box [10, 10, 60, 60]?"


class Responder:
    """The fake server's replies: by question kind, with a transient HTTP 503 every ``TRANSIENT_EVERY`` requests."""

    def __init__(self) -> None:
        self.n = 0

    def __call__(self, body: dict) -> Any:
        self.n += 1
        if self.n % TRANSIENT_EVERY == 0:
            return 503, "model is loading"
        messages = body["messages"]
        tool_results = [m for m in messages if m["role"] == "tool"]
        if tool_results:
            return f"The frobnicator is at {json.loads(tool_results[-1]['content'])['hour']} o'clock."
        if body.get("tools"):
            args = {"target": [10, 10, 60, 60], "image": "image_1"}
            return {"content": None, "tool_calls": [{"id": f"call_{self.n}", "type": "function", "function": {
                "name": "clock_direction", "arguments": json.dumps(args)}}]}
        text = json.dumps(messages)
        return CHOICE[1] if "Options" in text else SCENE[1]


def expected_tools_answer() -> str:
    """What the fake says after the tool: the hour from the real clock tool on the same image (not our code's
    answer to check: the server relays it, the benchmark checks that the agent returns it intact)."""
    from PIL import Image

    from tools.geometry.clock import clock_direction

    with Image.open(IMAGE) as im:
        hour = clock_direction([10, 10, 60, 60], image_size=im.size).hour
    return f"The frobnicator is at {hour} o'clock."


def run(asks: int, base_url: str | None, model: str | None, stream: bool) -> dict:
    """Ask ``asks`` questions in turn; the counts and timings as a JSON-able dict."""
    from agent.agent import Agent
    from agent.config import Config
    from planners.llm import endpoint_failure
    from planners.llm_client import make_chat_model

    server = None
    if base_url is None:
        sys.path.insert(0, str(ROOT / "tests"))
        from fake_openai import FakeChatServer

        server = FakeChatServer(default=Responder()).start()
        base_url, model = server.url, "fake"
    cfg = Config.from_env(llm_base_url=base_url, llm_model=model)
    llm = make_chat_model(base_url, model, cfg.llm_api_key_env, timeout_s=cfg.llm_timeout_s,
                          max_tokens=cfg.llm_max_tokens, max_retries=cfg.llm_max_retries, streaming=stream)
    agent = Agent(cfg, llm=llm, use_embeddings=False)
    kinds = [("scene", SCENE[0], None, SCENE[1]), ("choice", CHOICE[0], "TD_Localization", CHOICE[1]),
             ("tools", TOOLS_Q, None, expected_tools_answer())]
    counts = {"exceptions": 0, "abstained": 0, "llm_failures": 0, "wrong": 0}
    seconds: list[float] = []
    first_problem = None
    try:
        for i in range(asks):
            kind, question, task, expected = kinds[i % len(kinds)]
            t0 = time.perf_counter()
            try:
                answer = agent.ask([str(IMAGE)], question, task=task)
            except Exception as exc:  # counted, not raised: the figure is how many asks fail
                counts["exceptions"] += 1
                first_problem = first_problem or f"ask {i} ({kind}): {type(exc).__name__}: {exc}"
                continue
            seconds.append(time.perf_counter() - t0)
            counts["llm_failures"] += endpoint_failure(answer.trace) is not None
            counts["abstained"] += answer.abstained
            wrong = server is not None and answer.text != expected
            counts["wrong"] += wrong
            if answer.abstained or wrong:
                first_problem = first_problem or f"ask {i} ({kind}): {answer.text!r} / {answer.reason}"
    finally:
        if server is not None:
            server.close()
    return {"asks": asks, **counts, "errors": counts["exceptions"] + counts["llm_failures"],
            "first_problem": first_problem, "streaming": stream,
            "server": "tests/fake_openai.py (HTTP/1.1 keep-alive)" if server else base_url, "model": model,
            "requests": len(server.requests) if server else None,
            "connections": server.connections if server else None,
            "ask_s_median": round(statistics.median(seconds), 4) if seconds else None,
            "ask_s_max": round(max(seconds), 4) if seconds else None,
            "versions": {p: _version(p) for p in ("openai", "langchain-openai", "httpx", "httpx2")},
            "python": platform.python_version()}


def _version(package: str) -> str | None:
    try:
        return version(package)
    except PackageNotFoundError:
        return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--asks", type=int, default=100)
    parser.add_argument("--base-url", help="a real OpenAI-compatible server instead of the local fake")
    parser.add_argument("--model", help="model name at --base-url")
    parser.add_argument("--stream", action="store_true", help="ask for streamed replies")
    parser.add_argument("--out", type=Path, default=FIGURE)
    args = parser.parse_args(argv)
    figures = run(args.asks, args.base_url, args.model, args.stream)
    print(json.dumps(figures, indent=2))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0 if figures["errors"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
