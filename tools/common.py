"""Shared plumbing for tools: image loading with clear errors, JSON-safe conversion, the tool error type."""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import io
import math
import warnings
from pathlib import Path
from typing import Any

import cv2
import numpy as np

MAX_PIXELS_DEFAULT = 60_000_000


class ToolError(ValueError):
    """Bad input to a tool (unreadable file, wrong shape, empty image ...). The message is shown to users."""


ImageLike = "str | Path | np.ndarray"


def load_image(image: str | Path | np.ndarray | bytes, *, max_pixels: int = MAX_PIXELS_DEFAULT) -> np.ndarray:
    """Return an RGB ``uint8`` array (H, W, 3) from a path, encoded bytes or an array.

    Grey images are expanded to three channels and alpha is dropped. Raises :class:`ToolError` with the
    reason for missing files, non-images, empty images and images larger than ``max_pixels``.
    """
    if isinstance(image, np.ndarray):
        arr = image
    elif isinstance(image, (bytes, bytearray)):
        arr = _decode(np.frombuffer(image, np.uint8), "<bytes>", max_pixels)
    else:
        path = Path(image)
        if not path.exists():
            raise ToolError(f"image not found: {path}")
        if not path.is_file():
            raise ToolError(f"not a file: {path}")
        arr = _decode(np.fromfile(str(path), np.uint8), str(path), max_pixels)
    return _as_rgb(arr)


def file_key(path: str | Path) -> tuple[str, int, int] | None:
    """Identity of a file's current content for per-process caches: (resolved path, size, modification time in
    ns); None when the file cannot be read. A rewritten file gets a new key, so caches never serve stale results."""
    try:
        p = Path(path).resolve()
        st = p.stat()
    except OSError:
        return None
    return str(p), int(st.st_size), int(st.st_mtime_ns)


