"""The warm mode: `uav-agent ask` answered by a `uav-agent serve` daemon over a Unix socket (agent/daemon.py)."""

from __future__ import annotations

import json
import socket
import threading
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent import daemon
from agent.agent import AgentInputError
from agent.cli import app


@dataclass
class FakeAnswer:
    text: str
    abstained: bool = False
    reason: str | None = None
    run_id: str = "run-1"
    extra: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"text": self.text, "abstained": self.abstained, "reason": self.reason, "run_id": self.run_id,
                "confidence": 0.9, "trace": [], "plan": [], "understanding": {}, "attempts": [], "timings": {},
                "format": "ANGLE", "task": "A2A_Camera_Transformation", "value": None, "annotations": []}


class FakeAgent:
    """Records questions; answers 'seen N images', abstains on 'abstain', refuses 'bad'."""

    graph = None

    def __init__(self) -> None:
        self.asked: list[tuple[list[str], str, str | None]] = []

    def ask(self, images: list[str], question: str, task: str | None = None) -> FakeAnswer:
        self.asked.append((images, question, task))
        if question == "bad":
            raise AgentInputError("image not found: nowhere.jpg")
        if question == "abstain":
            return FakeAnswer("", abstained=True, reason="no overlap")
        return FakeAnswer(f"seen {len(images)} images")


@pytest.fixture
def running(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    path = tmp_path / "ask.sock"
    monkeypatch.setenv(daemon.SOCKET_ENV, str(path))
    monkeypatch.delenv(daemon.DISABLE_ENV, raising=False)
    agent = FakeAgent()
    server = daemon.AskServer(path, agent)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield agent, path
    server.shutdown()
    server.server_close()


def test_the_client_gets_the_daemons_answer_with_resolved_paths(running, tmp_path: Path) -> None:
    agent, _ = running
    reply = daemon.ask_daemon(["a.jpg", str(tmp_path / "b.jpg")], "How far?", "A2A_Camera_Transformation", 10)
    assert reply is not None and reply["ok"] and reply["answer"]["text"] == "seen 2 images"
    images, question, task = agent.asked[0]
    assert images == [str(Path("a.jpg").resolve()), str(tmp_path / "b.jpg")]
    assert (question, task) == ("How far?", "A2A_Camera_Transformation")


def test_bad_input_is_said_and_the_daemon_keeps_serving(running) -> None:
    reply = daemon.ask_daemon(["x.jpg"], "bad", None, 10)
    assert reply == {"ok": False, "error": "image not found: nowhere.jpg", "bad_input": True}
    assert daemon.ask_daemon(["x.jpg"], "again", None, 10)["ok"]


def test_a_malformed_request_is_refused(running) -> None:
    _, path = running
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(str(path))
        sock.sendall(b'{"images": "not a list", "question": "q"}\n')
        reply = json.loads(daemon._read_line(sock))
    assert not reply["ok"] and reply["bad_input"] and "images must be a list" in reply["error"]


def test_no_daemon_means_no_reply(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "ask.sock"
    monkeypatch.setenv(daemon.SOCKET_ENV, str(path))
    assert daemon.ask_daemon(["a.jpg"], "q", None, 1) is None  # no socket file
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(path))  # a socket file nobody listens on (a daemon that died)
    try:
        assert daemon.ask_daemon(["a.jpg"], "q", None, 1) is None
        daemon.prepare_socket(path)
        assert not path.exists()  # the stale socket is removed before serving
    finally:
        stale.close()


def test_a_second_daemon_on_the_same_socket_is_refused(running) -> None:
    _, path = running
    with pytest.raises(RuntimeError, match="already listens"):
        daemon.prepare_socket(path)


def test_the_daemon_can_be_ignored(running, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(daemon.DISABLE_ENV, "0")
    assert daemon.ask_daemon(["a.jpg"], "q", None, 1) is None


def test_cli_ask_prints_the_daemons_answer_and_exit_codes(running, tmp_path: Path) -> None:
    img = tmp_path / "a.jpg"
    img.write_bytes(b"not read by the client")
    runner = CliRunner()
    out = runner.invoke(app, ["ask", str(img), "How far?"])
    assert out.exit_code == 0 and out.stdout.strip() == "seen 1 images"
    out = runner.invoke(app, ["ask", "--json", str(img), "How far?"])
    assert out.exit_code == 0 and json.loads(out.stdout)["text"] == "seen 1 images"
    out = runner.invoke(app, ["ask", str(img), "abstain"])
    assert out.exit_code == 3 and "no overlap" in out.stdout
    out = runner.invoke(app, ["ask", str(img), "bad"])
    assert out.exit_code == 2 and "image not found: nowhere.jpg" in out.stderr


def test_options_the_daemon_cannot_honour_bypass_it(running, tmp_path: Path) -> None:
    agent, _ = running
    runner = CliRunner()
    out = runner.invoke(app, ["ask", "--mcp-url", "http://127.0.0.1:9/mcp", str(tmp_path / "none.jpg"), "q?"])
    assert agent.asked == [] and out.exit_code == 2  # answered (refused) in-process: the image does not exist
