"""The one record type every benchmark loader produces and every solver and scorer consumes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class RecordError(ValueError):
    """A malformed benchmark record. The message names the file and the record (line, id or key)."""


@dataclass
class Sample:
    """One benchmark question.

    ``images`` are file paths (already resolved against the data root) in the order the benchmark gives them;
    ``target`` is the ground-truth answer string exactly as the benchmark stores it; ``options`` maps option
    letters to texts for multiple-choice benchmarks; ``metadata`` keeps benchmark-specific fields (e.g. TDBench
    rotation, AirCopBench question_type, Open3D-VQA qa_info) untouched.
    """

    id: str
    benchmark: str  # spatialuav | bedi | open3dvqa | aircopbench | tdbench | synth
    task: str
    images: list[str]
    question: str
    target: Any
    options: dict[str, str] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
