"""Text helpers behind :mod:`agent.answers`: cleaning model output and pulling numbers, ids and units out of it.

Every function here takes arbitrary text and either returns a value or raises :class:`AnswerParseError`; none
of them may crash on odd input (very long digit runs, deep brackets, unicode), which the tests check with
hypothesis. Digits are ASCII only (``[0-9]``), so exotic unicode digits are never read as numbers.
"""

from __future__ import annotations

import ast
import json
import math
import re
from typing import Any


class AnswerParseError(ValueError):
    """Model output that cannot be read as the requested answer format; the message says what was missing."""


_THINK_BLOCK = re.compile(r"<think>.*?</think>", re.IGNORECASE | re.DOTALL)
_THINK_OPEN = re.compile(r"<think>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think>", re.IGNORECASE)

# Characters that models use in place of ASCII ones.
_TRANSLATE = str.maketrans(
    {"\u2019": "'", "\u2018": "'", "\u02bc": "'", "`": "'", "\u00b4": "'", "\u2212": "-", "\u2013": "-", "\u2014": "-"}
)


def strip_think(text: str) -> str:
    """Remove reasoning blocks: every ``<think>…</think>``, everything up to a stray ``</think>`` (templates that
    open the block in the prompt), and an unclosed leading ``<think>`` together with the reasoning after it
    (the model ran out of tokens before answering, so nothing after it is an answer)."""
    text = _THINK_BLOCK.sub("", require_text(text))
    close = list(_THINK_CLOSE.finditer(text))
    if close:
        text = text[close[-1].end() :]
    opened = _THINK_OPEN.search(text)
    if opened is not None:
        text = text[: opened.start()]
    return text.strip()


def require_text(text: object) -> str:
    """Return ``text`` if it is a string, else raise :class:`AnswerParseError`."""
    if not isinstance(text, str):
        raise AnswerParseError(f"expected the model output as a string, got {type(text).__name__}")
    return text


def clean(text: object) -> str:
    """``strip_think`` plus ASCII quotes and minus signs; raises if nothing is left."""
    out = strip_think(require_text(text)).translate(_TRANSLATE).strip()
    if not out:
        raise AnswerParseError("empty answer (nothing left after removing <think> blocks and whitespace)")
    return out


# ---- integers (ids) --------------------------------------------------------------------------------------------
_INT = re.compile(r"(?<![0-9.])[0-9]{1,9}(?![0-9])")
_REGION_RUN = re.compile(
    r"\bregions?\b\s*(?:[:#]\s*)?(?P<run>[0-9]{1,9}(?:(?:\s*(?:,|;|/|&|\+|\band\b|\bor\b)\s*|\s+)"
    r"(?:\bregions?\b\s*[:#]?\s*)?[0-9]{1,9}(?![0-9]))*)",
    re.IGNORECASE,
)
_NONE_WORDS = re.compile(r"\b(?:none|no regions?|nothing|no such region|empty)\b", re.IGNORECASE)


def all_ints(text: str) -> list[int]:
    """Every unsigned integer (at most 9 digits) in reading order; decimals such as ``3.5`` give ``3``."""
    return [int(m.group()) for m in _INT.finditer(text)]


def region_ids(text: str) -> list[int]:
    """Region ids in reading order, duplicates removed.

    Ids that follow the word "Region(s)" (``Region 3 and Region 4``, ``Regions: 3, 4``) win; without that word
    every integer counts (as the benchmark scorers read them). ``None``/``no region`` gives an empty list.
    """
    runs = [m.group("run") for m in _REGION_RUN.finditer(text)]
    ids = [i for run in runs for i in all_ints(run)] if runs else all_ints(text)
    if not ids:
        if _NONE_WORDS.search(text):
            return []
        raise AnswerParseError(f"no region id found in {_preview(text)}")
    return list(dict.fromkeys(ids))


def first_int_after(text: str, keywords: str) -> int | None:
    """The first integer right after one of ``keywords`` (a regex alternation), or ``None``."""
    m = re.search(rf"\b(?:{keywords})\b\s*(?:#|no\.?|number|:)?\s*([0-9]{{1,9}})(?![0-9])", text, re.IGNORECASE)
    return int(m.group(1)) if m else None


