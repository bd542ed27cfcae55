"""Open3D-VQA loader: the nested test file ``{dataset: {scene: [records]}}``.

Record: ``{"id", "image_info": {"image_path", "depth_path"}, "qa_info": {"type", "question_name", "is_embodied"},
"conversation": [{"from": "human", "value": "<image>\\n" + Q}, {"from": "gpt", "value": A}], "query_question": Q}``.
Task = ``qa_info["question_name"]``; target = the gpt turn. True/false records (``question_name`` ending in
``_tfqa``) carry no ``qa_info["type"]``: they load as "qualitative". Images resolve against the data root as
given, under ``<root>/<dataset>/<scene>/`` and under ``<root>/O3DVQA/<dataset>/<scene>/`` (the released layout).
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.loaders._common import clean_question, read_json, require, resolve_image
from benchmarks.sample import RecordError, Sample


def _answer(record: dict, where: str) -> str:
    for turn in require(record, "conversation", where, list):
        if isinstance(turn, dict) and turn.get("from") == "gpt" and isinstance(turn.get("value"), str):
            return turn["value"]
    raise RecordError(f"{where}: no 'gpt' turn with a string 'value' in 'conversation'")


def _question(record: dict, where: str) -> str:
    if isinstance(record.get("query_question"), str):
        return clean_question(record["query_question"])
    for turn in require(record, "conversation", where, list):
        if isinstance(turn, dict) and turn.get("from") == "human" and isinstance(turn.get("value"), str):
            return clean_question(turn["value"])
    raise RecordError(f"{where}: neither 'query_question' nor a human turn")


def parse_record(record: object, where: str, roots: list[Path], dataset: str, scene: str, check: bool) -> Sample:
    """One record → ``Sample``; ``RecordError`` naming ``where`` for missing or mistyped fields."""
    rid = require(record, "id", where, (str, int))
    where = f"{where} (id {rid!r})"
    image_info = require(record, "image_info", where, dict)
    qa_info = require(record, "qa_info", where, dict)
    task = require(qa_info, "question_name", f"{where} qa_info", str)
    if "type" in qa_info or not task.endswith("_tfqa"):
        require(qa_info, "type", f"{where} qa_info", str)
    else:
        qa_info = {**qa_info, "type": "qualitative"}
    roots = [*roots, *(r / "O3DVQA" / dataset / scene for r in roots), *(r / dataset / scene for r in roots)]
    image = resolve_image(require(image_info, "image_path", f"{where} image_info", str), roots, where, check)
    depth = image_info.get("depth_path")
    return Sample(
        id=str(rid),
        benchmark="open3dvqa",
        task=task,
        images=[image],
        question=_question(record, where),
        target=_answer(record, where),
        metadata={
            "qa_info": dict(qa_info),
            "dataset": dataset,
            "scene": scene,
            "depth_path": resolve_image(depth, roots, where, check=False) if isinstance(depth, str) and depth else None,
        },
    )


def load(path: str | Path, data_root: str | Path | None = None, check_images: bool = True) -> list[Sample]:
    """All records of a nested Open3D-VQA test file (datasets, scenes and records in file order).

    Image paths resolve against ``data_root`` (default: the file's folder); ``RecordError`` names file, dataset,
    scene and record index.
    """
    path = Path(path)
    roots = [Path(data_root)] if data_root is not None else [path.parent]
    data = read_json(path)
    if not isinstance(data, dict):
        raise RecordError(f"{path}: expected {{dataset: {{scene: [records]}}}}, got {type(data).__name__}")
    samples: list[Sample] = []
    for dataset, scenes in data.items():
        if not isinstance(scenes, dict):
            raise RecordError(f"{path} [{dataset!r}]: expected {{scene: [records]}}, got {type(scenes).__name__}")
        for scene, records in scenes.items():
            if not isinstance(records, list):
                raise RecordError(f"{path} [{dataset!r}][{scene!r}]: expected a list, got {type(records).__name__}")
            for i, rec in enumerate(records):
                samples.append(parse_record(rec, f"{path} [{dataset!r}][{scene!r}][{i}]", roots, dataset, scene, check_images))
    return samples
