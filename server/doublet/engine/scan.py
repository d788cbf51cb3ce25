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
from doublet.engine.index import Index, Role, keys_of
from doublet.engine.passages import clustered_groups

#: Positions of one hash in one document that candidate selection looks at.
MAX_REPEATS = 4

#: Default boilerplate limit: a fingerprint in more documents than this is ignored.
DEFAULT_MAX_DOCS_SHARE = 0.1
MIN_MAX_DOCS = 10


@dataclass(frozen=True)
class Candidate:
    a: int  # index of the first document (a < b)
    b: int
    shared: int  # shared fingerprints (counted per pair of positions)


def default_max_docs(documents: int) -> int:
    """Boilerplate limit for a collection: a tenth of it, but never fewer than ten."""
    return max(MIN_MAX_DOCS, int(np.ceil(DEFAULT_MAX_DOCS_SHARE * documents)))


def _order_by_hash(hashes: np.ndarray) -> np.ndarray:
    """Indices that sort ``hashes``, equal hashes kept in their original order.

    A stable sort of 64-bit keys is four times slower than numpy's default
    sort, and only the few hashes shared by several postings need the order
    fixed, so the ties are re-sorted on their own.
    """
    order = np.argsort(hashes)
    ordered = hashes[order]
    same = ordered[1:] == ordered[:-1]
    tied = np.flatnonzero(np.r_[same, False] | np.r_[False, same])
    if tied.shape[0]:
        group = np.cumsum(np.r_[True, ordered[tied][1:] != ordered[tied][:-1]])
        order[tied] = order[tied][np.lexsort((order[tied], group))]
    return order


@dataclass(frozen=True)
class Postings:
    """Every fingerprint of a collection, sorted by hash, then document, then position.

    This is the inverted index of a scan: the postings of one hash are
    contiguous, so per-hash figures come from ``np.add.reduceat``.
    """

    hashes: np.ndarray
    docs: np.ndarray
    positions: np.ndarray
    starts: np.ndarray  # where each distinct hash begins
    counts: np.ndarray  # postings per distinct hash
    documents: np.ndarray  # distinct documents per distinct hash

    @staticmethod
    def of(fingerprints: Sequence[Fingerprints]) -> Postings:
        """Postings of documents numbered by their place in ``fingerprints``, keyed by index key."""
        sizes = [len(f) for f in fingerprints]
        hashes = np.concatenate(
            [keys_of(f.hashes) for f in fingerprints] or [np.zeros(0, np.uint32)]
        )
        docs = np.repeat(np.arange(len(fingerprints), dtype=np.int64), sizes)
        positions = np.concatenate(
            [f.positions.astype(np.int32) for f in fingerprints] or [np.zeros(0, np.int32)]
        )
        order = _order_by_hash(hashes)
        return Postings.sorted(hashes[order], docs[order], positions[order])

    @staticmethod
    def sorted(hashes: np.ndarray, docs: np.ndarray, positions: np.ndarray) -> Postings:
        """Postings from arrays already sorted by hash, document and position."""
        if hashes.shape[0] == 0:
            nothing = np.zeros(0, np.int64)
            return Postings(hashes, docs, positions, nothing, nothing, nothing)
        new_hash = np.r_[True, hashes[1:] != hashes[:-1]]
        starts = np.flatnonzero(new_hash)
        counts = np.diff(np.r_[starts, hashes.shape[0]])
        new_doc = new_hash | np.r_[True, docs[1:] != docs[:-1]]
        documents = np.add.reduceat(new_doc.astype(np.int64), starts)
        return Postings(hashes, docs, positions, starts, counts, documents)

    def first_occurrences(self, repeats: int) -> Postings:
        """The same index keeping at most ``repeats`` positions per hash and document.

        Text repeated many times inside one file (a table, a refrain) would
        otherwise make the pairs of its postings grow with the square of the
        repetitions; a few occurrences are evidence enough.
        """
        new_group = np.r_[
            True, (self.hashes[1:] != self.hashes[:-1]) | (self.docs[1:] != self.docs[:-1])
        ]
        group_start = np.maximum.accumulate(np.where(new_group, np.arange(new_group.shape[0]), 0))
        keep = np.arange(new_group.shape[0]) - group_start < repeats
        if keep.all():
            return self
        return Postings.sorted(self.hashes[keep], self.docs[keep], self.positions[keep])

    def boilerplate(self, max_docs: int) -> np.ndarray:
        """Hashes found in more than ``max_docs`` documents (sorted)."""
        return self.hashes[self.starts[self.documents > max_docs]]


