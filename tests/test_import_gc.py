"""tools.import_gc: heavy imports with the cyclic collector paused, the collector restored as it was after."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# A fresh process for each check: gc.freeze moves every object of the process to the permanent generation.
CHECK = """
import gc
from tools.import_gc import imports_without_gc
enabled, freeze = {enabled}, {freeze}
(gc.enable if enabled else gc.disable)()
with imports_without_gc(freeze=freeze):
    inside = gc.isenabled()
    import email.mime.text  # a module this process had not loaded
print(inside, gc.isenabled(), gc.get_freeze_count() > 0)
"""


def run_check(enabled: bool, freeze: bool) -> list[str]:
    proc = subprocess.run([sys.executable, "-c", CHECK.format(enabled=enabled, freeze=freeze)], cwd=str(ROOT),
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr[-500:]
    return proc.stdout.split()


def test_the_collector_is_paused_inside_and_restored_after():
    assert run_check(enabled=True, freeze=False) == ["False", "True", "False"]


def test_a_paused_collector_stays_paused():
    assert run_check(enabled=False, freeze=False) == ["False", "False", "False"]


def test_freeze_moves_what_was_built_to_the_permanent_generation():
    assert run_check(enabled=True, freeze=True) == ["False", "True", "True"]
