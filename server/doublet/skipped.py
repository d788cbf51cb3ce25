"""Files that are not read, and why: the reasons every adapter shows the user."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from doublet.engine.matching import Unavailable


class NotText(Unavailable):
    """A file that cannot be read as text; ``reason`` says why in a user's words (to the
    engine, a document it cannot have)."""

    def __init__(self, path: Path | str, reason: str):
        super().__init__(str(path), reason)  # both in args, so it pickles (worker processes)
        self.path = str(path)
        self.reason = reason

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


@dataclass(frozen=True)
class Skipped:
    """A file passed over, with the reason."""

    path: str
    reason: str
