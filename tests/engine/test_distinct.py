"""Distinct values by sorting give what NumPy's set functions give."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from doublet.engine.distinct import common, distinct, union

_VALUES = st.lists(st.integers(-(2**63), 2**63 - 1) | st.integers(0, 9), max_size=60)
_DTYPES = st.sampled_from([np.int64, np.uint32, np.uint64])


def _array(values: list[int], dtype: type) -> np.ndarray:
    return np.array([v % (1 << 32) if dtype is np.uint32 else v for v in values]).astype(dtype)


@given(_VALUES, _VALUES, _DTYPES)
def test_distinct_union_and_common_are_numpys(a: list[int], b: list[int], dtype: type) -> None:
    x, y = _array(a, dtype), _array(b, dtype)
    for got, want in (
        (distinct(x), np.unique(x)),
        (distinct(np.sort(x), presorted=True), np.unique(x)),
        (distinct(x.reshape(-1, 1)), np.unique(x)),
        (union(np.unique(x), np.unique(y)), np.union1d(x, y)),
        (common(np.unique(x), np.unique(y)), np.intersect1d(x, y)),
    ):
        assert got.dtype == want.dtype and got.tolist() == want.tolist()