def file_sha256(path: str | Path) -> str:
    """SHA-256 (hex) of a file's bytes, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def image_size(image: str | Path | np.ndarray | bytes) -> tuple[int, int]:
    """(width, height) of an image in pixels, from the file header for paths and bytes (nothing is decoded)."""
    if isinstance(image, np.ndarray):
        return int(image.shape[1]), int(image.shape[0])
    from PIL import Image as PILImage, UnidentifiedImageError

    source: Any = io.BytesIO(image) if isinstance(image, (bytes, bytearray)) else Path(image)
    if isinstance(source, Path) and not source.is_file():
        raise ToolError(f"image not found: {source}")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PILImage.DecompressionBombWarning)
            with PILImage.open(source) as im:
                return int(im.size[0]), int(im.size[1])
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, PILImage.DecompressionBombError):
        rgb = load_image(image)  # a format Pillow does not read: decode it, with load_image's errors
        return int(rgb.shape[1]), int(rgb.shape[0])


def load_working(image: str | Path | np.ndarray | bytes, max_side: int, *,
                 max_pixels: int = MAX_PIXELS_DEFAULT) -> tuple[np.ndarray, float, tuple[int, int]]:
    """The image as :func:`downscale` would make it from the full decode — RGB with its longer side ≤ ``max_side``
    — plus the scale (working px / full px) and the full (width, height). A JPEG is decoded by libjpeg at the
    smallest of 1/2, 1/4, 1/8 of full size that is still at least the working size (the DCT scaling costs a
    fraction of a full decode and of its resize), then area-resized to exactly the working size."""
    if isinstance(image, np.ndarray) or not _is_jpeg(image):
        full = load_image(image, max_pixels=max_pixels)
        work, s = downscale(full, max_side)
        return work, s, (int(full.shape[1]), int(full.shape[0]))
    width, height = image_size(image)
    if width * height > max_pixels:
        raise ToolError(f"image too large: {_name(image)} is {width}x{height}, limit {max_pixels} pixels")
    s = min(1.0, max_side / max(width, height))
    target = (max(1, round(width * s)), max(1, round(height * s)))
    factor = next(k for k in (8, 4, 2, 1) if -(-width // k) >= target[0] and -(-height // k) >= target[1])
    buf = _raw_bytes(image)
    flags = {8: cv2.IMREAD_REDUCED_COLOR_8, 4: cv2.IMREAD_REDUCED_COLOR_4, 2: cv2.IMREAD_REDUCED_COLOR_2,
             1: cv2.IMREAD_COLOR}[factor] | cv2.IMREAD_IGNORE_ORIENTATION  # stored orientation, as load_image
    arr = cv2.imdecode(buf, flags)
    if arr is None:
        raise ToolError(f"not a readable image (corrupt or unsupported format): {_name(image)}")
    rgb = cv2.cvtColor(arr, cv2.COLOR_BGR2RGB)
    if (rgb.shape[1], rgb.shape[0]) != target:
        rgb = cv2.resize(rgb, target, interpolation=cv2.INTER_AREA)
    return rgb, s, (width, height)


def _is_jpeg(image: str | Path | bytes) -> bool:
    if isinstance(image, (bytes, bytearray)):
        return bytes(image[:3]) == b"\xff\xd8\xff"
    try:
        with open(image, "rb") as f:
            return f.read(3) == b"\xff\xd8\xff"
    except OSError:
        return False  # load_image says why


def _raw_bytes(image: str | Path | bytes) -> np.ndarray:
    if isinstance(image, (bytes, bytearray)):
        return np.frombuffer(image, np.uint8)
    return np.fromfile(str(image), np.uint8)


def _name(image: str | Path | bytes) -> str:
    return "<bytes>" if isinstance(image, (bytes, bytearray)) else str(image)


def jpeg_roundtrip(rgb: np.ndarray, quality: int) -> np.ndarray:
    """The RGB image as a JPEG of ``quality`` (0-100) would decode (OpenCV's encoder, 4:2:0 chroma): the artefacts
    benchmark images carry."""
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise ToolError("JPEG encoding failed")
    return cv2.cvtColor(cv2.imdecode(buf, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)


def _decode(buf: np.ndarray, name: str, max_pixels: int) -> np.ndarray:
    if buf.size == 0:
        raise ToolError(f"empty file: {name}")
    # Peek at the header size first so a decompression bomb is refused before it is decoded.
    header = cv2.imdecode(buf, cv2.IMREAD_REDUCED_GRAYSCALE_8)
    if header is None:
        raise ToolError(f"not a readable image (corrupt or unsupported format): {name}")
    if header.shape[0] * header.shape[1] * 64 > max_pixels:
        raise ToolError(f"image too large: {name} exceeds the limit of {max_pixels} pixels")
    arr = cv2.imdecode(buf, cv2.IMREAD_UNCHANGED)
    if arr is None:
        raise ToolError(f"not a readable image (corrupt or unsupported format): {name}")
    if arr.shape[0] * arr.shape[1] > max_pixels:
        raise ToolError(f"image too large: {name} is {arr.shape[1]}x{arr.shape[0]}, limit {max_pixels} pixels")
    if arr.ndim == 3 and arr.shape[2] == 4:
        return cv2.cvtColor(arr, cv2.COLOR_BGRA2RGBA)
    if arr.ndim == 3:
        return cv2.cvtColor(arr, cv2.COLOR_BGR2RGB)
    return arr


def _as_rgb(arr: np.ndarray) -> np.ndarray:
    if arr.size == 0 or arr.ndim not in (2, 3) or min(arr.shape[:2]) < 1:
        raise ToolError(f"empty or malformed image array of shape {arr.shape}")
    if arr.dtype != np.uint8:
        if arr.dtype == np.uint16:
            arr = (arr / 257).astype(np.uint8)
        elif np.issubdtype(arr.dtype, np.floating):
            arr = np.clip(arr * (255.0 if arr.max() <= 1.0 else 1.0), 0, 255).astype(np.uint8)
        else:
            arr = np.clip(arr, 0, 255).astype(np.uint8)
    if arr.ndim == 2:
        return np.ascontiguousarray(np.repeat(arr[:, :, None], 3, axis=2))
    if arr.shape[2] == 1:
        return np.ascontiguousarray(np.repeat(arr, 3, axis=2))
    if arr.shape[2] == 4:
        return np.ascontiguousarray(arr[:, :, :3])
    if arr.shape[2] != 3:
        raise ToolError(f"unsupported number of channels: {arr.shape[2]}")
    return arr


def to_gray(rgb: np.ndarray) -> np.ndarray:
    """RGB uint8 → single-channel uint8."""
    return cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY) if rgb.ndim == 3 else rgb


def downscale(rgb: np.ndarray, max_side: int) -> tuple[np.ndarray, float]:
    """Resize so the longer side is ≤ ``max_side`` (area averaging, never up); returns (image, scale = working px /
    full px)."""
    s = min(1.0, max_side / max(rgb.shape[:2]))
    if s >= 1.0:
        return rgb, 1.0
    size = (max(1, round(rgb.shape[1] * s)), max(1, round(rgb.shape[0] * s)))
    return cv2.resize(rgb, size, interpolation=cv2.INTER_AREA), s


def to_full_res(pts: np.ndarray, s: float) -> np.ndarray:
    """Working-image pixel coordinates ((N, 2) x, y) → full-resolution ones (pixel-centre convention)."""
    return (np.asarray(pts, float).reshape(-1, 2) + 0.5) / s - 0.5


def to_jsonable(obj: Any) -> Any:
    """Convert dataclasses, numpy values, enums and paths to plain JSON types (NaN/inf become ``None``)."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj) if f.repr}
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return to_jsonable(obj.tolist())
    if isinstance(obj, np.generic):
        return to_jsonable(obj.item())
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, enum.Enum):
        return obj.value
    if isinstance(obj, Path):
        return str(obj)
    return obj