# ---- signed decimals and units ---------------------------------------------------------------------------------
_NUM = re.compile(r"(?<![0-9.A-Za-z_])(?P<sign>[-+]?)(?P<num>[0-9]+(?:\.[0-9]+)?|\.[0-9]+)")
_DEGREE = r"\s*(?:°|º|degrees?\b|degs?\b)"
LENGTH_UNITS: dict[str, float] = {
    "km": 1000.0, "cm": 0.01, "mm": 0.001, "m": 1.0, "ft": 0.3048, "in": 0.0254, "yd": 0.9144, "mi": 1609.344,
}  # fmt: skip
_UNIT = (
    r"(?P<unit>kilomet(?:er|re)s?|km|centimet(?:er|re)s?|cm|millimet(?:er|re)s?|mm|met(?:er|re)s?|m"
    r"|feet|foot|ft|inch(?:es)?|\"|yards?|yd|miles?)"
)
_LENGTH = re.compile(_NUM.pattern + r"\s*" + _UNIT + r"(?![A-Za-z])", re.IGNORECASE)
_INCHES_AFTER = re.compile(r"\s*(?:and\s*)?([0-9]+(?:\.[0-9]+)?)\s*(?:inch(?:es)?|in\b|\")", re.IGNORECASE)


def _unit_factor(unit: str) -> float:
    u = unit.lower()
    for prefix, key in (("kilo", "km"), ("centi", "cm"), ("milli", "mm"), ("met", "m"), ("fe", "ft"),
                        ("fo", "ft"), ("inch", "in"), ('"', "in"), ("yard", "yd"), ("mile", "mi")):  # fmt: skip
        if u.startswith(prefix):
            return LENGTH_UNITS[key]
    return LENGTH_UNITS[u]


def _signed(m: re.Match[str], text: str) -> float:
    """Value of a ``_NUM`` match; a sign glued to a preceding letter or digit (``1-3``, ``x-2``) is a hyphen."""
    value = float(m.group("num"))
    start = m.start("sign")
    if m.group("sign") == "-" and not (start > 0 and text[start - 1].isalnum()):
        value = -value
    if not math.isfinite(value):
        raise AnswerParseError(f"number out of range in {_preview(text)}")
    return value


def numbers(text: str) -> list[float]:
    """Every decimal number in reading order, with its sign (``-160.0`` → -160.0; the dash in ``1-3`` is not a sign)."""
    return [_signed(m, text) for m in _NUM.finditer(text)]


def numbers_at(text: str) -> list[tuple[float, int]]:
    """Like :func:`numbers`, with each number's start position in ``text``."""
    return [(_signed(m, text), m.start()) for m in _NUM.finditer(text)]


def number_before(text: str, unit_pattern: str) -> tuple[float, int] | None:
    """First number directly followed by ``unit_pattern``: ``(value, match start)``, or ``None``."""
    m = re.search(_NUM.pattern + unit_pattern, text, re.IGNORECASE)
    return (_signed(m, text), m.start()) if m else None


def degrees_in(text: str) -> tuple[float, int] | None:
    """First number written with a degree unit (``°``, ``deg``, ``degrees``)."""
    return number_before(text, _DEGREE)


def length_in(text: str) -> tuple[float, int] | None:
    """First length with a unit, converted to metres (``5 ft 3 in`` = 1.6002); ``(metres, match start)`` or ``None``.

    Bare ``in`` is read only right after feet, since "5 in the image" is not a length.
    """
    m = _LENGTH.search(text)
    if m is None:
        return None
    factor = _unit_factor(m.group("unit"))
    metres = _signed(m, text) * factor
    if factor == LENGTH_UNITS["ft"]:
        extra = _INCHES_AFTER.match(text, m.end())
        if extra:
            inches = float(extra.group(1)) * LENGTH_UNITS["in"]
            metres += -inches if metres < 0 else inches
    if not math.isfinite(metres):
        raise AnswerParseError(f"length out of range in {_preview(text)}")
    return metres, m.start()


def format_number(value: float, decimals: int = 2) -> str:
    """Fixed-point text without trailing zeros (``3.50`` → ``3.5``, ``12.00`` → ``12``, never ``-0``).

    Small magnitudes keep more decimals so that a non-zero value is never written as ``0``.
    """
    if not math.isfinite(value):
        raise ValueError(f"cannot write a non-finite number: {value}")
    while decimals < 6 and value != 0 and abs(value) < 10 ** (-decimals):
        decimals += 1
    text = f"{value:.{decimals}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


# ---- python / JSON literals inside prose -----------------------------------------------------------------------
_MAX_STARTS = 64  # bracket positions tried per text, so huge inputs stay linear


