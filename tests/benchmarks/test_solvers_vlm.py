"""The raw-VLM solver against a local OpenAI-compatible HTTP server started by the test."""

from __future__ import annotations

from fake_openai import FakeEndpoint
import base64

import pytest
import fake_openai
from fake_openai import IMAGE_REFUSAL, LLAMA_SERVER_IMAGE_REFUSAL, FakeChatServer
from PIL import Image

from benchmarks.runner import read_rows, run
from benchmarks.sample import Sample
from benchmarks.solvers import SolverSpec
from benchmarks.solvers.vlm import VLMError, VLMSolver


@pytest.fixture
def endpoint():
    ep = FakeEndpoint()
    ep.thread.start()
    yield ep
    ep.server.shutdown()
    ep.server.server_close()


@pytest.fixture
def images(tmp_path):
    paths = []
    for i, colour in enumerate([(200, 30, 30), (30, 200, 30)]):
        p = tmp_path / f"view{i}.png"
        Image.new("RGB", (32, 24), colour).save(p)
        paths.append(str(p))
    return paths


def _aircop(images: list[str], qid: str = "q1") -> Sample:
    return Sample(qid, "aircopbench", "Object Counting", images, "How many cars do both UAVs see?", "B",
                  options={"A": "1", "B": "2", "C": "3", "D": "4"}, metadata={"question_type": "2.2 Object Counting"})


def test_request_carries_images_inline_the_benchmark_prompt_and_temperature_zero(endpoint, images, tmp_path,
                                                                                 monkeypatch):
    monkeypatch.setenv("TEST_VLM_KEY", "sekret")
    solver = VLMSolver(endpoint.url, "qwen-test", api_key_env="TEST_VLM_KEY", cache_dir=tmp_path / "cache")
    sol = solver.solve(_aircop(images))
    assert sol.raw == "<think>The car is left of the tree.</think>B"
    (req,) = endpoint.asked()  # after the capability probe
    assert req["path"] == "/v1/chat/completions" and req["auth"] == "Bearer sekret"
    body = req["body"]
    assert body["model"] == "qwen-test" and body["temperature"] == 0
    parts = body["messages"][0]["content"]
    assert [p["type"] for p in parts] == ["image_url", "image_url", "text"]  # images first, then the prompt
    for part, path in zip(parts, images):
        url = part["image_url"]["url"]
        assert url.startswith("data:image/png;base64,")
        assert base64.b64decode(url.split(",", 1)[1]) == open(path, "rb").read()
    assert parts[2]["text"] == ("How many cars do both UAVs see?\nA. 1\nB. 2\nC. 3\nD. 4\n"
                                "Answer with the option's letter from the given choices directly.")


def test_tdbench_prompt_is_vlmevalkit_multiple_choice(endpoint, images, tmp_path):
    s = Sample("7_r90", "tdbench", "localization", images[:1], "Where is the car?", "A",
               options={"A": "top-right", "B": "bottom-left"}, metadata={"question_index": "7", "rotation": 90})
    VLMSolver(endpoint.url, "m", cache_dir=None).solve(s)
    text = endpoint.asked()[0]["body"]["messages"][0]["content"][-1]["text"]
    assert text == ("Question: Where is the car?\nOptions:\nA. top-right\nB. bottom-left\n"
                    "Please select the correct answer from the options above. \n")


def test_transient_failures_are_retried_and_hard_failures_are_not(endpoint, images):
    endpoint.script = [(503, "overloaded"), (429, "slow down")]
    solver = VLMSolver(endpoint.url, "m", cache_dir=None, backoff_s=0.01, max_retries=3)
    sol = solver.solve(_aircop(images))
    assert sol.extra["attempts"] == 3 and len(endpoint.asked()) == 3
    endpoint.script = [(400, "bad request")]
    with pytest.raises(VLMError, match="HTTP 400"):
        solver.solve(_aircop(images, "q2"))
    assert len(endpoint.asked()) == 4
    endpoint.script = [(500, "x")] * 4
    with pytest.raises(VLMError, match="gave up after 4 attempts"):
        solver.solve(_aircop(images, "q3"))


