"""Distinct values of integer arrays, found by sorting.

NumPy 2's ``np.unique`` of a plain array (no indices or counts asked for) builds a
hash table, and here that is 5 to 28 times slower than sorting and comparing
neighbours (a million values: 0.49 s against 17 ms; a sentence's 2,000 terms:
126 against 24 µs); ``np.union1d`` and ``np.intersect1d`` go through it too. The
answer is the same either way: the distinct values, ascending, of the dtype given.
"""

from __future__ import annotations

import numpy as np


def distinct(values: np.ndarray, presorted: bool = False) -> np.ndarray:
    """``np.unique(values)`` for integers: the distinct values (flattened), ascending
    (``presorted``: ``values`` are ascending already, and are not sorted again)."""
    return _first_of_each(values.ravel() if presorted else np.sort(values, axis=None))


def union(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.union1d(a, b)`` of two arrays of distinct ascending integers."""
    both = np.concatenate([a, b])
    both.sort(kind="stable")  # two sorted runs: merged, not sorted afresh
    return _first_of_each(both)


def common(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.intersect1d(a, b)`` of two arrays of distinct integers."""
    return np.intersect1d(a, b, assume_unique=True)


def _first_of_each(ordered: np.ndarray) -> np.ndarray:
    if ordered.shape[0] < 2:
        return ordered
    new = np.empty(ordered.shape[0], dtype=bool)
    new[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    return ordered[new]
