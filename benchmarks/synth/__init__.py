"""Ground-truth suite: benchmark instances rendered from real aerial imagery with cameras we place.

Public API (imported lazily so that ``uav-agent`` starts fast): ``generate``, ``TASKS``, ``make_instance``
(from :mod:`benchmarks.synth.generate`), ``Tier``, ``Nuisance``, ``TIERS``, ``EASY``, ``DEFAULT``, ``HARD``
(from :mod:`benchmarks.synth.tiers`), ``Source``, ``load_source``, ``builtin_sources``
(from :mod:`benchmarks.synth.sources`). See ``benchmarks/synth/README.md``.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "generate": "generate", "TASKS": "generate", "make_instance": "generate",
    "Tier": "tiers", "Nuisance": "tiers", "TIERS": "tiers", "EASY": "tiers", "DEFAULT": "tiers", "HARD": "tiers",
    "Source": "sources", "load_source": "sources", "builtin_sources": "sources",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'benchmarks.synth' has no attribute {name!r}")
    return getattr(importlib.import_module(f"benchmarks.synth.{_EXPORTS[name]}"), name)
