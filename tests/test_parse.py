"""The offline question parser: asked quantity, referents, stated values and conventions, over families of phrasing
written here (each family says one thing several ways), typos and abbreviations, and the format-instruction
precedence. None of these sentences is taken from a benchmark or a shared question set."""

from __future__ import annotations

import pytest

from planners.lexicon import normalise
from planners.parse import parse_question
from planners.program import Ask, Program, program_schema

FAMILIES: list[tuple[Ask, int, list[str]]] = [
    (Ask.DISTANCE, 2, ["How far apart were the two exposures made?", "distance from the 1st shot's position to the "
                       "2nd one's, in feet", "What horizontal spacing separates the places these frames were taken?",
                       "how many metres lie between the two camera stations"]),
    (Ask.HEADING_CHANGE, 2, ["By how many degrees is the second camera turned relative to the first?",
                             "What's the yaw difference between pic 1 and pic 2?",
                             "How much has the drone rotated from frame one to frame two, clockwise?"]),
    (Ask.TURNED, 2, ["Did the drone turn between these photos?", "Were both photos shot facing the same way?",
                     "Has the heading changed from the first image to the second?"]),
    (Ask.CLOCK, 2, ["At what o'clock from the first photo's position was the second taken (12 = top of photo 1)?",
                    "Give the clock direction of image 2's capture point as seen in image 1."]),
    (Ask.COMPASS, 2, ["Which compass direction leads from where photo 1 was shot to where photo 2 was?",
                      "Is the second capture point north, south, east or west of the first?"]),
    (Ask.COMPASS, 1, ["Which way does the top edge of this photo face, compass-wise?",
                      "What cardinal direction was the camera pointing?"]),
    (Ask.ALTITUDE, 1, ["How high was the drone when this was taken?", "What's the altitude above the launch point?",
                       "flight height of this pic in ft?"]),
    (Ask.GSD, 1, ["What is the GSD of this frame?", "How many millimetres of ground does one pixel cover?",
                  "ground sampling distance in cm/px please"]),
    (Ask.FOOTPRINT, 1, ["How much ground does this photo cover, width by height?",
                        "What are the dimensions of the area on the ground seen here, in metres?"]),
    (Ask.TILT, 1, ["Is this photo oblique?", "Was this shot taken straight down or at an angle?"]),
    (Ask.COUNT, 1, ["How many people can you see?", "count the pedestrians", "Number of cars here?"]),
    (Ask.QUALITY, 1, ["Is this picture blurry?", "Is the photo too dark?", "What is wrong with this image's quality?"]),
    (Ask.OVERLAP, 4, ["Which of the other photos overlaps the first one most?"]),
    (Ask.MOTION, 3, ["Which way is the drone moving across these frames?", "Is the aircraft turning or going straight?"]),
    (Ask.ORDER, 1, ["Which region is nearest to the drone?", "Which box lies farthest from the centre of the photo?"]),
    (Ask.SEMANTIC, 1, ["What is inside region 3?", "Is there a swimming pool in this picture?",
                       "Describe what this photo shows."]),
]


@pytest.mark.parametrize("ask,n,question", [(a, n, q) for a, n, qs in FAMILIES for q in qs])
def test_each_phrasing_of_a_quantity_is_that_quantity(ask, n, question):
    assert parse_question(question, n).ask == ask


@pytest.mark.parametrize("question,ids", [
    ("In which clock direction is region 7 from the centre?", [7]),
    ("Where is box 0, as a clock hour?", [0]),
    ("What o'clock is the area marked 12?", [12]),
    ("Clock position of #3?", [3]),
    ("Which hour points at the label numbered 4?", [4]),
    ("clock dir of R5 from the middle", [5]),
])
def test_a_region_by_any_name_is_a_region_referent(question, ids):
    p = parse_question(question, 1)
    assert p.ask == Ask.CLOCK and p.regions() == ids


def test_two_regions_and_an_anchor():
    p = parse_question("Seen from box 2, at what o'clock is box 9?", 1)
    assert p.regions() == [2, 9] and p.conventions.anchor.id == 2
    p = parse_question("Ground distance between regions 0 and 11 in yards, photo taken straight down from 60 m?", 1)
    assert p.ask == Ask.DISTANCE and p.regions() == [0, 11]
    assert (p.conventions.unit, p.conventions.altitude_m, p.conventions.pitch_deg) == ("yd", 60.0, -90.0)


def test_stated_values_are_conventions_not_the_question():
    p = parse_question("Flying at 200 ft with a 8.8 mm lens on a 13.2 mm sensor, how far is region 1 from region 2?",
                       1)
    c = p.conventions
    assert p.ask == Ask.DISTANCE
    assert c.altitude_m == pytest.approx(60.96) and (c.focal_mm, c.sensor_width_mm) == (8.8, 13.2)
    p = parse_question("This tile spans 120 m across. Distance from box 3 to box 4?", 1)
    assert p.conventions.ground_width_m == 120.0


def test_units_signs_and_senses():
    assert parse_question("Distance between the two shots in kilometres?", 2).conventions.unit == "km"
    assert parse_question("GSD in inches per pixel?", 1).conventions.unit == "in"
    p = parse_question("Heading change from image 1 to 2 as a signed angle, -180 to 180?", 2)
    assert p.ask == Ask.HEADING_CHANGE and p.conventions.signed
    assert not parse_question("How many degrees counter-clockwise did the drone turn between the photos?",
                              2).conventions.clockwise


def test_typos_and_abbreviations():
    assert normalise("regoin 3 hieght pics alt ppl") == "region 3 height photos altitude people"
    assert parse_question("wat is the altitue of this pic?", 1).ask == Ask.ALTITUDE
    assert parse_question("dist btw img 1 and img 2 in m", 2).ask == Ask.DISTANCE
    assert parse_question("clock direction of regoin 4?", 1).regions() == [4]
    # ordinary words close to a domain word stay as they are
    assert normalise("tally the snapped frames") == "tally the snapped frames"


def test_the_format_instruction_wins():
    p = parse_question("Describe where region 4 is. Answer formatted exactly like `N o'clock`.", 1)
    assert p.ask == Ask.CLOCK
    p = parse_question("What is the heading offset angle and distance from image 1 to image 2? Answer with only "
                       "the angle in degrees.", 2)
    assert p.ask == Ask.HEADING_CHANGE


def test_yes_no_forms_keep_their_polarity():
    p = parse_question("Is this photo sharp?", 1)
    assert (p.ask, p.form, p.expect) == (Ask.QUALITY, "yes_no", "no_blur")
    p = parse_question("Were the two photos taken with the same heading?", 2)
    assert (p.ask, p.form, p.expect) == (Ask.TURNED, "yes_no", "same")
    p = parse_question("Is this picture nadir or oblique?", 1)
    assert (p.ask, p.form) == (Ask.TILT, "label")
    assert parse_question("Is this picture oblique?", 1).expect == "oblique"


def test_what_is_not_understood_is_said():
    p = parse_question("Tell me something nice.", 1)
    assert p.ask == Ask.SEMANTIC and p.unsure


def test_the_schema_validates_programs():
    schema = program_schema()
    assert "ask" in schema["required"]
    p = Program.model_validate({"ask": "distance", "operands": [{"kind": "capture_point", "image": 1},
                                                                 {"kind": "capture_point", "image": 2}],
                                "conventions": {"unit": "ft"}})
    assert p.ask == Ask.DISTANCE and p.conventions.unit == "ft"
    with pytest.raises(ValueError):
        Program.model_validate({"ask": "distance", "colour": "red"})
    with pytest.raises(ValueError):
        Program.model_validate({"ask": "weather"})
