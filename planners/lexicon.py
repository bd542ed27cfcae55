"""The domain lexicon: how people write about drone photos, normalised before a question is parsed.

A question is lower-cased, its quotes and dashes made plain, its abbreviations expanded ("pic" -> "photo",
"alt" -> "altitude", "ppl" -> "people", "cw" -> "clockwise"), domain words typed as two rejoined ("foot print"),
and its misspelt domain words corrected ("regoin" -> "region", "hieght" -> "height") by edit distance to the words
of :data:`DOMAIN_WORDS`; short words only for two swapped neighbouring letters ("mnay" -> "many") or one letter left out ("hgh" -> "high"). The parser
(``planners.parse``) then reads one consistent vocabulary, whoever wrote the question.

Edit distance comes from :mod:`difflib` (standard library): a word is corrected only when it is no English word
(the system word list, Debian's ``wamerican``, at :data:`WORD_LIST`), is at least five letters long, starts with
the same letter as the domain word and is close enough to it (:data:`TYPO_MIN_RATIO`), so that ordinary words
("tally", "snapped") are never rewritten into domain words. Without a word list only the lexicon's own words count
as known, and corrections need a closer match (:data:`TYPO_MIN_RATIO_NO_WORDS`).
"""

from __future__ import annotations

import difflib
import os
import re
from functools import lru_cache
from pathlib import Path

TYPO_MIN_RATIO = 0.8  # difflib similarity a misspelt word needs to the domain word it is taken for
TYPO_MIN_RATIO_NO_WORDS = 0.85  # ... when no English word list is installed to rule out real words
WORD_LIST = Path(os.environ.get("UAV_WORD_LIST", "/usr/share/dict/words"))
TYPO_MIN_LENGTH = 5  # shorter words are too easily confused ("alt" vs "all") to be corrected by distance
#: Short words are corrected only for a swap of two neighbouring letters (the commonest slip: "mnay", "teh", "trun")
#: into one of these question words or short domain words, and only when the typed word is no English word.
SHORT_WORDS: frozenset[str] = frozenset("""
how what which where when many much far high the this that from does turn left right down area tilt
""".split())

#: Abbreviations and chat spellings, as whole words, and what they stand for.
ABBREVIATIONS: dict[str, str] = {
    "pic": "photo", "pics": "photos", "pix": "photos", "pict": "photo", "img": "image", "imgs": "images",
    "im": "image", "foto": "photo", "fotos": "photos", "cam": "camera", "alt": "altitude", "elev": "elevation",
    "dist": "distance", "dir": "direction", "hdg": "heading", "ppl": "people", "peeps": "people", "cw": "clockwise",
    "ccw": "counterclockwise", "acw": "anticlockwise", "deg": "degrees", "degs": "degrees", "approx": "approximately",
    "pls": "please", "plz": "please", "r": "are", "u": "you", "ur": "your", "w/": "with", "w/o": "without",
    "b/w": "between", "btw": "between", "bw": "between", "thx": "thanks", "1st": "first", "2nd": "second",
    "3rd": "third", "4th": "fourth", "ft": "feet", "yd": "yards", "yds": "yards", "mtrs": "metres", "mts": "metres",
    "km": "kilometres", "kms": "kilometres", "mi": "miles", "agl": "above ground level", "reg": "region",
    "rgn": "region", "no.": "number", "num": "number", "qty": "number", "horiz": "horizontal", "vert": "vertical",
    "uavs": "drones", "uas": "drone", "rpas": "drone", "ir": "infrared", "qc": "quality check", "nr": "near",
    "ctr": "centre", "cntr": "centre", "center": "centre", "centered": "centred", "meters": "metres",
    "meter": "metre", "centimeters": "centimetres", "centimeter": "centimetre", "millimeters": "millimetres",
    "millimeter": "millimetre", "kilometers": "kilometres", "kilometer": "kilometre", "color": "colour", "gray": "grey", "wat": "what", "whats": "what is", "wht": "what", "hw": "how",
    "dont": "do not", "doesnt": "does not", "isnt": "is not", "thru": "through", "tho": "though", "cnt": "count",
}

#: Words the parser's concepts are written in; misspellings of these are corrected.
DOMAIN_WORDS: frozenset[str] = frozenset("""
region regions box boxes label labelled labeled marked numbered outlined tagged rectangle highlighted
image images photo photos picture pictures frame frames shot shots capture captured exposure exposures tile
camera drone aircraft platform gimbal sensor lens focal
altitude height elevation above ground level flying flight launch takeoff
distance baseline separation spacing apart between metres kilometres feet yards miles horizontal horizontally
heading rotation rotate rotated yaw yawed turned turning clockwise counterclockwise anticlockwise degrees angle
direction compass north south east west northeast northwest southeast southwest bearing cardinal
clock o'clock position centre middle nearest closest farthest furthest distant
footprint coverage dimensions width wide height tall across resolution pixel pixels sampling
count number people persons pedestrians vehicles bicycles
overlap overlaps overlapping stitching
motion moving travelling traveling forward backward sideways straight
quality blurry blurred focus noise noisy grainy underexposed overexposed exposure haze hazy foggy mist dark bright
nadir oblique tilted vertical vertically straight
""".split())

