"""Serve a GGUF model as an OpenAI-compatible endpoint with llama.cpp's own server, from the xllamacpp wheel.

    .venv-llm/bin/python benchmarks/measure/llm_server.py --model .cache/llm/gemma-3-270m-q4_k_m.gguf \
        --alias gemma3-270m

This is what ``make llm`` runs (docs/llm.md): a local server to try the agent's LLM path and the raw-VLM baseline
against. xllamacpp ships llama.cpp prebuilt for CPUs (manylinux x86_64), so nothing is compiled; its ``Server``
starts llama.cpp's C++ HTTP server in background threads (``/v1/chat/completions``, ``/v1/models``, ``/health``)
and this script keeps the process alive until SIGINT or SIGTERM.

It runs in its own virtual environment (``.venv-llm``), where only xllamacpp and the model package are installed,
so it imports nothing from the project and only the standard library besides xllamacpp.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path
from typing import Any

DEFAULT_CTX = 8192  # tokens: the agent's tool rounds (system prompt + tool schemas + results) fit with room to spare


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description="Serve a GGUF model at http://HOST:PORT/v1 (OpenAI-compatible).")
    ap.add_argument("--model", type=Path, required=True, help="GGUF file")
    ap.add_argument("--alias", required=True, help="model name clients send (the `model` field of a request)")
    ap.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    ap.add_argument("--port", type=int, default=8080, help="port (default 8080)")
    ap.add_argument("--ctx", type=int, default=DEFAULT_CTX, help=f"context length in tokens (default {DEFAULT_CTX})")
    ap.add_argument("--threads", type=int, default=1,
                    help="CPU threads for generation and prompt processing (default 1: the machine is shared)")
    args = ap.parse_args(argv)
    if not args.model.is_file():
        ap.error(f"model file not found: {args.model}")
    if not 0 < args.port < 65536 or args.ctx < 256 or args.threads < 1:
        ap.error("--port must be 1-65535, --ctx at least 256 and --threads at least 1")
    return args


def server_params(xlc: Any, args: argparse.Namespace) -> Any:
    """xllamacpp ``CommonParams`` for ``args``: one slot (requests are answered in turn), jinja chat templates."""
    params = xlc.CommonParams()
    params.model.path = str(args.model)
    params.model_alias = {args.alias}
    params.hostnames = [args.host]
    params.port = args.port
    params.n_ctx = args.ctx
    params.n_parallel = 1
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    params.use_jinja = True
    return params


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    import xllamacpp as xlc

    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    server = xlc.Server(server_params(xlc, args))
    print(f"serving {args.model} as {args.alias!r} at {server.listening_address}/v1 "
          f"(xllamacpp {getattr(xlc, '__version__', '?')}; Ctrl-C stops it)", flush=True)
    stop.wait()
    del server  # stops llama.cpp's HTTP threads before the interpreter exits
    return 0


if __name__ == "__main__":
    sys.exit(main())
