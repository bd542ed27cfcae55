"""Published reference results (percent), transcribed from ``shared/specs/benchmarks.md``; the report reads them.

SpatialUAV rows are per task (the paper's column abbreviations mapped to our task names) plus the overall average.
Other benchmarks publish only headline figures; they are kept as short notes.
"""

from __future__ import annotations

from agent.task_types import TASK_TYPES, TaskType

# paper column → SpatialUAV task name (GM = "general motion" = Motion_Understanding), from the task vocabulary
SPATIALUAV_COLUMNS: dict[str, str] = {k.column: t.value for t, k in TASK_TYPES.items() if k.column}

_ORDER = tuple(SPATIALUAV_COLUMNS)


def _row(*values: float | None) -> dict[str, float]:
    """Per-task dict from values in paper column order, then the average ("overall"); ``None`` = not published."""
    named = dict(zip([*(SPATIALUAV_COLUMNS[c] for c in _ORDER), "overall"], values, strict=True))
    return {k: v for k, v in named.items() if v is not None}


SPATIALUAV: dict[str, dict[str, float]] = {
    "Human": _row(99.3, 100, 95.4, 97.6, 99.5, 92.9, 85.6, 40.2, 98.3, 92.7, 97.8, 98.2, 96.4, 89.1, 89.0),
    "Random": _row(8.0, 17.7, 7.5, 9.2, 26.9, 0.8, 1.4, 0.9, 25.4, 1.0, 22.6, 5.3, 14.6, 24.1, 14.4),
    "GPT-5.4": _row(56.7, 64.7, 50.6, 53.6, 92.6, 32.8, 28.8, 8.2, 49.2, 44.2, 79.8, 54.0, 45.8, 66.6, 56.7),
    "Qwen3.6-27B": _row(66.2, 76.5, 60.4, 69.7, 61.9, 24.7, 9.0, 7.4, 33.3, 36.5, 58.2, 47.4, 54.9, 50.5, 49.5),
    "Best per task (any model)": _row(72.1, 76.5, 62.6, 71.2, 92.6, 32.8, 28.8, 9.8, 49.2, 44.2, 80.4, 66.7,
                                      54.9, 66.6, None),
}

# Targets for the agent on the default ground-truth suite (issue #8); Motion is a judged similarity in [0, 1].
AGENT_TARGETS: dict[str, float] = {
    TaskType.DIRECTION_RECOGNITION: 95.0, TaskType.DISTANCE_COMPARISON: 90.0, TaskType.A2A_CAMERA_TRANSFORMATION: 90.0,
    TaskType.A2A_SHARED_ASSOCIATION: 90.0, TaskType.A2A_OBJECT_MATCHING: 90.0,
    TaskType.A2A_COLLABORATION_RECOGNITION: 95.0, TaskType.A2A_OCCLUSION_REMOVAL: 80.0,
    TaskType.MOTION_UNDERSTANDING: 80.0,
}
TARGET_THROUGHPUT_PER_MIN = 100.0  # single-image tasks, 2 cores

NOTES: dict[str, str] = {
    "bedi": "Best published: clock direction 83.11 (GPT-4o); region target determination 79.49; distance ~54; "
            "action structure 99.16.",
    "open3dvqa": "Best published average 64.0 (fine-tuned Qwen2-VL); 2-D models ~0-5 on distance and size; "
                 "transformation direction peaks at 32.7.",
    "aircopbench": "Best of 40 models trails humans by 24.38 points.",
    "tdbench": "Rotation score: Gemini-1.5-Pro 57.3 overall; grounding <= 36.5; counting <= 33.5; localization 71.5.",
}


def reference_rows(suite: str) -> dict[str, dict[str, float]]:
    """Published per-task rows for ``suite`` (SpatialUAV rules: "spatialuav" and "synth"); empty if none."""
    return SPATIALUAV if suite in ("spatialuav", "synth") else {}
