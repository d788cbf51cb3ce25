"""Many documents as one text, so that the engine's array work runs once for all.

Cutting a 2 KB document into sentences and keying them takes about a hundred
numpy calls of a few microseconds each: more than the work itself. A refresh
of 20,000 such documents therefore joins a few hundred at a time with a
newline, which every mode drops and which ends a word, cuts them up together,
and cuts the results back per document by offsets. Nothing a document yields
depends on its neighbours (engine/sentences keeps each one's sentences apart),
so the results are the same as one document at a time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

SEPARATOR = "\n"


@dataclass(frozen=True)
class Joined:
    """Texts joined by SEPARATOR; ``starts[i]`` is where text i begins in ``text``."""

    text: str
    starts: np.ndarray  # int64, one per text
    lengths: np.ndarray  # int64, one per text

    @classmethod
    def of(cls, texts: Sequence[str]) -> Joined:
        lengths = np.array([len(t) for t in texts], dtype=np.int64)
        starts = np.cumsum(lengths + len(SEPARATOR)) - lengths - len(SEPARATOR)
        return cls(SEPARATOR.join(texts), starts, lengths)

    @property
    def pieces(self) -> list[tuple[int, int]]:
        """``[start, end)`` of each text in ``text``."""
        ends = self.starts + self.lengths
        return list(zip(self.starts.tolist(), ends.tolist(), strict=True))

    def cuts(self, offsets: np.ndarray) -> np.ndarray:
        """For ascending text ``offsets``: ``offsets[cuts[i] : cuts[i + 1]]`` lie in text i."""
        return np.searchsorted(offsets, np.append(self.starts, len(self.text) + 1))
