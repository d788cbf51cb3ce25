"""Scanning a collection: every pair that shares passages, without comparing every pair.

All fingerprints of all documents go into one sorted array (an inverted index
built in one ``argsort``). Documents that share a fingerprint become candidate
pairs; only pairs that share enough distinct fingerprints are aligned. The cost
therefore follows the amount of shared text, not the square of the number of
documents.

Fingerprints found in more than ``max_docs`` documents are boilerplate (a
heading every submission repeats, a licence header) and are ignored, as MOSS's
``-m`` option does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from doublet.engine.comparison import PairResult, compare
from doublet.engine.document import Document
from doublet.engine.fingerprints import Fingerprints

#: Default boilerplate limit: a fingerprint in more documents than this is ignored.
DEFAULT_MAX_DOCS_SHARE = 0.1
MIN_MAX_DOCS = 10


@dataclass(frozen=True)
class Candidate:
    a: int  # index of the first document (a < b)
    b: int
    shared: int  # distinct fingerprints the two share


def default_max_docs(documents: int) -> int:
    """Boilerplate limit for a collection: a tenth of it, but never fewer than ten."""
    return max(MIN_MAX_DOCS, int(np.ceil(DEFAULT_MAX_DOCS_SHARE * documents)))


def _distinct_postings(fingerprints: Sequence[Fingerprints]) -> tuple[np.ndarray, np.ndarray]:
    """(hash, document) with each pair once, sorted by hash then document."""
    sizes = [len(f) for f in fingerprints]
    if sum(sizes) == 0:
        return np.zeros(0, np.uint64), np.zeros(0, np.int64)
    hashes = np.concatenate([f.hashes for f in fingerprints])
    docs = np.repeat(np.arange(len(fingerprints), dtype=np.int64), sizes)
    order = np.lexsort((docs, hashes))
    hashes, docs = hashes[order], docs[order]
    first = np.ones(hashes.shape[0], dtype=bool)
    first[1:] = (hashes[1:] != hashes[:-1]) | (docs[1:] != docs[:-1])
    return hashes[first], docs[first]


def boilerplate(fingerprints: Sequence[Fingerprints], max_docs: int) -> np.ndarray:
    """Hashes that occur in more than ``max_docs`` documents (sorted)."""
    hashes, _ = _distinct_postings(fingerprints)
    if hashes.shape[0] == 0:
        return hashes
    starts = np.flatnonzero(np.r_[True, hashes[1:] != hashes[:-1]])
    counts = np.diff(np.r_[starts, hashes.shape[0]])
    return hashes[starts[counts > max_docs]]


def candidate_pairs(
    fingerprints: Sequence[Fingerprints], max_docs: int, min_shared: int
) -> list[Candidate]:
    """Pairs of documents sharing at least ``min_shared`` distinct non-boilerplate fingerprints."""
    hashes, docs = _distinct_postings(fingerprints)
    if hashes.shape[0] == 0:
        return []
    starts = np.flatnonzero(np.r_[True, hashes[1:] != hashes[:-1]])
    counts = np.diff(np.r_[starts, hashes.shape[0]])
    n = len(fingerprints)
    keys = []
    for size in np.unique(counts[(counts >= 2) & (counts <= max_docs)]).tolist():
        group_starts = starts[counts == size]
        members = docs[group_starts[:, None] + np.arange(size)]  # one row per hash, docs ascending
        left, right = np.triu_indices(size, 1)
        keys.append((members[:, left] * n + members[:, right]).ravel())
    if not keys:
        return []
    pair_keys, shared = np.unique(np.concatenate(keys), return_counts=True)
    keep = shared >= min_shared
    return [
        Candidate(int(key // n), int(key % n), int(count))
        for key, count in zip(pair_keys[keep].tolist(), shared[keep].tolist(), strict=True)
    ]


def without(fingerprints: Fingerprints, hashes: np.ndarray) -> Fingerprints:
    """The fingerprints minus the given (sorted) hashes."""
    if hashes.shape[0] == 0 or len(fingerprints) == 0:
        return fingerprints
    keep = ~np.isin(fingerprints.hashes, hashes, assume_unique=False)
    return Fingerprints(fingerprints.hashes[keep], fingerprints.positions[keep], fingerprints.k)


def scan(
    documents: Sequence[Document],
    *,
    max_docs: int | None = None,
    min_shared: int | None = None,
    threshold: float = 0.0,
    progress: Callable[[Iterable], Iterable] | None = None,
) -> list[PairResult]:
    """Every pair with at least one passage and similarity >= ``threshold``, best first.

    ``progress`` wraps the loop over candidate pairs (a tqdm bar, say).
    """
    if not documents:
        return []
    fingerprints = [d.fingerprints for d in documents]
    limit = default_max_docs(len(documents)) if max_docs is None else max_docs
    common = boilerplate(fingerprints, limit)
    fingerprints = [without(f, common) for f in fingerprints]
    needed = min(d.mode.min_seeds for d in documents) if min_shared is None else min_shared
    candidates = candidate_pairs(fingerprints, limit, max(1, needed))
    results = []
    units = UnitsCache(documents)
    loop: Iterable[Candidate] = progress(candidates) if progress else candidates
    for candidate in loop:
        a, b = documents[candidate.a], documents[candidate.b]
        if a.mode != b.mode:
            continue
        units.hold(candidate.a, candidate.b)
        result = compare(a, b, fingerprints=(fingerprints[candidate.a], fingerprints[candidate.b]))
        if result.passages and result.similarity >= threshold:
            results.append(result)
    units.release_all()
    results.sort(key=lambda r: (-r.similarity, -r.longest, r.a.name, r.b.name))
    return results


class UnitsCache:
    """Keeps the units of the most recently compared documents, drops the rest.

    Units take about 24 bytes per character; fingerprints a tenth of that. A
    scan keeps every document's fingerprints but only a few documents' units.
    """

    def __init__(self, documents: Sequence[Document], capacity: int = 64):
        self.documents = documents
        self.capacity = capacity
        self.recent: dict[int, None] = {}

    def hold(self, *indices: int) -> None:
        for index in indices:
            self.recent.pop(index, None)
            self.recent[index] = None
        while len(self.recent) > self.capacity:
            oldest = next(iter(self.recent))
            del self.recent[oldest]
            self.documents[oldest].forget()

    def release_all(self) -> None:
        for index in self.recent:
            self.documents[index].forget()
        self.recent.clear()
