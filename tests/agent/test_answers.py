"""Canonical answers: exact rendered strings, messy-output parsing, render→parse round trips, fuzzing."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent.answers import (
    ACTION_KEYS,
    ANSWER_TYPES,
    Actions,
    Angle,
    AngleDistance,
    AnswerFormat,
    AnswerParseError,
    BBox,
    Clock,
    DirectionLabel,
    FreeText,
    OptionLetter,
    Quantity,
    RegionList,
    RegionPairs,
    RegionSet,
    YesNo,
    parse_answer,
    strip_think,
)

# Published answers from the benchmark papers (docs: ../shared/specs/benchmarks.md) -> the value they denote.
PUBLISHED = [
    (OptionLetter, "D", OptionLetter("D")),
    (RegionSet, "Region 3, 4.", RegionSet((3, 4))),
    (RegionSet, "Region 5, Region 6 and Region 7", RegionSet((5, 6, 7))),
    (RegionSet, "Region 2 and 3", RegionSet((2, 3))),
    (Clock, "7 o'clock", Clock(7)),
    (Clock, "5 o'clock.", Clock(5)),
    (DirectionLabel, "Direction 3", DirectionLabel(3)),
    (AngleDistance, "-160.0 degrees, -70.0 meters", AngleDistance(-160.0, -70.0)),
    (RegionPairs, "6-11, 2-9, 4-12, 7-10, 3-5, 5-1", RegionPairs(((6, 11), (2, 9), (4, 12), (7, 10), (3, 5), (5, 1)))),
    (BBox, "[823, 189, 932, 249]", BBox(823, 189, 932, 249)),
    (RegionList, "Region 0", RegionList((0,))),
]


@pytest.mark.parametrize(("cls", "text", "value"), PUBLISHED)
def test_published_answers_parse_and_render_back(cls, text, value):
    assert cls.parse(text) == value
    assert cls.parse(value.render()) == value


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (OptionLetter("d"), "D"),
        (RegionSet((4, 3, 4)), "Region 3, 4"),
        (RegionList((1, 3, 2)), "Region 1, 3, 2"),
        (Clock(0), "12 o'clock"),
        (Angle(-160.0, signed=True), "-160.0 degrees"),
        (Angle(-160.0), "200.0 degrees"),
        (Angle(359.96), "0.0 degrees"),
        (Angle(200.0, signed=True), "-160.0 degrees"),
        (AngleDistance(200.0, -70.0), "-160.0 degrees, -70.0 meters"),
        (RegionPairs(((1, 3), (2, 5))), "1-3, 2-5"),
        (BBox(932, 249, 823, 189), "[823, 189, 932, 249]"),
        (BBox(0.45, 0.3, 0.12, 0.61, normalized=True), "[0.12, 0.30, 0.45, 0.61]"),
        (YesNo(True), "Yes"),
        (Quantity(3.5), "3.5 meters"),
        (Quantity(0.004), "0.004 meters"),
        (RegionSet(()), "None"),
    ],
)
def test_render_gives_the_exact_scorer_string(value, expected):
    assert value.render() == expected


@pytest.mark.parametrize(
    ("cls", "text", "value"),
    [
        (OptionLetter, "The answer is B.", OptionLetter("B")),
        (OptionLetter, "Answer: (C)", OptionLetter("C")),
        (OptionLetter, "A good choice is option C", OptionLetter("C")),
        (OptionLetter, "<think>maybe A, maybe B</think>\nD", OptionLetter("D")),
        (RegionSet, "Region 3 and Region 4", RegionSet((3, 4))),
        (RegionSet, "Regions: 4, 3", RegionSet((3, 4))),
        (RegionSet, "There are 2 such regions: Region 7 and 9.", RegionSet((7, 9))),
        (RegionList, "Region 2, then Region 1, then Region 5", RegionList((2, 1, 5))),
        (Clock, "around 5 o'clock", Clock(5)),
        (Clock, "5 o\u2019clock", Clock(5)),
        (Clock, "roughly 11 oclock from the drone", Clock(11)),
        (DirectionLabel, "You should take arrow 4.", DirectionLabel(4)),
        (Angle, "The heading changed by about \u221235.5\u00b0.", Angle(-35.5, signed=True)),
        (AngleDistance, "Heading offset -20 degrees; it moved 15 m.", AngleDistance(-20.0, 15.0)),
        (RegionPairs, "Region 1 - Region 3, (2, 5)", RegionPairs(((1, 3), (2, 5)))),
        (BBox, "The box is [0.1, 0.2, 0.3, 0.4].", BBox(0.1, 0.2, 0.3, 0.4, normalized=True)),
        (BBox, "x1=10, y1=20, x2=30, y2=40", BBox(10, 20, 30, 40)),
        (YesNo, "No, the car is farther.", YesNo(False)),
        (YesNo, "Yes, it is taller.", YesNo(True)),
        (FreeText, "<think>hm</think> The drone rises.", FreeText("The drone rises.")),
    ],
)
def test_messy_model_output_parses(cls, text, value):
    assert cls.parse(text) == value


@pytest.mark.parametrize(
    ("text", "metres"),
    [("12 feet", 12 * 0.3048), ("3 inches", 3 * 0.0254), ("40 cm", 0.4), ("1.5 km", 1500.0), ("7.25 meters", 7.25),
     ("about 9 m tall", 9.0), ("5 ft 3 in", 5 * 0.3048 + 3 * 0.0254), ("2 metres", 2.0), ("8", 8.0)],
)
def test_quantity_units_convert_to_metres(text, metres):
    assert Quantity.parse(text).metres == pytest.approx(metres)


def test_bedi_actions_from_json_and_python_literals_inside_text():
    steps = [{"action": "move", "direction": "forward", "distance": 10, "speed": 2}]
    parsed = Actions.parse("Plan: " + json.dumps(steps) + " then stop.")
    assert parsed.steps[0]["distance"] == 10 and parsed.steps[0]["zoom_level"] == 0
    assert list(parsed.steps[0]) == list(ACTION_KEYS)
    literal = Actions.parse("[{'action': 'Rotate', 'rotate_direction': 'left', 'duration': 3}]")
    assert literal.steps[0]["action"] == "rotate" and literal.steps[0]["duration"] == 3
    assert json.loads(literal.render())[0]["rotate_direction"] == "left"
    with pytest.raises(AnswerParseError):
        Actions.parse("[{'action': 'teleport'}]")


def test_strip_think_removes_closed_stray_and_unclosed_blocks():
    assert strip_think("<think>A</think> B") == "B"
    assert strip_think("reasoning about A</think>C") == "C"
    assert strip_think("<THINK>out of tokens, maybe A") == ""
    with pytest.raises(AnswerParseError, match="empty answer"):
        OptionLetter.parse("<think>out of tokens, maybe A")


@pytest.mark.parametrize(
    ("cls", "text"),
    [(Clock, "13 o'clock"), (Clock, "the target is left"), (RegionSet, "I do not know"), (OptionLetter, "hmm"),
     (AngleDistance, "30 degrees"), (BBox, "[1, 2, 3]"), (YesNo, "maybe"), (Quantity, "far away")],
)
def test_unreadable_output_raises_a_clear_error(cls, text):
    with pytest.raises(AnswerParseError):
        cls.parse(text)


def test_registry_and_parse_answer_cover_every_format():
    assert set(ANSWER_TYPES) == set(AnswerFormat)
    assert all(cls.format is fmt for fmt, cls in ANSWER_TYPES.items())
    assert parse_answer("clock", "3 o'clock") == Clock(3)
    with pytest.raises(AnswerParseError, match="unknown answer format"):
        parse_answer("haiku", "x")


# ---- round trips: render -> parse -> render is the identity for every type ---------------------------------------
ids = st.lists(st.integers(0, 999), max_size=8)
finite = st.floats(-1e5, 1e5, allow_nan=False)
unit = st.floats(0, 1, allow_nan=False)
word = st.text(st.characters(whitelist_categories=("Ll", "Lu")), min_size=1, max_size=8)
scalar = st.one_of(word, st.integers(-1000, 1000), st.floats(-1e3, 1e3, allow_nan=False))
step = st.fixed_dictionaries(
    {"action": st.sampled_from(["move", "rotate", "adjust", "zoom"])},
    optional={k: scalar for k in ACTION_KEYS[1:]},
)
VALUES = st.one_of(
    st.sampled_from("ABCDE").map(OptionLetter),
    ids.map(lambda v: RegionSet(tuple(v))),
    ids.map(lambda v: RegionList(tuple(v))),
    st.integers(0, 12).map(Clock),
    st.integers(0, 99).map(DirectionLabel),
    st.builds(Angle, finite, st.booleans()),
    st.builds(AngleDistance, finite, finite),
    st.lists(st.tuples(st.integers(0, 99), st.integers(0, 99)), max_size=8).map(lambda p: RegionPairs(tuple(p))),
    st.builds(BBox, finite, finite, finite, finite),
    st.builds(lambda a, b, c, d: BBox(a, b, c, d, normalized=True), unit, unit, unit, unit),
    st.booleans().map(YesNo),
    st.floats(-1e6, 1e6, allow_nan=False).map(Quantity),
    st.text(min_size=1).filter(lambda t: t.strip() and "think>" not in t.lower()).map(FreeText),
    st.lists(step, min_size=1, max_size=4).map(lambda s: Actions(tuple(s))),
)


@settings(max_examples=400, deadline=None)
@given(VALUES)
def test_render_parse_round_trip(value):
    text = value.render()
    again = type(value).parse(text)
    assert again.render() == text


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 99), min_size=1, max_size=6, unique=True), st.sampled_from([", ", " and ", ",", " & "]))
def test_region_ids_in_prose(values, sep):
    text = "I think it is Region " + sep.join(f"Region {v}" if i % 2 else str(v) for i, v in enumerate(values)) + "."
    assert RegionList.parse(text).ids == tuple(values)
    assert RegionSet.parse(text).ids == tuple(sorted(values))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(list(AnswerFormat)), st.text(max_size=200))
def test_parse_never_crashes_on_arbitrary_text(fmt, text):
    try:
        value = parse_answer(fmt, text)
    except AnswerParseError:
        return
    assert isinstance(value.render(), str)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(list(AnswerFormat)),
       st.text(alphabet="0123456789-.,[]{}()'\": oclockRegiondegreesmtfA", max_size=300))  # fmt: skip
def test_parse_never_crashes_on_number_and_bracket_soup(fmt, text):
    try:
        parse_answer(fmt, text)
    except AnswerParseError:
        pass


def test_rendering_adds_no_stray_integers():
    """Every integer the scorers read from a rendering is part of the value (no ids, counts or units)."""
    assert [int(n) for n in re.findall(r"\d+", RegionSet((12, 3)).render())] == [3, 12]
    assert re.findall(r"\d+", Clock(7).render()) == ["7"]
    assert re.findall(r"\d+", RegionPairs(((1, 3),)).render()) == ["1", "3"]
    assert re.findall(r"-?\d+(?:\.\d+)?", AngleDistance(-160, -70).render()) == ["-160.0", "-70.0"]
    assert re.findall(r"\d+", DirectionLabel(3).render()) == ["3"]


def test_bad_constructor_values_are_refused():
    for build in (lambda: OptionLetter("F"), lambda: Clock(13), lambda: RegionSet((-1,)), lambda: Angle(float("nan")),
                  lambda: BBox(0, 0, 2, 1, normalized=True), lambda: Actions(({"direction": "up"},))):  # fmt: skip
        with pytest.raises(ValueError):
            build()
