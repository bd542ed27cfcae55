"""The ``uav-agent`` command line in use: help without heavy imports, stdout that is JSON alone under ``--json``,
caches outside the working directory, errors that say how to fix folders, unquoted questions and timeouts."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.cli import app

ROOT = Path(__file__).resolve().parents[2]
IMG = str(ROOT / "examples" / "regions_nadir.png")
FARTHEST = "The drone looks straight down from 60 m. Which region is the farthest from the drone?"


def run_python(code: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run([sys.executable, "-c", code], cwd=str(cwd), env=full_env, capture_output=True, text=True,
                          timeout=300)  # fmt: skip


HEAVY = ("mcp", "langgraph", "langchain_core", "cv2", "torch", "ultralytics", "onnxruntime", "rich",
         "mcp_server.server", "planners.graph")  # what --help and refused input must not import


def loaded_after(argv: list[str], tmp_path: Path) -> tuple[str, list[str]]:
    """The output of ``uav-agent ARGV`` run in a fresh process, and which of :data:`HEAVY` it imported."""
    code = (f"import sys\nfrom agent.cli import app\ntry:\n    app({argv!r})\nexcept SystemExit:\n    pass\n"
            f"print('LOADED', sorted(m for m in {HEAVY!r} if m in sys.modules))")  # fmt: skip
    proc = run_python(code, tmp_path, {"UAV_AGENT_DAEMON": "0"})
    *output, loaded = proc.stdout.strip().splitlines() or [""]
    assert loaded.startswith("LOADED "), proc.stdout[-300:] + proc.stderr[-300:]
    return "\n".join([*output, proc.stderr]), ast.literal_eval(loaded.removeprefix("LOADED "))


def test_help_imports_neither_the_mcp_sdk_nor_the_planner_nor_the_tools(tmp_path: Path):
    output, loaded = loaded_after(["--help"], tmp_path)
    assert "ask" in output and "mcp" in output  # the commands are listed
    assert loaded == []


@pytest.mark.parametrize("args,message", [
    (["ask", "no-such.jpg", "Which region is closest?"], "image not found: no-such.jpg"),
    (["ask", str(ROOT / "README.md"), "Which region is closest?"], "unreadable image"),
    (["ask", IMG, "   "], "the question is empty"),
])
def test_refused_input_is_refused_before_the_planner_and_tools_load(tmp_path: Path, args: list[str], message: str):
    output, loaded = loaded_after(args, tmp_path)
    assert message in output and loaded == []


def test_stdout_to_stderr_catches_prints_old_stdout_handlers_and_fd_writes(tmp_path: Path):
    code = """
import logging, os, sys
handler = logging.StreamHandler(sys.stdout)   # as ultralytics' LOGGER: bound to the stdout of import time
log = logging.getLogger("banner"); log.addHandler(handler); log.setLevel(logging.INFO)
from agent.cli_ask import stdout_to_stderr
with stdout_to_stderr():
    print("a print")
    log.info("a banner line")
    os.write(1, b"a C-level write\\n")
print('{"answer": 1}')
"""
    proc = run_python(code, tmp_path)
    assert json.loads(proc.stdout) == {"answer": 1}, proc.stdout
    assert all(s in proc.stderr for s in ("a print", "a banner line", "a C-level write"))


def test_ask_json_is_pure_and_leaves_no_cache_in_the_working_directory(tmp_path: Path):
    argv = ["uav-agent", "ask", IMG, FARTHEST, "--json"]
    code = (f"import sys\nfrom agent.cli import main\nsys.argv = {argv!r}\ntry:\n    main()\nfinally:\n"
            "    print('LANGGRAPH', 'langgraph' in sys.modules, file=sys.stderr)")  # fmt: skip
    proc = run_python(code, tmp_path, {"XDG_CACHE_HOME": str(tmp_path / "xdg"), "UAV_AGENT_DAEMON": "0"})
    out = json.loads(proc.stdout)  # nothing but the JSON
    assert out["text"].startswith("Region ") and not (tmp_path / ".cache").exists()
    assert "LANGGRAPH False" in proc.stderr  # a one-shot ask keeps no checkpoints: no LangGraph


def test_user_cache_is_the_default_for_ultralytics(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from agent.cli import use_user_cache

    monkeypatch.delenv("YOLO_CONFIG_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    use_user_cache()
    assert Path(os.environ["YOLO_CONFIG_DIR"]).is_relative_to(tmp_path / "xdg")
    monkeypatch.setenv("YOLO_CONFIG_DIR", str(tmp_path / "mine"))
    use_user_cache()
    assert os.environ["YOLO_CONFIG_DIR"] == str(tmp_path / "mine")  # an explicit setting wins


@pytest.mark.parametrize("args,message", [
    (["ask", str(ROOT / "examples"), "Which region is closest?"], "is a folder, not an image"),
    (["ask", IMG, "Which", "region", "is", "closest?"], "put the question in quotes"),
])
def test_folders_and_unquoted_questions_get_a_fix(args: list[str], message: str):
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 2 and message in res.output, res.output


def test_task_list_prints_every_task_type():
    from planners.tasks import TASKS

    res = CliRunner().invoke(app, ["ask", "--task", "list"])
    assert res.exit_code == 0
    assert [line.split()[0] for line in res.output.splitlines()] == list(TASKS)
    assert "`--task list` prints every value" in " ".join(CliRunner().invoke(app, ["ask", "--help"]).output.split())


def test_a_tool_timeout_names_the_setting_that_raises_it():
    res = CliRunner().invoke(app, ["ask", IMG, FARTHEST, "--timeout", "0.1", "--json"])
    if res.exit_code == 0:
        pytest.skip("every tool call finished within 0.1 s on this machine")
    out = json.loads(res.output)
    assert out["abstained"] and "UAV_AGENT_CALL_TIMEOUT_S" in out["reason"] and "--timeout" in out["reason"]
