"""Sanity checks on a language model's reply before it is read as an answer.

Small or misconfigured models return text that is not an answer: a reply cut off at the token limit, punctuation
repeated for thousands of characters, or the prompt copied back (``"Answer yes or no."`` would otherwise read as
*yes*, an echoed option list as option *A*). :func:`reply_problem` names what is wrong with a reply;
:func:`without_echo` removes what the reply copies from the prompt so that only the model's own words are parsed.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterable

JUNK_MIN_CHARS = 20  # shorter replies are judged by the answer parsers alone
MIN_WORD_SHARE = 0.3  # letters and digits among the non-space characters of a real answer
REPEAT_MIN_CHARS = 200
REPEAT_MAX_RATIO = 0.12  # zlib size / text size below this: one short pattern repeated (prose is about 0.4-0.6)
ECHO_MIN_WORDS = 3  # a copied prompt sentence must have at least this many words to count as an echo
OPTION_LINE = re.compile(r"^\s*\(?([A-Z])[.):]\s+\S.*$", re.MULTILINE)
SENTENCE_END = re.compile(r"(?<=[.?!:])\s+")


def reply_problem(text: str, finish_reason: str | None = None) -> str | None:
    """Why ``text`` is not an answer (cut off, empty, junk, repetition), or ``None`` when it may be one."""
    if finish_reason == "length":
        return "the reply was cut off at the token limit (finish_reason length; raise --llm-max-tokens)"
    stripped = text.strip()
    if not stripped:
        return "the reply was empty"
    chars = "".join(stripped.split())
    if len(chars) >= JUNK_MIN_CHARS and sum(c.isalnum() for c in chars) < MIN_WORD_SHARE * len(chars):
        return f"the reply was not text ({len(stripped)} characters, mostly punctuation: {stripped[:30]!r})"
    if len(stripped) >= REPEAT_MIN_CHARS and len(zlib.compress(stripped.encode())) < REPEAT_MAX_RATIO * len(stripped):
        return f"the reply repeats itself ({len(stripped)} characters: {stripped[:30]!r}...)"
    return None


def prompt_pieces(prompt: str) -> tuple[list[str], list[str]]:
    """(sentences of at least :data:`ECHO_MIN_WORDS` words, option lines like ``B. 2``) of a prompt."""
    options = [m.group(0).strip() for m in OPTION_LINE.finditer(prompt)]
    sentences = []
    for line in prompt.splitlines():
        if line.strip() in options:
            continue
        sentences += [s.strip() for s in SENTENCE_END.split(line) if len(s.split()) >= ECHO_MIN_WORDS]
    return sentences, options


def _pattern(piece: str) -> re.Pattern[str]:
    """``piece`` matched case-insensitively with any run of whitespace between its words."""
    return re.compile(r"\s+".join(re.escape(w) for w in piece.split()), re.IGNORECASE)


def _remove(text: str, pieces: Iterable[str]) -> str:
    for piece in sorted(pieces, key=len, reverse=True):
        text = _pattern(piece).sub(" ", text)
    return text


def without_echo(reply: str, prompt: str) -> str:
    """``reply`` without the prompt sentences it copies, and without the option lines when it copies two or more
    of them (one option line alone, like ``B. 2``, is a legitimate way to answer)."""
    sentences, options = prompt_pieces(prompt)
    text = _remove(reply, sentences)
    copied = [o for o in options if _pattern(o).search(text)]
    if len(copied) >= 2:
        text = _remove(text, copied)
    return " ".join(text.split())


def echo_problem(reply: str, prompt: str) -> str | None:
    """A reason when ``reply`` holds nothing but text copied from ``prompt`` (no letters or digits of its own)."""
    if reply.strip() and not any(c.isalnum() for c in without_echo(reply, prompt)):
        return f"the model only repeated the prompt ({reply.strip()[:60]!r})"
    return None


THINK = re.compile(r"<think>.*?(</think>|$)", re.DOTALL | re.IGNORECASE)


def strip_think(text: str) -> str:
    """``text`` without ``<think>…</think>`` reasoning blocks (an unclosed block runs to the end of the text)."""
    return THINK.sub("", text)
