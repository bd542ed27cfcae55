"""Yes/no questions comparing a measured quantity with a stated number: read into the program's ``compare``, judged
against the quantity's own operation. End to end on real photos of ``../shared/data``: truths from the files' own
metadata (DJI XMP text in the JPEG bytes; the Parrot Sequoia survey's CSV summary of GPS positions)."""

from __future__ import annotations

import csv
import math
import re

import pytest

from agent.agent import Agent
from agent.answers import YesNo
from agent.config import Config
from planners.comparison import judge, judge_point, named_points
from planners.evidence import found
from planners.parse import parse_question
from planners.program import Ask, Comparison

PHRASINGS = [  # (question, images, ask, op, value, unit)
    ("Is the drone higher than 100 m?", 1, Ask.ALTITUDE, "gt", 100.0, "m"),
    ("was it flying below 400 feet", 1, Ask.ALTITUDE, "lt", 400.0, "ft"),
    ("Are there more than ten people?", 1, Ask.COUNT, "gt", 10.0, None),
    ("Do you see at least 3 cars?", 1, Ask.COUNT, "ge", 3.0, None),
    ("Is the GSD better than 2 cm per pixel?", 1, Ask.GSD, "lt", 2.0, "cm"),
    ("Were the two photos taken more than 50 m apart?", 2, Ask.DISTANCE, "gt", 50.0, "m"),
    ("Did the heading change by over 30 degrees?", 2, Ask.TURNED, "gt", 30.0, "deg"),
    ("Did the camera rotate no more than 5 degrees between the shots?", 2, Ask.TURNED, "le", 5.0, "deg"),
    ("Are boxes 1 and 2 less than 15 feet apart?", 1, Ask.DISTANCE, "lt", 15.0, "ft"),
    ("Is region 3 within 20 m of region 9?", 1, Ask.DISTANCE, "le", 20.0, "m"),
]


@pytest.mark.parametrize("question,n,ask,op,value,unit", PHRASINGS)
def test_a_stated_threshold_makes_a_yes_no_comparison(question, n, ask, op, value, unit):
    p = parse_question(question, n)
    assert (p.ask, p.form) == (ask, "yes_no"), p.understood
    assert p.compare == Comparison(op=op, value=value, unit=unit)


@pytest.mark.parametrize("question,n", [("How high was the drone, in metres, at least roughly?", 1),
                                        ("Did the camera turn?", 2), ("How many people are there?", 1),
                                        ("How far apart were the two photos taken, in metres?", 2)])
def test_no_threshold_no_comparison(question, n):
    assert parse_question(question, n).compare is None


def test_judging_converts_units_and_marks_close_calls():
    metres = found({"metres": 91.44, "unit": "m"}, 0.9)   # 300 ft
    assert judge(Comparison(op="gt", value=250, unit="ft"), Ask.ALTITUDE, metres)["value"] == {"value": True}
    assert judge(Comparison(op="gt", value=350, unit="ft"), Ask.ALTITUDE, metres)["value"] == {"value": False}
    close = judge(Comparison(op="gt", value=310, unit="ft"), Ask.ALTITUDE, metres)
    assert close["value"] == {"value": False} and close["confidence"] <= 0.5
    gsd = found({"m_per_px": 0.015, "unit": "cm"}, 0.9)   # 1.5 cm per pixel; a bare number is in cm per pixel
    assert judge(Comparison(op="lt", value=2, unit=None), Ask.GSD, gsd)["value"] == {"value": True}
    turn = found({"degrees": -170.0, "signed": True}, 0.85)   # a turn's size either way round
    assert judge(Comparison(op="gt", value=90, unit="deg"), Ask.HEADING_CHANGE, turn)["value"] == {"value": True}
    assert judge(Comparison(op="gt", value=90, unit="deg"), Ask.ALTITUDE, metres)["value"] is None  # no fit


@pytest.fixture(scope="module")
def agent() -> Agent:
    return Agent(Config.from_env(), use_embeddings=False)


def test_altitude_threshold_on_a_dji_photo(agent, shared_data):
    photo = shared_data / "dji_survey_dev" / "images" / "DJI_0018.JPG"
    height = float(re.search(rb'RelativeAltitude="?\+?(-?[0-9.]+)', photo.read_bytes()).group(1))
    below = agent.ask([photo], f"Was the drone flying higher than {height * 0.6:.0f} m?")
    above = agent.ask([photo], f"is the drone above {height * 1.5 / 0.3048:.0f} feet?")
    assert isinstance(below.value, YesNo) and below.value.value is True, below.reason
    assert isinstance(above.value, YesNo) and above.value.value is False, above.reason


