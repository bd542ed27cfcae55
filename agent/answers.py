"""Canonical answers: one typed value per benchmark answer format.

``render()`` gives exactly the string the benchmark scorers read (and never a stray number: scorers read every
integer); ``parse(text)`` reads messy model output (``<think>`` blocks, extra words, unicode quotes) and raises
:class:`AnswerParseError` with the reason when it cannot. Conventions: angles in degrees, clockwise positive;
distances in metres; boxes ``[x1, y1, x2, y2]`` in pixels (origin top-left) or normalised to 0–1.
See ``docs/answers.md``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

from agent.answer_formats import AnswerFormat
from agent.answers_measure import MEASURE_TYPES
from agent.answer_parsing import (  # noqa: I001 (kept compact)
    ACTION_KEYS, ACTION_NAMES, BOX_PATTERN, CAPITAL_LETTER, CLOCK_PATTERN, LETTER_PATTERNS, PAIR_PATTERN,
    YES_NO_PATTERN, AnswerParseError, action_step, check_finite, check_ids, all_ints, clean, degrees_in,
    first_int_after, format_number, length_in, literals, numbers, numbers_at, preview, region_ids, strip_think,
    wrap_degrees,
)

__all__ = [
    "ANSWER_TYPES", "ACTION_KEYS", "Actions", "Angle", "AngleDistance", "AnswerFormat", "AnswerParseError", "BBox",
    "Clock", "DirectionLabel", "FreeText", "OptionLetter", "Quantity", "RegionList", "RegionPairs", "RegionSet",
    "YesNo", "parse_answer", "strip_think",
]  # fmt: skip


# ---- choices and ids -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OptionLetter:
    """A multiple-choice option, ``A``–``E``; renders the bare letter."""

    letter: str
    format: ClassVar[AnswerFormat] = AnswerFormat.OPTION_LETTER

    def __post_init__(self) -> None:
        if not isinstance(self.letter, str) or self.letter.upper() not in ("A", "B", "C", "D", "E"):
            raise ValueError(f"option letter must be one of A-E, got {self.letter!r}")
        object.__setattr__(self, "letter", self.letter.upper())

    def render(self) -> str:
        return self.letter

    @classmethod
    def parse(cls, text: str) -> Self:
        t = clean(text)
        if len(t.rstrip(".)")) == 1 and t[0].upper() in "ABCDE":
            return cls(t[0])
        upper = t.upper()
        for pattern in LETTER_PATTERNS:
            m = pattern.search(upper)
            if m:
                return cls(m.group(1))
        m = CAPITAL_LETTER.search(t)
        if m:
            return cls(m.group(1))
        raise AnswerParseError(f"no option letter A-E found in {preview(t)}")


def _region_text(ids: tuple[int, ...]) -> str:
    return "Region " + ", ".join(str(i) for i in ids) if ids else "None"


@dataclass(frozen=True)
class RegionSet:
    """An unordered set of region ids; renders sorted and unique, ``Region 3, 4`` (empty: ``None``)."""

    ids: tuple[int, ...]
    format: ClassVar[AnswerFormat] = AnswerFormat.REGION_SET

    def __post_init__(self) -> None:
        object.__setattr__(self, "ids", tuple(sorted(set(check_ids(self.ids, "region ids")))))

    def render(self) -> str:
        return _region_text(self.ids)

    @classmethod
    def parse(cls, text: str) -> Self:
        return cls(tuple(region_ids(clean(text))))


@dataclass(frozen=True)
class RegionList:
    """An ordered list of region ids (order is the answer); renders ``Region 1, 3, 2`` (empty: ``None``)."""

    ids: tuple[int, ...]
    format: ClassVar[AnswerFormat] = AnswerFormat.REGION_LIST

    def __post_init__(self) -> None:
        object.__setattr__(self, "ids", tuple(dict.fromkeys(check_ids(self.ids, "region ids"))))

    def render(self) -> str:
        return _region_text(self.ids)

    @classmethod
    def parse(cls, text: str) -> Self:
        return cls(tuple(region_ids(clean(text))))




@dataclass(frozen=True)
class Clock:
    """A clock direction, hour 1–12 (12 = straight ahead / image up, 3 = right); renders ``7 o'clock``."""

    hour: int
    format: ClassVar[AnswerFormat] = AnswerFormat.CLOCK

    def __post_init__(self) -> None:
        if isinstance(self.hour, bool) or not isinstance(self.hour, int) or not 0 <= self.hour <= 12:
            raise ValueError(f"clock hour must be an integer 1-12 (0 means 12), got {self.hour!r}")
        object.__setattr__(self, "hour", self.hour or 12)

    def render(self) -> str:
        return f"{self.hour} o'clock"

    @classmethod
    def parse(cls, text: str) -> Self:
        t = clean(text)
        m = CLOCK_PATTERN.search(t)
        if m:
            hour = int(m.group(1))
        else:
            ints = all_ints(t)
            if len(ints) != 1:
                raise AnswerParseError(f"no clock direction like '5 o'clock' found in {preview(t)}")
            hour = ints[0]
        if hour > 12:
            raise AnswerParseError(f"clock hour must be 1-12, got {hour} in {preview(t)}")
        return cls(hour)


