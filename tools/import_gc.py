"""Heavy imports with Python's cyclic garbage collector paused.

Importing a large stack (torch, the MCP SDK, LangGraph) creates hundreds of thousands of long-lived objects —
classes, functions, schemas — and almost no garbage, yet each few hundred new objects trigger a collection that
traverses them again: 12-15 % of such an import's CPU time on this project's machines (``uav-agent ask``'s imports
1.8 -> 1.55 CPU s, torch + kornia 2.3 -> 1.95). Pausing the collector meanwhile skips that work and collects
nothing that would have been freed.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def imports_without_gc(freeze: bool = False) -> Iterator[None]:
    """Run the block with the collector paused, then restore it as it was.

    ``freeze``: also move every object of the process to the permanent generation (``gc.freeze``), so that later
    full collections skip what the imports built — for a process entry point, where the heap holds little else;
    a library call leaves it False (it would also freeze any garbage other threads hold at that moment). Threads
    that import at the same time may re-enable the collector before the other finishes: they only lose part of the
    saving."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if freeze:
            gc.freeze()
        if was_enabled:
            gc.enable()
