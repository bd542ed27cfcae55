"""TDBench loader: VLMEvalKit TSV (index, image as base64, question, A–D, answer, category) and its rotations.

Images are decoded once into a cache folder (PNG). With ``rotations=True`` every question yields four samples,
rotated 0/90/180/270° clockwise: the image is rotated, image-frame direction words in the question and options
are rewritten (top-left → top-right at 90° clockwise) and grounding boxes are rotated; ``metadata`` keeps
``question_index`` and ``rotation`` for ``benchmarks.scoring.tdbench.hit_all``.

The official release ships one TSV per rotation (``tdbench_rot90.tsv``, ``tdbench_grounding_rot180.tsv``), already
rotated: such a file loads as its rotation (nothing rotated again), and a folder loads every ``*rot<N>*.tsv`` in
it, so the rotation table sees the official files as VLMEvalKit does. Prompts are VLMEvalKit's:
``ImageMCQDataset.build_prompt`` for questions with options, ``TDBenchGrounding.build_prompt`` for grounding.
"""

from __future__ import annotations

import base64
import binascii
import csv
import hashlib
import io
import re
import sys
import tempfile
from pathlib import Path

from benchmarks.sample import RecordError, Sample
from benchmarks.scoring.tdbench import ROTATIONS_DEG, parse_box

OPTION_COLUMNS = ("A", "B", "C", "D", "E", "F")
REQUIRED_COLUMNS = ("index", "image", "question", "answer")

# one clockwise quarter turn of the image frame
_SIDE_CW = {"top": "right", "upper": "right", "right": "bottom", "bottom": "left", "lower": "left", "left": "top"}
_CORNER_CW = {("top", "left"): ("top", "right"), ("top", "right"): ("bottom", "right"),
              ("bottom", "right"): ("bottom", "left"), ("bottom", "left"): ("top", "left")}  # fmt: skip
_VERTICAL = {"upper": "top", "lower": "bottom"}
_STYLE = {"top": {"top": "top", "bottom": "bottom"}, "upper": {"top": "upper", "bottom": "lower"}}
_WORDS = re.compile(
    r"\b(?:(?P<v>top|upper|bottom|lower)(?P<sep>[- ]?)(?P<h>left|right)|(?P<s>top|upper|bottom|lower|left|right))"
    r"(?P<most>most)?\b",
    flags=re.IGNORECASE,
)


def _match_case(word: str, like: str) -> str:
    return word.upper() if like.isupper() and len(like) > 1 else word.capitalize() if like[:1].isupper() else word


def _turn_once(match: re.Match) -> str:
    most = match.group("most") or ""
    if match.group("v"):
        v_raw, h_raw = match.group("v"), match.group("h")
        v = _VERTICAL.get(v_raw.lower(), v_raw.lower())
        nv, nh = _CORNER_CW[(v, h_raw.lower())]
        style = "upper" if v_raw.lower() in ("upper", "lower") else "top"
        return _match_case(_STYLE[style][nv], v_raw) + match.group("sep") + _match_case(nh, h_raw) + most
    side = match.group("s")
    return _match_case(_SIDE_CW[side.lower()], side) + most


