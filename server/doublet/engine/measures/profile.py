"""Cosine similarity of hashed k-gram profiles.

A profile counts the k-grams of the folded text in ``dimensions`` buckets. Taking
every overlapping k-gram is the same as summing the k profiles of the text cut
at each of the k shifts, so an inserted space or letter moves no boundary.
Spaces and punctuation are already gone after folding.
"""

from __future__ import annotations

import numpy as np

from doublet.engine.hashing import kgram_hashes
from doublet.engine.units import Units

PROFILE_K = 4
PROFILE_DIMENSIONS = 1 << 16


def profile(units: Units, k: int = PROFILE_K, dimensions: int = PROFILE_DIMENSIONS) -> np.ndarray:
    """Counts of k-gram hashes modulo ``dimensions`` (float64, for dot products)."""
    hashes = kgram_hashes(units.symbols, k, salt=0x5EED)
    buckets = (hashes % np.uint64(dimensions)).astype(np.int64)
    return np.bincount(buckets, minlength=dimensions).astype(np.float64)


def cosine(pa: np.ndarray, pb: np.ndarray) -> float:
    norm = float(np.linalg.norm(pa) * np.linalg.norm(pb))
    return float(pa @ pb) / norm if norm else 0.0
