"""The answer formats: one name per kind of canonical answer (a leaf module any layer may import)."""

from __future__ import annotations

from enum import Enum


class AnswerFormat(str, Enum):
    """Kinds of canonical answers; ``agent.answers.ANSWER_TYPES`` maps each to its dataclass."""

    OPTION_LETTER = "option_letter"
    REGION_SET = "region_set"
    REGION_LIST = "region_list"
    CLOCK = "clock"
    DIRECTION_LABEL = "direction_label"
    ANGLE = "angle"
    ANGLE_DISTANCE = "angle_distance"
    REGION_PAIRS = "region_pairs"
    BBOX = "bbox"
    YES_NO = "yes_no"
    QUANTITY = "quantity"
    FREE_TEXT = "free_text"
    ACTIONS = "actions"
    COMPASS = "compass"
    LENGTH = "length"
    FOOTPRINT = "footprint"
    GSD = "gsd"
    COUNT = "count"
    LABEL = "label"
    CHOICE = "choice"
    COMPOUND = "compound"
