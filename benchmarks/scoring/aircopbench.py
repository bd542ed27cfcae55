"""AirCopBench scoring (spec: benchmarks.md §4): the official letter-extraction cascade, then exact match.

Strict mode (default) reads the reply as the official ``evaluation.py`` does: when the reply holds ``<think>``,
the text from ``rfind("<think>") + len("</think>")`` on (one character past the opening tag, whatever follows),
then the cascade, then — when no A–D appears at all — a random letter. Without a ``LetterDraw`` the letter
comes from Python's global ``random`` generator, as in the official script (``random.seed(s)`` before scoring
reproduces its letters); the report passes a ``LetterDraw`` seeded once per file (``random.Random(seed).choice``
over A–D, one draw per unparseable reply in reply order). Lenient mode removes think blocks properly and counts
an unparseable reply as wrong; the report shows both figures.
"""

from __future__ import annotations

import random
import re

from benchmarks.scoring.common import strip_think
from benchmarks.scoring.modes import STRICT, Mode, check_mode

# tried in this order on the upper-cased, stripped reply (re.MULTILINE), first hit wins
LETTER_PATTERNS: tuple[str, ...] = (
    r"ANSWER:\s*([ABCD])",
    r"THE ANSWER IS\s*([ABCD])",
    r"\(([ABCD])\)",
    r"^([ABCD]):",
    r"OPTION\s*([ABCD])",
    r"([ABCD])\s*\.?\s*$",
)
LETTERS: tuple[str, ...] = ("A", "B", "C", "D")
DEFAULT_SEED = 0

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


class LetterDraw:
    """The official random fallback, reproducible: one ``choice`` over A–D per unparseable reply, from a
    generator seeded once (``random.seed(s)`` followed by ``random.choice`` gives the same letters)."""

    def __init__(self, seed: int = DEFAULT_SEED) -> None:
        self.seed = seed
        self._rng = random.Random(seed)
        self.draws = 0

    def __call__(self) -> str:
        self.draws += 1
        return self._rng.choice(LETTERS)


def subcategory(question_type: str) -> str:
    """"2.2 Object Counting (UAV1)" → "Object Counting" (official ``parse_subcat``)."""
    match = re.match(r"\d+\.\d+\s+(.+?)\s*(?:\(|$)", question_type or "")
    return match.group(1) if match else question_type


def category(question_type: str) -> str:
    """The dimension (one of ``CATEGORIES``) of a question type; "other" when the subcategory is not listed."""
    sub = subcategory(question_type)
    return next((cat for cat, subs in CATEGORIES.items() if sub in subs), "other")


def official_reply_text(text: str | None) -> str:
    """The part of a reply the official extractor reads: after the last ``<think>``, skipping ``len("</think>")``
    characters from its start (so one character past the tag is lost), stripped; the whole reply otherwise."""
    reply = text or ""
    start = reply.rfind("<think>")
    if start != -1:
        reply = reply[start + len("</think>"):].strip()
    return reply


def extract_letter(text: str | None, mode: Mode = STRICT) -> str | None:
    """Letter by the official cascade on the upper-cased reply: the patterns of ``LETTER_PATTERNS`` in order, then
    the first A–D character anywhere; None when the reply contains no A–D at all (the caller decides between the
    official random letter and "wrong"). Strict reads ``official_reply_text``; lenient strips think blocks."""
    check_mode(mode)
    reply = official_reply_text(text) if mode == STRICT else strip_think(text)
    upper = reply.strip().upper()
    for pattern in LETTER_PATTERNS:
        match = re.search(pattern, upper, re.MULTILINE)
        if match:
            return match.group(1)
    return next((c for c in upper if c in LETTERS), None)


def random_letter(draw: LetterDraw | None = None) -> str:
    """One official random letter: from ``draw``, or from the global ``random`` generator (the official call)."""
    return draw() if draw is not None else random.choice(list(LETTERS))


def predicted_letter(text: str | None, mode: Mode = STRICT, draw: LetterDraw | None = None,
                     seed: int | None = None) -> str | None:
    """The letter the official script records: ``extract_letter``, or (strict, nothing found) ``random_letter``
    (``seed``: a fresh ``LetterDraw(seed)`` for this reply, as ``random.seed(seed)`` right before it). Lenient
    never guesses (None)."""
    letter = extract_letter(text, mode)
    if letter is None and mode == STRICT:
        letter = random_letter(draw if seed is None else LetterDraw(seed))
    return letter


def score(prediction: str | None, correct_answer: str, mode: Mode = STRICT, draw: LetterDraw | None = None,
          seed: int | None = None) -> float:
    """1 iff the recorded letter equals ``correct_answer`` (``draw``/``seed``: see ``predicted_letter``).

    Strict compares with the answer exactly as stored (the official ``predicted == correct``); lenient strips
    and upper-cases it and counts an unparseable reply as wrong.
    """
    letter = predicted_letter(prediction, mode, draw, seed)
    if mode == STRICT:
        return float(letter == correct_answer)
    return float(letter is not None and letter == (correct_answer or "").strip().upper())
