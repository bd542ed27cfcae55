"""Helpers shared by the benchmark loaders: JSON reading and image-path resolution with clear errors."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from benchmarks.sample import RecordError


def read_json(path: Path) -> Any:
    """Parse a whole JSON file; ``RecordError`` naming the file (and line/column) on failure."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RecordError(f"{path}: file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordError(f"{path}: cannot read ({exc})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(f"{path}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None


def require(record: Mapping[str, Any], key: str, where: str, kind: type | tuple[type, ...] = object) -> Any:
    """``record[key]`` checked for presence and type; ``RecordError`` naming ``where`` (file + record)."""
    if not isinstance(record, Mapping):
        raise RecordError(f"{where}: expected a JSON object, got {type(record).__name__}")
    if key not in record:
        raise RecordError(f"{where}: missing field {key!r}")
    value = record[key]
    if not isinstance(value, kind):
        names = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
        raise RecordError(f"{where}: field {key!r} must be {names}, got {type(value).__name__}")
    return value


def image_candidates(raw: str, roots: list[Path]) -> list[Path]:
    """Where a benchmark image path may live: as given (absolute), under each root, and under each root with the
    leading dataset folder stripped ("./SpatialUAV/samples/img.jpg" → "samples/img.jpg")."""
    rel = PurePosixPath(raw.replace("\\", "/"))
    if rel.is_absolute():
        return [Path(rel)]
    parts = [p for p in rel.parts if p != "."]
    out: list[Path] = []
    for root in roots:
        out.append(root.joinpath(*parts))
        if len(parts) > 1:
            out.append(root.joinpath(*parts[1:]))
    return out


def resolve_image(raw: str, roots: list[Path], where: str, check: bool = True) -> str:
    """First existing candidate of ``image_candidates``; with ``check=False`` the first candidate even if missing.

    ``RecordError`` naming the record and every place tried when ``check`` and none exists.
    """
    if not isinstance(raw, str) or not raw.strip():
        raise RecordError(f"{where}: image path must be a non-empty string, got {raw!r}")
    candidates = image_candidates(raw.strip(), roots)
    for cand in candidates:
        if cand.is_file():
            return str(cand)
    if check:
        tried = ", ".join(str(c) for c in candidates)
        raise RecordError(f"{where}: image {raw!r} not found (tried {tried}); pass check_images=False to skip")
    return str(candidates[0])


def clean_question(text: str) -> str:
    """The question without ``<image>`` placeholder tokens, trimmed."""
    return text.replace("<image>", "").strip()
