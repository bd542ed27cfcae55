"""Text helpers shared by the benchmark scorers: think-block removal, number extraction, token F1.

The regular expressions are the ones the official evaluation scripts use (quoted in each docstring), because a
"cleverer" parser would change published numbers.
"""

from __future__ import annotations

import re
from collections import Counter

_THINK_BLOCK = re.compile(r"<think>.*?</think>", flags=re.DOTALL | re.IGNORECASE)
_INT = re.compile(r"-?\d+")
_FLOAT = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")
_TOKEN = re.compile(r"[a-z0-9]+")


class ScoreParseError(ValueError):
    """A prediction (or target) that a scorer cannot read. ``score()`` turns it into 0 and records ``parsed=False``."""


def strip_think(text: str | None) -> str:
    """Remove ``<think>…</think>`` blocks (SpatialUAV: ``prediction`` is ``raw_prediction`` without them).

    A dangling ``</think>`` with no opening tag (some chat templates drop it) keeps only what follows it.
    """
    out = _THINK_BLOCK.sub("", text or "")
    if "</think>" in out.lower():
        out = out[out.lower().rfind("</think>") + len("</think>") :]
    return out.strip()


def extract_ints(text: str | None) -> list[int]:
    """All integers, signed (SpatialUAV ``re.findall(r"-?\\d+", text)``)."""
    return [int(x) for x in _INT.findall(text or "")]


def extract_floats(text: str | None) -> list[float]:
    """All decimal numbers with optional sign and exponent (SpatialUAV ``extract_floats``)."""
    out: list[float] = []
    for raw in _FLOAT.findall(text or ""):
        try:
            value = float(raw)
        except ValueError:  # pragma: no cover - the pattern only matches float syntax
            continue
        out.append(value)
    return out


def normalize_text(text: str | None) -> str:
    """Lower-case, trimmed, whitespace collapsed to single spaces."""
    return re.sub(r"\s+", " ", (text or "").strip().lower())


def text_tokens(text: str | None) -> list[str]:
    """Lower-case alphanumeric tokens ``[a-z0-9]+`` (SpatialUAV ``text_tokens``)."""
    return _TOKEN.findall(normalize_text(text))


def token_f1(prediction: str | None, reference: str | None) -> float:
    """Multiset token F1 in [0, 1] between prediction and reference (SpatialUAV ``token_f1_metrics``)."""
    return multiset_f1(Counter(text_tokens(prediction)), Counter(text_tokens(reference)))


def multiset_f1(pred: Counter, ref: Counter) -> float:
    """F1 in [0, 1] of two multisets (tokens, region pairs ...): matches counted with multiplicity."""
    matched = sum((pred & ref).values())
    n_pred, n_ref = sum(pred.values()), sum(ref.values())
    precision = matched / n_pred if n_pred else 0.0
    recall = matched / n_ref if n_ref else 0.0
    return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)


def first_oclock(text: str | None) -> int | None:
    """First hour of ``(\\d+)\\s*o'clock``, case-sensitive, straight apostrophe (BEDI ``extract_time_direction``)."""
    match = re.search(r"(\d+)\s*o'clock", text or "")
    return int(match.group(1)) if match else None
