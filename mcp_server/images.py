"""Images for MCP tool calls: a file path under an allowed root, or base64 (optionally a ``data:`` URL).

Every refusal raises :class:`RequestError` (a :class:`tools.common.ToolError`) whose message names the limit or the
rule, so the client sees why, and never quotes more than :data:`SHOWN_CHARS` characters of the input. Paths are
resolved (symlinks followed) before the root check, so a link inside a root that points outside it is refused.
Limits come from :class:`agent.config.Config`: ``max_image_bytes`` (encoded size), ``max_image_pixels`` (width ×
height, read from the file header by Pillow before anything is decoded, so a decompression bomb costs
milliseconds), ``min_image_side`` and ``max_image_aspect`` (images no tool can work on), ``allowed_roots``.
"""

from __future__ import annotations

import base64
import binascii
import io
import re
import tempfile
import warnings
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from agent.config import Config
from tools.common import ToolError, load_image

SHOWN_CHARS = 80  # at most this many characters of an argument appear in an error message
MAX_PATH_CHARS = 4096  # PATH_MAX on Linux: a longer string cannot be a path


class RequestError(ToolError):
    """A request the server refuses (bad path, bad encoding, over a limit); the message is shown to the client."""


@dataclass(frozen=True)
class LoadedImage:
    """An image argument that passed the checks on its header (size limits), and where it came from (``path`` for
    files; EXIF readers need it). The pixels are decoded on first use of ``rgb``: tools that read the file
    themselves at a reduced size (matching, pose) never pay for a full decode."""

    path: Path | None
    data: bytes | None  # encoded bytes for base64 input, None for files
    name: str  # how errors show the image
    config: Config
    size: tuple[int, int]  # (width, height) in pixels, from the header

    @cached_property
    def rgb(self) -> np.ndarray:
        """(H, W, 3) uint8 pixels; :class:`RequestError` when the body does not decode."""
        source = self.data if self.data is not None else self.path
        assert source is not None
        return _decode(source, self.name, self.config)

    @property
    def source(self) -> Path | bytes:
        """The file or the encoded bytes, for tools that decode for themselves."""
        return self.data if self.data is not None else self.path  # type: ignore[return-value]


_DATA_URL = re.compile(r"^data:(?P<mime>[\w/+.-]*)(?:;[\w=.-]+)*;base64,", re.IGNORECASE)
_B64_CHARS = re.compile(r"^[A-Za-z0-9+/=_\-\s]+$")
_MAGIC = (b"\x89PNG", b"\xff\xd8\xff", b"GIF8", b"BM", b"II*\x00", b"MM\x00*", b"RIFF")
_URLSAFE = str.maketrans("-_", "+/")


def shown(text: object, limit: int = SHOWN_CHARS) -> str:
    """``repr`` of an argument for an error message, cut to ``limit`` characters with the full length said."""
    s = repr(text)
    return s if len(s) <= limit else f"{s[: limit - 1]}… ({len(str(text))} characters)"


def check_roots(roots: list[str]) -> list[Path]:
    """Resolved allowed roots; :class:`RequestError` for an empty entry or a root that is not an existing folder."""
    out = []
    for r in roots:
        if not str(r).strip():
            raise RequestError("an allowed root is empty (e.g. --root ''): give an existing folder")
        path = Path(r).expanduser().resolve()
        if not path.is_dir():
            raise RequestError(f"allowed root {shown(str(r))} is not an existing folder")
        out.append(path)
    return out


def allowed_roots(config: Config) -> list[Path]:
    """The configured roots, resolved (symlinks followed)."""
    roots = [Path(r).expanduser().resolve() for r in config.allowed_roots if str(r).strip()]
    if not roots:
        raise RequestError("no allowed roots configured (Config.allowed_roots / UAV_AGENT_ALLOWED_ROOTS / "
                           "uav-agent mcp --root): file paths are refused, send images as base64")  # fmt: skip
    return roots


