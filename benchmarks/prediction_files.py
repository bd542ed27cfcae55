"""Prediction files as the benchmarks' own scripts read them, and the (sample, row) pairs the report scores.

``read_prediction_rows`` keeps every row when the official script counts duplicates (SpatialUAV); rows in
SpatialUAV's own format (no ``benchmark``/``task``) become samples of the suite (``sample_for_row``); BEDI's own
answer files become rows of their stored answers (``bedi_answer_rows``); ``scoring_pairs`` pairs rows with
samples under each mode's rules.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from benchmarks.runner import read_rows, sample_from_row
from benchmarks.sample import Sample
from benchmarks.scoring.modes import STRICT, Mode


def read_prediction_rows(path: str | Path, keep_duplicates: bool) -> list[dict[str, Any]]:
    """Rows of a predictions JSONL. ``keep_duplicates``: every row, as ``eval_spatialuav.py`` counts them (blank
    lines skipped); otherwise the last row per ``question_id`` (``benchmarks.runner.read_rows``). An unterminated
    last line (a write cut short) is ignored; ``ValueError`` names any other malformed line."""
    if not keep_duplicates:
        return read_rows(path)
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"predictions file not found: {path}")
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    rows = []
    for no, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            if no == len(lines) and not text.endswith("\n"):
                break
            raise ValueError(f"{path}:{no}: not a prediction row ({exc})") from None
        if not isinstance(row, dict) or "question_id" not in row:
            raise ValueError(f"{path}:{no}: not a prediction row (no 'question_id')")
        rows.append(row)
    return rows


def bedi_answer_rows(path: str | Path) -> list[dict[str, Any]]:
    """Prediction rows from BEDI's own answer files (a folder of ``*_ans.json`` or one file): each question's
    stored ``Generated Answer`` as its prediction, so official answer files are scored by the official rules."""
    from benchmarks.loaders.bedi import load as load_bedi

    return [{"question_id": s.id, "question": s.question, "gt": s.target, "benchmark": s.benchmark, "task": s.task,
             "prediction": s.metadata.get("generated_answer"), "image": s.images, "solver": Path(path).stem,
             "metadata": {k: v for k, v in s.metadata.items() if k != "generated_answer"}}
            for s in load_bedi(path, check_images=False)]


def sample_for_row(row: Mapping[str, Any], suite: str) -> Sample:
    """The sample a prediction row scores against: ours carry ``benchmark`` and ``task``; an official SpatialUAV
    prediction row (``question_id, gt, prediction, …``) takes the suite and the task ``id.rsplit("_", 1)[0]``."""
    if "benchmark" in row and "task" in row:
        return sample_from_row(dict(row))
    qid = str(row.get("question_id", ""))
    if not qid:
        raise ValueError(f"prediction row without 'question_id': {dict(row)!r:.120}")
    return Sample(id=qid, benchmark=suite, task=qid.rsplit("_", 1)[0], images=list(row.get("image") or []),
                  question=str(row.get("question", "")), target=row.get("gt"))


def _official_spatialuav_pairs(rows: Sequence[Mapping[str, Any]], samples: Sequence[Sample] | None,
                               suite: str) -> list[tuple[Sample, Mapping[str, Any] | None]]:
    """``eval_spatialuav.py``'s rows: every row counts (duplicates too), its ``gt`` wins and the data fills only
    a missing one (``ValueError`` naming rows that have neither); samples without a row are not scored."""
    by_id = {s.id: s for s in samples or []}
    pairs, missing_gt = [], []
    for row in rows:
        sample = sample_for_row(row, suite)
        if sample.target is None:
            known = by_id.get(sample.id)
            if known is None:
                missing_gt.append(sample.id)
                continue
            sample = Sample(sample.id, sample.benchmark, sample.task, sample.images, sample.question, known.target,
                            sample.options, sample.metadata)
        pairs.append((sample, row))
    if missing_gt:
        raise ValueError(f"missing GT for {len(missing_gt)} prediction rows: {', '.join(missing_gt[:5])}")
    return pairs


def scoring_pairs(rows: Sequence[Mapping[str, Any]], samples: Sequence[Sample] | None, mode: Mode,
                  suite: str | None) -> list[tuple[Sample, Mapping[str, Any] | None]]:
    """(sample, row or None) in scoring order; see ``score_rows``."""
    if mode == STRICT and suite == "spatialuav":
        return _official_spatialuav_pairs(rows, samples, suite)
    if samples is not None:
        by_id = {str(r["question_id"]): r for r in rows}
        return [(s, by_id.get(s.id)) for s in samples]
    return [(sample_for_row(r, suite or str(r.get("benchmark", ""))), r) for r in rows]
