"""TDBench's rotation table, as VLMEvalKit's rotational evaluation builds it from the per-rotation result sheets.

Only the rotations that have results take part (three when one file is missing); a question counts when it has a
result at every one of them (an inner join on index and category). Per category: the number of questions, the
share right at every present rotation (``hit_all``), the share wrong at every one (``miss_all``) and the accuracy
at each rotation ("No Data" for an absent one). The "Average" row is the plain mean over categories (a macro
mean, each figure rounded to three decimals; its question count is that mean truncated to an integer).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

ROTATION_NAMES: tuple[str, ...] = ("rot0", "rot90", "rot180", "rot270")
NO_DATA = "No Data"
AVERAGE = "Average"


@dataclass(frozen=True)
class RotationHit:
    """One scored reply: question index, category, rotation in degrees (0/90/180/270) and hit (0 or 1)."""

    index: str
    category: str
    rotation: int
    hit: float


def _joined(hits: Iterable[RotationHit]) -> tuple[list[str], dict[tuple[str, str], dict[str, float]]]:
    """Present rotations (in ``ROTATION_NAMES`` order) and the questions that have a result at each of them."""
    by_rotation: dict[str, dict[tuple[str, str], float]] = defaultdict(dict)
    for h in hits:
        by_rotation[f"rot{int(h.rotation)}"][(str(h.index), str(h.category))] = float(h.hit)
    present = [r for r in ROTATION_NAMES if r in by_rotation]
    if not present:
        return [], {}
    keys = set.intersection(*(set(by_rotation[r]) for r in present))
    return present, {k: {r: by_rotation[r][k] for r in present} for k in keys}


def rotation_table(hits: Iterable[RotationHit]) -> dict[str, dict[str, float | int | str]]:
    """{category or "Average": {"total_questions", "hit_all", "miss_all", "rot0", …}}; shares in [0, 1]."""
    present, questions = _joined(hits)
    per_cat: dict[str, list[dict[str, float]]] = defaultdict(list)
    for (_, category), row in questions.items():
        per_cat[category].append(row)
    table: dict[str, dict[str, float | int | str]] = {}
    for category in sorted(per_cat):
        rows = per_cat[category]
        n = len(rows)
        entry: dict[str, float | int | str] = {
            "total_questions": n,
            "hit_all": sum(all(v == 1 for v in r.values()) for r in rows) / n,
            "miss_all": sum(all(v == 0 for v in r.values()) for r in rows) / n,
        }
        entry.update({rot: sum(r[rot] for r in rows) / n for rot in present})
        table[category] = entry
    if table:
        columns = ["total_questions", "hit_all", "miss_all", *present]
        # numpy's mean and rounding, as pandas computes them (pairwise sums, round half to even on x·1000)
        avg = {c: float(np.round(np.mean([float(e[c]) for e in table.values()]), 3)) for c in columns}
        avg["total_questions"] = int(avg["total_questions"])
        table[AVERAGE] = avg
    for entry in table.values():
        for rot in ROTATION_NAMES:
            entry.setdefault(rot, NO_DATA)
    return table
