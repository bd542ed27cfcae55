"""The benchmark task types: one vocabulary that the planner, the scorers, the report, the published numbers and
the ground-truth generator all read (a leaf module any layer may import).

Each SpatialUAV task type (and ``BEDI_Clock``, which our generator renders in SpatialUAV's record format) has a
reasoning group, the official scoring rule, its canonical answer format and the paper's column abbreviation. The
planner adds how to answer it (``planners.tasks``); the scorer adds how to score it
(``benchmarks.scoring.spatialuav``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from agent.answer_formats import AnswerFormat


class TaskType(str, Enum):
    """A benchmark task type; members compare equal to (and hash as) their record names."""

    REGION_RECOGNITION = "Region_Recognition"
    ANOMALY_DETECTION = "Anomaly_Detection"
    DIRECTION_RECOGNITION = "Direction_Recognition"
    DISTANCE_COMPARISON = "Distance_Comparison"
    A2A_COLLABORATION_RECOGNITION = "A2A_Collaboration_Recognition"
    A2A_SHARED_ASSOCIATION = "A2A_Shared_Association"
    A2A_OBJECT_MATCHING = "A2A_Object_Matching"
    A2A_CAMERA_TRANSFORMATION = "A2A_Camera_Transformation"
    A2A_OCCLUSION_REMOVAL = "A2A_Occlusion_Removal"
    A2G_SHARED_ASSOCIATION = "A2G_Shared_Association"
    A2G_COLLABORATION_RECOGNITION = "A2G_Collaboration_Recognition"
    A2G_VIEW_TRANSLATION = "A2G_View_Translation"
    A2G_PATH_PLANNING = "A2G_Path_Planning"
    MOTION_UNDERSTANDING = "Motion_Understanding"
    BEDI_CLOCK = "BEDI_Clock"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class TaskKind:
    """What every layer knows of a task type.

    ``rule`` is the official scoring rule (region_set | region_list | first_int | option | pairs | object_matching |
    camera | judge | bedi_clock); ``answer_format`` the canonical answer the agent gives; ``format_from_truth`` marks
    the two tasks whose scored format depends on the ground-truth string (a box or regions; an angle with or
    without a distance). ``official`` is False for a task our generator adds (not in the paper); ``column`` is the
    paper's table column.
    """

    group: str  # semantic | spatial | aerial-aerial | aerial-ground | motion
    rule: str
    answer_format: AnswerFormat
    column: str = ""
    format_from_truth: bool = False
    official: bool = True


T, F = TaskType, AnswerFormat
TASK_TYPES: dict[TaskType, TaskKind] = {
    T.REGION_RECOGNITION: TaskKind("semantic", "region_set", F.REGION_SET, "RR"),
    T.ANOMALY_DETECTION: TaskKind("semantic", "region_set", F.REGION_SET, "AD"),
    T.DIRECTION_RECOGNITION: TaskKind("spatial", "first_int", F.CLOCK, "DR"),
    T.DISTANCE_COMPARISON: TaskKind("spatial", "region_list", F.REGION_LIST, "DC"),
    T.A2A_COLLABORATION_RECOGNITION: TaskKind("aerial-aerial", "option", F.OPTION_LETTER, "A2A-CR"),
    T.A2A_SHARED_ASSOCIATION: TaskKind("aerial-aerial", "pairs", F.REGION_PAIRS, "A2A-SA"),
    T.A2A_OBJECT_MATCHING: TaskKind("aerial-aerial", "object_matching", F.BBOX, "OM", format_from_truth=True),
    T.A2A_CAMERA_TRANSFORMATION: TaskKind("aerial-aerial", "camera", F.ANGLE_DISTANCE, "CT", format_from_truth=True),
    T.A2A_OCCLUSION_REMOVAL: TaskKind("aerial-aerial", "region_list", F.REGION_LIST, "OR"),
    T.A2G_SHARED_ASSOCIATION: TaskKind("aerial-ground", "pairs", F.REGION_PAIRS, "A2G-SA"),
    T.A2G_COLLABORATION_RECOGNITION: TaskKind("aerial-ground", "option", F.OPTION_LETTER, "A2G-CR"),
    T.A2G_VIEW_TRANSLATION: TaskKind("aerial-ground", "region_list", F.REGION_LIST, "VT"),
    T.A2G_PATH_PLANNING: TaskKind("aerial-ground", "first_int", F.DIRECTION_LABEL, "PP"),
    T.MOTION_UNDERSTANDING: TaskKind("motion", "judge", F.FREE_TEXT, "GM"),
    # Not a SpatialUAV task: BEDI-style clock questions that our generator renders, scored with BEDI's
    # partial-credit clock rule.
    T.BEDI_CLOCK: TaskKind("spatial", "bedi_clock", F.CLOCK, official=False),
}
del T, F

#: Task types whose answer is a clock hour (BEDI's own clock task keeps its benchmark name).
CLOCK_TASKS: frozenset[str] = frozenset({*(t.value for t, k in TASK_TYPES.items() if k.answer_format is
                                           AnswerFormat.CLOCK), "Spatial_PosRelDis"})


def task_type(name: str) -> TaskType:
    """The task type named ``name``; ``ValueError`` listing the known names otherwise."""
    try:
        return TaskType(name)
    except ValueError:
        raise ValueError(f"unknown task type {name!r}; known: {', '.join(t.value for t in TaskType)}") from None
