"""Loaders for each benchmark's own record format → ``benchmarks.sample.Sample``.

``load(suite, path, **kw)``: suite ∈ ``SUITES``; keyword arguments go to the suite's loader (e.g. ``data_root``,
``check_images``, ``rotations``). Every malformed record raises ``RecordError`` naming the file and the record;
nothing is skipped silently.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from benchmarks.sample import RecordError, Sample

# suite → (module, fixed keyword arguments)
SUITES: dict[str, tuple[str, dict[str, Any]]] = {
    "spatialuav": ("benchmarks.loaders.spatialuav", {}),
    "synth": ("benchmarks.loaders.spatialuav", {"benchmark": "synth"}),
    "bedi": ("benchmarks.loaders.bedi", {}),
    "open3dvqa": ("benchmarks.loaders.open3dvqa", {}),
    "aircopbench": ("benchmarks.loaders.aircopbench", {}),
    "tdbench": ("benchmarks.loaders.tdbench", {}),
}

__all__ = ["SUITES", "RecordError", "Sample", "load"]


def load(suite: str, path: str | Path, **kw: Any) -> list[Sample]:
    """Samples of one benchmark file (or folder, for BEDI) in the benchmark's own format.

    ``ValueError`` for an unknown suite; ``RecordError`` for a malformed record; ``TypeError`` for an option the
    suite's loader does not take.
    """
    try:
        module_name, fixed = SUITES[suite]
    except KeyError:
        raise ValueError(f"unknown benchmark suite {suite!r}; known: {', '.join(SUITES)}") from None
    module = importlib.import_module(module_name)
    return module.load(path, **kw, **fixed)
