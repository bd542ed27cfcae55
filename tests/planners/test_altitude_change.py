"""The height change between two photos ("did the drone climb?", "altitude difference between the shots"): read
from the two files' altitude tags. Truths from the files themselves: the Parrot Sequoia survey's CSV summary of GPS
altitudes, the DJI XMP relative altitudes in the JPEG bytes."""

from __future__ import annotations

import csv
import re

import pytest

from agent.agent import Agent
from agent.answers import YesNo
from agent.answers_measure import Length
from agent.config import Config
from planners.parse import parse_question
from planners.program import Ask


@pytest.mark.parametrize("question,form,expect", [
    ("Did the aircraft climb between these pictures?", "yes_no", "up"),
    ("Was the second photo taken from higher up than the first?", "yes_no", "up"),
    ("did the drone descend between shot 1 and shot 2", "yes_no", "down"),
    ("What is the altitude difference between the two photos?", "value", None),
    ("How much height did the drone gain between these photos, in feet?", "value", None),
    ("Was the drone ascending, descending or level between the two photos?", "label", None),
])
def test_a_height_change_between_two_photos(question, form, expect):
    p = parse_question(question, 2)
    assert (p.ask, p.form, p.expect) == (Ask.ALTITUDE, form, expect), p.understood
    assert [r.kind for r in p.operands] == ["capture_point", "capture_point"]


@pytest.mark.parametrize("question", ["Which is higher, region 1 or region 2?", "How high was the drone?"])
def test_one_photo_or_regions_are_no_height_change(question):
    assert [r.kind for r in parse_question(question, 1).operands] != ["capture_point", "capture_point"]


@pytest.fixture(scope="module")
def agent() -> Agent:
    return Agent(Config.from_env(), use_embeddings=False)


def test_height_change_between_sequoia_photos_is_their_gps_altitude_difference(agent, shared_data):
    folder = shared_data / "garfield_dev"
    rows = list(csv.DictReader((folder / "exif_summary.csv").open()))[:2]
    rise = float(rows[1]["GPSAltitude"]) - float(rows[0]["GPSAltitude"])
    images = [folder / r["SourceFile"] for r in rows]
    a = agent.ask(images, "What's the altitude difference between these two photos, in metres?")
    assert isinstance(a.value, Length), a.reason
    assert a.value.metres == pytest.approx(rise, abs=0.05)


def test_a_survey_pair_at_one_height_did_not_climb(agent, shared_data):
    images = [shared_data / "dji_survey_dev" / "images" / f"DJI_00{k}.JPG" for k in (18, 19)]
    alt = [float(re.search(rb'RelativeAltitude="?\+?(-?[0-9.]+)', p.read_bytes()).group(1)) for p in images]
    assert abs(alt[1] - alt[0]) < 1.0   # the same survey leg
    a = agent.ask(images, "Did the drone climb between the two shots?")
    assert isinstance(a.value, YesNo) and a.value.value is False, a.reason
    b = agent.ask(images[::-1], "Was it ascending, descending or level between these photos?")
    assert b.text.startswith("stayed level"), b.reason
