"""Candidates: the pairs of documents worth aligning, found from the index alone.

Aligning a pair costs milliseconds; a folder of thousands of documents has
millions of pairs. So pairs are first selected from the index's keys, and only
those are aligned (engine/matching). Two kinds of evidence select a pair:

- *copied text*: fingerprints shared by both documents, at least ``min_seeds``
  of them within ``reach`` of each other in both (a passage's seeds cluster;
  common phrases of two texts on one topic do not);
- *reworded text*: a *sentence seed*, a sentence of each that share at least
  ``SEED_BANDS`` of their MinHash bands (engine/sentence_keys).

Keys found in more documents than the *boilerplate limit* are ignored (like
MOSS's ``-m``), as are the keys of templates. Selection costs one sort of the
seeds that shared keys give, so it grows with the amount of shared text, not
with the square of the number of documents. Roles (engine/index ``Role``) and
modes decide which pairs may be reported at all.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from doublet.engine.document import DocumentKeys
from doublet.engine.fingerprints import Fingerprints
from doublet.engine.hashing import mix64
from doublet.engine.index import FINGERPRINTS, SENTENCES, Index, Role, keys_of
from doublet.engine.modes import Mode
from doublet.engine.passages import clustered_groups, dense_seeds
from doublet.engine.sentence_keys import SEED_BANDS

#: Positions of one key in one document that selection looks at.
MAX_REPEATS = 4

#: The default boilerplate limit: text in more than this share of the documents ...
BOILERPLATE_SHARE = 0.1
#: ... but never fewer documents than this.
MIN_BOILERPLATE = 10


def boilerplate_limit(documents: int, setting: int | float = BOILERPLATE_SHARE) -> int:
    """Keys in more documents than this are boilerplate.

    ``setting`` is a number of documents (an int), or a share of them (a float
    below 1), which never gives fewer than MIN_BOILERPLATE.
    """
    if isinstance(setting, int):
        return setting
    return max(MIN_BOILERPLATE, math.ceil(setting * documents))


@dataclass(frozen=True)
class Candidate:
    """Two documents worth aligning, and the evidence that selected them."""

    a: str
    b: str
    fingerprint_seeds: int  # shared fingerprints in dense clusters (0: none)
    sentence_seeds: int  # pairs of sentences alike enough to seed the paraphrase stage


@dataclass(frozen=True)
class _Postings:
    """One kind of postings sorted by key, document and position, grouped by key."""

    keys: np.ndarray
    docs: np.ndarray
    positions: np.ndarray
    starts: np.ndarray  # where each distinct key begins
    counts: np.ndarray  # postings per distinct key
    documents: np.ndarray  # distinct documents per distinct key

    @staticmethod
    def of(keys: np.ndarray, docs: np.ndarray, positions: np.ndarray) -> _Postings:
        if keys.shape[0] == 0:
            nothing = np.zeros(0, np.int64)
            return _Postings(keys, docs, positions, nothing, nothing, nothing)
        new_key = np.r_[True, keys[1:] != keys[:-1]]
        starts = np.flatnonzero(new_key)
        counts = np.diff(np.r_[starts, keys.shape[0]])
        new_doc = new_key | np.r_[True, docs[1:] != docs[:-1]]
        documents = np.add.reduceat(new_doc.astype(np.int64), starts)
        return _Postings(keys, docs, positions, starts, counts, documents)

    def without_keys(self, ignored: np.ndarray) -> _Postings:
        """The postings minus those of ``ignored`` keys, and at most MAX_REPEATS
        positions per key and document (text repeated inside one file — a table,
        a refrain — would otherwise make pairs grow with the square of it)."""
        keep = ~np.isin(self.keys, ignored)
        new_group = np.r_[
            True, (self.keys[1:] != self.keys[:-1]) | (self.docs[1:] != self.docs[:-1])
        ]
        group_start = np.maximum.accumulate(np.where(new_group, np.arange(new_group.shape[0]), 0))
        keep &= np.arange(new_group.shape[0]) - group_start < MAX_REPEATS
        return _Postings.of(self.keys[keep], self.docs[keep], self.positions[keep])

    def frequent(self, limit: int) -> np.ndarray:
        """Keys found in more than ``limit`` documents (sorted)."""
        return self.keys[self.starts[self.documents > limit]]

    def pairs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Every two postings of one key in different documents: (doc a, doc b, at a, at b),
        doc a < doc b."""
        docs, positions = self.docs, self.positions
        parts: list[tuple[np.ndarray, ...]] = []
        shared = self.documents >= 2
        for size in np.unique(self.counts[shared]).tolist():
            rows = self.starts[shared & (self.counts == size)][:, None] + np.arange(size)
            left, right = np.triu_indices(size, 1)
            doc_a, doc_b = docs[rows[:, left]], docs[rows[:, right]]
            different = doc_a != doc_b  # rows are sorted by document, so doc_a <= doc_b
            parts.append(
                (
                    doc_a[different],
                    doc_b[different],
                    positions[rows[:, left]][different],
                    positions[rows[:, right]][different],
                )
            )
        if not parts:
            nothing = np.zeros(0, np.int64)
            return nothing, nothing, nothing, nothing
        return tuple(np.concatenate(column) for column in zip(*parts, strict=True))  # type: ignore[return-value]


