"""Images for MCP tool calls: a file path under an allowed root, or base64 (optionally a ``data:`` URL).

Every refusal raises :class:`RequestError` (a :class:`tools.common.ToolError`) whose message names the limit or the
rule, so the client sees why. Paths are resolved (symlinks followed) before the root check, so a link inside a root
that points outside it is refused. Limits come from :class:`agent.config.Config`: ``max_image_bytes`` (encoded
size), ``max_image_pixels`` (decoded width × height, checked before full decoding) and ``allowed_roots``.
"""

from __future__ import annotations

import base64
import binascii
import re
import tempfile
from dataclasses import dataclass
from typing import Any
from pathlib import Path

import numpy as np

from agent.config import Config
from tools.common import ToolError, load_image


class RequestError(ToolError):
    """A request the server refuses (bad path, bad encoding, over a limit); the message is shown to the client."""


@dataclass(frozen=True)
class LoadedImage:
    """A decoded image and where it came from (``path`` for files; EXIF readers need it)."""

    rgb: np.ndarray  # (H, W, 3) uint8
    path: Path | None
    data: bytes | None  # encoded bytes for base64 input, None for files

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) in pixels."""
        return int(self.rgb.shape[1]), int(self.rgb.shape[0])


_DATA_URL = re.compile(r"^data:(?P<mime>[\w/+.-]*)(?:;[\w=.-]+)*;base64,", re.IGNORECASE)
_B64_CHARS = re.compile(r"^[A-Za-z0-9+/=_\-\s]+$")
_MAGIC = (b"\x89PNG", b"\xff\xd8\xff", b"GIF8", b"BM", b"II*\x00", b"MM\x00*", b"RIFF")


def allowed_roots(config: Config) -> list[Path]:
    """The configured roots, resolved (symlinks followed)."""
    if not config.allowed_roots:
        raise RequestError("no allowed roots configured (Config.allowed_roots / UAV_AGENT_ALLOWED_ROOTS): paths refused")
    return [Path(r).expanduser().resolve() for r in config.allowed_roots]


def resolve_path(text: str, config: Config) -> Path:
    """Resolve ``text`` to a real file under one of the allowed roots, or raise :class:`RequestError`.

    Relative paths are taken relative to the first root. Symlinks are followed first, so an escape through a
    link is refused like any other path outside the roots.
    """
    if "\x00" in text:
        raise RequestError("image path contains a NUL byte")
    roots = allowed_roots(config)
    raw = Path(text).expanduser()
    candidate = raw if raw.is_absolute() else roots[0] / raw
    try:
        real = candidate.resolve(strict=False)
    except (OSError, RuntimeError) as exc:  # symlink loops
        raise RequestError(f"cannot resolve image path {text!r}: {exc}") from None
    if not any(real == root or real.is_relative_to(root) for root in roots):
        shown = ", ".join(str(r) for r in roots)
        raise RequestError(f"path not allowed: {text!r} resolves outside the allowed roots ({shown}); "
                           "set Config.allowed_roots / UAV_AGENT_ALLOWED_ROOTS or send the image as base64")  # fmt: skip
    if not real.exists():
        raise RequestError(f"image not found: {text!r}")
    if not real.is_file():
        raise RequestError(f"not a file: {text!r}")
    size = real.stat().st_size
    if size > config.max_image_bytes:
        raise RequestError(f"image too large: {text!r} has {size} bytes, limit max_image_bytes={config.max_image_bytes}")
    return real


def looks_like_base64(text: str) -> bool:
    """True for a ``data:`` URL or a base64 string whose first bytes are a known image signature."""
    if _DATA_URL.match(text):
        return True
    head = re.sub(r"\s+", "", text[:64])
    if len(head) < 16 or not _B64_CHARS.match(head):
        return False
    try:
        prefix = base64.b64decode(head[: len(head) // 4 * 4], validate=False)
    except (binascii.Error, ValueError):
        return False
    return prefix.startswith(_MAGIC)


def decode_base64(text: str, config: Config) -> bytes:
    """Bytes of a base64 image (plain or ``data:`` URL); refuses payloads over ``max_image_bytes`` before decoding."""
    m = _DATA_URL.match(text)
    payload = text[m.end() :] if m else text
    payload = re.sub(r"\s+", "", payload)
    if len(payload) * 3 // 4 > config.max_image_bytes:
        raise RequestError(f"image too large: base64 payload of ~{len(payload) * 3 // 4} bytes, "
                           f"limit max_image_bytes={config.max_image_bytes}")  # fmt: skip
    try:
        if "-" in payload or "_" in payload:
            return base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
        return base64.b64decode(payload + "=" * (-len(payload) % 4), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise RequestError(f"malformed base64 image: {exc}") from None


def load(image: str, config: Config) -> LoadedImage:
    """Load an image argument (path or base64) with the configured limits; raises :class:`RequestError`/ToolError."""
    if not isinstance(image, str) or not image.strip():
        raise RequestError("image must be a non-empty string: a file path under an allowed root or base64 data")
    image = image.strip()
    if looks_like_base64(image):
        data = decode_base64(image, config)
        return LoadedImage(_decode(data, "<base64 image>", config), None, data)
    path = resolve_path(image, config)
    return LoadedImage(_decode(path, str(path), config), path, None)


def _decode(source: bytes | Path, name: str, config: Config) -> np.ndarray:
    try:
        return load_image(source, max_pixels=config.max_image_pixels)
    except ToolError as exc:
        msg = str(exc).replace("<bytes>", name)
        if "too large" in msg:
            msg += " (max_image_pixels)"
        raise RequestError(msg) from None


def encode_base64(path_or_bytes: str | Path | bytes, mime: str | None = None) -> str:
    """Base64 text for an image file or bytes; with ``mime`` a ``data:`` URL (for clients that send images inline)."""
    data = path_or_bytes if isinstance(path_or_bytes, bytes) else Path(path_or_bytes).read_bytes()
    text = base64.b64encode(data).decode("ascii")
    return f"data:{mime};base64,{text}" if mime else text


def metadata_of(img: LoadedImage) -> Any:
    """EXIF/XMP metadata of a loaded image (base64 input is written to a temporary file for the reader)."""
    from tools.camera import read_metadata

    if img.path is not None:
        return read_metadata(img.path)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "image"
        path.write_bytes(img.data or b"")
        return read_metadata(path)
