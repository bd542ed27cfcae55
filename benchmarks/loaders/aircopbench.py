"""AirCopBench loader: a JSON list of questions (or ``{"results": [...]}``, as the official script accepts).

Record: ``{"question_id", "question_type": "2.2 Object Counting (UAV1)", "question", "options": {"A": …},
"correct_answer": "A", "uav_paths": {"UAV1": path, …}}``; images in ``uav_paths`` order (2–6 views).
Task = the subcategory ("Object Counting"); the full ``question_type`` stays in metadata, with ``dataset``: the
file's name without ``_test`` ("Real2_VQA_test.json" → "Real2_VQA"), the key of the official per-dataset tables.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.loaders._common import read_json, require, resolve_image
from benchmarks.sample import RecordError, Sample
from benchmarks.scoring.aircopbench import subcategory


def dataset_name(path: Path) -> str:
    """"Real2_VQA_test.json" → "Real2_VQA" (the official ``DATASETS`` keys)."""
    stem = path.stem
    return stem[: -len("_test")] if stem.endswith("_test") else stem


def parse_record(record: object, where: str, roots: list[Path], check: bool, dataset: str = "") -> Sample:
    """One question → ``Sample``; ``RecordError`` naming ``where`` for missing or mistyped fields."""
    qid = require(record, "question_id", where, (str, int))
    where = f"{where} (question_id {qid!r})"
    qtype = require(record, "question_type", where, str)
    options = require(record, "options", where, dict)
    if not options or not all(isinstance(k, str) and len(k) == 1 for k in options):
        raise RecordError(f"{where}: 'options' must map single letters to texts, got keys {list(options)}")
    answer = require(record, "correct_answer", where, str).strip().upper()
    if answer not in options:
        raise RecordError(f"{where}: correct_answer {answer!r} is not one of the options {list(options)}")
    uav_paths = require(record, "uav_paths", where, dict)
    if not uav_paths:
        raise RecordError(f"{where}: 'uav_paths' is empty")
    return Sample(
        id=str(qid),
        benchmark="aircopbench",
        task=subcategory(qtype),
        images=[resolve_image(p, roots, f"{where} uav_paths[{k!r}]", check) for k, p in uav_paths.items()],
        question=require(record, "question", where, str),
        target=answer,
        options={k: str(v) for k, v in options.items()},
        metadata={"question_type": qtype, "uavs": list(uav_paths), "dataset": dataset},
    )


def prompt(sample: Sample) -> str:
    """The official prompt text (images go first): question, ``A. …`` lines, then the answer instruction."""
    opts = "\n".join(f"{k}. {v}" for k, v in sample.options.items())
    return f"{sample.question}\n{opts}\nAnswer with the option's letter from the given choices directly."


def load(path: str | Path, images_root: str | Path | None = None, check_images: bool = True) -> list[Sample]:
    """All questions of one AirCopBench JSON file; ``uav_paths`` resolve against ``images_root`` (default: the
    file's folder). ``RecordError`` names file and record index."""
    path = Path(path)
    roots = [Path(images_root)] if images_root is not None else [path.parent]
    data = read_json(path)
    records = data.get("results", data) if isinstance(data, dict) else data
    if not isinstance(records, list):
        raise RecordError(f"{path}: expected a list of questions (or {{'results': [...]}}), got {type(records).__name__}")
    name = dataset_name(path)
    return [parse_record(rec, f"{path} [{i}]", roots, check_images, name) for i, rec in enumerate(records)]
