"""Yes/no questions that compare a measured quantity with a number the question states: "is the drone higher than
100 m?", "are there more than ten people?", "did the camera turn by over 30 degrees?", "is the GSD better than
2 cm per pixel?".

The parser reads the comparison (:func:`read_comparison`) into the program's ``compare`` field and asks the
quantity's own operation for its value; :func:`judge` then answers yes or no against the threshold, converted to
the operation's units. An answer within :data:`CLOSE_SHARE` of the threshold is given with low confidence: the
measurement's own error can decide it either way.
"""

from __future__ import annotations

import re

from planners.evidence import Evidence, found, undecided
from planners.program import Ask, Comparison

COMPASS_POINTS = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
_POINT_WORDS = {"north": "N", "northeast": "NE", "east": "E", "southeast": "SE", "south": "S", "southwest": "SW",
                "west": "W", "northwest": "NW"}
_POINT_RX = re.compile(r"\b(north|south)[- ]?(east|west)(?:wards?|erly)?\b|\b(north|south|east|west)(?:wards?|erly)?\b|"
                       r"\b(ne|nw|se|sw)\b")
SECTOR_HALF_DEG = 22.5  # an 8-point compass name covers 45 degrees
CLOSE_SECTOR_DEG = 7.5  # a bearing this close to the sector's edge is a close call

CLOSE_SHARE = 0.1  # |measured - threshold| within this share of the threshold: a close call
CLOSE_CONFIDENCE = 0.5

_NUMBER_WORDS = {w: float(i) for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty".split())} | {"thirty": 30.0, "forty": 40.0, "fifty": 50.0, "hundred": 100.0,
                                                     "a hundred": 100.0, "a dozen": 12.0, "dozen": 12.0}
# the comparison words, by the relation they state (a smaller GSD is a finer, "better" one)
_OPS = {
    "gt": r"more than|greater than|higher than|larger than|bigger than|further than|farther than|longer than|faster than|"
          r"wider than|over|above|exceed(?:s|ed|ing)?|in excess of|upwards of|worse than|coarser than",
    "ge": r"at least|no less than|no fewer than|not less than",
    "lt": r"less than|fewer than|lower than|smaller than|shorter than|closer than|nearer than|narrower than|slower than|"
          r"under|"
          r"below|better than|finer than|sharper than",
    "le": r"at most|no more than|not more than|no higher than|up to|within",
}
_NUM = r"(\d+(?:\.\d+)?|" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True)) + r")"
_UNIT = (r"(m/s|metres per second|km/h|kilometres per hour|mph|miles per hour|knots|metres?|m|kilometres?|km|feet|foot|"
         r"ft|yards?|miles?|centimetres?|cm|millimetres?|mm|inch(?:es)?|degrees?|deg|°)?")
_RX = re.compile(r"\b(" + "|".join(f"(?P<{op}>{words})" for op, words in _OPS.items()) + r")\s+(?:the\s+)?"
                 r"(?P<num>" + _NUM + r")\s*(?P<unit>" + _UNIT + r")(?![\w.])")
_UNIT_NAMES = {"metre": "m", "metres": "m", "m": "m", "kilometre": "km", "kilometres": "km", "km": "km", "feet": "ft",
               "foot": "ft", "ft": "ft", "yard": "yd", "yards": "yd", "mile": "mi", "miles": "mi", "centimetre": "cm",
               "centimetres": "cm", "cm": "cm", "millimetre": "mm", "millimetres": "mm", "mm": "mm", "inch": "in",
               "inches": "in", "degree": "deg", "degrees": "deg", "deg": "deg", "°": "deg", "m/s": "m/s",
               "metres per second": "m/s", "km/h": "km/h", "kilometres per hour": "km/h", "mph": "mph",
               "miles per hour": "mph", "knots": "kn"}
#: Speeds in metres per second.
SPEEDS = {"m/s": 1.0, "km/h": 1 / 3.6, "mph": 0.44704, "kn": 0.514444}
_METRES = {"m": 1.0, "km": 1000.0, "ft": 0.3048, "yd": 0.9144, "mi": 1609.344, "cm": 0.01, "mm": 0.001, "in": 0.0254}
LENGTHS = frozenset(_METRES)
#: The asks a comparison can be judged for: the operation whose value is compared.
COMPARABLE = (Ask.ALTITUDE, Ask.DISTANCE, Ask.COUNT, Ask.GSD, Ask.HEADING_CHANGE, Ask.TURNED, Ask.SPEED)


