"""BEDI static-VQA loader: per-image answer files ``<image_id>_ans.json``.

Schema: ``{question_type: {question_id: {"Question": …, "Standard Answer": …, "Generated Answer": …}}}``.
The image is ``<image_id>.<jpg|jpeg|png|…>`` beside the file (or in ``image_dir``). ``Generated Answer`` (a model's
earlier answer, if any) is kept in metadata so stored answers can be re-scored.

Action answer files (``test/task_testing/model_action_answer.py``, one instruction per file, also named
``<id>_ans.json``): ``{"instructions", "answer_type": "list"|"dictionary", "Standard Answer", "Generated Answer"}``;
they load as one text-only "Action" sample whose ``answer_type`` picks the official scoring rule.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.loaders._common import clean_question, read_json, require
from benchmarks.sample import RecordError, Sample

SUFFIX = "_ans.json"
IMAGE_EXTENSIONS = (".jpg", ".jpeg", ".png", ".JPG", ".JPEG", ".PNG", ".tif", ".tiff", ".bmp")


def _find_image(image_id: str, folders: list[Path], where: str, check: bool) -> str:
    for folder in folders:
        for ext in IMAGE_EXTENSIONS:
            cand = folder / f"{image_id}{ext}"
            if cand.is_file():
                return str(cand)
    if check:
        raise RecordError(
            f"{where}: no image {image_id}.<{'|'.join(e.lstrip('.') for e in IMAGE_EXTENSIONS[:3])}…> in "
            f"{', '.join(map(str, folders))}; pass image_dir=… or check_images=False"
        )
    return str(folders[0] / f"{image_id}.jpg")


ACTION_KEYS = ("instructions", "answer_type", "Standard Answer")
ANSWER_TYPES = ("list", "dictionary")


def is_action_file(data: object) -> bool:
    """An action answer file holds the instruction and its standard answer at the top level."""
    return isinstance(data, dict) and "Standard Answer" in data and "instructions" in data


def load_action_file(path: Path, data: dict) -> Sample:
    """The one "Action" sample of an action answer file; ``RecordError`` naming the file for a bad field."""
    where = str(path)
    instruction = require(data, "instructions", where, str)
    answer_type = require(data, "answer_type", where, str)
    if answer_type not in ANSWER_TYPES:
        raise RecordError(f"{where}: answer_type {answer_type!r} is neither 'list' nor 'dictionary'")
    target = require(data, "Standard Answer", where, (list, dict))
    action_id = path.name[: -len(SUFFIX)] if path.name.endswith(SUFFIX) else path.stem
    return Sample(id=f"action/{action_id}", benchmark="bedi", task="Action", images=[],
                  question=instruction.strip(), target=target,
                  metadata={"answer_type": answer_type, "generated_answer": data.get("Generated Answer")})


def load_file(path: Path, image_dir: Path | None = None, check_images: bool = True) -> list[Sample]:
    """Samples of one ``*_ans.json`` file, ordered as in the file; ``RecordError`` naming file and question."""
    if not path.name.endswith(SUFFIX):
        raise RecordError(f"{path}: BEDI answer files are named <image_id>{SUFFIX}")
    image_id = path.name[: -len(SUFFIX)]
    data = read_json(path)
    if is_action_file(data):
        return [load_action_file(path, data)]
    if not isinstance(data, dict):
        raise RecordError(f"{path}: expected {{question_type: {{question_id: …}}}}, got {type(data).__name__}")
    folders = [image_dir] if image_dir is not None else [path.parent]
    image = _find_image(image_id, folders, str(path), check_images)
    samples: list[Sample] = []
    for qtype, questions in data.items():
        if not isinstance(questions, dict):
            raise RecordError(f"{path} [{qtype!r}]: expected {{question_id: record}}, got {type(questions).__name__}")
        for qid, rec in questions.items():
            where = f"{path} [{qtype!r}][{qid!r}]"
            question = require(rec, "Question", where, str)
            target = require(rec, "Standard Answer", where)
            samples.append(
                Sample(
                    id=f"{image_id}/{qtype}/{qid}",
                    benchmark="bedi",
                    task=qtype,
                    images=[image],
                    question=clean_question(question),
                    target=target,
                    metadata={
                        "image_id": image_id,
                        "question_id": qid,
                        "generated_answer": rec.get("Generated Answer"),
                        **({"answer_type": rec["answer_type"]} if "answer_type" in rec else {}),
                    },
                )
            )
    return samples


def load(path: str | Path, image_dir: str | Path | None = None, check_images: bool = True) -> list[Sample]:
    """One ``*_ans.json`` file, or every ``*_ans.json`` in a folder (sorted by name; an empty folder is an error)."""
    path = Path(path)
    img = Path(image_dir) if image_dir is not None else None
    if path.is_dir():
        files = sorted(path.glob(f"*{SUFFIX}"))
        if not files:
            raise RecordError(f"{path}: no *{SUFFIX} files in this folder")
        return [s for f in files for s in load_file(f, img, check_images)]
    return load_file(path, img, check_images)
