"""FlyHash (Dasgupta, Stevens and Navlakha, 2017): the fruit fly's similarity search.

The hashed k-gram profile of a document is centred, projected into many more
dimensions by a sparse random binary matrix (each output sums a few random
inputs), and only the strongest outputs are kept (winner takes all). Similar
documents share many winners; similarity is the share of shared winners.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from doublet.engine.hashing import kgram_hashes
from doublet.engine.units import Units

INPUTS = 2048
OUTPUTS = 20 * INPUTS
SAMPLED = 12  # inputs each output neuron sums
WINNERS = 64
PROFILE_K = 4


@lru_cache(maxsize=1)
def _projection() -> np.ndarray:
    rng = np.random.default_rng(20171110)
    return rng.integers(0, INPUTS, size=(OUTPUTS, SAMPLED))


def tag(units: Units) -> np.ndarray:
    """Indices of the winning output neurons (sorted), at most WINNERS of them."""
    hashes = kgram_hashes(units.symbols, PROFILE_K, salt=0xF17)
    if hashes.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    counts = np.bincount((hashes % np.uint64(INPUTS)).astype(np.int64), minlength=INPUTS)
    centred = counts - counts.mean()
    activity = centred[_projection()].sum(axis=1)
    winners = np.argpartition(activity, -WINNERS)[-WINNERS:]
    return np.sort(winners)


def similarity(ta: np.ndarray, tb: np.ndarray) -> float:
    if ta.shape[0] == 0 or tb.shape[0] == 0:
        return 0.0
    return np.intersect1d(ta, tb).shape[0] / max(ta.shape[0], tb.shape[0])