def test_cache_is_keyed_by_endpoint_model_prompt_and_image_bytes(endpoint, images, tmp_path):
    cache = tmp_path / "cache"
    first = VLMSolver(endpoint.url, "m1", cache_dir=cache).solve(_aircop(images))
    again = VLMSolver(endpoint.url, "m1", cache_dir=cache).solve(_aircop(images))
    assert len(endpoint.asked()) == 1 and again.raw == first.raw and again.extra["cached"]
    VLMSolver(endpoint.url, "m2", cache_dir=cache).solve(_aircop(images))  # other model
    assert len(endpoint.asked()) == 2
    Image.new("RGB", (32, 24), (0, 0, 255)).save(images[1])  # same path, new pixels
    VLMSolver(endpoint.url, "m1", cache_dir=cache).solve(_aircop(images))
    assert len(endpoint.asked()) == 3
    other = FakeChatServer(default="A").start()  # another server under the same model name
    try:
        sol = VLMSolver(other.url, "m1", cache_dir=cache).solve(_aircop(images))
        assert sol.raw == "A" and not sol.extra["cached"] and len(other.asked()) == 1
    finally:
        other.close()


def test_junk_and_cut_off_replies_are_returned_but_not_cached(endpoint, images, tmp_path):
    cache = tmp_path / "cache"
    endpoint.script = ["| " * 300, "B " * 50]
    junk = VLMSolver(endpoint.url, "m", cache_dir=cache).solve(_aircop(images))
    assert junk.raw.startswith("| |") and "not text" in junk.extra["junk"]
    cut = VLMSolver(endpoint.url, "m", cache_dir=cache, max_tokens=20).solve(_aircop(images))
    assert cut.extra["finish_reason"] == "length" and "cut off" in cut.extra["junk"]
    good = VLMSolver(endpoint.url, "m", cache_dir=cache).solve(_aircop(images))  # the default reply: asked again
    assert not good.extra["cached"] and "junk" not in good.extra and len(endpoint.asked()) == 3
    assert VLMSolver(endpoint.url, "m", cache_dir=cache).solve(_aircop(images)).extra["cached"]


def test_runner_rows_strip_think_and_keep_the_raw_reply(endpoint, images, tmp_path):
    out = tmp_path / "preds.jsonl"
    spec = SolverSpec.of("vlm", base_url=endpoint.url, model="m", cache_dir=str(tmp_path / "c"))
    stats = run([_aircop(images)], spec, out, progress=False)
    (row,) = read_rows(out)
    assert stats.done == 1 and row["error"] is None
    assert row["prediction"] == "B" and row["raw_prediction"].startswith("<think>")
    assert row["model_id"] == "m" and row["gt"] == "B" and row["image"] == images


def test_missing_endpoint_settings_are_a_clear_error():
    with pytest.raises(ValueError, match="--vlm-base-url and --vlm-model"):
        VLMSolver(None, "m")


@pytest.mark.parametrize("refusal", [(400, IMAGE_REFUSAL), LLAMA_SERVER_IMAGE_REFUSAL])
def test_a_text_only_server_fails_every_sample_at_once_with_its_refusal(images, refusal):
    """llama.cpp's server refuses images with HTTP 500, which the retries would otherwise take for a crash."""
    server = FakeChatServer(images=False, image_refusal=refusal).start()
    try:
        solver = VLMSolver(server.url, "m", cache_dir=None, backoff_s=0.01)
        for qid in ("q1", "q2"):
            with pytest.raises(VLMError, match=f"cannot take images .answered HTTP {refusal[0]}: .*needs a model"):
                solver.solve(_aircop(images, qid))
        assert server.asked() == []  # no sample was sent
        probes_with_images = [r for r in server.requests if fake_openai.body_has_image(r["body"])]
        assert len(probes_with_images) == (1 if refusal[0] < 500 else 3)  # once per solver: a 500 is retried twice
    finally:
        server.close()


def test_an_unreachable_endpoint_gives_no_verdict_and_the_request_fails_on_its_own(images):
    solver = VLMSolver("http://127.0.0.1:9/v1", "m", cache_dir=None, max_retries=0)
    with pytest.raises(VLMError, match="gave up after 1 attempts"):
        solver.solve(_aircop(images))
    assert solver.image_refusal is None  # asked again next time
