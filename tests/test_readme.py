"""The README's tool table is the registry's: every served tool is listed once, and nothing else."""

from __future__ import annotations

import re
from pathlib import Path

from mcp_server.catalog import REGISTRY
from mcp_server.server import SERVER_TOOLS

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_readme_lists_every_tool_once():
    text = README.read_text()
    section = text[text.index("## MCP server"): text.index("## Benchmarks")]
    listed = re.findall(r"^\| `([a-z_]+)` \|", section, re.M)
    assert sorted(listed) == sorted([*REGISTRY, *SERVER_TOOLS])
