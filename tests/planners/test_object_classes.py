"""The object-class lexicon of counting questions: words → the class asked for → the detector labels counted."""

from __future__ import annotations

import pytest

from planners.object_classes import detector_labels, named_class
from planners.parse import parse_question
from planners.program import Ask


@pytest.mark.parametrize("question,asked", [
    ("How many walkers can you spot on the path?", "person"),
    ("count the humans near the gate", "person"),
    ("Number of individuals standing by the fence?", "person"),
    ("How many autos are parked by the school?", "car"),
    ("How many sedans line the street?", "car"),
    ("How many vehicles are on the bridge?", "vehicle"),
    ("How many motor vehicles, i.e. cars and buses, are queued?", "vehicle"),
    ("How many trucks are at the depot?", "other_vehicle"),
    ("How many bikes are locked to the rack?", "bicycle"),
    ("How many cars and bicycles are there?", "car"),  # the first class named is counted
    ("How many motorbikes are there?", None),  # not a bicycle: a whole-word match only
    ("How many trees are there?", None),
])
def test_the_first_class_named_is_the_one_asked(question: str, asked: str | None) -> None:
    assert named_class(question) == asked


def test_classes_asked_map_to_the_detector_labels_that_add_up_to_them() -> None:
    assert detector_labels("person") == ("person",)
    assert detector_labels("car") == ("car",)
    assert detector_labels("vehicle") == ("car", "other_vehicle")
    assert detector_labels("bicycle") == ("bicycle",)
    assert detector_labels("dogs") == ("dogs",)  # outside the table: its own label (no detector knows it)


@pytest.mark.parametrize("question,label", [
    ("How many automobiles can be seen in the car park?", "car"),
    ("Any vans or lorries in this picture? How many?", "other_vehicle"),
    ("how many ppl are on the square", "person"),
    ("How many giraffes are in the frame?", "giraffes"),
])
def test_count_questions_carry_the_class_asked(question: str, label: str) -> None:
    program = parse_question(question, 1)
    assert program.ask == Ask.COUNT
    assert program.objects() == [label]
