"""Karp–Rabin k-gram hashing: agreement with a naive reference, lengths, salts."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from doublet.engine.hashing import kgram_hashes, mix64, salt_of

MASK = (1 << 64) - 1
BASE = 0x100000001B3


def reference_mix(value: int, salt: int) -> int:
    """SplitMix64 finalizer on Python integers."""
    z = (value + (salt & MASK) + 0x9E3779B97F4A7C15) & MASK
    z ^= z >> 30
    z = (z * 0xBF58476D1CE4E5B9) & MASK
    z ^= z >> 27
    z = (z * 0x94D049BB133111EB) & MASK
    z ^= z >> 31
    return z


def reference_kgram_hashes(symbols: list[int], k: int, salt: int) -> list[int]:
    """The documented hash: mix each symbol, sum s[i] * B^(k-1-i) mod 2^64, mix with salt ^ k."""
    mixed = [reference_mix(s, salt) for s in symbols]
    hashes = []
    for start in range(len(mixed) - k + 1):
        value = 0
        for s in mixed[start : start + k]:
            value = (value * BASE + s) & MASK
        hashes.append(reference_mix(value, (salt ^ k) & MASK))
    return hashes


def as_symbols(values: list[int]) -> np.ndarray:
    return np.array(values, dtype=np.uint64)


@pytest.mark.parametrize("k", range(1, 41))
def test_kgram_hashes_match_the_karp_rabin_reference_for_every_k(k: int) -> None:
    rng = np.random.default_rng(k)
    symbols = rng.integers(0, 6, size=2 * k + 7).tolist()
    expected = reference_kgram_hashes(symbols, k, salt=12345)
    assert kgram_hashes(as_symbols(symbols), k, salt=12345).tolist() == expected


@settings(max_examples=150, deadline=None)
@given(
    symbols=st.lists(st.integers(0, MASK), max_size=60),
    k=st.integers(1, 40),
    salt=st.integers(0, MASK),
)
def test_kgram_hashes_match_the_reference_on_arbitrary_symbols(
    symbols: list[int], k: int, salt: int
) -> None:
    expected = reference_kgram_hashes(symbols, k, salt)
    assert kgram_hashes(as_symbols(symbols), k, salt).tolist() == expected


def test_mix64_matches_the_splitmix64_reference() -> None:
    values = [0, 1, 2, 0xDEADBEEF, MASK]
    assert mix64(as_symbols(values), salt=99).tolist() == [reference_mix(v, 99) for v in values]


@given(n=st.integers(0, 80), k=st.integers(1, 40))
def test_there_is_one_hash_per_kgram(n: int, k: int) -> None:
    hashes = kgram_hashes(np.arange(n, dtype=np.uint64), k)
    assert hashes.dtype == np.uint64
    assert hashes.shape == (max(n - k + 1, 0),)


@pytest.mark.parametrize(("n", "k"), [(0, 1), (3, 4), (11, 12), (39, 40)])
def test_fewer_symbols_than_k_give_no_hash(n: int, k: int) -> None:
    assert kgram_hashes(np.ones(n, dtype=np.uint64), k).shape == (0,)


@pytest.mark.parametrize("k", [0, -3])
def test_k_below_one_is_rejected(k: int) -> None:
    with pytest.raises(ValueError):
        kgram_hashes(np.ones(5, dtype=np.uint64), k)


def hashes_by_kgram(symbols: list[int], k: int) -> dict[tuple[int, ...], set[int]]:
    """Every distinct k-gram of ``symbols`` with the set of hashes it was given."""
    hashes = kgram_hashes(as_symbols(symbols), k).tolist()
    groups: dict[tuple[int, ...], set[int]] = {}
    for start, value in enumerate(hashes):
        groups.setdefault(tuple(symbols[start : start + k]), set()).add(value)
    return groups


small_alphabet_texts = st.lists(st.integers(0, 2), min_size=1, max_size=80)


@settings(max_examples=100, deadline=None)
@given(symbols=small_alphabet_texts, k=st.integers(1, 40))
def test_equal_kgrams_get_equal_hashes(symbols: list[int], k: int) -> None:
    assert all(len(values) == 1 for values in hashes_by_kgram(symbols, k).values())


@settings(max_examples=100, deadline=None)
@given(symbols=small_alphabet_texts, k=st.integers(1, 40))
def test_distinct_kgrams_get_distinct_hashes(symbols: list[int], k: int) -> None:
    groups = hashes_by_kgram(symbols, k)
    assert len(set().union(*groups.values())) == len(groups)


def test_a_repeated_substring_hashes_the_same_wherever_it_occurs() -> None:
    text = "xyzthe quick brown fox--the quick brown fox!"
    symbols = as_symbols([ord(c) for c in text])
    k = len("the quick brown fox")
    hashes = kgram_hashes(symbols, k)
    first, second = text.index("the quick"), text.rindex("the quick")
    assert hashes[first] == hashes[second]
    assert np.count_nonzero(hashes == hashes[first]) == 2


@pytest.mark.parametrize("k", [1, 3, 12, 40])
def test_a_different_salt_changes_every_hash(k: int) -> None:
    symbols = np.random.default_rng(0).integers(0, 26, size=200).astype(np.uint64)
    plain = kgram_hashes(symbols, k, salt=0)
    salted = kgram_hashes(symbols, k, salt=salt_of("doublet/prose/False"))
    assert not np.any(plain == salted)
    assert np.array_equal(plain, kgram_hashes(symbols, k, salt=0))


def test_salt_of_is_stable_and_tells_names_apart() -> None:
    assert salt_of("prose") == salt_of("prose")
    assert salt_of("prose") != salt_of("code")
    assert 0 <= salt_of("prose") <= MASK