SHORT_DOMAIN_WORDS = frozenset(w for w in DOMAIN_WORDS if len(w) <= 5)

#: Ordinary English words that are never corrected even when they look like a domain word.
KNOWN_WORDS: frozenset[str] = frozenset("""
about above after again against along among another answer anything around asked aware based because before
behind being below beside besides better beyond bottom bright bring built carry cause close come could cover
covers covered crow data degree dimension directly doing done drawn drive during earlier either enough equal
every exactly field first follow found fourth from further given going great ground happen having heavy hover
hovered hovering inside instead large later least leave level light lined lines little longer looking lower
maybe measure might mission moved moves nearer never notice object often order other outside over place
places please point pointed pointing rather ready really right roughly round scene second seems seen sense
shape short should shown shows side since single sized small snapped sorry spots stand start state still
suppose sure taken taking their there these thing think third those though three through total tower track
treat trees truth under until upper using value versus water where which while whole would write wrong yours
""".split()) | DOMAIN_WORDS | frozenset(ABBREVIATIONS.values())

_TOKEN = re.compile(r"\b[a-z][a-z'/.]*[a-z/](?![\w])|\b[a-z]\b")
_NOUN_NUMBER = re.compile(r"\b(img|pic|photo|image|frame|shot|view|region|box|area)(\d)")


def normalise(question: str) -> str:
    """``question`` lower-cased, punctuation made plain, abbreviations expanded and domain typos corrected."""
    text = question.lower()
    text = (text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
            .replace("\u2013", "-").replace("\u2014", " - ").replace("\u2212", "-").replace("\u00b0", " degrees "))
    text = re.sub(r"(\d)\s*(m)\b(?![/²])", r"\1 metres", text)  # "40m" -> "40 metres" (not m/px)
    text = re.sub(r"\bw/\s*", "with ", text)
    text = re.sub(r"(?:\bno\.|\bnum\.?|#)\s*of\b", "number of", text)  # "# of cars", "no. of bikes"
    text = _NOUN_NUMBER.sub(r"\1 \2", text)  # "img2" -> "img 2" (but "r5" stays a region name)
    text = re.sub(r"\br-(\d{1,2})\b", r"r\1", text)  # "R-4" is region 4 too, not "are -4"
    text = _rejoined(text)
    return _TOKEN.sub(lambda m: _word(m.group(0)), text)


def _rejoined(text: str) -> str:
    """``text`` with every pair of neighbouring words that spells a domain word written as that one word."""
    words = text.split(" ")
    out: list[str] = []
    for w in words:
        if out and len(out[-1]) >= 2 and len(w) >= 2 and (out[-1] + w) in DOMAIN_WORDS:
            out[-1] += w
        else:
            out.append(w)
    return " ".join(out)


def _swapped(word: str) -> str | None:
    """The short question or domain word that ``word`` is with two neighbouring letters swapped, or None."""
    for i in range(len(word) - 1):
        w = word[:i] + word[i + 1] + word[i] + word[i + 2:]
        if w in SHORT_WORDS:
            return w
    return None


def _dropped(word: str) -> str | None:
    """The one short question or domain word that ``word`` is with a letter left out ("hgh" -> "high", "drne" ->
    "drone"), or None when there is none or more than one."""
    found = {w for w in SHORT_WORDS | SHORT_DOMAIN_WORDS if len(w) == len(word) + 1
             and any(w[:i] + w[i + 1:] == word for i in range(len(w)))}
    return found.pop() if len(found) == 1 else None


def _word(token: str) -> str:
    if token in ABBREVIATIONS:
        return ABBREVIATIONS[token]
    bare = token.rstrip(".")
    if bare in ABBREVIATIONS:
        return ABBREVIATIONS[bare] + token[len(bare):]
    return _corrected(token)


@lru_cache(maxsize=4096)
def _corrected(word: str) -> str:
    """The domain word ``word`` misspells, or ``word`` itself."""
    english = english_words()
    if word in KNOWN_WORDS or word in english or not word.isalpha():
        return word
    if len(word) < TYPO_MIN_LENGTH:
        return (_swapped(word) or _dropped(word) or word) if len(word) >= 3 and english else word
    if word.endswith("s") and (word[:-1] in KNOWN_WORDS or word[:-1] in english):
        return word
    candidates = [w for w in DOMAIN_WORDS if w[0] == word[0] and abs(len(w) - len(word)) <= 2]
    cutoff = TYPO_MIN_RATIO if english else TYPO_MIN_RATIO_NO_WORDS
    best = difflib.get_close_matches(word, candidates, n=1, cutoff=cutoff)
    return best[0] if best else word


@lru_cache(maxsize=1)
def english_words() -> frozenset[str]:
    """Lower-case words of the system word list (empty when there is none)."""
    try:
        return frozenset(w.strip().lower() for w in WORD_LIST.read_text(encoding="utf-8", errors="ignore").split())
    except OSError:
        return frozenset()