@dataclass(frozen=True)
class DirectionLabel:
    """A numbered direction or arrow (SpatialUAV path planning); renders ``Direction 3``."""

    index: int
    format: ClassVar[AnswerFormat] = AnswerFormat.DIRECTION_LABEL

    def __post_init__(self) -> None:
        check_ids((self.index,), "direction index")

    def render(self) -> str:
        return f"Direction {self.index}"

    @classmethod
    def parse(cls, text: str) -> Self:
        t = clean(text)
        index = first_int_after(t, "directions?|arrows?|options?|paths?")
        if index is None:
            ints = all_ints(t)
            if not ints:
                raise AnswerParseError(f"no direction number found in {preview(t)}")
            index = ints[0]
        return cls(index)


# ---- angles and metric values ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Angle:
    """An angle in degrees, clockwise positive; renders ``200.0 degrees`` in [0, 360) or, when ``signed``,
    ``-160.0 degrees`` in (-180, 180]."""

    degrees: float
    signed: bool = False
    format: ClassVar[AnswerFormat] = AnswerFormat.ANGLE

    def __post_init__(self) -> None:
        object.__setattr__(self, "degrees", check_finite(self.degrees, "angle"))

    def render(self) -> str:
        return f"{wrap_degrees(self.degrees, self.signed):.1f} degrees"

    @classmethod
    def parse(cls, text: str) -> Self:
        t = clean(text)
        found = degrees_in(t)
        if found is None:
            values = numbers(t)
            if not values:
                raise AnswerParseError(f"no angle found in {preview(t)}")
            value = values[0]
        else:
            value = found[0]
        return cls(value, signed=value < 0)


@dataclass(frozen=True)
class AngleDistance:
    """Heading offset (degrees, clockwise, written in (-180, 180]) and a signed distance in metres;
    renders ``-160.0 degrees, -70.0 meters``."""

    degrees: float
    metres: float
    format: ClassVar[AnswerFormat] = AnswerFormat.ANGLE_DISTANCE

    def __post_init__(self) -> None:
        object.__setattr__(self, "degrees", check_finite(self.degrees, "angle"))
        object.__setattr__(self, "metres", check_finite(self.metres, "distance"))

    def render(self) -> str:
        return f"{wrap_degrees(self.degrees, True):.1f} degrees, {round(self.metres, 1) + 0.0:.1f} meters"

    @classmethod
    def parse(cls, text: str) -> Self:
        t = clean(text)
        angle, length = degrees_in(t), length_in(t)
        if angle is not None and length is not None and angle[1] != length[1]:
            return cls(angle[0], length[0])
        values = numbers_at(t)
        if angle is not None and len(values) >= 2:  # "-160 degrees, -70": the other number is the distance
            return cls(angle[0], next(v for v, pos in values if pos != angle[1]))
        if length is not None and len(values) >= 2:
            return cls(next(v for v, pos in values if pos != length[1]), length[0])
        if len(values) < 2:
            raise AnswerParseError(f"need an angle and a distance, found {len(values)} number(s) in {preview(t)}")
        return cls(values[0][0], values[1][0])


