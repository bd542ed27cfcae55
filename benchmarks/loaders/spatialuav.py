"""SpatialUAV JSONL loader (also the "synth" suite, which our generator writes in the same schema).

Record: ``{"id": "Region_Recognition_00001", "image": ["./SpatialUAV/…/img0001.jpg"], "conversations":
[{"from": "human", "value": …}], "source": "SpatialUAV", "GT": "Region 3, 4."}``; task = ``id.rsplit("_", 1)[0]``.
"""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.loaders._common import clean_question, require, resolve_image
from benchmarks.sample import RecordError, Sample
from benchmarks.scoring.spatialuav import TASKS


def _question(record: dict, where: str) -> str:
    turns = require(record, "conversations", where, list)
    for turn in turns:
        if isinstance(turn, dict) and turn.get("from") == "human" and isinstance(turn.get("value"), str):
            return clean_question(turn["value"])
    raise RecordError(f"{where}: no human turn with a string 'value' in 'conversations'")


def parse_record(
    record: object, where: str, roots: list[Path], benchmark: str = "spatialuav", check_images: bool = True
) -> Sample:
    """One JSON record → ``Sample``; ``RecordError`` naming ``where`` for a missing field.

    A task the registry does not know loads too (``metadata["known_task"]`` False): the official script scores
    it (``Path_Planning`` by its first integer, anything else by token F1)."""
    if not isinstance(record, dict):
        raise RecordError(f"{where}: expected a JSON object, got {type(record).__name__}")
    qid = require(record, "id", where, str)
    where = f"{where} (id {qid!r})"
    task = qid.rsplit("_", 1)[0]
    images = require(record, "image", where, (list, str))
    images = [images] if isinstance(images, str) else images
    if not images:
        raise RecordError(f"{where}: 'image' is empty")
    target = require(record, "GT", where, (str, int, float))
    extra = {k: v for k, v in record.items() if k not in ("id", "image", "conversations", "GT")}
    return Sample(
        id=qid,
        benchmark=benchmark,
        task=task,
        images=[resolve_image(p, roots, where, check_images) for p in images],
        question=_question(record, where),
        target=str(target),
        metadata={**extra, "image_paths_raw": list(images), "known_task": task in TASKS},
    )


def load(
    path: str | Path, data_root: str | Path | None = None, check_images: bool = True, benchmark: str = "spatialuav"
) -> list[Sample]:
    """All records of a SpatialUAV-format JSONL file, in file order.

    Image paths resolve against ``data_root`` (default: the file's folder), also with the leading dataset folder
    stripped. ``RecordError`` naming file and line for a bad JSON line, a missing field, a duplicate id or (with
    ``check_images``) a missing image. Blank lines are allowed; tasks the registry does not know are kept.
    """
    path = Path(path)
    roots = [Path(data_root)] if data_root is not None else [path.parent]
    samples: list[Sample] = []
    seen: dict[str, int] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise RecordError(f"{path}: file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordError(f"{path}: cannot read ({exc})") from None
    for line_no, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path}:{line_no}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise RecordError(f"{where}: invalid JSON ({exc.msg} at column {exc.colno})") from None
        sample = parse_record(record, where, roots, benchmark, check_images)
        if sample.id in seen:
            raise RecordError(f"{where}: duplicate id {sample.id!r} (first at line {seen[sample.id]})")
        seen[sample.id] = line_no
        samples.append(sample)
    return samples
