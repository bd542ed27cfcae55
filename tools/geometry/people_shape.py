"""Whether a thermal frame looks straight down, from the shape of the people in it.

Seen from the side a standing person is a tall box (height about twice the width); seen from straight above, a
round blob (head and shoulders). So the median ``log(height / width)`` of the people detected in a frame falls with
the camera tilt: on HIT-UAV's annotated people it is 0.75 at 30 deg below the horizontal, 0.57 at 60, 0.37 at 70,
0.12 at 80 and 0.09 at 90 deg (train split, frames with at least 3 people). The cue is one-sided, like the sky cue
(:mod:`tools.geometry.view_cues`): round people say "nadir"; tall ones say nothing sure (a crowd seen from above can
cast long shadows), and a frame with fewer than :data:`MIN_PEOPLE` people says nothing.

It complements the learned tilt estimate (:mod:`tools.geometry.thermal_tilt`), whose backbone features separate 30
to 60 deg well but not 70 from 90 deg, so that a straight-down frame otherwise stays unknown.

Calibration (``python -m benchmarks.measure.bench_people_shape --hituav /tmp/hituav --limit 268``, figures in
``docs/figures/people_shape.json``; the shipped thermal detector at its calibrated thresholds; nadir = tilt at least
80 deg, the project's 10-deg tolerance): :data:`MAX_MEDIAN_LOG_ASPECT` is the largest cut whose precision on the
first 268 frames of HIT-UAV's validation split reached 90 % (13 of 14 firing frames nadir). On the first 268 frames
of the held-out test split it fired on 19 of the 112 frames with at least 3 people, all 19 nadir:
:data:`MEASURED_PRECISION`; that is 19 of the 27 nadir test frames with at least 3 people. The cut depends on
the detector's boxes: rerun the calibration when the weights change.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import median
from typing import Sequence

MIN_PEOPLE = 3  # fewer people give too noisy a median shape
MAX_MEDIAN_LOG_ASPECT = 0.2  # median log(height / width) of the people under which the frame is nadir
MEASURED_PRECISION = 19 / 19  # share of firing frames that were nadir on HIT-UAV's held-out test frames


@dataclass(frozen=True)
class PeopleShape:
    """How many people boxes were measured, their median ``log(height / width)`` (NaN: none) and the verdict."""

    people: int
    median_log_aspect: float
    nadir: bool

    def source(self) -> str:
        return (f"the shape of the {self.people} people detected (seen from above they are round: median "
                f"log(height/width) {self.median_log_aspect:.2f} under {MAX_MEDIAN_LOG_ASPECT}; such frames were "
                f"{MEASURED_PRECISION:.0%} straight down, within 10 deg, on held-out HIT-UAV frames)")


def people_shape(boxes: Sequence[Sequence[float]]) -> PeopleShape:
    """The shape cue of the people boxes ``[x0, y0, x1, y1]`` (pixels) of one frame."""
    logs = [math.log((b[3] - b[1]) / (b[2] - b[0])) for b in boxes if b[2] > b[0] and b[3] > b[1]]
    if not logs:
        return PeopleShape(0, float("nan"), False)
    m = float(median(logs))
    return PeopleShape(len(logs), m, len(logs) >= MIN_PEOPLE and m < MAX_MEDIAN_LOG_ASPECT)
