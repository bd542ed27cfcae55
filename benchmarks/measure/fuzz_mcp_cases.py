"""Bad MCP requests for the fuzz battery (:mod:`benchmarks.measure.fuzz_mcp`): raw JSON-RPC lines, so that anything a
careless or hostile client can put on the wire is covered (NaN literals, broken JSON, deep nesting, wrong types).

Each case is a :class:`Case`: the raw text to send, the request id to wait for (``None`` when the line has no
readable id: then the server's reply with ``"id": null`` is awaited) and ``echo``, a long string taken from the
input that the reply must not repeat beyond 200 characters. Cases are drawn from families (paths, base64,
image files, argument types, numbers, protocol) with a seeded generator, so a run is reproducible.
"""

from __future__ import annotations

import base64
import json
import random
import struct
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

TOOLS_ONE = ("image_quality", "read_regions", "marked_box", "camera_metadata", "estimate_pitch", "detect", "segment")
TOOLS_TWO = ("match_views", "relative_pose", "associate_regions", "transfer_box", "region_visibility")
NUMBERS = ("NaN", "Infinity", "-Infinity", "1e308", "-1e308", "1e999", '"12"', "true", "null", "[]", "{}")


@dataclass(frozen=True)
class Case:
    family: str
    line: str  # one JSON-RPC message (or junk), without the newline
    rid: int | None
    echo: str = ""  # a long input substring the reply must not contain whole