def all_candidates(index: Index, max_docs: int) -> tuple[list[Candidate], np.ndarray]:
    """Every pair of indexed documents worth aligning, and the fingerprint keys to ignore
    (boilerplate and templates) when aligning them."""
    entries = {e.id: e for e in index.entries()}
    if len(entries) < 2:
        return [], np.zeros(0, np.uint32)
    templates = np.array([i for i, e in entries.items() if e.role.template], dtype=np.int64)
    modes = {e.mode for e in entries.values()}
    reach = max(m.alignment.reach for m in modes)
    min_seeds = max(1, min(m.min_seeds for m in modes))
    evidence: dict[tuple[int, int], list[int]] = {}

    copied = _Postings.of(*index.live_postings(FINGERPRINTS))
    ignored = _ignored(copied, templates, max_docs)
    a, b, at_a, at_b = copied.without_keys(ignored).pairs()
    n = index.id_count()
    pair = a * n + b
    dense = np.intersect1d(
        clustered_groups(pair, at_a, reach, min_seeds),
        clustered_groups(pair, at_b, reach, min_seeds),
    )
    pair_ids, shared = np.unique(pair[np.isin(pair, dense)], return_counts=True)
    for p, count in zip(pair_ids.tolist(), shared.tolist(), strict=True):
        evidence[divmod(p, n)] = [count, 0]

    reworded = _Postings.of(*index.live_postings(SENTENCES))
    a, b, at_a, at_b = reworded.without_keys(_ignored(reworded, templates, max_docs)).pairs()
    pair_ids, seeds = _sentence_seeds(a * n + b, at_a, at_b)
    for p, count in zip(pair_ids.tolist(), seeds.tolist(), strict=True):
        evidence.setdefault(divmod(p, n), [0, 0])[1] = count

    found = []
    for (x, y), (fingerprint_seeds, sentence_seeds) in evidence.items():
        ea, eb = entries[x], entries[y]
        if ea.mode.salt != eb.mode.salt or not ea.role.may_pair(eb.role):
            continue
        if ea.name > eb.name:
            ea, eb = eb, ea
        found.append(Candidate(ea.name, eb.name, fingerprint_seeds, sentence_seeds))
    found.sort(key=lambda c: (c.a, c.b))
    return found, ignored


def _ignored(postings: _Postings, templates: np.ndarray, max_docs: int) -> np.ndarray:
    """Keys to leave out: boilerplate (in more than ``max_docs`` documents) and templates'."""
    of_templates = np.unique(postings.keys[np.isin(postings.docs, templates)])
    return np.union1d(postings.frequent(max_docs), of_templates).astype(np.uint32)


