"""Differential test: our strict scorers against outcomes derived by running each benchmark's own evaluation code
on 1,360 seeded adversarial replies (tests/data/official_scoring_cases.jsonl; see tests/data/README.md).

Each case names the benchmark and task, the ground truth, the reply and the official outcome: a score,
"crash" (the official code raises: strict mode raises ``OfficialCrash``) or "not_scored" (the official pipeline
leaves it out of the denominator: ``counted`` False). AirCopBench cases carry the seed of the official random
letter. Lenient mode must differ on some of them (they were kept because it does), or the file tests nothing.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from benchmarks.sample import Sample
from benchmarks.scoring import OfficialCrash, score_detailed
from benchmarks.scoring.aircopbench import LetterDraw

CASES = [json.loads(line) for line in
         (Path(__file__).resolve().parents[1] / "data" / "official_scoring_cases.jsonl").read_text(encoding="utf-8").splitlines()]


def _sample(case: dict) -> Sample:
    meta = {"answer_type": case["answer_type"]} if "answer_type" in case else {}
    return Sample(f"{case['task']}_00001", case["benchmark"], case["task"], [], "q", case["gt"],
                  options=case.get("options") or {}, metadata=meta)


def _outcome(case: dict, mode: str) -> float | str:
    draw = LetterDraw(case["seed"]) if "seed" in case else None
    try:
        res = score_detailed(_sample(case), case["reply"], mode=mode, draw=draw)
    except OfficialCrash:
        return "crash"
    return res.score if res.counted else "not_scored"


def _same(a: float | str, b: float | str) -> bool:
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


@pytest.mark.parametrize("benchmark", sorted({c["benchmark"] for c in CASES}))
def test_strict_mode_gives_the_official_outcome_on_every_case(benchmark):
    cases = [c for c in CASES if c["benchmark"] == benchmark]
    wrong = [(c["task"], c["reply"][:80], c["expected"], got) for c in cases
             if not _same(got := _outcome(c, "strict"), c["expected"])]
    assert not wrong, f"{len(wrong)} of {len(cases)} differ from the official code, e.g. {wrong[:3]}"


def test_the_cases_cover_every_outcome_and_lenient_mode_differs_on_many():
    outcomes = {c["expected"] if isinstance(c["expected"], str) else "score" for c in CASES}
    assert outcomes == {"score", "crash", "not_scored"}
    differing = sum(not _same(_outcome(c, "lenient"), c["expected"]) for c in CASES)
    assert differing > len(CASES) // 5  # the kept disagreement classes (388 here): lenient reads them its own way
