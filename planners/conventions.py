"""Conventions stated in a question: region ids, anchor, clock sense and rounding, units, box coordinates,
which quantities the answer-format instruction asks for, camera parameters, the object of interest, options.

Everything here is read from the question text with regular expressions; nothing is guessed from images.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_NUM = r"(-?\d+(?:\.\d+)?)"
_WORD_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}
PERSON_WORDS = ("person", "persons", "people", "pedestrian", "pedestrians", "human", "humans", "man", "men",
                "woman", "women", "walker", "walkers")
_STOP = {"the", "a", "an", "of", "in", "on", "this", "that", "these", "those", "image", "picture", "photo", "there",
         "are", "is", "can", "you", "visible", "see", "find", "from", "drone", "uav", "shot", "aerial", "view"}


@dataclass
class Conventions:
    """Conventions read from the question (defaults follow docs/architecture.md)."""

    region_ids: list[int] = field(default_factory=list)  # in order of mention
    region_images: list[int] = field(default_factory=list)  # 1-based image index each id was tied to (0 = none)
    anchor_region: int | None = None  # "from region k" → clock anchor; None → image centre (the drone)
    clockwise: bool = True
    signed: bool = False  # signed angle in (-180, 180]
    rounding: str = "nearest"  # nearest | floor
    order: str = "nearest_first"  # nearest_first | farthest_first
    side: str | None = None  # left | right ("far left of the drone")
    want_all: bool = False  # rank/list every region rather than pick one
    units: str = "m"  # m | ft | cm | in
    normalized_boxes: bool = False
    wants_angle: bool = False
    wants_distance: bool = False
    wants_region_answer: bool = False
    distance_kind: str = "horizontal"  # horizontal | forward (signed, along image 1's forward direction)
    altitude_m: float | None = None
    pitch_deg: float | None = None  # camera pitch, -90 = nadir
    focal_px: float | None = None
    hfov_deg: float | None = None
    target_label: str | None = None  # object of interest ("people", "parking lot")
    uav_index: int | None = None  # AirCopBench "UAV2" → 2
    options: dict[str, str] = field(default_factory=dict)
    format_instruction: str | None = None


def parse_conventions(question: str) -> Conventions:
    """Read the conventions of ``question`` (see :class:`Conventions`)."""
    q = question.strip()
    low = q.lower()
    c = Conventions()
    c.options = parse_options(q)
    body = _strip_options(low) if c.options else low
    c.region_ids, c.region_images = _regions(without_format_examples(body))
    m = re.search(r"\b(?:from|relative to|with respect to|seen from|as seen from)\s+(?:the\s+)?(?:target in\s+)?region\s*(\d+)", body)
    if m:
        c.anchor_region = int(m.group(1))
    c.clockwise = not re.search(r"counter-?\s?clockwise|anti-?\s?clockwise", low)
    c.signed = bool(re.search(r"\bsigned\b|negative|\(-180|-180\b|left is negative|positive (to|for) the right", low))
    c.rounding = "floor" if re.search(r"\bfloor\b|round(ed)? down", low) else "nearest"
    m = re.search(r"from (?:the )?(nearest|closest|farthest|furthest)", body)
    if m:
        c.order = "nearest_first" if m.group(1) in ("nearest", "closest") else "farthest_first"
    else:
        c.order = "farthest_first" if re.search(r"farthest|furthest|most distant", body) else "nearest_first"
    m = re.search(r"(?:far|farthest|furthest|most|leftmost|rightmost)\s*(?:to the\s+)?(left|right)|\b(left|right)most\b", body)
    c.side = (m.group(1) or m.group(2)) if m else None
    c.want_all = bool(re.search(r"\b(rank|order|sort|list)\b|from (nearest|closest|farthest) to|all (the )?regions", body))
    c.units = _units(low)
    c.normalized_boxes = bool(re.search(r"normali[sz]ed|relative coordinates|between 0 and 1|in \[0, ?1\]|0-1 range", low))
    c.wants_angle = bool(re.search(r"angle|heading|yaw|rotat|turn|degrees|orientation", low))
    c.wants_distance = bool(re.search(r"distance|translation|how far|displacement|meters|metres|\bmove(d)?\b|apart", low))
    if re.search(r"only the angle|angle only|just the angle|angle alone", low):  # the format instruction wins
        c.wants_distance = False
    if re.search(r"only the distance|distance only|just the distance", low):
        c.wants_angle = False
    c.distance_kind = "forward" if re.search(r"along image 1'?s? forward|forward direction|negative if it is "
                                             r"behind|signed (horizontal )?(displacement|distance)", low) else "horizontal"
    c.wants_region_answer = bool(re.search(r"which region (in|of) image ?2|answer with (only )?the region|region label", low))
    c.altitude_m = _number(low, r"(?:altitude|height|flying|flies|flown)\D{0,20}?" + _NUM + r"\s*(?:m\b|meters|metres)")
    if c.altitude_m is None:
        c.altitude_m = _number(low, _NUM + r"\s*(?:m|meters|metres)\s+(?:altitude|high|above|up)")
    if c.altitude_m is None:
        c.altitude_m = _number(low, r"(?:from|at)\s+(?:an? )?(?:altitude |height )?(?:of )?" + _NUM + r"\s*(?:m|meters|metres)\b")
    pitch = _number(low, r"pitch(?:ed)?\D{0,12}?" + _NUM + r"\s*(?:°|deg|degrees)?")
    if pitch is None:
        down = _number(low, _NUM + r"\s*(?:°|deg|degrees)\s*(?:down|below the horizon)")
        pitch = -abs(down) if down is not None else None
    elif pitch > 0 and re.search(r"down|below the horizon", low):
        pitch = -pitch
    c.pitch_deg = pitch
    if re.search(r"\bnadir\b|straight down|top-?down", low) and c.pitch_deg is None:
        c.pitch_deg = -90.0
    c.focal_px = _number(low, r"focal(?: length)?\D{0,12}?" + _NUM + r"\s*(?:px|pixels)")
    c.hfov_deg = _number(low, r"(?:hfov|horizontal field of view|field of view)\D{0,12}?" + _NUM)
    c.target_label = _target_label(body)
    m = re.search(r"\buav\s*(\d)\b", body)
    c.uav_index = int(m.group(1)) if m else None
    m = re.search(r"(answer with[^.]*\.|formatted exactly like[^.]*\.|in the format[^.]*\.|provide no explanation\.?)", low)
    c.format_instruction = m.group(1) if m else None
    return c


def parse_options(question: str) -> dict[str, str]:
    """Multiple-choice options ``A. text`` / ``(B) text`` written in the question, in order; {} when none."""
    pat = re.compile(r"(?:^|\s)\(?([A-D])[.):]\s+(.+?)(?=\s+\(?[A-D][.):]\s|\s*$|\n|\.\s*Please|\s+Please|\s+Answer)",
                     re.S)
    found = {m.group(1): m.group(2).strip().rstrip(".") for m in pat.finditer(question)}
    return found if len(found) >= 2 and "A" in found and "B" in found else {}


def _strip_options(low: str) -> str:
    m = re.search(r"(?:^|\s)\(?a[.):]\s", low)
    return low[: m.start()] if m else low


_FORMAT_EXAMPLE = re.compile(r"`[^`]*`|(?:formatted (?:exactly )?like|in the format|e\.g\.|for example)[^.\n]*")


def without_format_examples(low: str) -> str:
    """The question without its answer-format examples (``formatted exactly like `Region 1, 2, 3```): the regions
    named there are no referents."""
    return _FORMAT_EXAMPLE.sub(" ", low)


def _regions(low: str) -> tuple[list[int], list[int]]:
    ids: list[int] = []
    imgs: list[int] = []
    for m in re.finditer(r"\bregions?\s*((?:\d+\s*(?:,|and|&)?\s*)+)", low):
        after = low[m.end(): m.end() + 40]
        im = re.match(r"\s*(?:of|in|from)\s+(?:the\s+)?(?:image\s*(\d)|(first|second)\s+(?:image|view|photo))", after)
        img = int(im.group(1)) if im and im.group(1) else ({"first": 1, "second": 2}[im.group(2)] if im else 0)
        for n in re.findall(r"\d+", m.group(1)):
            ids.append(int(n))
            imgs.append(img)
    return ids, imgs


def _units(low: str) -> str:
    if re.search(r"\bfeet\b|\bfoot\b|\bft\b", low):
        return "ft"
    if re.search(r"\bcentimet(er|re)s?\b|\bcm\b", low):
        return "cm"
    if re.search(r"\binch(es)?\b", low):
        return "in"
    return "m"


def _number(low: str, pattern: str) -> float | None:
    m = re.search(pattern, low)
    return float(m.group(1)) if m else None


def _target_label(low: str) -> str | None:
    """The object phrase after 'how many', 'count the', 'contain a', 'coordinates of the' … (None if absent)."""
    end = r"(?=\s+(?:are|is|can|do|does|were|in|on|visible|as|at|with|from|using|that|which|inside)\b|[?.,;:]|$)"
    pats = [r"how many ([a-z][a-z\- ]*?)" + end, r"number of ([a-z][a-z\- ]*?)" + end,
            r"count (?:the |all )?([a-z][a-z\- ]*?)" + end,
            r"(?:contain|contains|containing|with|show|shows|have|has) (?:an? |the |any )?([a-z][a-z\- ]*?)" + end,
            r"(?:coordinates|location|box) of (?:the |an? )?([a-z][a-z\- ]*?)" + end]
    for p in pats:
        m = re.search(p, low)
        if m:
            words = [w for w in m.group(1).split() if w not in _STOP]
            if words:
                return " ".join(words)
    return None


def is_person_label(label: str | None) -> bool:
    """Whether an object phrase names people (the only class the bundled detector knows)."""
    return bool(label) and any(w in PERSON_WORDS for w in re.findall(r"[a-z]+", label or ""))


def word_number(text: str) -> int | None:
    """The first integer in ``text``, digits or a small English number word."""
    m = re.search(r"-?\d+", text)
    if m:
        return int(m.group())
    for w, n in _WORD_NUMBERS.items():
        if re.search(rf"\b{w}\b", text.lower()):
            return n
    return None