def png_bomb(side: int = 30000) -> bytes:
    """A grey PNG of side x side zero pixels (~0.9 MB for 30000): decoding it would take ~900 MB."""
    comp, row = zlib.compressobj(9), b"\x00" * (side + 1)
    idat = b"".join(comp.compress(row) for _ in range(side)) + comp.flush()

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    head = struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", head) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def make_files(root: Path, photo: Path) -> dict[str, Path]:
    """Bad image files in ``root``: a bomb, tiny and thin images, a truncated and a mislabelled file, a folder."""
    rgb = cv2.imread(str(photo))
    files = {"photo": root / "photo.png", "bomb": root / "bomb.png", "dot": root / "dot.png",
             "thin": root / "thin.png", "strip": root / "strip.png", "truncated": root / "truncated.jpg",
             "text": root / "notes.png", "folder": root / "folder"}  # fmt: skip
    cv2.imwrite(str(files["photo"]), rgb)
    files["bomb"].write_bytes(png_bomb())
    cv2.imwrite(str(files["dot"]), rgb[:1, :1])
    cv2.imwrite(str(files["thin"]), np.tile(rgb[:1], (1, 13, 1)))  # 1 x 5200
    cv2.imwrite(str(files["strip"]), np.tile(rgb[:20], (1, 10, 1)))  # 20 x 4000: too elongated
    ok, jpg = cv2.imencode(".jpg", rgb)
    files["truncated"].write_bytes(jpg.tobytes()[: len(jpg) // 3])
    files["text"].write_text("not an image at all\n" * 50)
    files["folder"].mkdir(exist_ok=True)
    return files


class Builder:
    """Numbered requests (ids count up) around a seeded random generator."""

    def __init__(self, seed: int) -> None:
        self.rng, self.next_id = random.Random(seed), 1000

    def rid(self) -> int:
        self.next_id += 1
        return self.next_id

    def call(self, family: str, tool: str, args_json: str, echo: str = "") -> Case:
        rid = self.rid()
        line = ('{"jsonrpc": "2.0", "id": %d, "method": "tools/call", "params": {"name": %s, "arguments": %s}}'
                % (rid, json.dumps(tool), args_json))  # fmt: skip
        return Case(family, line, rid, echo)

    def image_call(self, family: str, image: str, echo: str = "") -> Case:
        if self.rng.random() < 0.6:
            return self.call(family, self.rng.choice(TOOLS_ONE), json.dumps({"image": image}), echo)
        tool, other = self.rng.choice(TOOLS_TWO), "photo.png"
        args = {"image_a": image, "image_b": other} if self.rng.random() < 0.5 else {"image_a": other, "image_b": image}
        if tool == "transfer_box":
            args["bbox"] = [10, 10, 60, 60]
        return self.call(family, tool, json.dumps(args), echo)


def paths(b: Builder, files: dict[str, Path]) -> Iterator[Case]:
    long_name = "q" * 5000
    huge = "Z" * 2_000_000
    for p in ("/etc/passwd", "/proc/self/environ", "../../../../etc/hostname", "photo.png/../../x.png",
              "nope.png", "folder", "folder/", "~/.ssh/id_rsa", "file:///etc/passwd", "photo.png\u0000.jpg",
              "\u202e\u0067\u006e\u0070.exe", " ", "", "C:\\\\Windows\\\\win.ini", "/dev/zero", "/dev/stdin"):
        yield b.image_call("paths", p)
    yield b.image_call("paths", "/" + long_name, long_name)
    yield b.image_call("paths", huge, huge)
    for name in ("bomb", "dot", "thin", "strip", "truncated", "text"):
        yield b.image_call("image_files", str(files[name]))


def base64s(b: Builder, files: dict[str, Path]) -> Iterator[Case]:
    photo, bomb = files["photo"].read_bytes(), files["bomb"].read_bytes()
    std, url = base64.b64encode(photo).decode(), base64.urlsafe_b64encode(photo).decode()
    variants = [std[: len(std) // 2], std[:-7] + "!!!!!!!", "data:image/png;base64," + std[:40], "data:;base64,",
                "data:image/png;base64,@@@@", url.replace("A", "*", 5), base64.b64encode(bomb).decode(),
                base64.urlsafe_b64encode(bomb).decode(),
                base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00" * 4000).decode(),
                base64.b64encode(b"\xff\xd8\xff" + b"\x11" * 3000).decode(), "iVBORw0KGgo" + "A" * 3000]  # fmt: skip
    for v in variants:
        yield b.image_call("base64", v, v if len(v) > 300 else "")


def types(b: Builder, files: dict[str, Path]) -> Iterator[Case]:
    img = json.dumps("photo.png")
    bad_values = ("123", "[]", "[1, 2]", "{}", "null", "true", '["photo.png", "photo.png"]', '{"path": "photo.png"}')
    for v in bad_values:
        yield b.call("types", b.rng.choice(TOOLS_ONE), '{"image": %s}' % v)
    for bbox in ('"wide"', "[1, 2, 3]", "[1, 2, 3, 4, 5]", '["a", "b", "c", "d"]', "[[1, 2], [3, 4]]", "{}"):
        yield b.call("types", "transfer_box", '{"image_a": %s, "image_b": %s, "bbox": %s}' % (img, img, bbox))
    for regions in ('[{"id": "x", "bbox": [1, 2, 3, 4]}]', '[{"id": 1}]', '[{"id": 1, "box": [1, 2, 3, 4]}]', '"1-2"',
                    '[{"id": 1, "bbox": [1, 2, 3, 4], "extra": 1}]', "[[1, 2, 3, 4]]"):  # fmt: skip
        yield b.call("types", "rank_by_distance", '{"image": %s, "regions": %s}' % (img, regions))
    for images in ("[]", '["photo.png"]', '"photo.png"', "null", json.dumps(["photo.png"] * 40)):
        yield b.call("types", "ego_motion", '{"images": %s}' % images)
    yield b.call("types", "rank_candidate_views", '{"image": %s, "candidates": []}' % img)
    yield b.call("types", "match_views", '{"image_a": %s, "image_b": %s, "method": "magic"}' % (img, img))
    yield b.call("types", "clock_direction", '{"target": [1, 2], "rounding": "ceil", "image_size": [4, 4]}')
    yield b.call("types", "clock_direction", '{"target": [1, 2], "image_size": [4, 4, 4]}')
    yield b.call("types", "clock_direction", '{"target": []}')


def unknowns(b: Builder, files: dict[str, Path]) -> Iterator[Case]:
    img = json.dumps("photo.png")
    for extra in ("altitude", "pitch", "focal", "imgae", "Image", "annotate_png", "__proto__", "x" * 300):
        args = '{"image": %s, "regions": [], %s: 1}' % (img, json.dumps(extra))
        yield b.call("unknown_args", "rank_by_distance", args)
    for name in ("no_such_tool", "", "list_roots ", "IMAGE_QUALITY", "x" * 100_000, "../image_quality"):
        yield b.call("unknown_tools", name, "{}", name if len(name) > 300 else "")


def numbers(b: Builder, files: dict[str, Path]) -> Iterator[Case]:
    img = json.dumps("photo.png")
    regions = '[{"id": 1, "bbox": [10, 10, 50, 50]}]'
    for key in ("altitude_m", "pitch_deg", "focal_px"):
        for v in NUMBERS:
            args = '{"image": %s, "regions": %s, "%s": %s}' % (img, regions, key, v)
            yield b.call("numbers", "rank_by_distance", args)
    for v in NUMBERS:
        yield b.call("numbers", "clock_direction", '{"target": [1, 2], "image_size": [40, 40], "heading_deg": %s}' % v)
        yield b.call("numbers", "transfer_box", '{"image_a": %s, "image_b": %s, "bbox": [0, 0, %s, 5]}' % (img, img, v))
        yield b.call("numbers", "estimate_pitch", '{"image": %s, "hfov_deg": %s}' % (img, v))


def protocol(b: Builder, files: dict[str, Path]) -> Iterator[Case]:
    depth = b.rng.choice((1000, 10_000, 100_000))
    rid = b.rid()
    nested = '{"jsonrpc": "2.0", "id": %d, "method": "tools/call", "params": {"name": "image_quality", ' \
             '"arguments": {"image": %s%s}}}' % (rid, "[" * depth, "]" * depth)
    yield Case("protocol", nested, rid)
    rid = b.rid()
    yield Case("protocol", '{"jsonrpc": "2.0", "id": %d, "method": "tools/call", "params": %s}'
               % (rid, '{"a": ' * depth + "1" + "}" * depth), rid)  # fmt: skip
    yield Case("protocol", "not json at all", None)
    yield Case("protocol", '{"jsonrpc": "2.0", "id": 5', None)
    yield Case("protocol", "[" * 50_000 + "]" * 50_000, None)
    rid = b.rid()
    yield Case("protocol", '{"jsonrpc": "1.0", "id": %d, "method": "tools/list"}' % rid, rid)
    rid = b.rid()
    yield Case("protocol", '{"jsonrpc": "2.0", "id": %d, "method": "no/such/method"}' % rid, rid)
    rid = b.rid()
    yield Case("protocol", '{"jsonrpc": "2.0", "id": %d, "method": "tools/call"}' % rid, rid)
    rid = b.rid()
    yield Case("protocol", '{"jsonrpc": "2.0", "id": %d, "method": "tools/call", "params": {"name": 5}}' % rid, rid)
    rid = b.rid()
    yield Case("protocol", '{"jsonrpc": "2.0", "id": %d, "method": "tools/call", "params": {"name": "image_quality", '
               '"arguments": "photo.png"}}' % rid, rid)  # fmt: skip


FAMILIES: tuple[Callable[[Builder, dict[str, Path]], Iterator[Case]], ...] = (paths, base64s, types, unknowns,
                                                                              numbers, protocol)  # fmt: skip


def cases(n: int, files: dict[str, Path], seed: int) -> list[Case]:
    """``n`` cases: every family in turn, again and again (random choices differ each round), shuffled."""
    b, out = Builder(seed), []
    while len(out) < n:
        for family in FAMILIES:
            out.extend(family(b, files))
    b.rng.shuffle(out)
    return out[:n]
