"""Aggregation of per-sample scores as the papers report them: micro means ×100 per task, answer format, group,
benchmark and overall, with counts, the judge(s) used, unparseable answers and TDBench's rotation ``hit_all``.

Rows the official pipeline leaves out of its denominator (``counted`` False) are counted apart (``not_scored``)
and weigh nothing. Strict rows may hold scores outside [0, 1] (BEDI's clock formula); lenient rows may not.
AirCopBench's strict figure includes the official random letters; ``overall_without_guesses`` counts those
replies as wrong instead (the figure our lenient reading gives), shown beside it.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import asdict, is_dataclass
from typing import Any

from benchmarks.scoring.tdbench import ROTATIONS_DEG, hit_all
from benchmarks.scoring.tdbench_rotation import AVERAGE, RotationHit, rotation_table

REQUIRED_KEYS = ("benchmark", "task", "score")


def _as_dict(row: Any, i: int) -> dict[str, Any]:
    data = asdict(row) if is_dataclass(row) and not isinstance(row, type) else row
    if not isinstance(data, Mapping):
        raise TypeError(f"row {i}: expected a ScoreResult or a mapping, got {type(row).__name__}")
    missing = [k for k in REQUIRED_KEYS if k not in data]
    if missing:
        raise ValueError(f"row {i} ({data.get('id', '?')}): missing {missing}")
    score = float(data["score"])
    strict = data.get("mode") == "strict"
    if not math.isfinite(score) or (not strict and not 0.0 <= score <= 1.0):
        raise ValueError(f"row {i} ({data.get('id', '?')}): score {score} outside [0, 1]")
    return {**data, "score": score}


def _key(row: dict[str, Any], key: str) -> str:
    """A row's value for a table: a row field, "dataset" from metadata, or "dataset----field" (AirCopBench's
    per-dataset cross tables)."""
    dataset = str((row.get("metadata") or {}).get("dataset") or "unknown")
    if key == "dataset":
        return dataset
    if key.startswith("dataset----"):
        return f"{dataset}----{row.get(key.split('----', 1)[1]) or 'unknown'}"
    return str(row.get(key) or "unknown")


def _table(rows: list[dict[str, Any]], key: str) -> dict[str, dict[str, float | int]]:
    """{value of ``key``: {"score": micro mean ×100, "count": n}}, keys sorted."""
    groups: dict[str, list[float]] = defaultdict(list)
    for row in rows:
        groups[_key(row, key)].append(row["score"])
    return {k: {"score": 100.0 * sum(v) / len(v), "count": len(v)} for k, v in sorted(groups.items())}


def official_rotation_table(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """VLMEvalKit's rotation table (``benchmarks.scoring.tdbench_rotation``) over rows with a rotation."""
    hits = [RotationHit(str(meta["question_index"]), str(r["task"]), int(meta["rotation"]), r["score"])
            for r in rows if "question_index" in (meta := r.get("metadata") or {}) and "rotation" in meta]
    return rotation_table(hits)


def rotation_hit_all(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """TDBench rotation score ×100. Strict rows: VLMEvalKit's "Average" ``hit_all`` (a macro mean over categories,
    over the rotations present), with the per-category table; lenient rows: the share of questions right at all
    four rotations (a micro mean; questions without all four are reported as ``incomplete``).
    """
    if rows and all(r.get("mode") == "strict" for r in rows):
        table = official_rotation_table(rows)
        avg = table.get(AVERAGE, {})
        joined = sum(int(e["total_questions"]) for k, e in table.items() if k != AVERAGE)
        seen = {str(r["metadata"]["question_index"]) for r in rows
                if "question_index" in (r.get("metadata") or {}) and "rotation" in r["metadata"]}
        return {"score": 100.0 * float(avg.get("hit_all", 0.0)), "questions": joined,
                "incomplete": len(seen) - joined, "mean": "macro over categories (VLMEvalKit)", "table": table}
    per_question: dict[str, dict[int, float]] = defaultdict(dict)
    for row in rows:
        meta = row.get("metadata") or {}
        if "question_index" in meta and "rotation" in meta:
            per_question[str(meta["question_index"])][int(meta["rotation"])] = row["score"]
    complete = {q: r for q, r in per_question.items() if all(d in r for d in ROTATIONS_DEG)}
    hits = sum(hit_all(r) for r in complete.values())
    return {
        "score": 100.0 * hits / len(complete) if complete else 0.0,
        "questions": len(complete),
        "incomplete": len(per_question) - len(complete),
        "mean": "micro over questions",
    }


def _summary(all_rows: list[dict[str, Any]]) -> dict[str, Any]:
    rows = [r for r in all_rows if r.get("counted", True)]
    judges = sorted({str(r["judge"]) for r in rows if r.get("judge")})
    guessed = [("guessed_letter" in (r.get("metadata") or {})) for r in rows]
    out: dict[str, Any] = {
        "overall": 100.0 * sum(r["score"] for r in rows) / len(rows) if rows else 0.0,
        "count": len(rows),
        "not_scored": len(all_rows) - len(rows),
        "modes": sorted({str(r.get("mode") or "unknown") for r in all_rows}),
        "per_task": _table(rows, "task"),
        "per_answer_format": _table(rows, "answer_format"),
        "per_group": _table(rows, "group"),
        "unparseable": sum(1 for r in rows if r.get("parsed") is False),
        "judge": ", ".join(judges) if judges else None,
    }
    structure = [r["metadata"]["structure_score"] for r in rows if "structure_score" in (r.get("metadata") or {})]
    if structure:  # BEDI action generation: the official structure score beside the action score
        out["action_structure"] = {"score": 100.0 * sum(structure) / len(structure), "count": len(structure)}
    if any((r.get("metadata") or {}).get("dataset") for r in rows):
        out["per_dataset"] = _table(rows, "dataset")
        out["per_dataset_task"] = _table(rows, "dataset----task")
        out["per_dataset_group"] = _table(rows, "dataset----group")
    if any(guessed):
        out["guessed"] = sum(guessed)
        out["overall_without_guesses"] = 100.0 * sum(
            0.0 if g else r["score"] for r, g in zip(rows, guessed)) / len(rows)
    if any((r.get("metadata") or {}).get("rotation") not in (None, 0) for r in rows):
        out["rotation_hit_all"] = rotation_hit_all(rows)
    return out


def aggregate(rows: Iterable[Any]) -> dict[str, Any]:
    """Report dict over ``ScoreResult`` rows (or mappings with benchmark, task, score and optional answer_format,
    group, parsed, judge, metadata): the overall figures plus ``per_benchmark`` summaries of the same shape.

    Scores are micro means ×100 (every sample weighs the same). ``ValueError`` for a row without the required
    keys or with a score outside [0, 1].
    """
    data = [_as_dict(r, i) for i, r in enumerate(rows)]
    report = _summary(data)
    by_bench: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in data:
        by_bench[str(row["benchmark"])].append(row)
    report["per_benchmark"] = {b: _summary(v) for b, v in sorted(by_bench.items())}
    return report
