"""Robust winnowing: agreement with a naive reference, density and the guarantee."""

from __future__ import annotations

from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from doublet.engine import winnowing
from doublet.engine.chars import char_units
from doublet.engine.fingerprints import fingerprint, fingerprint_each
from doublet.engine.hashing import kgram_hashes
from doublet.engine.modes import MODES
from doublet.engine.units import Units
from doublet.engine.winnowing import _block_min, sliding_min, winnow

MASK = (1 << 64) - 1


def reference_winnow(hashes: list[int], w: int) -> list[int]:
    """Robust winnowing, one window at a time, deciding on the top 32 bits of each hash.

    In each window the minimum is taken, the rightmost on ties, unless the previous
    window's choice is still inside the window and equal to the minimum. Each chosen
    position is recorded once. Fewer hashes than ``w`` make one window.
    """
    if not hashes:
        return []
    w = min(w, len(hashes))
    key = [h >> 32 for h in hashes]
    chosen: list[int] = []
    previous = -1
    for start in range(len(hashes) - w + 1):
        window = range(start, start + w)
        smallest = min(key[i] for i in window)
        if previous >= start and key[previous] == smallest:
            choice = previous
        else:
            choice = max(i for i in window if key[i] == smallest)
        if choice != previous:
            chosen.append(choice)
        previous = choice
    return chosen


def hash_arrays(top_values: int) -> st.SearchStrategy[list[int]]:
    """Hashes whose top 32 bits take few values (many ties) and whose low bits are random."""
    return st.lists(
        st.builds(
            lambda top, low: (top << 32) | low,
            st.integers(0, top_values - 1),
            st.integers(0, (1 << 32) - 1),
        ),
        max_size=60,
    )


def as_hashes(values: list[int]) -> np.ndarray:
    return np.array(values, dtype=np.uint64)


@settings(max_examples=300, deadline=None)
@given(hashes=st.integers(1, 4).flatmap(hash_arrays), w=st.integers(1, 12))
def test_winnow_matches_the_naive_robust_reference_on_tied_hashes(
    hashes: list[int], w: int
) -> None:
    assert winnow(as_hashes(hashes), w).tolist() == reference_winnow(hashes, w)


@settings(max_examples=150, deadline=None)
@given(hashes=st.lists(st.integers(0, MASK), max_size=80), w=st.integers(1, 20))
def test_winnow_matches_the_naive_robust_reference_on_arbitrary_hashes(
    hashes: list[int], w: int
) -> None:
    assert winnow(as_hashes(hashes), w).tolist() == reference_winnow(hashes, w)


def test_ties_are_decided_by_the_top_32_bits_only() -> None:
    # Equal top halves: the low halves must not matter, the rightmost wins.
    hashes = as_hashes([(5 << 32) | 1, (5 << 32) | 0xFFFFFFFF, (5 << 32) | 7])
    assert winnow(hashes, 3).tolist() == [2]


def test_a_run_of_equal_hashes_keeps_one_fingerprint_per_window() -> None:
    # Robust winnowing keeps the previous choice while it stays in the window,
    # so "aaaa…" is not fingerprinted at every position.
    w = 4
    assert winnow(np.full(13, 42 << 32, dtype=np.uint64), w).tolist() == [3, 7, 11]


def test_fewer_hashes_than_the_window_keep_their_minimum() -> None:
    hashes = as_hashes([9 << 32, 2 << 32, 5 << 32])
    assert winnow(hashes, 10).tolist() == [1]


def test_a_window_of_one_keeps_every_position() -> None:
    hashes = as_hashes([3 << 32, 3 << 32, 1 << 32])
    assert winnow(hashes, 1).tolist() == [0, 1, 2]


def test_no_hashes_give_no_fingerprints() -> None:
    assert winnow(np.zeros(0, dtype=np.uint64), 5).shape == (0,)


def test_a_window_below_one_is_rejected() -> None:
    with pytest.raises(ValueError):
        winnow(as_hashes([1, 2, 3]), 0)


@settings(max_examples=150, deadline=None)
@given(data=st.data(), values=st.lists(st.integers(0, MASK), min_size=1, max_size=150))
def test_sliding_min_is_the_minimum_of_every_window(data: st.DataObject, values: list[int]) -> None:
    """By doubling (windows up to 64) and by blocks (any window: the long ones)."""
    w = data.draw(st.integers(1, len(values)))
    expected = [min(values[i : i + w]) for i in range(len(values) - w + 1)]
    assert sliding_min(as_hashes(values), w).tolist() == expected
    assert _block_min(as_hashes(values), w).tolist() == expected


def test_sliding_min_rejects_a_window_longer_than_the_values_or_empty() -> None:
    with pytest.raises(ValueError):
        sliding_min(as_hashes([1, 2]), 3)
    with pytest.raises(ValueError):
        sliding_min(as_hashes([1, 2]), 0)


