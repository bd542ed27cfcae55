"""Referents and stated values in a normalised question (``planners.lexicon.normalise``).

Regions are named many ways: "region 3", "box 3", "area 3", "mark 3", "label 3", "#3", "R3", "the box numbered
3", "marked areas 2 and 0", "regions 4 and 5"; ids start at 0. Images are "image 2", "the second photo", "shot B",
"photo one". Values the question states (an altitude, a focal length, a sensor width, a pitch, the ground width of
the frame) are read with their units and removed from the text, so that "at 40 metres" is not read as a question
about distance.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_NUM = r"(\d+(?:\.\d+)?)"
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "last": -1, "one": 1, "two": 2,
             "three": 3, "four": 4, "five": 5, "a": 1, "b": 2, "c": 3, "d": 4}
REGION_NOUNS = (r"regions?|box(?:es)?|bbox(?:es)?|areas?|marks?|markers?|labels?|tags?|rectangles?|patch(?:es)?|spots?|"
                r"zones?|items?|targets?|objects?|rois?|ids?|polygons?|outlines?|shapes?|circles?|annotations?|masks?")
_REGION_QUALIFIER = r"(?:\s+(?:number|no\.?|numbered|labell?ed|tagged|marked|called|id|#))?"
_ID_LIST = r"#?(\d{1,2})(?:\s*(?:,|and|&|/|or|to|-)\s*(?:(?:" + REGION_NOUNS + r")\s*)?#?\d{1,2}\b)*"
_REGION = re.compile(r"\b(?:" + REGION_NOUNS + r")" + _REGION_QUALIFIER + r"\s*(?:#\s*)?(" + _ID_LIST + r")"
                     r"(?!\s*(?:metres|feet|yards|degrees|mm|cm|px|pixels|o'clock|kilometres|miles|%))")
_HASH = re.compile(r"(?<![\w#])(?:#|\br)(\d{1,2})\b")
# "the thing marked 4", "the car labelled 7": a drawn id named by its marking, whatever noun comes before
_MARKED = re.compile(r"\b(?:marked|labell?ed|numbered|tagged)\s+(?:as\s+|with\s+(?:an?\s+|the\s+)?(?:number\s+)?)?"
                     r"(" + _ID_LIST + r")\b(?!\s*(?:metres|feet|yards|degrees|mm|cm|px|pixels|o'clock|%))")
# "which region is closer, 2 or 8?": bare ids offered at the end of a question that names regions
_OFFERED = re.compile(r"[,:]\s*((?:#?\d{1,2}\s*,\s*)*#?\d{1,2}\s*,?\s*(?:or|and)\s*#?\d{1,2})\s*\??\s*$")
_NUMBER_WORDS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
                 "sixteen seventeen eighteen nineteen twenty").split()
# a region id written as a word ("region five"); the same length is not kept: ids are ordered by position only
_NUMBER_WORD_ID = re.compile(r"\b((?:" + REGION_NOUNS + r")\s+(?:number\s+)?)(" + "|".join(_NUMBER_WORDS) + r")\b(?!-)")
_IMAGE_NOUNS = r"image|photo|picture|frame|shot|view|exposure|capture|camera|pic"
_IMAGE = re.compile(r"\b(?:" + _IMAGE_NOUNS + r")s?\s*(?:#|no\.?|number)?\s*(\d|one|two|three|four|five|[a-d])\b"
                    r"|\b(first|second|third|fourth|fifth|last)\s+(?:" + _IMAGE_NOUNS + r")")
LENGTH_UNITS = {"metres": 1.0, "metre": 1.0, "m": 1.0, "kilometres": 1000.0, "feet": 0.3048, "foot": 0.3048,
                "yards": 0.9144, "miles": 1609.344, "centimetres": 0.01, "cm": 0.01}
_LEN = r"(metres|metre|m|kilometres|feet|foot|yards|miles)\b"


@dataclass
class Stated:
    """Values the question states, in metres, millimetres and degrees."""

    altitude_m: float | None = None
    pitch_deg: float | None = None
    focal_mm: float | None = None
    sensor_width_mm: float | None = None
    focal_px: float | None = None
    ground_width_m: float | None = None
    ground_elevation_m: float | None = None
    spans: list[str] = field(default_factory=list)  # the phrases read, for the trace


def region_ids(text: str) -> list[tuple[int, int | None]]:
    """(id, 1-based image or None) of every region mentioned, in order, without repeats."""
    found: list[tuple[int, int, int | None]] = []
    # "regions 4 and 5", "#3", "the things marked 2 and 5": every id of the matched list, at its place in the text
    text = _NUMBER_WORD_ID.sub(lambda m: m.group(1) + str(_NUMBER_WORDS.index(m.group(2))), text)  # "region five"
    offered = [*_OFFERED.finditer(text)] if re.search(r"\b(?:" + REGION_NOUNS + r")\b", text) else []
    for m in [*_REGION.finditer(text), *_HASH.finditer(text), *_MARKED.finditer(text), *offered]:
        img = _image_after(text[m.end(): m.end() + 40])
        found += [(m.start(1) + n.start(), int(n.group()), img) for n in re.finditer(r"\d{1,2}", m.group(1))]
    seen: dict[tuple[int, int | None], None] = {}
    for _, rid, img in sorted(found):
        seen.setdefault((rid, img), None)
    return list(seen)


def _image_after(text: str) -> int | None:
    m = re.match(r"\s*(?:of|in|from|on)\s+(?:the\s+)?(?:(?:" + _IMAGE_NOUNS + r")\s*(\d)|(first|second)\s+(?:"
                 + _IMAGE_NOUNS + r"))", text)
    if not m:
        return None
    return int(m.group(1)) if m.group(1) else _ORDINALS[m.group(2)]


def images_named(text: str) -> list[int]:
    """1-based image indices the question names ("image 2", "the second photo", "shot B"), in order."""
    out: list[int] = []
    for m in _IMAGE.finditer(text):
        word = m.group(1) or m.group(2)
        n = int(word) if word.isdigit() else _ORDINALS.get(word)
        if n is not None and n not in out:
            out.append(n)
    return out


def stated_values(text: str) -> tuple[Stated, str]:
    """The values ``text`` states, and ``text`` with those phrases blanked out."""
    s = Stated()
    rules: list[tuple[str, str]] = [
        ("focal_mm", _NUM + r"\s*mm\s+(?:lens|focal(?: length)?)|focal(?: length)?\s*(?:of|is|=|:)?\s*" + _NUM
         + r"\s*mm"),
        ("sensor_width_mm", _NUM + r"\s*mm[\s-]*(?:wide\s+)?sensor(?:\s+width)?|sensor(?:\s+width)?\s*(?:of|is|=|:)?\s*"
         + _NUM + r"\s*mm"),
        ("focal_px", r"focal(?: length)?\D{0,12}?" + _NUM + r"\s*(?:px|pixels)"),
        ("ground_width_m", r"(?:is|spans|covers)\s+" + _NUM + r"\s*" + _LEN
         + r"\s+(?:of\s+(?:ground|terrain|land)\s+)?(?:across|wide|(?:from\s+)?left to right|edge to edge)|(?:ground|image|photo|footprint)\s+width\s*"
         r"(?:of\s+|is\s+|=\s*|:\s*)?" + _NUM + r"\s*" + _LEN),
        ("ground_elevation_m", r"(?<!above )(?:ground|terrain|site)\s+(?:elevation|altitude|level|height)\s+(?:here\s+|there\s+)?"
         r"(?:of\s+|is\s+|was\s+|at\s+"
         r"|=\s*)?(?:about\s+)?" + _NUM + r"\s*" + _LEN + r"(?:\s+(?:above sea level|asl|amsl))?"),
        ("pitch_deg", r"(?:pitch(?:ed)?|gimbal|camera)\s+(?:(?:was|is|set|tilted|angled|pitched)\s+)?(?:at\s+|of\s+|to\s+)?(-?\s?" + r"\d+(?:\.\d+)?)\s*degrees"),
        ("altitude_m", r"(?:altitude|height|elevation|flying height|flight height|above ground level|hovered|hovering|"
         r"flown|flying|from|at|taken at|shot from)\s+(?:(?:was|is|were|of|at|=|:)\s*)?(?:about\s+|around\s+)?" + _NUM + r"\s*" + _LEN
         + r"(?:\s+(?:above ground level|above ground|high|up|altitude))?"),
        ("altitude_m", _NUM + r"\s*" + _LEN + r"\s+(?:above ground level|above ground|altitude|high|up)\b"),
    ]
    for name, pattern in rules:
        m = re.search(pattern, text)
        if not m or getattr(s, name) is not None:
            continue
        groups = [g for g in m.groups() if g is not None]
        value = float(groups[0].replace(" ", ""))
        if name in ("altitude_m", "ground_width_m", "ground_elevation_m"):
            unit = next((g for g in groups[1:] if g in LENGTH_UNITS), "metres")
            value *= LENGTH_UNITS[unit]
        if name == "pitch_deg" and value > 0:
            value = -value  # a camera "at 90 degrees" on a drone looks down
        setattr(s, name, value)
        s.spans.append(m.group(0))
        text = text[: m.start()] + " " * (m.end() - m.start()) + text[m.end():]
    return s, text
