"""Fixtures the command-line tests share."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A workspace folder ``tmp_path/ws``: the bundled essays and sources, copied."""
    root = tmp_path / "ws"
    shutil.copytree(EXAMPLES / "essays", root / "essays")
    shutil.copytree(EXAMPLES / "sources", root / "sources")
    return root
