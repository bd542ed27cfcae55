"""BEDI static-VQA loader: per-image answer files ``<image_id>_ans.json``.

Schema: ``{question_type: {question_id: {"Question": …, "Standard Answer": …, "Generated Answer": …}}}``.
The image is ``<image_id>.<jpg|jpeg|png|…>`` beside the file (or in ``image_dir``). ``Generated Answer`` (a model's
earlier answer, if any) is kept in metadata so stored answers can be re-scored.
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


def load_file(path: Path, image_dir: Path | None = None, check_images: bool = True) -> list[Sample]:
    """Samples of one ``*_ans.json`` file, ordered as in the file; ``RecordError`` naming file and question."""
    if not path.name.endswith(SUFFIX):
        raise RecordError(f"{path}: BEDI answer files are named <image_id>{SUFFIX}")
    image_id = path.name[: -len(SUFFIX)]
    data = read_json(path)
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
