"""Photo pairs with known geometry for tests: the DJI survey flight log as its README documents it, the pose of one
photo seen from another computed from such log values (a spherical-Earth local approximation written here, never
the code under test)."""

from __future__ import annotations

import math

R_EARTH = 6371008.8
#: dji_survey_dev/README.md: lat, lon, GimbalYaw of each photo.
DJI_LOG = {"0018": (46.8426070833, -91.9945598889, 45.0), "0019": (46.8426906667, -91.9944272778, 42.8),
           "0020": (46.8427775833, -91.9942993889, 44.2)}


def truth(a: tuple[float, float, float], b: tuple[float, float, float], turn_a: int = 0,
          turn_b: int = 0) -> dict[str, float]:
    """Heading change, forward/right (m) in A's image frame and bearing; ``turn_*`` quarter turns clockwise of a
    copy's pixels (its top then points 90 deg anticlockwise of the original's per turn)."""
    north = math.radians(b[0] - a[0]) * R_EARTH
    east = math.radians(b[1] - a[1]) * R_EARTH * math.cos(math.radians((a[0] + b[0]) / 2))
    yaw_a, yaw_b = a[2] - 90.0 * turn_a, b[2] - 90.0 * turn_b
    psi = math.radians(yaw_a)
    fwd, right = east * math.sin(psi) + north * math.cos(psi), east * math.cos(psi) - north * math.sin(psi)
    return {"heading": (yaw_b - yaw_a) % 360.0, "forward": fwd, "right": right,
            "bearing": math.degrees(math.atan2(right, fwd)) % 360.0, "distance": math.hypot(fwd, right)}
