"""Canonical answers for measured quantities of free-form questions: compass points, lengths in the unit asked
for, ground footprints, ground sampling distances, counts, labels and a chosen image.

Like the benchmark formats of ``agent.answers``: ``render()`` gives the exact text, ``parse(text)`` reads it back
(or messy model output) and raises :class:`AnswerParseError`. Lengths are held in metres and written in ``unit``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar, Self

from agent.answer_formats import AnswerFormat
from agent.answer_parsing import (
    LENGTH_UNITS, AnswerParseError, check_finite, clean, degrees_in, format_number, length_in, preview,
)

COMPASS_POINTS = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
UNIT_NAMES = {"m": "metres", "km": "kilometres", "cm": "centimetres", "mm": "millimetres", "ft": "feet",
              "in": "inches", "yd": "yards", "mi": "miles"}
_WORD_POINTS = {"north": "N", "northeast": "NE", "east": "E", "southeast": "SE", "south": "S", "southwest": "SW",
                "west": "W", "northwest": "NW"}


def _unit(unit: str) -> str:
    if unit not in LENGTH_UNITS:
        raise ValueError(f"unknown length unit {unit!r}; known: {', '.join(LENGTH_UNITS)}")
    return unit


def _in_unit(metres: float, unit: str) -> str:
    return f"{format_number(metres / LENGTH_UNITS[unit], 1 if unit not in ('km', 'mi') else 3)} {UNIT_NAMES[unit]}"


def _unit_named(text: str) -> str:
    """The unit key of the first unit name written in ``text`` (``"feet"`` -> ``"ft"``), metres by default."""
    m = re.search(r"\b(" + "|".join(UNIT_NAMES.values()) + r")\b", text)
    return next(k for k, v in UNIT_NAMES.items() if v == m.group(1)) if m else "m"


def compass_point(bearing_deg: float) -> str:
    """The 8-point compass name of a bearing (degrees clockwise from north)."""
    return COMPASS_POINTS[int(((bearing_deg % 360.0) + 22.5) // 45.0) % 8]


@dataclass(frozen=True)
class Compass:
    """A compass direction; renders ``NE (47 degrees from north)``."""

    bearing_deg: float
    format: ClassVar[AnswerFormat] = AnswerFormat.COMPASS

    def __post_init__(self) -> None:
        object.__setattr__(self, "bearing_deg", check_finite(self.bearing_deg, "bearing") % 360.0)

    def render(self) -> str:
        whole = round(self.bearing_deg) % 360  # 359.6 is written 0, never 360
        return f"{compass_point(whole)} ({whole} degrees from north)"

    @classmethod
    def parse(cls, text: str) -> Self:
        t = clean(text)
        deg = degrees_in(t)
        if deg is not None:
            return cls(deg[0])
        m = re.search(r"\b(NE|SE|SW|NW|N|E|S|W)\b", t)
        if m:
            return cls(COMPASS_POINTS.index(m.group(1)) * 45.0)
        m = re.search(r"\b(north|south)?[\s-]?(east|west)?\b", t.lower())
        word = "".join(g for g in (m.groups() if m else ()) if g)
        if word in _WORD_POINTS:
            return cls(COMPASS_POINTS.index(_WORD_POINTS[word]) * 45.0)
        raise AnswerParseError(f"no compass direction found in {preview(t)}")


@dataclass(frozen=True)
class Length:
    """A length held in metres and written in ``unit``: ``27.5 metres``, ``90.2 feet``."""

    metres: float
    unit: str = "m"
    format: ClassVar[AnswerFormat] = AnswerFormat.LENGTH

    def __post_init__(self) -> None:
        object.__setattr__(self, "metres", check_finite(self.metres, "length"))
        object.__setattr__(self, "unit", _unit(self.unit))

    def render(self) -> str:
        return _in_unit(self.metres, self.unit)

    @classmethod
    def parse(cls, text: str) -> Self:
        found = length_in(clean(text))
        if found is None:
            raise AnswerParseError(f"no length with a unit found in {preview(text)}")
        return cls(found[0], _unit_named(text))


@dataclass(frozen=True)
class Footprint:
    """Ground width x height of a photo; renders ``86.9 x 65.2 metres``."""

    width_m: float
    height_m: float
    unit: str = "m"
    format: ClassVar[AnswerFormat] = AnswerFormat.FOOTPRINT

    def __post_init__(self) -> None:
        for name in ("width_m", "height_m"):
            object.__setattr__(self, name, check_finite(getattr(self, name), name))
        object.__setattr__(self, "unit", _unit(self.unit))

    def render(self) -> str:
        return f"{_in_unit(self.width_m, self.unit)} x {_in_unit(self.height_m, self.unit)}"

    @classmethod
    def parse(cls, text: str) -> Self:
        t = clean(text)
        parts = re.split(r"\s+(?:x|by)\s+|\s*\u00d7\s*", t, maxsplit=1)
        first = length_in(parts[0])
        second = length_in(parts[1]) if len(parts) == 2 else None
        if first is None or second is None:
            raise AnswerParseError(f"need a width and a height with units in {preview(t)}")
        return cls(first[0], second[0], _unit_named(t))


@dataclass(frozen=True)
class GroundResolution:
    """Ground sampling distance, held in metres per pixel and written in ``unit`` per pixel: ``2.1 cm/px``."""

    m_per_px: float
    unit: str = "cm"
    format: ClassVar[AnswerFormat] = AnswerFormat.GSD

    def __post_init__(self) -> None:
        object.__setattr__(self, "m_per_px", check_finite(self.m_per_px, "ground sampling distance"))
        object.__setattr__(self, "unit", _unit(self.unit))

    def render(self) -> str:
        return f"{format_number(self.m_per_px / LENGTH_UNITS[self.unit], 2)} {self.unit}/px"

    @classmethod
    def parse(cls, text: str) -> Self:
        m = re.search(r"(-?\d+(?:\.\d+)?)\s*(km|cm|mm|m|ft|in|yd|mi)\s*(?:/|per)\s*(?:px|pixel)", clean(text))
        if not m:
            raise AnswerParseError(f"no length per pixel found in {preview(text)}")
        return cls(float(m.group(1)) * LENGTH_UNITS[m.group(2)], m.group(2))


@dataclass(frozen=True)
class Count:
    """A number of objects of one class; renders ``14 person``-style text as ``14 (person)``."""

    n: int
    label: str = "object"
    format: ClassVar[AnswerFormat] = AnswerFormat.COUNT

    def __post_init__(self) -> None:
        if isinstance(self.n, bool) or not isinstance(self.n, int) or self.n < 0:
            raise ValueError(f"count must be a non-negative integer, got {self.n!r}")

    def render(self) -> str:
        return f"{self.n} ({self.label})"

    @classmethod
    def parse(cls, text: str) -> Self:
        t = clean(text)
        m = re.match(r"\s*(\d+)\s*(?:\((.+)\))?", t)
        if not m:
            raise AnswerParseError(f"no count found in {preview(t)}")
        return cls(int(m.group(1)), (m.group(2) or "object").strip())


@dataclass(frozen=True)
class Label:
    """A word or short phrase naming a state (``oblique``, ``blur``, ``moving forward``)."""

    text: str
    format: ClassVar[AnswerFormat] = AnswerFormat.LABEL

    def __post_init__(self) -> None:
        if not isinstance(self.text, str) or not self.text.strip():
            raise ValueError("a label must be a non-empty string")

    def render(self) -> str:
        return self.text.strip()

    @classmethod
    def parse(cls, text: str) -> Self:
        return cls(clean(text))


@dataclass(frozen=True)
class Choice:
    """One of the given images, 1-based; renders ``photo 3``."""

    image: int
    format: ClassVar[AnswerFormat] = AnswerFormat.CHOICE

    def __post_init__(self) -> None:
        if isinstance(self.image, bool) or not isinstance(self.image, int) or self.image < 1:
            raise ValueError(f"image number must be a positive integer, got {self.image!r}")

    def render(self) -> str:
        return f"photo {self.image}"

    @classmethod
    def parse(cls, text: str) -> Self:
        m = re.search(r"(?:photo|image|picture|frame)\s*(\d+)", clean(text), re.I)
        if not m:
            raise AnswerParseError(f"no image number found in {preview(text)}")
        return cls(int(m.group(1)))


@dataclass(frozen=True)
class Compound:
    """The answers to two questions asked in one, each rendered in its own format, joined by ``; ``."""

    parts: tuple[str, ...]
    format: ClassVar[AnswerFormat] = AnswerFormat.COMPOUND

    def __post_init__(self) -> None:
        parts = tuple(str(p).strip() for p in self.parts)
        if len(parts) < 2 or not all(parts) or any("; " in p for p in parts):
            raise ValueError(f"a compound answer needs two or more non-empty parts without '; ', got {self.parts!r}")
        object.__setattr__(self, "parts", parts)

    def render(self) -> str:
        return "; ".join(self.parts)

    @classmethod
    def parse(cls, text: str) -> Self:
        try:
            return cls(tuple(clean(text).split("; ")))
        except ValueError as exc:
            raise AnswerParseError(str(exc)) from None


MEASURE_TYPES = (Compass, Length, Footprint, GroundResolution, Count, Label, Choice, Compound)
