"""The people-shape cue of a straight-down view: people seen from above are round boxes, from the side tall ones.
Boxes are built with known shapes; the real-frame check is in tests/geometry/test_thermal_tilt.py."""

from __future__ import annotations

import math

import pytest

from tools.geometry.people_shape import MIN_PEOPLE, people_shape


def _boxes(aspects: list[float]) -> list[list[float]]:
    """Boxes 10 px wide whose height/width are ``aspects``, side by side."""
    return [[20.0 * i, 100.0, 20.0 * i + 10.0, 100.0 + 10.0 * a] for i, a in enumerate(aspects)]


def test_round_people_say_nadir() -> None:
    s = people_shape(_boxes([1.0, 1.1, 0.9, 1.05]))
    assert s.nadir and s.people == 4 and abs(s.median_log_aspect) < 0.1


def test_standing_people_seen_from_the_side_say_nothing() -> None:
    s = people_shape(_boxes([2.0, 1.8, 2.2, 1.9]))
    assert not s.nadir and s.median_log_aspect == pytest.approx(math.log(1.95), abs=0.01)


def test_the_median_decides_not_one_odd_box() -> None:
    assert people_shape(_boxes([1.0, 1.0, 1.0, 3.0, 3.0])).nadir
    assert not people_shape(_boxes([1.0, 1.0, 3.0, 3.0, 3.0])).nadir


def test_too_few_people_or_degenerate_boxes_say_nothing() -> None:
    assert not people_shape(_boxes([1.0] * (MIN_PEOPLE - 1))).nadir
    assert not people_shape([[5, 5, 5, 9], [3, 3, 8, 3]]).nadir and people_shape([]).people == 0

