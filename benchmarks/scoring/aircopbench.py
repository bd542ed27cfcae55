"""AirCopBench scoring (spec: benchmarks.md §4): the official letter-extraction cascade, then exact match.

The official script falls back to a random letter when nothing parses; we count that answer as wrong and report
it (``extract_letter`` returns None, ``score`` returns 0, ``benchmarks.scoring.score_detailed`` sets
``parsed=False`` and the aggregate counts it).
"""

from __future__ import annotations

import re

# tried in this order on the upper-cased, stripped reply (re.MULTILINE), first hit wins
LETTER_PATTERNS: tuple[str, ...] = (
    r"ANSWER:\s*([ABCD])",
    r"THE ANSWER IS\s*([ABCD])",
    r"\(([ABCD])\)",
    r"^([ABCD]):",
    r"OPTION\s*([ABCD])",
    r"([ABCD])\s*\.?\s*$",
)

CATEGORIES: dict[str, tuple[str, ...]] = {
    "Scene Understanding": ("Scene Description", "Scene Comparison", "Observing Posture"),
    "Object Understanding": ("Object Recognition", "Object Counting", "Object Grounding", "Object Matching"),
    "Perception Assessment": ("Quality Assessment", "Usability Assessment", "Causal Assessment"),
    "Collaborative Decision": (
        "When to Collaborate",
        "What to Collaborate",
        "Who to Collaborate",
        "Why to Collaborate",
    ),
}


def subcategory(question_type: str) -> str:
    """"2.2 Object Counting (UAV1)" → "Object Counting" (official ``parse_subcat``)."""
    match = re.match(r"\d+\.\d+\s+(.+?)\s*(?:\(|$)", question_type or "")
    return match.group(1) if match else question_type


def category(question_type: str) -> str:
    """The dimension (one of ``CATEGORIES``) of a question type; "other" when the subcategory is not listed."""
    sub = subcategory(question_type)
    return next((cat for cat, subs in CATEGORIES.items() if sub in subs), "other")


def extract_letter(text: str) -> str | None:
    """Letter by the official cascade on ``text.strip().upper()``: the patterns of ``LETTER_PATTERNS`` in order,
    then the first A–D character anywhere; None when the reply contains no A–D at all (the official random
    fallback is not reproduced)."""
    upper = (text or "").strip().upper()
    for pattern in LETTER_PATTERNS:
        match = re.search(pattern, upper, re.MULTILINE)
        if match:
            return match.group(1)
    return next((c for c in upper if c in "ABCD"), None)


def score(prediction: str, correct_answer: str) -> float:
    """1 iff the extracted letter equals ``correct_answer`` (stripped, upper-cased); unparseable → 0."""
    letter = extract_letter(prediction)
    return float(letter is not None and letter == (correct_answer or "").strip().upper())
