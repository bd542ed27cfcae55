"""Bad calls an outside MCP client may send: each gets an error that names the rule, quotes little of the input, and
the session keeps serving. Image bombs, tiny and thin images, URL-safe base64, huge strings, unknown and non-finite
arguments, annotate on every tool, progress notifications, roots."""

from __future__ import annotations

import base64
import math
import struct
import zlib
from pathlib import Path
from typing import Any

import anyio
import cv2
import numpy as np
import pytest

from agent.config import Config
from mcp_server.client import ToolCallError, call, call_full, connect
from mcp_server.images import RequestError, check_roots, load
from mcp_server.catalog import REGISTRY, tool_catalog


def png_bomb(path: Path, side: int = 30000) -> Path:
    """A grey PNG of side x side zero pixels, compressed to under a megabyte (a decompression bomb)."""
    comp, row = zlib.compressobj(9), b"\x00" * (side + 1)
    idat = b"".join(comp.compress(row) for _ in range(side)) + comp.flush()

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat) + chunk(b"IEND", b""))
    return path


@pytest.fixture(scope="module")
def root(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("robust_root")
    a = cv2.imread(str(shared_data / "deepforest_neon" / "OSBS_029.png"))
    cv2.imwrite(str(d / "a.png"), a)
    cv2.imwrite(str(d / "b.png"), cv2.warpAffine(a, np.float32([[1, 0, 20], [0, 1, 0]]), (400, 400)))
    cv2.imwrite(str(d / "dot.png"), a[:1, :1])
    cv2.imwrite(str(d / "line.png"), np.tile(a[:1, :400], (1, 13, 1)))  # 1 x 5200
    (d / "folder").mkdir()
    return d


def session_calls(config: Config, calls: list[tuple[str, dict[str, Any]]]) -> list[str | dict]:
    """Each call's error text (or its data on success), all on one in-memory session."""

    async def go() -> list[str | dict]:
        out: list[str | dict] = []
        async with connect(config) as session:
            for name, args in calls:
                try:
                    out.append(await call(session, name, args))
                except ToolCallError as exc:
                    out.append(exc.message)
        return out

    return anyio.run(go)


def test_a_png_bomb_is_refused_from_its_header(tmp_path: Path):
    bomb = png_bomb(tmp_path / "bomb.png")
    cfg = Config(allowed_roots=[str(tmp_path)])
    with pytest.raises(RequestError, match="image too large.*max_image_pixels"):
        load(str(bomb), cfg)
    with pytest.raises(RequestError, match="image too large.*max_image_pixels"):
        load(base64.b64encode(bomb.read_bytes()).decode(), cfg)
    small = png_bomb(tmp_path / "small.png", side=600)  # same construction under the limit: decodes
    assert load(str(small), Config(allowed_roots=[str(tmp_path)], max_image_pixels=600 * 600)).size == (600, 600)
    with pytest.raises(RequestError, match="600x600 = 360000 pixels, limit max_image_pixels=359999"):
        load(str(small), Config(allowed_roots=[str(tmp_path)], max_image_pixels=600 * 600 - 1))


def test_tiny_and_thin_images_get_the_size_rule_not_opencv_text(root: Path):
    cfg = Config(allowed_roots=[str(root)])
    tools = [("image_quality", "image"), ("read_regions", "image"), ("marked_box", "image"),
             ("estimate_pitch", "image"), ("detect", "image"), ("camera_metadata", "image")]  # fmt: skip
    calls = [(t, {p: str(root / name)}) for t, p in tools for name in ("dot.png", "line.png")]
    calls += [("match_views", {"image_a": str(root / "dot.png"), "image_b": str(root / "a.png")})]
    for text in session_calls(cfg, calls):
        assert isinstance(text, str) and "min_image_side=16" in text, text
        assert "cv2" not in text and "Assertion" not in text


def test_url_safe_base64_is_an_image_and_huge_strings_are_not_echoed(root: Path):
    data = (root / "a.png").read_bytes()
    urlsafe = base64.urlsafe_b64encode(data).decode().rstrip("=")
    assert "-" in urlsafe or "_" in urlsafe  # the case the standard alphabet rejects
    cfg = Config(allowed_roots=[str(root)])
    assert np.array_equal(load(urlsafe, cfg).rgb, load(str(root / "a.png"), cfg).rgb)
    junk = "Z" * 10_000_000
    replies = session_calls(cfg, [("image_quality", {"image": junk}), ("image_quality", {"image": "/" + "q" * 5000}),
                                  ("image_quality", {"image": str(root / "folder")}),
                                  ("no_such_tool_" + "x" * 100_000, {}),
                                  ("image_quality", {"image": urlsafe})])  # fmt: skip
    for text in replies[:4]:
        assert isinstance(text, str) and len(text) < 700 and "Z" * 201 not in text and "q" * 201 not in text
    assert "neither a file path" in replies[0] and "is a folder" in replies[2] and "Unknown tool" in replies[3]
    assert isinstance(replies[4], dict) and 1 <= replies[4]["score"] <= 5


def test_unknown_and_non_finite_arguments_are_refused(root: Path):
    """Called on the server object: in-memory clients turn NaN into null before sending, JSON clients need not."""
    from mcp.server.fastmcp.exceptions import ToolError as McpToolError

    from mcp_server.server import build_server

    img = str(root / "a.png")
    base = {"image": img, "regions": [{"id": 1, "bbox": [10, 10, 50, 50]}]}
    calls = [("rank_by_distance", {**base, "altitude": 40}),  # misspelled altitude_m
             ("rank_by_distance", {**base, "regions": [{"id": 1, "box": [1, 2, 3, 4]}]})]
    for value in (math.nan, math.inf, -math.inf, 1e308):
        calls += [("rank_by_distance", {**base, "altitude_m": value}),
                  ("rank_by_distance", {**base, "pitch_deg": value}), ("rank_by_distance", {**base, "focal_px": value}),
                  ("clock_direction", {"target": [1, 2], "image_size": [400, 400], "heading_deg": value})]  # fmt: skip
    calls += [("transfer_box", {"image_a": img, "image_b": img, "bbox": [0, 0, math.nan, 5]})]
    server = build_server(Config(allowed_roots=[str(root)]), isolation="thread")

    async def go() -> list[str]:
        out = []
        for name, args in calls:
            with pytest.raises(McpToolError) as info:
                await server.call_tool(name, args)
            out.append(str(info.value))
        result = await server.call_tool("rank_by_distance", {**base, "altitude_m": 40.0, "pitch_deg": -45.0})
        assert result.structuredContent["order"] == [1]  # the server still serves
        return out

    replies = anyio.run(go)
    assert "unknown argument(s) for rank_by_distance: 'altitude'" in replies[0] and "altitude_m" in replies[0]
    assert "box" in replies[1] and "Extra inputs are not permitted" in replies[1]
    for (name, args), text in zip(calls[2:], replies[2:]):
        assert "not a finite number" in text or "less than or equal" in text or "greater than" in text, (args, text)


def test_every_parameter_is_described_and_ranges_are_advertised():
    catalog = tool_catalog()
    params = [(t["name"], k, v) for t in catalog for k, v in t["input_schema"]["properties"].items()]
    assert len(params) > 70
    assert [(t, k) for t, k, v in params if not v.get("description")] == []
    pitch = next(v for t, k, v in params if t == "rank_by_distance" and k == "pitch_deg")
    assert {"minimum": -90, "maximum": 90}.items() <= pitch["anyOf"][0].items()


def test_annotate_is_honoured_by_the_tools_without_their_own_picture(root: Path):
    silent = [s.name for s in REGISTRY.values() if not s.can_annotate]
    assert {"camera_metadata", "estimate_pitch", "rank_candidate_views"} <= set(silent)
    args = {"camera_metadata": {"image": str(root / "a.png")}, "estimate_pitch": {"image": str(root / "a.png")},
            "rank_candidate_views": {"image": str(root / "a.png"), "candidates": [str(root / "b.png")],
                                     "method": "sift"}}  # fmt: skip

    async def go() -> dict[str, Any]:
        async with connect(Config(allowed_roots=[str(root)])) as session:
            return {name: await call_full(session, name, {**a, "annotate": True}) for name, a in args.items()}

    for name, reply in anyio.run(go).items():
        assert len(reply.images) == 1, name
        png = cv2.imdecode(np.frombuffer(reply.images[0], np.uint8), cv2.IMREAD_COLOR)
        original = cv2.imread(str(root / "a.png"))
        assert png.shape == original.shape and not np.array_equal(png, original), name  # text written on it


def test_slow_tools_send_progress_notifications(shared_data: Path, monkeypatch: pytest.MonkeyPatch):
    from mcp_server import server as srv

    monkeypatch.setattr(srv, "PROGRESS_EVERY_S", 0.05)
    frames = shared_data / "dji_survey_dev" / "images"
    seen: list[tuple[float, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, message))

    async def go() -> None:
        async with connect(Config(allowed_roots=[str(frames)])) as session:
            pair = [str(frames / "DJI_0018.JPG"), str(frames / "DJI_0019.JPG")]
            await session.call_tool("ego_motion", {"images": pair}, progress_callback=on_progress)

    anyio.run(go)
    assert seen and all("ego_motion still running" in (m or "") for _, m in seen)
    assert [p for p, _ in seen] == sorted(p for p, _ in seen)


def test_list_roots_reports_the_allowed_roots_and_the_clients(root: Path, tmp_path: Path):
    from mcp.shared.memory import create_connected_server_and_client_session
    from mcp.types import ListRootsResult, Root

    from mcp_server.server import build_server

    async def roots_cb(context: Any) -> ListRootsResult:
        return ListRootsResult(roots=[Root(uri=tmp_path.as_uri())])

    async def go() -> tuple[dict, dict]:
        server = build_server(Config(allowed_roots=[str(root)]), isolation="thread")
        async with create_connected_server_and_client_session(server) as plain:
            bare = await call(plain, "list_roots", {})
        async with create_connected_server_and_client_session(server, list_roots_callback=roots_cb) as rooted:
            return bare, await call(rooted, "list_roots", {})

    bare, rooted = anyio.run(go)
    assert bare["allowed_roots"] == [str(root.resolve())] and bare["client_roots"] is None
    assert rooted["client_roots"] == [tmp_path.as_uri()]


def test_empty_and_missing_roots_are_refused(tmp_path: Path):
    with pytest.raises(RequestError, match="empty"):
        check_roots([""])
    with pytest.raises(RequestError, match="not an existing folder"):
        check_roots([str(tmp_path / "nope")])
    assert check_roots([str(tmp_path)]) == [tmp_path.resolve()]
    with pytest.raises(RequestError, match="no allowed roots configured"):
        load("a.png", Config())  # the default: no root at all, base64 only


def test_non_finite_literals_are_found_in_the_raw_json():
    """The SDK turns NaN into null before a tool sees it, so the transports check the raw text."""
    from mcp_server.stdio import non_finite_literal

    for literal in ("NaN", "Infinity", "-Infinity", "1e999", "-2.5E+400"):
        assert non_finite_literal('{"a": {"altitude_m": %s}}' % literal) is not None, literal
    for fine in ('{"a": 1e308}', '{"image": "iVBORNaNInfinity1e999"}', '{"a": [1, 2.5e3]}', "not json NaN"):
        assert non_finite_literal(fine) is None, fine


def test_opencv_assertions_and_surprises_reach_the_client_short_and_named():
    from mcp_server.server import failure
    from mcp_server.workers import WorkerError

    try:
        cv2.resize(np.zeros((4, 4, 3), np.uint8), (0, 0))  # an OpenCV assertion (dsize and scale both zero)
    except cv2.error as exc:
        opencv = exc
    text = str(failure("detect", opencv))
    assert text.startswith("detect could not process this input (OpenCV:") and len(text) < 400
    assert "\n" not in text and "Assertion failed" in text  # one line, the assertion itself, no source dump
    remote = str(failure("match_views", WorkerError("KeyError", "k" * 5000, False)))
    assert remote.startswith("match_views failed (KeyError:") and len(remote) < 260
    assert str(failure("x", WorkerError("RequestError", "path not allowed: 'a'", True))) == "path not allowed: 'a'"
