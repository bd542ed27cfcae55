"""Words of a counting question → the object class asked for → the detector labels that count it.

One synonym table serves every count question: "pedestrians", "humans", "ppl" (the question lexicon spells it
"people") are the class ``person``; "automobiles" ``car``; "motor vehicles" ``vehicle``, which the detectors see as
cars plus other vehicles (vans, trucks, buses: HIT-UAV's OtherVehicle); "bikes" ``bicycle``. When a question names
several classes ("How many motor vehicles (cars, vans, trucks) ...") the first one named is counted: the words after
it explain it.
"""

from __future__ import annotations

import re

from planners.concepts import PERSON

#: class asked for → the words that name it (regular expressions, matched as whole words)
CLASS_WORDS: dict[str, str] = {
    "person": PERSON + r"|person|individuals?|ppl",
    "car": r"cars?|automobiles?|autos?|sedans?",
    "vehicle": r"(?:motor )?vehicles?",
    "other_vehicle": r"vans?|trucks?|lorr(?:y|ies)|bus(?:es)?|minibus(?:es)?",
    "bicycle": r"bicycles?|bikes?|cyclists?",
}

#: class asked for → the detector labels whose counts add up to it
DETECTOR_LABELS: dict[str, tuple[str, ...]] = {
    "person": ("person",),
    "car": ("car",),
    "vehicle": ("car", "other_vehicle"),
    "other_vehicle": ("other_vehicle",),
    "bicycle": ("bicycle",),
}


def named_class(text: str) -> str | None:
    """The object class a question names first (a key of :data:`CLASS_WORDS`), or None when it names none."""
    best: tuple[int, str] | None = None
    for name, words in CLASS_WORDS.items():
        m = re.search(r"\b(?:" + words + r")\b", text.lower())
        if m and (best is None or m.start() < best[0]):
            best = (m.start(), name)
    return best[1] if best else None


def detector_labels(asked: str) -> tuple[str, ...]:
    """The detector labels counted for a class asked for; a phrase outside the table is its own label."""
    return DETECTOR_LABELS.get(asked, (asked,))