def resolve_path(text: str, config: Config) -> Path:
    """Resolve ``text`` to a real file under one of the allowed roots, or raise :class:`RequestError`.

    Relative paths are taken relative to the first root. Symlinks are followed first, so an escape through a
    link is refused like any other path outside the roots.
    """
    if "\x00" in text:
        raise RequestError("image path contains a NUL byte")
    if len(text) > MAX_PATH_CHARS:
        raise RequestError(f"image is neither a file path (over {MAX_PATH_CHARS} characters) nor base64 image data "
                           f"(no PNG/JPEG/TIFF/BMP/GIF/WEBP signature): {shown(text)}")  # fmt: skip
    roots = allowed_roots(config)
    raw = Path(text).expanduser()
    candidate = raw if raw.is_absolute() else roots[0] / raw
    try:
        real = candidate.resolve(strict=False)
    except (OSError, RuntimeError) as exc:  # symlink loops, names too long
        raise RequestError(f"cannot resolve image path {shown(text)}: {type(exc).__name__}") from None
    if not any(real == root or real.is_relative_to(root) for root in roots):
        listed = ", ".join(str(r) for r in roots)
        raise RequestError(f"path not allowed: {shown(text)} resolves outside the allowed roots ({listed}); set "
                           "Config.allowed_roots / UAV_AGENT_ALLOWED_ROOTS or send the image as base64")  # fmt: skip
    try:
        if not real.exists():
            raise RequestError(f"image not found: {shown(text)}")
        if real.is_dir():
            raise RequestError(f"not a file: {shown(text)} is a folder; give one image file inside it")
        if not real.is_file():
            raise RequestError(f"not a file: {shown(text)}")
        size = real.stat().st_size
    except OSError as exc:
        raise RequestError(f"cannot read image path {shown(text)}: {type(exc).__name__}") from None
    if size > config.max_image_bytes:
        raise RequestError(f"image too large: {shown(text)} has {size} bytes, limit max_image_bytes="
                           f"{config.max_image_bytes}")  # fmt: skip
    return real


