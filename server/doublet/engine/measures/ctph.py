"""Context-triggered piecewise hashing (CTPH), the idea behind ssdeep.

A rolling hash over the last 7 units marks chunk boundaries wherever it hits
``block_size - 1`` modulo ``block_size``; each chunk contributes one base-64
character (a hash of the chunk), so an edit changes only the characters of the
chunks it touches. Two signatures are compared by edit distance, scaled to 0–100,
when their block sizes are equal or a factor two apart.

This follows ssdeep's design but runs over folded units (so layout and case do
not matter) and hashes chunks with a vectorizable sum: its strings are not
interchangeable with ssdeep's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from doublet.engine.hashing import mix64

WINDOW = 7
MIN_BLOCK = 3
SPAMSUM_LENGTH = 64
_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


@dataclass(frozen=True)
class FuzzyHash:
    block_size: int
    first: str  # chunks cut at block_size
    second: str  # chunks cut at 2 * block_size

    def __str__(self) -> str:
        return f"{self.block_size}:{self.first}:{self.second}"


def _rolling(symbols: np.ndarray) -> np.ndarray:
    """A hash of the WINDOW units ending at each position (a windowed sum of mixes)."""
    mixed = mix64(symbols, salt=0xC7F4) >> np.uint64(32)
    total = np.cumsum(mixed, dtype=np.uint64)
    with np.errstate(over="ignore"):
        windowed = total.copy()
        windowed[WINDOW:] = total[WINDOW:] - total[:-WINDOW]
    return mix64(windowed)


def _digest(symbols: np.ndarray, rolling: np.ndarray, block: int, limit: int) -> str:
    cuts = np.flatnonzero(rolling % np.uint64(block) == np.uint64(block - 1))
    if cuts.shape[0] == 0 or cuts[-1] != symbols.shape[0] - 1:
        cuts = np.append(cuts, symbols.shape[0] - 1)
    cuts = cuts[:limit]
    mixed = mix64(symbols, salt=0xF00D)
    starts = np.r_[0, cuts[:-1] + 1]
    chunk = np.add.reduceat(mixed, starts) if symbols.shape[0] else np.zeros(0, np.uint64)
    return "".join(_B64[int(v) % 64] for v in mix64(chunk))


def fuzzy_hash(symbols: np.ndarray) -> FuzzyHash:
    """CTPH signature of a unit sequence."""
    n = symbols.shape[0]
    if n == 0:
        return FuzzyHash(MIN_BLOCK, "", "")
    block = MIN_BLOCK
    while block * SPAMSUM_LENGTH < n:
        block *= 2
    rolling = _rolling(symbols)
    while True:
        first = _digest(symbols, rolling, block, SPAMSUM_LENGTH)
        if len(first) >= SPAMSUM_LENGTH // 2 or block <= MIN_BLOCK:
            break
        block //= 2
    second = _digest(symbols, rolling, 2 * block, SPAMSUM_LENGTH // 2)
    return FuzzyHash(block, first, second)


def _edit_distance(x: str, y: str) -> int:
    """Levenshtein distance with substitution costing 2 (a delete plus an insert)."""
    previous = list(range(len(y) + 1))
    for i, cx in enumerate(x, 1):
        current = [i]
        for j, cy in enumerate(y, 1):
            current.append(
                min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (0 if cx == cy else 2))
            )
        previous = current
    return previous[-1]


def _score(x: str, y: str) -> float:
    if not x or not y:
        return 0.0
    distance = _edit_distance(x, y)
    return max(0.0, 100.0 - 100.0 * distance / (len(x) + len(y)))


def compare(x: FuzzyHash, y: FuzzyHash) -> float:
    """Similarity 0–100; 0 when block sizes are too far apart to compare."""
    if x.block_size == y.block_size:
        return max(_score(x.first, y.first), _score(x.second, y.second))
    if x.block_size == 2 * y.block_size:
        return _score(x.first, y.second)
    if y.block_size == 2 * x.block_size:
        return _score(x.second, y.first)
    return 0.0
