"""Units: a document as the sequence of symbols that matching works on.

Every matcher in the engine sees a document only through its units: folded
characters in prose, words in word mode, normalized tokens in code. Each unit
remembers the span of original text it came from, so every result can be shown
in the file the user wrote.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Units:
    """Symbols with their spans in the original text (code-point offsets).

    ``symbols`` are 64-bit values compared for equality only; ``starts[i]`` and
    ``ends[i]`` delimit unit ``i`` in the decoded text, end exclusive.
    """

    symbols: np.ndarray  # uint64
    starts: np.ndarray  # int64, non-decreasing
    ends: np.ndarray  # int64
    text_length: int

    def __len__(self) -> int:
        return int(self.symbols.shape[0])

    def span(self, first: int, stop: int) -> tuple[int, int]:
        """Original-text range covered by units ``first`` up to ``stop`` (exclusive)."""
        if stop <= first:
            raise ValueError("empty unit range")
        return int(self.starts[first]), int(self.ends[stop - 1])

    @staticmethod
    def empty(text_length: int = 0) -> Units:
        nothing = np.zeros(0, dtype=np.int64)
        return Units(np.zeros(0, dtype=np.uint64), nothing, nothing, text_length)
