"""Fingerprints: the winnowed k-gram hashes of a document, with their positions.

A fingerprint is the hash of the k units starting at ``position``; the set of
fingerprints is small (density about 2 / (w + 1)) yet any shared run of at least
``guarantee`` units shows up in both documents' sets.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

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
        """(order, hashes[order]): the fingerprints sorted by hash, computed once."""
        order = np.argsort(self.hashes, kind="stable")
        return order, self.hashes[order]

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
    hashes = kgram_hashes(units.symbols, k, salt)
    if hashes.shape[0] == 0:
        return Fingerprints.empty(k)
    positions = winnow(hashes, window)
    if skip is not None and skip.any():
        positions = positions[~skip[positions]]
    return Fingerprints(hashes[positions], positions, k)
