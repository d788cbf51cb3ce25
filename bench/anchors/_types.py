"""Shapes shared by both anchors, so benchmarks can treat them alike."""

from __future__ import annotations

from dataclasses import dataclass

TextPair = tuple[str, str]
Passage = tuple[int, int, int, int]  # a_start, a_end, b_start, b_end; code points, ends exclusive


@dataclass
class PairResult:
    """Passages and score of one compared pair."""

    passages: list[Passage]
    similarity: float