def rotate_direction_words(text: str, rotation_deg: int) -> str:
    """Rewrite image-frame words (top/upper/bottom/lower/left/right, corners, "-most" forms) for an image rotated
    ``rotation_deg`` (a multiple of 90) clockwise. Compass words are left alone: rotation does not move north."""
    if rotation_deg % 90:
        raise ValueError(f"rotation must be a multiple of 90 degrees, got {rotation_deg}")
    for _ in range((rotation_deg // 90) % 4):
        text = _WORDS.sub(_turn_once, text)
    return text


def rotate_box(box: tuple[float, float, float, float], rotation_deg: int, size: tuple[float, float]) -> tuple:
    """Box ``(x1, y1, x2, y2)`` in an image of ``size`` = (width, height) (use (1, 1) for relative coordinates)
    after rotating the image ``rotation_deg`` clockwise: one quarter turn maps (x, y) → (H − y, x)."""
    (w, h), b = size, box
    for _ in range((rotation_deg // 90) % 4):
        b = (h - b[3], b[0], h - b[1], b[2])
        w, h = h, w
    return b


def _decode_image(field: str, where: str):
    from PIL import Image, UnidentifiedImageError

    try:
        raw = base64.b64decode(field, validate=False)
        image = Image.open(io.BytesIO(raw))
        image.load()
    except (binascii.Error, ValueError, UnidentifiedImageError, OSError) as exc:
        raise RecordError(f"{where}: 'image' is not a base64-encoded image ({type(exc).__name__}: {exc})") from None
    return image.convert("RGB")


def _read_rows(path: Path) -> list[dict[str, str]]:
    csv.field_size_limit(sys.maxsize)
    try:
        with path.open(encoding="utf-8", newline="") as fh:
            reader = csv.DictReader(fh, delimiter="\t")
            missing = [c for c in REQUIRED_COLUMNS if c not in (reader.fieldnames or [])]
            if missing:
                raise RecordError(f"{path}: missing TSV column(s) {missing}; header is {reader.fieldnames}")
            return list(reader)
    except FileNotFoundError:
        raise RecordError(f"{path}: file not found") from None
    except (csv.Error, UnicodeDecodeError) as exc:
        raise RecordError(f"{path}: not a readable TSV ({exc})") from None


def _default_cache(path: Path) -> Path:
    key = hashlib.sha1(f"{path.resolve()}:{path.stat().st_mtime_ns}".encode()).hexdigest()[:12]
    return Path(tempfile.gettempdir()) / "uav-agent-tdbench" / f"{path.stem}-{key}"


def _grounding_target(answer: str, rotation: int, size: tuple[int, int], where: str) -> str:
    box = parse_box(answer)
    if box is None:
        raise RecordError(f"{where}: grounding answer {answer!r} is not a box [x1, y1, x2, y2]")
    frame = (1.0, 1.0) if max(abs(v) for v in box) <= 1.0 else (float(size[0]), float(size[1]))
    return "[" + ", ".join(f"{v:.6g}" for v in rotate_box(box, rotation, frame)) + "]"


_ROTATION_IN_NAME = re.compile(r"rot(\d+)")


def file_rotation(path: Path) -> int | None:
    """The rotation an official per-rotation TSV holds (``…rot90…`` → 90); None for a file without one."""
    match = _ROTATION_IN_NAME.search(path.name)
    return int(match.group(1)) if match else None


def load(
    path: str | Path, rotations: bool = False, cache_dir: str | Path | None = None
) -> list[Sample]:
    """Samples of a TDBench TSV, one per row (or four per row with ``rotations``), in file order; a folder: every
    per-rotation TSV in it, by rotation.

    A row without options A–D is a grounding question (its answer is a box). A per-rotation file loads as its
    rotation (``RecordError`` if ``rotations`` asks to rotate it again). ``RecordError`` names file, line and
    index for a missing column value, an undecodable image or a bad answer.
    """
    path = Path(path)
    if path.is_dir():
        files = sorted((f for f in path.glob("*.tsv") if file_rotation(f) is not None), key=file_rotation)
        if not files:
            raise RecordError(f"{path}: no per-rotation TSV (…rot0/rot90/rot180/rot270….tsv) in this folder")
        return [s for f in files for s in load(f, rotations, cache_dir)]
    fixed = file_rotation(path)
    if fixed is not None and fixed not in ROTATIONS_DEG:
        raise RecordError(f"{path}: rotation {fixed} in the file name is not one of {ROTATIONS_DEG}")
    if fixed and rotations:
        raise RecordError(f"{path}: this file already holds the {fixed}° rotation; load it without rotations")
    rows = _read_rows(path)
    cache = Path(cache_dir) if cache_dir is not None else _default_cache(path)
    cache.mkdir(parents=True, exist_ok=True)
    by_index = {row.get("index", ""): row for row in rows}
    samples: list[Sample] = []
    for line_no, row in enumerate(rows, start=2):  # line 1 is the header
        where = f"{path}:{line_no} (index {row.get('index')!r})"
        for col in REQUIRED_COLUMNS:
            if not (row.get(col) or "").strip():
                raise RecordError(f"{where}: empty or missing {col!r}")
        field = row["image"]
        if len(field) <= 64 and field in by_index and field != row["index"]:  # VLMEvalKit: image shared by index
            field = by_index[field]["image"]
        image = _decode_image(field, where)
        options = {c: row[c] for c in OPTION_COLUMNS if (row.get(c) or "").strip() not in ("", "nan")}
        answer = row["answer"].strip()
        if not options:
            _grounding_target(answer, 0, image.size, where)  # a grounding answer must be a box
        if options and answer.upper() not in options:
            raise RecordError(f"{where}: answer {answer!r} is not one of the options {list(options)}")
        for rot in ROTATIONS_DEG if rotations else (0,):
            out = cache / f"{row['index']}_r{rot}.png"
            rotated = image.rotate(-rot, expand=True) if rot else image  # PIL rotates counter-clockwise
            if not out.is_file():
                rotated.save(out)
            target = answer.upper() if options else answer if not rot else _grounding_target(answer, rot,
                                                                                                image.size, where)
            held = fixed if fixed is not None else rot
            samples.append(
                Sample(
                    id=f"{row['index']}_r{held}" if rotations or fixed is not None else str(row["index"]),
                    benchmark="tdbench",
                    task=(row.get("category") or ("visual_grounding" if not options else "unknown")).strip(),
                    images=[str(out)],
                    question=rotate_direction_words(row["question"], rot),
                    target=target,
                    options={k: rotate_direction_words(v, rot) for k, v in options.items()},
                    metadata={"question_index": row["index"], "rotation": held, "image_size": list(rotated.size),
                              **({"hint": row["hint"]} if (row.get("hint") or "").strip() not in ("", "nan") else {})},
                )
            )
    return samples


GROUNDING_PROMPT = ("\nPlease output the coordinates of the {obj} in the image in the format [x1, y1, x2, y2]. "
                    "Do not include any additional text. Respond with relative coordinates between 0 and 1, with top "
                    "left corner (0, 0), top right (1, 0) and bottom right (1, 1).")


def prompt(sample: Sample) -> str:
    """VLMEvalKit's prompt text (the image goes first). Multiple choice: optional ``Hint: …``, ``Question: …``,
    ``Options:`` with ``A. …`` lines, "Please select the correct answer from the options above. " and a newline.
    Grounding (no options): TDBenchGrounding's instruction around the object named in the question column."""
    if not sample.options:
        return GROUNDING_PROMPT.format(obj=sample.question)
    hint = sample.metadata.get("hint")
    opts = "".join(f"{k}. {v}\n" for k, v in sample.options.items())
    return ((f"Hint: {hint}\n" if hint else "") + f"Question: {sample.question}\nOptions:\n{opts}"
            "Please select the correct answer from the options above. \n")