def _balanced_span(text: str, start: int) -> str | None:
    """The substring from the bracket at ``start`` to its matching closer (quotes respected), or ``None``."""
    pairs = {"[": "]", "{": "}", "(": ")"}
    stack: list[str] = []
    quote: str | None = None
    i = start
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch in pairs:
            stack.append(pairs[ch])
        elif ch in ")]}":
            if not stack or stack.pop() != ch:
                return None
            if not stack:
                return text[start : i + 1]
        i += 1
    return None


def literal_at(text: str, start: int) -> Any:
    """Decode the JSON or Python literal starting at ``text[start]``; ``None`` when it is neither."""
    try:
        return json.JSONDecoder().raw_decode(text, start)[0]
    except (ValueError, RecursionError):
        pass
    span = _balanced_span(text, start)
    if span is None:
        return None
    try:
        return ast.literal_eval(span)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def literals(text: str, openers: str) -> list[tuple[int, Any]]:
    """Decodable literals starting at any of the ``openers`` characters, as ``(position, value)``."""
    found: list[tuple[int, Any]] = []
    starts = [i for i, ch in enumerate(text) if ch in openers][:_MAX_STARTS]
    for i in starts:
        value = literal_at(text, i)
        if value is not None:
            found.append((i, value))
    return found


def _preview(text: str, limit: int = 80) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "…")


preview = _preview


# ---- validation and patterns used by agent.answers -------------------------------------------------------------
def check_ids(ids: Any, what: str) -> tuple[int, ...]:
    out = tuple(ids)
    if not all(isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in out):
        raise ValueError(f"{what} must be non-negative integers, got {out!r}")
    return out


def check_finite(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{what} must be a finite number, got {value!r}")
    return float(value)


def wrap_degrees(degrees: float, signed: bool) -> float:
    """Degrees in [0, 360), or (-180, 180] when ``signed``, after rounding to 0.1° (so 359.96 gives 0.0)."""
    d = round(degrees % 360.0, 1) % 360.0
    if signed and d > 180.0:
        d -= 360.0
    return d + 0.0  # turns -0.0 into 0.0

LETTER_PATTERNS = [  # tried in order on the upper-cased text, like AirCopBench's extractor
    re.compile(r"ANSWER(?:\s+IS)?\s*[:：]?\s*(?:OPTION\s*)?[\(\[]?([A-E])\b"),
    re.compile(r"\(([A-E])\)"),
    re.compile(r"^\s*([A-E])\s*[:.)\]]"),
    re.compile(r"OPTION\s*[\(\[]?([A-E])\b"),
    re.compile(r"\b([A-E])\s*[.)]?\s*$"),
]
CAPITAL_LETTER = re.compile(r"\b([A-E])\b(?!\s+[a-z])")  # a capital letter not used as an article ("A dog")

CLOCK_PATTERN = re.compile(r"(?<![0-9])([0-9]{1,2})\s*(?::00\s*)?o\s*'?\s*clock", re.IGNORECASE)

PAIR_PATTERN = re.compile(
    r"(?<![0-9])([0-9]{1,9})\s*(?:-+>?|<->|↔|→|:|~)\s*(?:regions?\s*)?([0-9]{1,9})(?![0-9])"
    r"|\(\s*([0-9]{1,9})\s*,\s*([0-9]{1,9})\s*\)",
    re.IGNORECASE,
)

BOX_PATTERN = re.compile(r"[\[(]\s*([^\[\]()]*?)\s*[\])]")

YES_NO_PATTERN = re.compile(r"\b(yes|no|true|false|correct|incorrect)\b", re.IGNORECASE)

ACTION_KEYS: tuple[str, ...] = (
    "action", "direction", "distance", "speed", "duration", "rotate_direction", "adjust_direction", "zoom_level",
)  # fmt: skip
ACTION_NAMES = ("move", "rotate", "adjust", "zoom")


def action_step(raw: Any) -> dict[str, Any]:
    """One BEDI action with all eight keys (unused = 0), strings lower-cased; unknown keys are dropped."""
    if not isinstance(raw, dict):
        raise ValueError(f"an action step must be a dict, got {type(raw).__name__}")
    step: dict[str, Any] = {}
    for key in ACTION_KEYS:
        value = raw.get(key, 0)
        if value is None:
            value = 0
        if isinstance(value, str):
            value = value.strip().lower()
        elif isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ValueError(f"action field {key!r} must be a string or a finite number, got {value!r}")
        step[key] = value
    if step["action"] not in ACTION_NAMES:
        raise ValueError(f"action must be one of {ACTION_NAMES}, got {step['action']!r}")
    return step
