"""One task vocabulary: the planner, the scorer, the published numbers and the generator name the same task types
with the same answer formats (``agent.task_types``)."""

from __future__ import annotations

import pytest

from agent.answer_formats import AnswerFormat
from agent.task_types import CLOCK_TASKS, TASK_TYPES, TaskType, task_type
from benchmarks.published import SPATIALUAV, SPATIALUAV_COLUMNS
from benchmarks.scoring.spatialuav import answer_format, rule_of
from benchmarks.synth.generate import TASKS as RENDERED
from planners.tasks import TASKS as PLANNED


def test_every_official_task_is_planned_with_its_canonical_format():
    for task, kind in TASK_TYPES.items():
        if kind.official:
            assert PLANNED[task].answer_format == kind.answer_format.name, task


def test_the_scorer_and_the_generator_read_the_vocabulary():
    assert set(RENDERED) <= set(TASK_TYPES) and all(isinstance(t, TaskType) for t in RENDERED)
    # a format that depends on the truth string is read from it; the others are the canonical format
    assert answer_format("A2A_Camera_Transformation", "-160.0, -70.0") == AnswerFormat.ANGLE_DISTANCE.value
    assert answer_format("A2A_Camera_Transformation", "35.0") == AnswerFormat.ANGLE.value
    assert answer_format("Direction_Recognition", "7 o'clock") == AnswerFormat.CLOCK.value
    assert rule_of("BEDI_Clock").rule == "token_f1" and rule_of("BEDI_Clock", "synth").rule == "bedi_clock"


def test_published_columns_cover_the_official_tasks_in_paper_order():
    official = [t.value for t, k in TASK_TYPES.items() if k.official]
    assert list(SPATIALUAV_COLUMNS.values()) == official
    assert SPATIALUAV["Human"]["Direction_Recognition"] == 95.4  # the paper's DR column, third in its table


def test_names_resolve_and_unknown_names_say_what_is_known():
    assert task_type("BEDI_Clock") is TaskType.BEDI_CLOCK and {"Direction_Recognition", "BEDI_Clock"} <= CLOCK_TASKS
    with pytest.raises(ValueError, match="known: Region_Recognition"):
        task_type("Region_Counting")
