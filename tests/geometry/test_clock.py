"""Clock directions: hand-computed geometry and the benchmarks' published examples."""

from __future__ import annotations

import math

import pytest

from tools.geometry.clock import clock_direction, clock_from_angle, ground_bearing_clock, open3d_clock, point_of
from tools.common import ToolError


@pytest.mark.parametrize("hour", range(1, 13))
def test_points_on_a_dial_give_their_hour(hour: int) -> None:
    # A point at radius 100 px, hour·30° clockwise from image up (y grows downwards).
    a = math.radians(hour * 30)
    target = (500 + 100 * math.sin(a), 400 - 100 * math.cos(a))
    res = clock_direction(target, image_size=(1000, 800))
    assert res.hour == hour
    assert res.angle_deg == pytest.approx((hour * 30) % 360, abs=1e-9)


def test_spatialuav_example_below_left_of_centre_is_seven() -> None:
    # Published example: target below-left of the image centre → 7 o'clock (angle 210° = 7 × 30°).
    cx, cy = 500 - 180 * math.sin(math.radians(30)), 500 + 180 * math.cos(math.radians(30))
    box = [cx - 10, cy - 10, cx + 10, cy + 10]
    assert clock_direction(box, image_size=(1000, 1000)).hour == 7


def test_anchor_and_heading_change_the_reference() -> None:
    # From an anchor region at the left, a target straight right of it is at 3 o'clock.
    assert clock_direction([900, 100], anchor=[100, 80, 140, 120]).hour == 3
    # Facing right (heading 90° clockwise from image up), a point straight above the centre is at 9 o'clock.
    assert clock_direction([50, 0], image_size=(100, 100), heading_deg=90).hour == 9


def test_nearest_and_floor_rounding_differ_as_documented() -> None:
    assert clock_from_angle(44.0) == 1 and clock_from_angle(46.0) == 2  # nearest: 1.47 h → 1, 1.53 h → 2
    assert clock_from_angle(46.0, "floor") == 1 and clock_from_angle(359.0, "floor") == 11
    assert clock_from_angle(359.0) == 12 and clock_from_angle(0.0, "floor") == 12


def test_ground_bearing_uses_heading_as_twelve() -> None:
    # Target due east of the anchor; drone heading north → 3 o'clock; heading east → 12 o'clock.
    assert ground_bearing_clock([10, 0], [0, 0], heading_deg=0).hour == 3
    assert ground_bearing_clock([10, 0], [0, 0], heading_deg=90).hour == 12


def test_open3d_rule_is_floor_of_atan2_minus_dy_dx() -> None:
    # angle = atan2(−dy, dx): dx = 1, dy = 0 → 0° → floor 0 → 12; dx = 0, dy = −1 → 90° → 3; 45.1° → 1.
    assert open3d_clock(1.0, 0.0) == 12
    assert open3d_clock(0.0, -1.0) == 3
    assert open3d_clock(math.cos(math.radians(45.1)), -math.sin(math.radians(45.1))) == 1


@pytest.mark.parametrize("bad", [[1.0], [1, 2, 3], [float("nan"), 1.0]])
def test_bad_targets_are_refused(bad: list[float]) -> None:
    with pytest.raises(ToolError):
        point_of(bad)


def test_missing_centre_and_coincident_points_are_refused() -> None:
    with pytest.raises(ToolError, match="image_size"):
        clock_direction([1, 2])
    with pytest.raises(ToolError, match="coincide"):
        clock_direction([50, 50], image_size=(100, 100))


def test_one_clock_rule_everywhere():
    """Halves round up to the next hour in every module that turns an angle into an hour (Python's round() would
    give 12 for 15 deg and 2 for 75 deg)."""
    from benchmarks.synth.instance import clock_hour as synth_hour
    from tools.geometry.clock import clock_from_angle
    from tools.views.pose import clock_hour as pose_hour

    for angle, hour in ((15.0, 1), (75.0, 3), (345.0, 12), (-15.0, 12), (195.0, 7)):
        assert clock_from_angle(angle) == pose_hour(angle) == synth_hour(angle) == hour