def read_comparison(text: str) -> Comparison | None:
    """The first "<comparison> <number> [unit]" of a normalised question, or None."""
    m = _RX.search(text)
    if m is None:
        return None
    op = next(name for name in _OPS if m.group(name))
    word = m.group("num")
    value = float(word) if word[0].isdigit() else _NUMBER_WORDS.get(word)
    unit = _UNIT_NAMES.get(m.group("unit") or "")
    return Comparison(op=op, value=value, unit=unit) if value is not None else None


def measured(ask: Ask, value: dict) -> tuple[float, str] | None:
    """The compared number of an operation's answer value, with its unit ("m", "deg", "m/px" or "" for counts)."""
    if ask in (Ask.ALTITUDE, Ask.DISTANCE) and "metres" in value:
        return float(value["metres"]), "m"
    if ask == Ask.COUNT and "n" in value:
        return float(value["n"]), ""
    if ask == Ask.GSD and "m_per_px" in value:
        return float(value["m_per_px"]), "m/px"
    if ask in (Ask.HEADING_CHANGE, Ask.TURNED) and "degrees" in value:
        deg = float(value["degrees"]) % 360.0
        return min(deg, 360.0 - deg), "deg"   # the size of the turn, either way round
    return None


def threshold(c: Comparison, unit: str) -> float | None:
    """The comparison's number in ``unit`` (see :func:`measured`); None when its stated unit does not fit. A bare
    number compares a length in metres, a GSD in centimetres per pixel."""
    if unit in ("", "deg"):
        return c.value if c.unit is None or c.unit == unit else None
    if unit == "m/s":
        return c.value * SPEEDS[c.unit or "m/s"] if (c.unit or "m/s") in SPEEDS else None
    if c.unit == "deg" or c.unit in SPEEDS:
        return None
    return c.value * _METRES[c.unit or ("cm" if unit == "m/px" else "m")]


def judge(c: Comparison, ask: Ask, evidence: Evidence) -> Evidence:
    """Yes or no: does the operation's measured value satisfy the comparison?"""
    if evidence.get("value") is None:
        return evidence
    got = evidence.get("measured") or measured(ask, evidence["value"])  # an operation may state its number
    if got is None:
        return undecided(f"the {ask.value} could not be compared with {c.value:g}")
    value, unit = got
    limit = threshold(c, unit)
    if limit is None:
        return undecided(f"the {ask.value} is measured in {unit or 'objects'}, which {c.value:g} {c.unit} is not")
    holds = {"gt": value > limit, "ge": value >= limit, "lt": value < limit, "le": value <= limit}[c.op]
    close = abs(value - limit) <= CLOSE_SHARE * abs(limit)
    conf = min(float(evidence.get("confidence", 0.0)), CLOSE_CONFIDENCE) if close else evidence.get("confidence", 0.0)
    shown = f"{value:.4g} {unit}".strip()
    note = f"measured {shown} against {c.op} {limit:.4g}" + ("" if not evidence.get("reason") else
                                                            f" ({evidence['reason']})")
    return found({"value": bool(holds)}, conf, note)


def named_points(text: str) -> list[str]:
    """The 8-point compass directions a normalised question names, in order ("facing north-east?" -> ["NE"])."""
    out = []
    for m in _POINT_RX.finditer(text):
        word = (m.group(1) + m.group(2)) if m.group(1) else (m.group(3) or m.group(4))
        out.append(_POINT_WORDS.get(word, word.upper()))
    return out


def judge_point(point: str, evidence: Evidence) -> Evidence:
    """Yes or no: does the measured bearing (``bearing_deg``) lie in the named 8-point direction's 45-degree sector?
    The same sector the compass answer names, so the yes/no and the value answers agree."""
    named = named_points(point.lower())
    point = named[0] if len(named) == 1 else point.upper()  # an LLM's program may write "north-east" for NE
    if point not in COMPASS_POINTS:
        return undecided(f"the direction asked about, {point!r}, is no 8-point compass direction (N, NE, ... NW)")
    if evidence.get("value") is None:
        return evidence
    bearing = float(evidence["value"]["bearing_deg"])
    off = abs((bearing - 45.0 * COMPASS_POINTS.index(point) + 180.0) % 360.0 - 180.0)
    close = abs(off - SECTOR_HALF_DEG) <= CLOSE_SECTOR_DEG
    confidence = min(evidence["confidence"], CLOSE_CONFIDENCE) if close else evidence["confidence"]
    note = f"bearing {bearing:.0f} degrees is {off:.0f} degrees from {point}"
    return found({"value": off <= SECTOR_HALF_DEG}, confidence, "; ".join(filter(None, [evidence.get("reason"), note])))
