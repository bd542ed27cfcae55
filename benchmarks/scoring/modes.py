"""Scoring modes shared by every benchmark scorer.

``strict`` (the default) reproduces each benchmark's own evaluation code, quirks included (case-sensitive think
tags, BEDI's clock formula above 12 o'clock, AirCopBench's random letter, …), so that our numbers equal the
published ones on the same replies. ``lenient`` is our own reading, for diagnostics only: it strips think blocks
in any case, never guesses a letter, keeps scores in [0, 1] and scores a reply the official code would crash on
as 0 instead of raising.
"""

from __future__ import annotations

from typing import Literal

Mode = Literal["strict", "lenient"]
STRICT: Mode = "strict"
LENIENT: Mode = "lenient"
MODES: tuple[Mode, ...] = (STRICT, LENIENT)
DEFAULT_MODE: Mode = STRICT


class OfficialCrash(RuntimeError):
    """The benchmark's own evaluation code raises on this reply (e.g. a division by zero or an integer too large
    for a float), so it has no official score. Strict mode raises this instead of inventing one; the cause is
    chained and named in the message."""


def check_mode(mode: str) -> Mode:
    """``mode`` itself when it is one of ``MODES``; ``ValueError`` naming the choices otherwise."""
    if mode not in MODES:
        raise ValueError(f"unknown scoring mode {mode!r}; choose {' or '.join(MODES)}")
    return mode  # type: ignore[return-value]


class NotScored(Exception):
    """The benchmark's own pipeline leaves this reply out of the denominator (BEDI: an action reply its parser
    cannot read is never written to an answer file; Open3D-VQA: an empty response is skipped). Strict mode
    raises it; ``benchmarks.scoring.score_detailed`` turns it into a row with ``counted=False``."""