def _sentence_seeds(
    groups: np.ndarray, at_a: np.ndarray, at_b: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Groups (pairs of documents, or documents facing a query) with sentence seeds, and
    how many: shared bands are counted per (group, sentence of each side), and
    SEED_BANDS of them make a seed."""
    if not groups.shape[0]:
        return groups, groups
    with np.errstate(over="ignore"):
        sentence_pair = mix64(groups) ^ mix64(
            (at_a.astype(np.uint64) << np.uint64(32)) | at_b.astype(np.uint64), 1
        )
    _, first, bands = np.unique(sentence_pair, return_index=True, return_counts=True)
    return np.unique(groups[first[bands >= SEED_BANDS]], return_counts=True)


def ignored_keys(index: Index, fingerprints: Fingerprints, max_docs: int) -> np.ndarray:
    """Of a text's fingerprint keys, those to leave out: in more than ``max_docs``
    indexed documents, or in a template."""
    return _ignored_of(index, FINGERPRINTS, fingerprints.hashes, max_docs)


def _ignored_of(index: Index, kind: str, hashes: np.ndarray, max_docs: int) -> np.ndarray:
    """Of a text's keys of ``kind``, those in more than ``max_docs`` indexed documents or in a
    template."""
    wanted = np.unique(keys_of(hashes))
    which, doc, _ = index.postings_of(kind, wanted)
    if which.shape[0] == 0:
        return np.zeros(0, dtype=np.uint32)
    width = index.id_count()
    per_key = np.bincount(np.unique(which * width + doc) // width, minlength=wanted.shape[0])
    ignored = per_key > max_docs
    template_ids = [d for d in np.unique(doc).tolist() if index.entry_of(d).role.template]
    if template_ids:
        ignored[np.unique(which[np.isin(doc, template_ids)])] = True
    return wanted[ignored]


def candidates_of(
    index: Index,
    name: str,
    keys: DocumentKeys,
    mode: Mode,
    role: Role,
    max_docs: int,
    ignored: np.ndarray | None = None,
) -> list[Candidate]:
    """Indexed documents worth aligning with one text (indexed as ``name`` or not).

    ``ignored`` is :func:`ignored_keys` of its fingerprints, if known. In every
    candidate, A is ``name``.
    """
    allowed = _allowed(index, name, mode, role)
    evidence: dict[int, list[int]] = {}
    options = mode.alignment
    skip = ignored_keys(index, keys.fingerprints, max_docs) if ignored is None else ignored
    fingerprints = keys.fingerprints
    doc, at_query, at_doc = _seeds(
        index, FINGERPRINTS, fingerprints.hashes, fingerprints.positions, skip, allowed
    )
    maybe = np.intersect1d(
        clustered_groups(doc, at_query, options.reach, options.min_seeds),
        clustered_groups(doc, at_doc, options.reach, options.min_seeds),
    )
    keep = np.isin(doc, maybe)
    doc, at_query, at_doc = doc[keep], at_query[keep], at_doc[keep]
    order = np.argsort(doc, kind="stable")
    doc, at_query, at_doc = doc[order], at_query[order], at_doc[order]
    bounds = np.flatnonzero(np.r_[True, doc[1:] != doc[:-1], True])
    for lo, hi in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
        dense = dense_seeds(at_query[lo:hi], at_doc[lo:hi], options.reach, options.min_seeds)
        if dense.any():
            evidence[int(doc[lo])] = [int(dense.sum()), 0]

    sentence_keys = keys.sentence_keys
    frequent = _ignored_of(index, SENTENCES, sentence_keys.hashes, max_docs)
    doc, at_query, at_doc = _seeds(
        index, SENTENCES, sentence_keys.hashes, sentence_keys.positions, frequent, allowed
    )
    docs, seeds = _sentence_seeds(doc, at_query, at_doc)
    for d, count in zip(docs.tolist(), seeds.tolist(), strict=True):
        evidence.setdefault(d, [0, 0])[1] = count
    found = [
        Candidate(name, index.entry_of(d).name, fingerprint_seeds, sentence_seeds)
        for d, (fingerprint_seeds, sentence_seeds) in evidence.items()
    ]
    found.sort(key=lambda c: c.b)
    return found


def _allowed(index: Index, name: str, mode: Mode, role: Role) -> np.ndarray:
    """Mask over document ids of the documents that may be reported against the query."""
    allowed = np.zeros(index.id_count(), dtype=bool)
    for entry in index.entries():
        allowed[entry.id] = (
            entry.mode.salt == mode.salt and entry.name != name and role.may_pair(entry.role)
        )
    return allowed


def _seeds(
    index: Index,
    kind: str,
    hashes: np.ndarray,
    positions: np.ndarray,
    skip: np.ndarray,
    allowed: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every (indexed document, position in the query, position in it) where they share a
    key of ``kind``, keys in ``skip`` left out."""
    keys = keys_of(hashes)
    usable = ~np.isin(keys, skip)
    keys, positions = keys[usable], positions[usable]
    nothing = np.zeros(0, dtype=np.int64)
    if keys.shape[0] == 0:
        return nothing, nothing, nothing
    order = np.argsort(keys, kind="stable")
    keys, positions = keys[order], positions[order]
    wanted, first, repeats = np.unique(keys, return_index=True, return_counts=True)
    which, doc, at = index.postings_of(kind, wanted)
    ok = allowed[doc]
    which, doc, at = which[ok], doc[ok], at[ok]
    # every occurrence of a key in the query meets every posting of it
    count = repeats[which]
    total = int(count.sum())
    if total == 0:
        return nothing, nothing, nothing
    within = np.arange(total) - np.repeat(np.cumsum(count) - count, count)
    at_query = positions[np.repeat(first[which], count) + within]
    return np.repeat(doc, count), at_query, np.repeat(at, count)
