"""``make llm``'s launcher (benchmarks/measure/llm_server.py): its options reach llama.cpp's server parameters,
and bad options are one clear line. The server itself (the xllamacpp wheel) lives in .venv-llm, never in the test venv:
a stand-in with xllamacpp's ``CommonParams`` shape takes its place here."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from benchmarks.measure import llm_server


class CommonParams:
    """The attributes of ``xllamacpp.CommonParams`` the launcher sets, with xllamacpp's defaults."""

    def __init__(self) -> None:
        self.model = SimpleNamespace(path="")
        self.model_alias: set[str] = set()
        self.hostnames, self.port, self.n_ctx, self.n_parallel, self.use_jinja = ["127.0.0.1"], 0, 0, 1, False
        self.cpuparams = SimpleNamespace(n_threads=-1)
        self.cpuparams_batch = SimpleNamespace(n_threads=-1)


@pytest.fixture
def gguf(tmp_path):
    path = tmp_path / "m.gguf"
    path.write_bytes(b"GGUF")
    return path


def test_options_reach_the_server_parameters(gguf):
    args = llm_server.parse_args(["--model", str(gguf), "--alias", "gemma3-270m", "--port", "8091", "--threads", "2"])
    params = llm_server.server_params(SimpleNamespace(CommonParams=CommonParams), args)
    assert params.model.path == str(gguf) and params.model_alias == {"gemma3-270m"}
    assert params.hostnames == ["127.0.0.1"] and params.port == 8091 and params.n_ctx == llm_server.DEFAULT_CTX
    assert params.cpuparams.n_threads == params.cpuparams_batch.n_threads == 2  # not all cores: the machine is shared
    assert params.n_parallel == 1 and params.use_jinja


@pytest.mark.parametrize("extra, message", [(["--port", "0"], "--port must be"), (["--threads", "0"], "--threads"),
                                            ([], None)])
def test_bad_options_are_one_clear_line(gguf, tmp_path, capsys, extra, message):
    model = gguf if message else tmp_path / "missing.gguf"
    with pytest.raises(SystemExit) as stop:
        llm_server.parse_args(["--model", str(model), "--alias", "m", *extra])
    assert stop.value.code == 2
    assert (message or "model file not found") in capsys.readouterr().err.splitlines()[-1]
