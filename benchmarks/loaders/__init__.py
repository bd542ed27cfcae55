"""Loaders for each benchmark's own record format → ``benchmarks.sample.Sample``.

``load(suite, path, **kw)``: suite ∈ ``SUITES``; keyword arguments go to the suite's loader (e.g. ``data_root``,
``check_images``, ``rotations``). Every malformed record raises ``RecordError`` naming the file and the record;
nothing is skipped silently.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks.sample import RecordError, Sample
from benchmarks.suites import SUITES as _SUITES
from benchmarks.suites import get_suite

# suite → (module, fixed keyword arguments), read from the one registry ``benchmarks.suites.SUITES``
SUITES: dict[str, tuple[str, dict[str, Any]]] = {n: (s.loader, dict(s.loader_kwargs)) for n, s in _SUITES.items()}

__all__ = ["SUITES", "RecordError", "Sample", "load"]


def load(suite: str, path: str | Path, **kw: Any) -> list[Sample]:
    """Samples of one benchmark file (or folder, for BEDI) in the benchmark's own format.

    ``ValueError`` for an unknown suite; ``RecordError`` for a malformed record; ``TypeError`` for an option the
    suite's loader does not take.
    """
    return get_suite(suite).load(path, **kw)
