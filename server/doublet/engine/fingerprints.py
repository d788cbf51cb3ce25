"""Fingerprints: the winnowed k-gram hashes of a document, with their positions.

A fingerprint is the hash of the k units starting at ``position``; the set of
fingerprints is small (density about 2 / (w + 1)) yet any shared run of at least
``guarantee`` units shows up in both documents' sets.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from itertools import pairwise

import numpy as np

from doublet.engine.hashing import kgram_hashes
from doublet.engine.units import Units
from doublet.engine.winnowing import winnow


@dataclass(frozen=True)
class Fingerprints:
    """Winnowed hashes and the unit index of the k-gram each one hashes."""

    hashes: np.ndarray  # uint64
    positions: np.ndarray  # int64, ascending
    k: int

    def __len__(self) -> int:
        return int(self.hashes.shape[0])

    @cached_property
    def by_hash(self) -> tuple[np.ndarray, np.ndarray]:
        """(order, hashes[order]): the fingerprints sorted by hash, computed once (a
        long document asked against many others is searched, not sorted, each time)."""
        hashes = self.hashes.astype(np.uint64, copy=False)  # as every search compares them
        order = np.argsort(hashes, kind="stable")
        return order, hashes[order]

    @staticmethod
    def empty(k: int) -> Fingerprints:
        return Fingerprints(np.zeros(0, np.uint64), np.zeros(0, np.int64), k)


def fingerprint(
    units: Units, k: int, window: int, salt: int, skip: np.ndarray | None = None
) -> Fingerprints:
    """Winnow the k-gram hashes of ``units`` (salted) with a window of ``window`` hashes.

    ``skip`` marks units where no fingerprint may start (text in quotation
    marks); winnowing runs first, so the other fingerprints stay where they were.
    """
    cuts = np.array([0, len(units)], dtype=np.int64)
    return fingerprint_each(units, cuts, k, window, salt, skip)[0]


def fingerprint_each(
    units: Units, cuts: np.ndarray, k: int, window: int, salt: int, skip: np.ndarray | None
) -> list[Fingerprints]:
    """The fingerprints of several documents whose units are ``units`` one after the
    other, document i's from ``cuts[i]`` to ``cuts[i + 1]``: the same as each alone
    (no k-gram or window spans two), with positions counted in each document."""
    hashes = kgram_hashes(units.symbols, k, salt)  # some span two documents: dropped next
    counts = np.maximum(np.diff(cuts) - k + 1, 0)
    total = int(counts.sum())
    if total == 0:
        return [Fingerprints.empty(k) for _ in range(counts.shape[0])]
    firsts = np.cumsum(counts) - counts  # where each document's k-grams begin in `own`
    if counts.shape[0] == 1:  # one document: its k-grams are all there are, in place
        shift = cuts[:1]
        own = hashes[int(cuts[0]) : int(cuts[0]) + total]
    else:  # unit index of k-gram j of `own`: j + shift[j]
        shift = np.repeat(cuts[:-1] - firsts, counts)
        own = hashes[np.arange(total, dtype=np.int64) + shift]
    chosen = winnow(own, window, firsts[counts > 0])
    at = chosen + (shift if shift.shape[0] == 1 else shift[chosen])  # unit index of each
    if skip is not None and skip.any():
        kept = ~skip[at]
        chosen, at = chosen[kept], at[kept]
    bounds = np.searchsorted(chosen, np.append(firsts, total)).tolist()
    return [
        Fingerprints(own[chosen[lo:hi]], at[lo:hi] - cuts[i], k)
        for i, (lo, hi) in enumerate(pairwise(bounds))
    ]
