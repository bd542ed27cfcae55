"""Evidence, what a plan step returns: a plain dict with ``value`` (keyword arguments of the answer dataclass for
the chosen format, or ``None``), ``confidence`` in [0, 1] and ``reason`` (why there is no value, or a caveat)."""

from __future__ import annotations

Evidence = dict


def found(value: dict, confidence: float, reason: str | None = None) -> Evidence:
    return {"value": value, "confidence": float(max(0.0, min(1.0, confidence))), "reason": reason}


def undecided(reason: str) -> Evidence:
    return {"value": None, "confidence": 0.0, "reason": reason}