def test_distance_threshold_between_parrot_photos(agent, shared_data):
    folder = shared_data / "garfield_dev"
    rows = list(csv.DictReader((folder / "exif_summary.csv").open()))[:2]
    lat = [float(r["GPSLatitude"]) for r in rows]
    lon = [float(r["GPSLongitude"]) for r in rows]
    r = 6371008.8
    metres = math.hypot(math.radians(lon[1] - lon[0]) * math.cos(math.radians(sum(lat) / 2)) * r,
                        math.radians(lat[1] - lat[0]) * r)
    images = [folder / row["SourceFile"] for row in rows]
    a = agent.ask(images, f"Were these two shots taken less than {metres * 2:.0f} metres apart?")
    assert isinstance(a.value, YesNo) and a.value.value is True, a.reason


# --- is one region nearer (farther) than another: a yes/no over the ranking ------------------------------------
@pytest.mark.parametrize("question,regions,order", [
    ("From the centre of the frame, is area 6 closer than area 2?", [6, 2], "nearest_first"),
    ("Is region 3 farther from the drone than region 1?", [3, 1], "farthest_first"),
    ("is box 2 nearer to box 0 than box 5 is", [2, 0, 5], "nearest_first"),
])
def test_is_one_region_nearer_than_another_is_a_yes_no_ranking(question, regions, order):
    p = parse_question(question, 1)
    assert (p.ask, p.form, p.regions(), p.conventions.order) == (Ask.ORDER, "yes_no", regions, order)


def test_which_is_farther_ranks_from_the_farthest():
    p = parse_question("Which is farther from the camera, region 2 or region 8?", 1)
    assert (p.ask, p.form, p.conventions.order) == (Ask.ORDER, "value", "farthest_first")


def test_ids_offered_at_the_end_of_a_region_question_are_its_regions():
    assert parse_question("Which region is closer to the drone, 2 or 8?", 1).regions() == [2, 8]
    assert parse_question("Which box is nearest the camera: 1, 4 or 7?", 1).regions() == [1, 4, 7]
    assert parse_question("How many people were there in 2019 or 2020?", 1).regions() == []


def test_is_a_box_nearer_to_another_on_a_nadir_frame(agent):
    """Truth from the drawn boxes of the example overlay (centre-to-centre distances on a straight-down frame)."""
    import json
    from pathlib import Path

    examples = Path(__file__).resolve().parents[2] / "examples"
    drawn = json.loads((examples / "regions_nadir.json").read_text())["regions"]
    centre = {int(k): ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for k, b in drawn.items()}
    anchor = 1
    near, *_, far = sorted((i for i in centre if i != anchor), key=lambda i: math.dist(centre[anchor], centre[i]))
    for first, second, truth in ((near, far, True), (far, near, False)):
        a = agent.ask([examples / "regions_nadir.png"], f"Is box {first} closer to box {anchor} than box {second}?")
        assert isinstance(a.value, YesNo) and a.value.value is truth, a.reason
    b = agent.ask([examples / "regions_nadir.png"], f"Is region {far} farther from region {anchor} than region {near}?")
    assert isinstance(b.value, YesNo) and b.value.value is True, b.reason


@pytest.mark.parametrize("question,point", [
    ("Was the drone pointed roughly northeast when this was taken?", "NE"), ("is the camera facing south?", "S"),
    ("Was photo 2 taken north-west of photo 1?", "NW"), ("does the top of the frame face westwards?", "W")])
def test_a_named_compass_point_makes_a_yes_no_compass_question(question, point):
    p = parse_question(question, 2 if "photo 2" in question else 1)
    assert (p.ask, p.form, p.expect) == (Ask.COMPASS, "yes_no", point), p.understood
    assert named_points("north or south?") == ["N", "S"]
    assert parse_question("Was the camera facing north or south?", 1).form == "value"  # asks which


@pytest.mark.parametrize("bearing,point,yes,close", [
    (40.0, "NE", True, False), (10.0, "NE", False, False), (350.0, "N", True, False), (200.0, "N", False, False),
    (20.0, "N", True, True), (25.0, "NE", True, True), (315.0, "NW", True, False)])
def test_a_bearing_is_judged_against_the_named_points_sector(bearing, point, yes, close):
    e = judge_point(point, found({"bearing_deg": bearing}, 0.9))
    assert e["value"] == {"value": yes}
    assert (e["confidence"] < 0.9) == close


def test_a_direction_written_out_is_read_and_an_unknown_one_is_refused():
    assert judge_point("north-west", found({"bearing_deg": 310.0}, 0.9))["value"] == {"value": True}
    refused = judge_point("upwards", found({"bearing_deg": 310.0}, 0.9))
    assert refused["value"] is None and "no 8-point compass direction" in refused["reason"]
