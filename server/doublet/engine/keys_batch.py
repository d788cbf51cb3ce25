"""Many documents' keys in one array per kind: how a refresh's workers hand them over.

A refresh of 100,000 small files sent each document's keys as six small arrays in
four objects. Unpickling them took the main process 48 µs a document and indexing
them one at a time 37 µs more: 8 s of CPU, beside workers that had the same two
cores to key with. A batch holds each kind of key of a few hundred documents in one
array, and the index takes them in one go (``Index.add_many``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from doublet.engine.document import DocumentKeys
from doublet.engine.fingerprints import Fingerprints
from doublet.engine.lexicon_keys import LexiconKeys
from doublet.engine.sentence_keys import SentenceKeys

#: The kinds of keys, in the order of ``KeysBatch``'s arrays (and of engine/index's KINDS).
KIND_COUNT = 3


def _kinds(keys: DocumentKeys) -> tuple[Fingerprints, SentenceKeys, LexiconKeys]:
    return keys.fingerprints, keys.sentence_keys, keys.lexicon_keys


@dataclass(frozen=True)
class KeysBatch:
    """The keys of documents in turn: each kind's hashes and positions (each document's
    own unit positions) laid end to end, with each document's count of each kind."""

    units: np.ndarray  # int64, one per document
    k: np.ndarray  # int64: each document's fingerprints' k
    counts: np.ndarray  # int64, (documents, KIND_COUNT)
    hashes: tuple[np.ndarray, ...]  # uint64, one array per kind
    positions: tuple[np.ndarray, ...]  # uint32, one array per kind

    @staticmethod
    def of(keys: Sequence[DocumentKeys]) -> KeysBatch:
        kinds = [_kinds(one) for one in keys]
        counts = np.array([[len(kind) for kind in one] for one in kinds], dtype=np.int64)
        hashes, positions = [], []
        for at in range(KIND_COUNT):
            parts = [one[at] for one in kinds]
            hashes.append(_joined([p.hashes for p in parts], np.uint64))
            positions.append(_joined([p.positions for p in parts], np.uint32))
        return KeysBatch(
            units=np.array([one.units for one in keys], dtype=np.int64),
            k=np.array([one.fingerprints.k for one in keys], dtype=np.int64),
            counts=counts.reshape(len(keys), KIND_COUNT),
            hashes=tuple(hashes),
            positions=tuple(positions),
        )

    def __len__(self) -> int:
        return int(self.units.shape[0])

    @cached_property
    def _firsts(self) -> np.ndarray:
        """(documents + 1, KIND_COUNT): where each document's keys of each kind begin."""
        firsts = np.zeros((len(self) + 1, KIND_COUNT), dtype=np.int64)
        np.cumsum(self.counts, axis=0, out=firsts[1:])
        return firsts

    def keys(self, at: int) -> DocumentKeys:
        """The ``at``-th document's keys, in arrays of their own (a document kept in memory
        must not hold its whole batch)."""
        found = []
        for kind in range(KIND_COUNT):
            lo, hi = int(self._firsts[at, kind]), int(self._firsts[at + 1, kind])
            found.append(
                (self.hashes[kind][lo:hi].copy(), self.positions[kind][lo:hi].astype(np.int64))
            )
        (fh, fp), (sh, sp), (lh, lp) = found
        return DocumentKeys(
            Fingerprints(fh, fp, int(self.k[at])),
            SentenceKeys(sh, sp),
            int(self.units[at]),
            LexiconKeys(lh, lp),
        )

    def of_kind(self, kind: int, slots: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The hashes and positions of one kind of the documents at ``slots``, in that
        order (views when ``slots`` is every document in turn)."""
        if slots.shape[0] == len(self) and np.array_equal(slots, np.arange(len(self))):
            return self.hashes[kind], self.positions[kind]
        counts = self.counts[slots, kind]
        first = self._firsts[slots, kind]
        taken = np.arange(int(counts.sum())) + np.repeat(
            first - (np.cumsum(counts) - counts), counts
        )
        return self.hashes[kind][taken], self.positions[kind][taken]


def _joined(arrays: list[np.ndarray], dtype: type) -> np.ndarray:
    if not arrays:
        return np.zeros(0, dtype=dtype)
    return np.concatenate(arrays).astype(dtype, copy=False)
