"""MinHash: a fixed-size signature whose agreement estimates Jaccard similarity.

Each of ``permutations`` salted mixes of the k-gram hashes plays the role of a
random permutation; the share of positions where two signatures agree is an
unbiased estimate of the Jaccard similarity of the two k-gram sets.
"""

from __future__ import annotations

import numpy as np

from doublet.engine.hashing import mix64

PERMUTATIONS = 128


def signature(kgram_hashes: np.ndarray, permutations: int = PERMUTATIONS) -> np.ndarray:
    """Minimum of each salted mix over the distinct k-gram hashes."""
    distinct = np.unique(kgram_hashes)
    result = np.full(permutations, np.iinfo(np.uint64).max, dtype=np.uint64)
    if distinct.shape[0] == 0:
        return result
    for i in range(permutations):
        result[i] = mix64(distinct, salt=0xA5A5 + i).min()
    return result


def similarity(sa: np.ndarray, sb: np.ndarray) -> float:
    """Share of signature slots that agree (an estimate of Jaccard)."""
    empty = np.iinfo(np.uint64).max
    if (sa == empty).all() or (sb == empty).all():
        return 0.0
    return float(np.mean(sa == sb))