def candidate_pairs(
    postings: Postings, n: int, max_docs: int, min_seeds: int, reach: int
) -> list[Candidate]:
    """Pairs that could hold a passage: ``min_seeds`` shared fingerprints close together.

    A passage's seeds lie at most ``reach`` units apart in both documents (gaps
    are bridged only that far), so a pair whose shared fingerprints are
    scattered — common phrases of two novels — is dropped here without
    aligning it.
    """
    postings = postings.first_occurrences(MAX_REPEATS)
    counts, starts, docs = postings.counts, postings.starts, postings.docs
    useful = (postings.documents >= 2) & (postings.documents <= max_docs)
    pair_type = np.int32 if n * n < 2**31 else np.int64
    docs = docs.astype(pair_type)
    positions = postings.positions.astype(np.uint32)
    pair_parts, at_a_parts, at_b_parts = [], [], []
    for size in np.unique(counts[useful]).tolist():
        rows = starts[useful & (counts == size)][:, None] + np.arange(size)
        left, right = np.triu_indices(size, 1)
        doc_a, doc_b = docs[rows[:, left]], docs[rows[:, right]]
        different = doc_a != doc_b  # rows are sorted by document, so doc_a <= doc_b
        pair_parts.append(doc_a[different] * pair_type(n) + doc_b[different])
        at_a_parts.append(positions[rows[:, left]][different])
        at_b_parts.append(positions[rows[:, right]][different])
        del rows, doc_a, doc_b, different
    if not pair_parts:
        return []
    pair = np.concatenate(pair_parts)
    del pair_parts
    # a passage's seeds cluster in both documents
    dense = np.intersect1d(
        clustered_groups(pair, np.concatenate(at_a_parts), reach, min_seeds),
        clustered_groups(pair, np.concatenate(at_b_parts), reach, min_seeds),
    )
    del at_a_parts, at_b_parts
    pair_keys, shared = np.unique(pair[np.isin(pair, dense)], return_counts=True)
    return [
        Candidate(int(k // n), int(k % n), int(c))
        for k, c in zip(pair_keys.tolist(), shared.tolist(), strict=True)
    ]


def without(fingerprints: Fingerprints, keys: np.ndarray) -> Fingerprints:
    """The fingerprints minus those whose index key is among ``keys``."""
    if keys.shape[0] == 0 or len(fingerprints) == 0:
        return fingerprints
    keep = ~np.isin(keys_of(fingerprints.hashes), keys)
    return Fingerprints(fingerprints.hashes[keep], fingerprints.positions[keep], fingerprints.k)


def pairs(
    index: Index,
    load: Callable[[str], Document],
    *,
    max_docs: int | None = None,
    min_seeds: int | None = None,
    threshold: float = 0.0,
    progress: Callable[[Iterable], Iterable] | None = None,
    paraphrase: str = "widen",
) -> list[PairResult]:
    """Every pair of indexed documents with a passage and similarity >= ``threshold``.

    ``load`` gives the document of a name (its text is read only for candidate
    pairs); ``progress`` wraps the loop over candidate pairs (a tqdm bar, say).
    Templates, references and groups are honoured as :class:`Role` says.
    ``paraphrase`` says which candidate pairs the sentence stage examines (see
    :data:`PARAPHRASE_CHOICES`). Results are sorted best first.
    """
    if paraphrase not in PARAPHRASE_CHOICES:
        raise ValueError(f"paraphrase must be one of {', '.join(PARAPHRASE_CHOICES)}")
    if len(index) < 2:
        return []
    limit = default_max_docs(len(index)) if max_docs is None else max_docs
    keys, docs, positions = index.live_postings()
    postings = Postings.sorted(keys, docs, positions)
    entries = {e.id: e for e in index.entries()}
    templates = [i for i, e in entries.items() if e.role.template]
    ignored = np.union1d(
        postings.boilerplate(limit), np.unique(keys[np.isin(docs, templates)])
    ).astype(np.uint32)
    reach, needed = _alignment_bounds(load, index)
    needed = needed if min_seeds is None else min_seeds
    ids = 1 + max(entries)
    candidates = candidate_pairs(postings, ids, limit, max(1, needed), reach)
    usable: dict[str, Fingerprints] = {}  # each document's fingerprints minus the ignored

    def fingerprints_of(name: str) -> Fingerprints:
        if name not in usable:
            usable[name] = without(load(name).fingerprints, ignored)
        return usable[name]

    results = []
    loop: Iterable[Candidate] = progress(candidates) if progress else candidates
    for candidate in loop:
        a, b = sorted((entries[candidate.a], entries[candidate.b]), key=lambda e: e.name)
        if not _may_match(a.role, b.role) or a.salt != b.salt:
            continue
        doc_a, doc_b = load(a.name), load(b.name)
        fingerprints = (fingerprints_of(a.name), fingerprints_of(b.name))
        result = compare_candidate(doc_a, doc_b, fingerprints, paraphrase)
        if result.passages and result.similarity >= threshold:
            results.append(result)
    results.sort(key=lambda r: (-r.resemblance.score, -r.longest, r.a.name, r.b.name))
    return results


#: Which candidate pairs the sentence stage (engine/paraphrase) examines, in a
#: scan and in the editor:
#: ``widen``: pairs that share a copied passage, to widen it over its reworded
#: surroundings (the default: a scan then costs little more than fingerprints);
#: ``all``: every candidate pair — finds pairs that share only paraphrase, at two
#: to three times the cost of a scan and a few milliseconds per candidate in the
#: editor;
#: ``off``: fingerprints only.
PARAPHRASE_CHOICES = ("widen", "all", "off")


def compare_candidate(
    a: Document, b: Document, fingerprints: tuple[Fingerprints, Fingerprints], paraphrase: str
) -> PairResult:
    """``compare`` for a candidate pair, the sentence stage run as ``paraphrase`` says."""
    reworded = {"all": None, "widen": "widen", "off": False}[paraphrase]
    return compare(a, b, fingerprints=fingerprints, reworded=reworded)


def _may_match(a: Role, b: Role) -> bool:
    """Whether a pair of documents may be reported, by their roles."""
    if a.template or b.template or (a.reference and b.reference):
        return False
    return a.group is None or a.group != b.group


def _alignment_bounds(load: Callable[[str], Document], index: Index) -> tuple[int, int]:
    """The widest reach and the fewest seeds over the modes in the index."""
    modes = {}
    for entry in index.entries():
        if entry.salt not in modes:
            modes[entry.salt] = load(entry.name).mode
    return (
        max(m.alignment.reach for m in modes.values()),
        min(m.min_seeds for m in modes.values()),
    )


def scan(
    documents: Sequence[Document],
    *,
    max_docs: int | None = None,
    min_seeds: int | None = None,
    threshold: float = 0.0,
    progress: Callable[[Iterable], Iterable] | None = None,
    paraphrase: str = "widen",
) -> list[PairResult]:
    """Every pair of ``documents`` with a passage and similarity >= ``threshold``, best first."""
    index = Index()
    by_name: dict[str, Document] = {}
    for number, document in enumerate(documents):
        name = document.name if document.name not in by_name else f"{document.name}#{number}"
        by_name[name] = document
        index.add(name, document.fingerprints, document.unit_count, document.mode.salt)
    cache = UnitsCache(by_name)
    try:
        return pairs(
            index,
            cache.load,
            max_docs=max_docs,
            min_seeds=min_seeds,
            threshold=threshold,
            progress=progress,
            paraphrase=paraphrase,
        )
    finally:
        cache.release_all()


class UnitsCache:
    """Gives documents by name, keeping the units of only the most recent few.

    Units take about 24 bytes per character; fingerprints a tenth of that. A
    scan keeps every document's fingerprints but only a few documents' units.
    """

    def __init__(self, documents: dict[str, Document], capacity: int = 64):
        self.documents = documents
        self.capacity = capacity
        self.recent: dict[str, None] = {}

    def load(self, name: str) -> Document:
        self.recent.pop(name, None)
        self.recent[name] = None
        while len(self.recent) > self.capacity:
            oldest = next(iter(self.recent))
            del self.recent[oldest]
            self.documents[oldest].forget()
        return self.documents[name]

    def release_all(self) -> None:
        for name in self.recent:
            self.documents[name].forget()
        self.recent.clear()
