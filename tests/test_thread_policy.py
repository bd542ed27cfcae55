"""Importing the tools package makes torch's OpenMP threads wait passively unless the user chose a policy."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHOW = "import os, tools; print(os.environ['OMP_WAIT_POLICY'])"


def policy_after_import(user_value: str | None) -> str:
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if user_value is not None:
        env["OMP_WAIT_POLICY"] = user_value
    proc = subprocess.run([sys.executable, "-c", SHOW], cwd=str(ROOT), env={**env, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr[-500:]
    return proc.stdout.strip()


def test_passive_waits_by_default():
    assert policy_after_import(None) == "PASSIVE"


def test_the_users_policy_wins():
    assert policy_after_import("ACTIVE") == "ACTIVE"
