"""The `doublet` command run as a user runs it: a real process, its output captured."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def doublet(
    *args: str, cwd: Path | None = ROOT, text: bool = True, timeout: float = 180
) -> subprocess.CompletedProcess:
    """``doublet ARGS`` in ``cwd``; output as text, or as bytes (``text=False``) when a
    test must see exactly what was written."""
    return subprocess.run(
        [sys.executable, "-m", "doublet", *args],
        cwd=cwd,
        capture_output=True,
        text=text,
        timeout=timeout,
    )