def looks_like_base64(text: str) -> bool:
    """True for a ``data:`` URL or a base64 string (standard or URL-safe alphabet) whose first bytes are a known
    image signature."""
    if _DATA_URL.match(text):
        return True
    head = re.sub(r"\s+", "", text[:64])
    if len(head) < 16 or not _B64_CHARS.match(head):
        return False
    head = head.translate(_URLSAFE)
    try:
        prefix = base64.b64decode(head[: len(head) // 4 * 4], validate=False)
    except (binascii.Error, ValueError):
        return False
    return prefix.startswith(_MAGIC)


def decode_base64(text: str, config: Config) -> bytes:
    """Bytes of a base64 image (plain or ``data:`` URL, standard or URL-safe alphabet); refuses payloads over
    ``max_image_bytes`` before decoding."""
    m = _DATA_URL.match(text)
    payload = text[m.end() :] if m else text
    if any(c in payload for c in " \n\r\t"):  # (checked first: rewriting megabytes costs milliseconds)
        payload = re.sub(r"\s+", "", payload)
    if len(payload) * 3 // 4 > config.max_image_bytes:
        raise RequestError(f"image too large: base64 payload of ~{len(payload) * 3 // 4} bytes, "
                           f"limit max_image_bytes={config.max_image_bytes}")  # fmt: skip
    payload = payload.rstrip("=")
    if "-" in payload or "_" in payload:
        payload = payload.translate(_URLSAFE)
    try:
        return base64.b64decode(payload + "=" * (-len(payload) % 4), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise RequestError(f"malformed base64 image: {str(exc)[:SHOWN_CHARS]}") from None


def header_size(source: bytes | Path, name: str) -> tuple[int, int]:
    """(width, height) read from the image header by Pillow without decoding pixels; :class:`RequestError` when
    the data is not an image Pillow recognises (PNG, JPEG, TIFF, BMP, GIF, WEBP, ...)."""
    from PIL import Image, UnidentifiedImageError

    stream = io.BytesIO(source) if isinstance(source, bytes) else source
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(stream) as im:
                return int(im.size[0]), int(im.size[1])
    except Image.DecompressionBombError:  # Pillow's own ceiling (2 x 89 M pixels), far above any sane limit of ours
        raise RequestError(f"image too large: {name} has over {2 * (Image.MAX_IMAGE_PIXELS or 0)} pixels "
                           "(Pillow's decompression-bomb ceiling), limit max_image_pixels") from None
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, EOFError):
        raise RequestError(f"not a readable image (corrupt or unsupported format): {name}") from None


def check_size(width: int, height: int, name: str, config: Config) -> None:
    """Refuse images over ``max_image_pixels`` and images too small or too thin for any tool, naming the rule."""
    if width * height > config.max_image_pixels:
        raise RequestError(f"image too large: {name} is {width}x{height} = {width * height} pixels, limit "
                           f"max_image_pixels={config.max_image_pixels}")  # fmt: skip
    if min(width, height) < config.min_image_side:
        raise RequestError(f"image too small: {name} is {width}x{height} pixels; every side must be at least "
                           f"min_image_side={config.min_image_side} pixels")  # fmt: skip
    if max(width, height) > config.max_image_aspect * min(width, height):
        raise RequestError(f"image too elongated: {name} is {width}x{height} pixels; the longer side may be at most "
                           f"max_image_aspect={config.max_image_aspect:g} times the shorter")  # fmt: skip


def load(image: str, config: Config) -> LoadedImage:
    """Load an image argument (path or base64) with the configured limits; raises :class:`RequestError`/ToolError."""
    if not isinstance(image, str) or not image.strip():
        raise RequestError("image must be a non-empty string: a file path under an allowed root or base64 data")
    image = image.strip()
    if looks_like_base64(image):
        data = decode_base64(image, config)
        return _checked(None, data, "<base64 image>", config)
    path = resolve_path(image, config)
    return _checked(path, None, shown(str(path)), config)


def _checked(path: Path | None, data: bytes | None, name: str, config: Config) -> LoadedImage:
    source = data if data is not None else path
    assert source is not None
    size = header_size(source, name)
    check_size(*size, name, config)
    return LoadedImage(path, data, name, config, size)


def _decode(source: bytes | Path, name: str, config: Config) -> np.ndarray:
    """Decode an image whose header passed :func:`check_size` (OpenCV, file orientation as stored, like
    ``tools.common.load_image``)."""
    buf = np.frombuffer(source, np.uint8) if isinstance(source, bytes) else np.fromfile(str(source), np.uint8)
    arr = cv2.imdecode(buf, cv2.IMREAD_UNCHANGED)
    if arr is None:
        raise RequestError(f"not a readable image (corrupt or unsupported format): {name}")
    check_size(int(arr.shape[1]), int(arr.shape[0]), name, config)  # the decoder's view, should a header lie
    if arr.ndim == 3 and arr.shape[2] == 4:
        arr = cv2.cvtColor(arr, cv2.COLOR_BGRA2RGBA)
    elif arr.ndim == 3 and arr.shape[2] == 3:
        arr = cv2.cvtColor(arr, cv2.COLOR_BGR2RGB)
    try:
        return load_image(arr, max_pixels=config.max_image_pixels)
    except ToolError as exc:
        raise RequestError(f"{exc}: {name}") from None


def encode_base64(path_or_bytes: str | Path | bytes, mime: str | None = None) -> str:
    """Base64 text for an image file or bytes; with ``mime`` a ``data:`` URL (for clients that send images inline)."""
    data = path_or_bytes if isinstance(path_or_bytes, bytes) else Path(path_or_bytes).read_bytes()
    text = base64.b64encode(data).decode("ascii")
    return f"data:{mime};base64,{text}" if mime else text


def metadata_of(img: LoadedImage) -> Any:
    """EXIF/XMP metadata of a loaded image (base64 input is written to a temporary file for the reader)."""
    from tools.geometry.camera import read_metadata

    if img.path is not None:
        return read_metadata(img.path)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "image"
        path.write_bytes(img.data or b"")
        return read_metadata(path)
