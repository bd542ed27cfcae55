"""Answers of measured quantities: each renders in the unit asked for and reads its own text back."""

from __future__ import annotations

import pytest

from agent.answers import ANSWER_TYPES, AnswerFormat, AnswerParseError, parse_answer
from agent.answers_measure import Choice, Compass, Compound, Count, Footprint, GroundResolution, Label, Length, compass_point


@pytest.mark.parametrize("value,text", [
    (Compass(44.0), "NE (44 degrees from north)"), (Compass(-10.0), "N (350 degrees from north)"), (Compass(359.6), "N (0 degrees from north)"),
    (Length(27.432, "ft"), "90 feet"), (Length(1500.0, "km"), "1.5 kilometres"), (Length(13.7), "13.7 metres"),
    (Footprint(120.0, 67.5), "120 metres x 67.5 metres"), (GroundResolution(0.0171, "cm"), "1.71 cm/px"),
    (GroundResolution(0.0171, "mm"), "17.1 mm/px"), (Count(14, "person"), "14 (person)"),
    (Label("oblique (tilted)"), "oblique (tilted)"), (Choice(3), "photo 3"),
    (Compound(("39.8 metres", "NE (45 degrees from north)")), "39.8 metres; NE (45 degrees from north)"),
])
def test_renders_and_reads_back(value, text):
    assert value.render() == text
    assert type(value).parse(text).render() == text
    assert ANSWER_TYPES[value.format] is type(value)


def test_compass_points_split_at_half_sectors():
    assert [compass_point(b) for b in (0, 22.4, 22.6, 90, 181, 292.6, 337.6)] == ["N", "N", "NE", "E", "S", "NW", "N"]


def test_bad_values_and_texts_are_refused():
    with pytest.raises(ValueError):
        Length(3.0, "furlong")
    with pytest.raises(ValueError):
        Count(-1)
    with pytest.raises(AnswerParseError):
        parse_answer(AnswerFormat.GSD, "about two")
    with pytest.raises(AnswerParseError):
        parse_answer(AnswerFormat.FOOTPRINT, "120 metres")
    with pytest.raises(ValueError):
        Compound(("only one",))
