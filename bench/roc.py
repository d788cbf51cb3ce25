"""ROC AUC for ranking benchmarks (e.g. Clough–Stevenson: copied vs. not).

AUC is the Mann–Whitney probability that a random positive scores above a
random negative, ties counting half. It is computed from mid-ranks in
O(n log n), so it needs no threshold sweep and no scikit-learn.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike


def roc_auc(scores: ArrayLike, labels: ArrayLike | Sequence[bool]) -> float:
    """P(score of a positive > score of a negative) + ½·P(tie).

    ``labels`` are booleans or 0/1; higher scores should mean "positive".
    Raises ValueError if a class is empty (AUC undefined) or a score is NaN.
    """
    s = np.asarray(scores, dtype=float).ravel()
    y = np.asarray(labels).ravel()
    if s.shape != y.shape:
        raise ValueError(f"{s.size} scores but {y.size} labels")
    if np.isnan(s).any():
        raise ValueError("scores contain NaN")
    if not np.isin(y, (0, 1)).all():
        raise ValueError("labels must be 0/1 or booleans")
    pos = y.astype(bool)
    n_pos = int(pos.sum())
    n_neg = s.size - n_pos
    if n_pos == 0 or n_neg == 0:
        raise ValueError("AUC needs at least one positive and one negative")
    ranks = _midranks(s)
    u = ranks[pos].sum() - n_pos * (n_pos + 1) / 2
    return float(u / (n_pos * n_neg))


def _midranks(values: np.ndarray) -> np.ndarray:
    """1-based ranks, tied values sharing the mean of their ranks."""
    order = np.argsort(values, kind="mergesort")
    sorted_vals = values[order]
    # Start index of each run of equal values, and the run's length.
    starts = np.flatnonzero(np.r_[True, sorted_vals[1:] != sorted_vals[:-1]])
    lengths = np.diff(np.r_[starts, values.size])
    run_rank = starts + (lengths + 1) / 2  # mean of ranks starts+1 .. starts+len
    ranks = np.empty(values.size)
    ranks[order] = np.repeat(run_rank, lengths)
    return ranks
