"""Compose a canonical answer from plan evidence, and verify it (format round-trip and confidence)."""

from __future__ import annotations

from typing import Any

from agent.answers import ANSWER_TYPES, AnswerFormat, AnswerParseError

MIN_CONFIDENCE = 0.3  # answers below this are not given (verify fails → next strategy or abstention)


def compose(fmt_name: str | None, evidence: dict | None) -> dict:
    """A JSON-safe answer record: ``{format, value, text, confidence, abstained, reason}``.

    ``value`` holds the keyword arguments of the answer dataclass; ``text`` its exact ``render()``. Without a
    value (the plan could not decide) the record is an abstention carrying the plan's reason.
    """
    evidence = evidence or {}
    if not fmt_name:
        return abstention(evidence.get("reason") or "the question could not be placed on a known task type")
    if evidence.get("value") is None:
        return abstention(evidence.get("reason") or "the tools could not decide", fmt_name)
    try:
        obj = build(fmt_name, evidence["value"])
    except (ValueError, TypeError, KeyError) as exc:
        return abstention(f"tool output does not fit the answer format {fmt_name}: {exc}", fmt_name)
    return {"format": fmt_name, "value": evidence["value"], "text": obj.render(),
            "confidence": float(evidence.get("confidence", 0.0)), "abstained": False,
            "reason": evidence.get("reason")}


def abstention(reason: str, fmt_name: str | None = None) -> dict:
    return {"format": fmt_name, "value": None, "text": "", "confidence": 0.0, "abstained": True, "reason": reason}


def build(fmt_name: str, value: dict) -> Any:
    """The answer dataclass for ``fmt_name`` (an ``AnswerFormat`` member name) built from ``value``."""
    cls = ANSWER_TYPES[AnswerFormat[fmt_name]]
    kwargs = dict(value)
    if "ids" in kwargs:
        kwargs["ids"] = tuple(int(i) for i in kwargs["ids"])
    if "pairs" in kwargs:
        kwargs["pairs"] = tuple((int(a), int(b)) for a, b in kwargs["pairs"])
    if fmt_name == "ACTIONS":
        kwargs["steps"] = tuple(kwargs["steps"])
    return cls(**kwargs)


def verify(answer: dict) -> list[str]:
    """Problems with a composed answer (empty list = verified): the rendered text must parse back to the same
    format, and the confidence must reach :data:`MIN_CONFIDENCE`. Abstentions have nothing to verify."""
    if answer.get("abstained"):
        return []
    issues = []
    fmt = AnswerFormat[answer["format"]]
    try:
        parsed = ANSWER_TYPES[fmt].parse(answer["text"])
        if parsed.render() != answer["text"]:
            issues.append(f"rendered answer {answer['text']!r} does not read back the same ({parsed.render()!r})")
    except AnswerParseError as exc:
        issues.append(f"rendered answer does not parse as {fmt.name}: {exc}")
    if answer.get("confidence", 0.0) < MIN_CONFIDENCE:
        issues.append(f"confidence {answer.get('confidence', 0.0):.2f} below {MIN_CONFIDENCE}")
    return issues