@pytest.mark.parametrize("w", [2, 4, 8, 16, 50])
def test_density_on_random_text_is_close_to_two_over_w_plus_one(w: int) -> None:
    letters = np.random.default_rng(w).integers(ord("a"), ord("z") + 1, size=30_000)
    hashes = kgram_hashes(letters.astype(np.uint64), 8)
    density = winnow(hashes, w).shape[0] / hashes.shape[0]
    assert density == pytest.approx(2 / (w + 1), rel=0.1)


@settings(max_examples=150, deadline=None)
@given(
    data=st.data(),
    alphabet=st.sampled_from(["ab", "abc", "abcdefghijklmnopqrstuvwxyz"]),
    k=st.integers(1, 8),
    extra_window=st.integers(0, 12),
)
def test_a_shared_substring_of_guarantee_length_shares_a_fingerprint(
    data: st.DataObject, alphabet: str, k: int, extra_window: int
) -> None:
    guarantee = k + extra_window
    mode = MODES["prose"].with_thresholds(noise=k, guarantee=guarantee)
    letters = st.text(alphabet=alphabet, max_size=40)
    planted = data.draw(st.text(alphabet=alphabet, min_size=guarantee, max_size=guarantee + 20))
    a_before, a_after, b_before, b_after = (data.draw(letters) for _ in range(4))
    fa = fingerprint(char_units(a_before + planted + a_after), mode.k, mode.window, mode.salt)
    fb = fingerprint(char_units(b_before + planted + b_after), mode.k, mode.window, mode.salt)

    def inside(positions: np.ndarray, start: int) -> np.ndarray:
        return (positions >= start) & (positions + k <= start + len(planted))

    in_a = set(fa.hashes[inside(fa.positions, len(a_before))].tolist())
    in_b = set(fb.hashes[inside(fb.positions, len(b_before))].tolist())
    assert in_a & in_b


@settings(max_examples=200, deadline=None)
@given(
    documents=st.lists(st.integers(1, 4).flatmap(hash_arrays), min_size=1, max_size=5).map(
        lambda docs: [d for d in docs if d] or [[7]]
    ),
    w=st.integers(1, 12),
)
def test_several_documents_winnowed_at_once_are_winnowed_as_each_alone(
    documents: list[list[int]], w: int
) -> None:
    starts = np.cumsum([0] + [len(d) for d in documents[:-1]])
    together = winnow(as_hashes([h for d in documents for h in d]), w, starts)
    alone = [
        p + int(s) for d, s in zip(documents, starts, strict=True) for p in reference_winnow(d, w)
    ]
    assert together.tolist() == alone


@settings(max_examples=200, deadline=None)
@given(
    documents=st.lists(st.integers(1, 3).flatmap(hash_arrays), min_size=1, max_size=4).map(
        lambda docs: [d for d in docs if d] or [[7]]
    ),
    w=st.integers(1, 12),
    slice_=st.integers(1, 9),
)
def test_window_minima_computed_in_slices_are_those_of_one_pass(
    documents: list[list[int]], w: int, slice_: int
) -> None:
    # The batch's minima are computed a slice of windows at a time: every slice size,
    # cutting documents and runs of ties anywhere, chooses what the reference does.
    starts = np.cumsum([0] + [len(d) for d in documents[:-1]])
    with patch.object(winnowing, "_SLICE", slice_):
        together = winnow(as_hashes([h for d in documents for h in d]), w, starts)
    alone = [
        p + int(s) for d, s in zip(documents, starts, strict=True) for p in reference_winnow(d, w)
    ]
    assert together.tolist() == alone


@settings(max_examples=100, deadline=None)
@given(
    texts=st.lists(st.text(alphabet="ab \"c'", max_size=60), min_size=1, max_size=5),
    k=st.integers(1, 6),
    extra_window=st.integers(0, 8),
    quoted=st.booleans(),
)
def test_fingerprints_of_several_documents_are_each_ones_alone(
    texts: list[str], k: int, extra_window: int, quoted: bool
) -> None:
    units = [char_units(t) for t in texts]
    skips = [
        np.array([c in "c" for c in t], dtype=bool)[u.starts]
        for t, u in zip(texts, units, strict=True)
    ]
    cuts = np.cumsum([0] + [len(u) for u in units])
    joined = Units(
        np.concatenate([u.symbols for u in units]),
        np.concatenate([u.starts for u in units]),
        np.concatenate([u.ends for u in units]),
        0,
    )
    skip = np.concatenate(skips) if quoted else None
    window = extra_window + 1
    each = fingerprint_each(joined, cuts, k, window, 5, skip)
    for u, s, prints in zip(units, skips, each, strict=True):
        alone = fingerprint(u, k, window, 5, s if quoted else None)
        assert prints.hashes.tolist() == alone.hashes.tolist()
        assert prints.positions.tolist() == alone.positions.tolist()