@dataclass(frozen=True)
class Quantity:
    """A length in metres; renders ``3.5 meters``. Parsing converts km, m, cm, mm, ft/feet, inch(es), yards, miles."""

    metres: float
    format: ClassVar[AnswerFormat] = AnswerFormat.QUANTITY

    def __post_init__(self) -> None:
        object.__setattr__(self, "metres", check_finite(self.metres, "quantity"))

    def render(self) -> str:
        return f"{format_number(self.metres)} meters"

    @classmethod
    def parse(cls, text: str) -> Self:
        t = clean(text)
        found = length_in(t)
        if found is not None:
            return cls(found[0])
        values = numbers(t)
        if not values:
            raise AnswerParseError(f"no length found in {preview(t)}")
        return cls(values[0])  # a bare number is read as metres, as the Open3D-VQA scorer does


# ---- pairs, boxes, yes/no, text, actions -----------------------------------------------------------------------


@dataclass(frozen=True)
class RegionPairs:
    """Corresponding region ids ``(a, b)`` between two images, order kept; renders ``1-3, 2-5`` (empty: ``None``)."""

    pairs: tuple[tuple[int, int], ...]
    format: ClassVar[AnswerFormat] = AnswerFormat.REGION_PAIRS

    def __post_init__(self) -> None:
        pairs = tuple(tuple(p) for p in self.pairs)
        if not all(len(p) == 2 for p in pairs):
            raise ValueError(f"region pairs must have two ids each, got {self.pairs!r}")
        object.__setattr__(self, "pairs", tuple((a, b) for a, b in (check_ids(p, "region pair ids") for p in pairs)))

    def render(self) -> str:
        return ", ".join(f"{a}-{b}" for a, b in self.pairs) if self.pairs else "None"

    @classmethod
    def parse(cls, text: str) -> Self:
        t = re.sub(r"\bregions?\s*", "", clean(text), flags=re.IGNORECASE)
        pairs = [(int(m[1] or m[3]), int(m[2] or m[4])) for m in PAIR_PATTERN.finditer(t)]
        if not pairs and re.search(r"\b(?:none|no (?:shared )?(?:region )?pairs?|nothing)\b", t, re.IGNORECASE):
            return cls(())
        if not pairs:
            raise AnswerParseError(f"no region pair like '1-3' found in {preview(t)}")
        return cls(tuple(pairs))




@dataclass(frozen=True)
class BBox:
    """A box ``[x1, y1, x2, y2]`` (corners sorted); pixels render as integers ``[823, 189, 932, 249]``, normalised
    boxes (0–1 of width/height) with two decimals ``[0.12, 0.30, 0.45, 0.61]``."""

    x1: float
    y1: float
    x2: float
    y2: float
    normalized: bool = False
    format: ClassVar[AnswerFormat] = AnswerFormat.BBOX

    def __post_init__(self) -> None:
        v = [check_finite(getattr(self, k), k) for k in ("x1", "y1", "x2", "y2")]
        if self.normalized and not all(0.0 <= c <= 1.0 for c in v):
            raise ValueError(f"a normalised box needs coordinates in [0, 1], got {v}")
        for name, value in zip(("x1", "y1", "x2", "y2"), (min(v[0], v[2]), min(v[1], v[3]), max(v[0], v[2]),
                                                            max(v[1], v[3]))):  # fmt: skip
            object.__setattr__(self, name, value)

    def as_list(self) -> list[float]:
        return [self.x1, self.y1, self.x2, self.y2]

    def render(self) -> str:
        if self.normalized:
            return "[" + ", ".join(f"{c:.2f}" for c in self.as_list()) + "]"
        return "[" + ", ".join(str(round(c)) for c in self.as_list()) + "]"

    @classmethod
    def parse(cls, text: str) -> Self:
        t = clean(text)
        chunks = [m.group(1) for m in BOX_PATTERN.finditer(t)]
        chunk = next((c for c in chunks if len(numbers(c)) == 4), None)
        source = chunk if chunk is not None else t
        values = numbers(source)
        if len(values) < 4:
            raise AnswerParseError(f"need four box coordinates, found {len(values)} in {preview(t)}")
        normalized = all(0.0 <= v <= 1.0 for v in values[:4]) and "." in source
        return cls(*values[:4], normalized=normalized)




