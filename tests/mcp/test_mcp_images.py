"""Image arguments of MCP calls: allowed roots (symlink escapes included), base64, limits, corrupt data."""

from __future__ import annotations

import base64
import os
from pathlib import Path

import cv2
import numpy as np
import pytest

from agent.config import Config
from mcp_server import annotate
from mcp_server.images import RequestError, encode_base64, load, looks_like_base64, resolve_path


@pytest.fixture()
def real_png(shared_data: Path, tmp_path: Path) -> Path:
    """A real aerial orthophoto (NEON, 400x400) copied into a temporary root."""
    dst = tmp_path / "root" / "osbs.png"
    dst.parent.mkdir()
    dst.write_bytes((shared_data / "deepforest_neon" / "OSBS_029.png").read_bytes())
    return dst


def cfg(root: Path, **kw: object) -> Config:
    return Config(allowed_roots=[str(root)], **kw)


def test_path_under_root_loads_as_rgb(real_png: Path):
    img = load(str(real_png), cfg(real_png.parent))
    assert img.rgb.shape == (400, 400, 3) and img.rgb.dtype == np.uint8
    assert img.path == real_png.resolve() and img.size == (400, 400)
    expected = cv2.cvtColor(cv2.imread(str(real_png)), cv2.COLOR_BGR2RGB)
    assert np.array_equal(img.rgb, expected)


def test_relative_path_is_taken_from_the_first_root(real_png: Path):
    assert load("osbs.png", cfg(real_png.parent)).size == (400, 400)


@pytest.mark.parametrize("make", ["absolute", "dotdot", "symlink_file", "symlink_dir"])
def test_paths_outside_the_roots_are_refused(real_png: Path, tmp_path: Path, make: str):
    root = real_png.parent
    outside = tmp_path / "outside.png"
    outside.write_bytes(real_png.read_bytes())
    if make == "absolute":
        arg = str(outside)
    elif make == "dotdot":
        arg = str(root / ".." / "outside.png")
    elif make == "symlink_file":
        os.symlink(outside, root / "link.png")
        arg = str(root / "link.png")
    else:
        os.symlink(tmp_path, root / "escape")
        arg = str(root / "escape" / "outside.png")
    with pytest.raises(RequestError, match="path not allowed"):
        load(arg, cfg(root))


def test_missing_file_and_directory_are_named(real_png: Path):
    with pytest.raises(RequestError, match="image not found"):
        resolve_path(str(real_png.parent / "nope.png"), cfg(real_png.parent))
    with pytest.raises(RequestError, match="not a file"):
        resolve_path(str(real_png.parent), cfg(real_png.parent))


@pytest.mark.parametrize("mime", [None, "image/png"])
def test_base64_and_data_url_decode_to_the_same_pixels(real_png: Path, mime: str | None):
    text = encode_base64(real_png, mime)
    assert looks_like_base64(text)
    img = load(text, cfg(real_png.parent))
    assert img.path is None and np.array_equal(img.rgb, load(str(real_png), cfg(real_png.parent)).rgb)


def test_a_plain_path_is_not_mistaken_for_base64(real_png: Path):
    assert not looks_like_base64(str(real_png))
    assert not looks_like_base64("images/DJI_0018.JPG")


def test_corrupt_image_bytes_give_a_clear_error(real_png: Path):
    broken = real_png.parent / "broken.png"
    broken.write_bytes(real_png.read_bytes()[:40] + b"\x00" * 100)
    with pytest.raises(RequestError, match="not a readable image"):
        load(str(broken), cfg(real_png.parent))
    with pytest.raises(RequestError, match="not a readable image"):
        load(encode_base64(b"\x89PNG\r\n\x1a\n" + b"junk" * 20), cfg(real_png.parent))
    with pytest.raises(RequestError, match="malformed base64"):
        load("data:image/png;base64,iVBORw0KGgo!!!", cfg(real_png.parent))


def test_byte_and_pixel_limits_are_named(real_png: Path):
    size = real_png.stat().st_size
    with pytest.raises(RequestError, match="max_image_bytes"):
        load(str(real_png), cfg(real_png.parent, max_image_bytes=size - 1))
    with pytest.raises(RequestError, match="max_image_bytes"):
        load(encode_base64(real_png), cfg(real_png.parent, max_image_bytes=size - 1))
    with pytest.raises(RequestError, match="max_image_pixels"):
        load(str(real_png), cfg(real_png.parent, max_image_pixels=400 * 400 - 1))
    assert load(str(real_png), cfg(real_png.parent, max_image_pixels=400 * 400)).size == (400, 400)


def test_empty_and_non_string_arguments(real_png: Path):
    for bad in ("", "   ", None, 3):
        with pytest.raises(RequestError, match="non-empty string"):
            load(bad, cfg(real_png.parent))  # type: ignore[arg-type]


def test_annotation_png_round_trips_and_is_downscaled(real_png: Path):
    rgb = load(str(real_png), cfg(real_png.parent)).rgb
    drawn = annotate.boxes(rgb, [("3", [10, 20, 110, 90])])
    assert drawn[20, 60].tolist() == list(annotate.PALETTE[0])  # the top edge of the box is drawn in its colour
    decoded = cv2.imdecode(np.frombuffer(annotate.png(drawn, max_side=200), np.uint8), cv2.IMREAD_COLOR)
    assert decoded.shape == (200, 200, 3)
    assert base64.b64decode(encode_base64(annotate.png(drawn)))[:4] == b"\x89PNG"
