"""Tilt questions answered from an estimated view: the answer carries the estimate's measured accuracy as its
confidence and says where the view came from. The fake ``photo_geometry`` returns what the real tool returns for a
thermal frame without tags and a confident learned estimate (an unsure one leaves the view unknown:
``tests/geometry/test_thermal_tilt.py``)."""

from __future__ import annotations

import pytest
from mcp.server.fastmcp import FastMCP
from planner_fakes import ask

SOURCE = ("estimated from the image by the learned thermal tilt estimate (tilt 33 deg below the horizontal; measured "
          "view accuracy 97% at this margin on held-out flights)")


def _server(view: str, confidence: float) -> FastMCP:
    srv = FastMCP("test-tilt")

    @srv.tool()
    def photo_geometry(image: str, altitude_m: float | None = None, pitch_deg: float | None = None,
                       focal_mm: float | None = None, sensor_width_mm: float | None = None,
                       focal_px: float | None = None, ground_width_m: float | None = None,
                       ground_elevation_m: float | None = None) -> dict:
        return {"pitch_deg": -33.0, "pitch_source": SOURCE, "view": view, "view_source": SOURCE,
                "view_confidence": confidence, "missing": {}}

    return srv


@pytest.mark.parametrize("accuracy", [0.97, 0.92])
def test_an_estimated_view_answers_with_its_measured_accuracy(agent, images, accuracy: float) -> None:
    a = ask(agent, _server("oblique", accuracy), images[:1], "Was the camera pointing straight down for this photo?")
    assert not a.abstained and a.text.lower().startswith("no")
    assert a.confidence == pytest.approx(accuracy) and "learned thermal tilt estimate" in a.reason