@dataclass(frozen=True)
class YesNo:
    """A yes/no answer; renders ``Yes`` or ``No``."""

    value: bool
    format: ClassVar[AnswerFormat] = AnswerFormat.YES_NO

    def render(self) -> str:
        return "Yes" if self.value else "No"

    @classmethod
    def parse(cls, text: str) -> Self:
        t = clean(text)
        m = YES_NO_PATTERN.search(t)
        if m is None:
            raise AnswerParseError(f"no yes/no found in {preview(t)}")
        return cls(m.group(1).lower() in ("yes", "true", "correct"))


@dataclass(frozen=True)
class FreeText:
    """Free-form text (descriptions, motion); rendered as given, stripped of ``<think>`` blocks."""

    text: str
    format: ClassVar[AnswerFormat] = AnswerFormat.FREE_TEXT

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise ValueError(f"free text must be a string, got {type(self.text).__name__}")

    def render(self) -> str:
        return self.text.strip()

    @classmethod
    def parse(cls, text: str) -> Self:
        t = strip_think(text)  # no character translation: the text is the answer
        if not t:
            raise AnswerParseError("empty answer (nothing left after removing <think> blocks and whitespace)")
        return cls(t)




@dataclass(frozen=True)
class Actions:
    """A BEDI action sequence: dicts with keys ``ACTION_KEYS`` (unused = 0); renders a JSON list."""

    steps: tuple[dict[str, Any], ...] = field(hash=False)
    format: ClassVar[AnswerFormat] = AnswerFormat.ACTIONS

    def __post_init__(self) -> None:
        object.__setattr__(self, "steps", tuple(action_step(s) for s in self.steps))

    def render(self) -> str:
        return json.dumps(list(self.steps))

    @classmethod
    def parse(cls, text: str) -> Self:
        t = clean(text)
        found = [v for _, v in literals(t, "[")
                 if isinstance(v, list) and v and all(isinstance(s, dict) for s in v)]  # fmt: skip
        if not found:  # dicts written one after another without an enclosing list
            found = [[v for _, v in literals(t, "{") if isinstance(v, dict)]]
        errors: list[str] = []
        for steps in found:
            if not steps:
                continue
            try:
                return cls(tuple(steps))
            except ValueError as exc:
                errors.append(str(exc))
        detail = f" ({errors[-1]})" if errors else ""
        raise AnswerParseError(f"no list of action dicts found in {preview(t)}{detail}")


AnswerValue = (
    OptionLetter | RegionSet | RegionList | Clock | DirectionLabel | Angle | AngleDistance | RegionPairs | BBox
    | YesNo | Quantity | FreeText | Actions
)
ANSWER_TYPES: dict[AnswerFormat, type] = {
    cls.format: cls
    for cls in (OptionLetter, RegionSet, RegionList, Clock, DirectionLabel, Angle, AngleDistance, RegionPairs, BBox,
                YesNo, Quantity, FreeText, Actions, *MEASURE_TYPES)  # fmt: skip
}


def parse_answer(fmt: AnswerFormat | str, text: str) -> AnswerValue:
    """Parse ``text`` as answer format ``fmt`` (an :class:`AnswerFormat` or its value, e.g. ``"clock"``)."""
    try:
        key = AnswerFormat(fmt)
    except ValueError:
        raise AnswerParseError(f"unknown answer format {fmt!r}; known: {[f.value for f in AnswerFormat]}") from None
    return ANSWER_TYPES[key].parse(text)
