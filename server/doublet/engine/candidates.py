"""Candidates: the pairs of documents worth aligning, found from the index alone.

Aligning a pair costs milliseconds; a folder of thousands of documents has
millions of pairs. So pairs are first selected from the index's keys, and only
those are aligned (engine/matching). Two kinds of evidence select a pair:

- *copied text*: fingerprints shared by both documents, at least ``min_seeds``
  of them within ``reach`` of each other in both (a passage's seeds cluster;
  common phrases of two texts on one topic do not);
- *reworded text*: a *sentence seed*, a sentence of each that share at least
  ``SEED_BANDS`` of their MinHash bands (engine/sentence_keys).

Two limits on how many documents hold a key:

- the *boilerplate limit*: text in more documents than this is what everyone
  was given (the assignment, a licence, stock phrases), and its keys are
  ignored everywhere, selection and alignment alike (like MOSS's ``-m``); by
  default, more than half the documents. The keys of templates are ignored
  the same way.
- the *pairing limit*: a key in more documents than this selects no pair by
  itself — a key in k documents would give k² pairs — but still counts when
  a selected pair is aligned. By default a tenth of the documents, never fewer
  than 100, never more than the boilerplate limit. So when many students copy
  one source that is in the folder, the source stays reuse, not boilerplate:
  its text is found in every copy (up to 100 copies at least) and aligned in
  full.

Selection costs one sort of the seeds that shared keys give, so it grows with
the amount of shared text, not with the square of the number of documents.
Roles (engine/index ``Role``) and modes decide which pairs may be reported at
all.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np

from doublet.engine.document import DocumentKeys
from doublet.engine.hashing import mix64
from doublet.engine.index import FINGERPRINTS, SENTENCES, Index, Role, keys_of
from doublet.engine.modes import Mode
from doublet.engine.passages import clustered_groups, dense_seeds
from doublet.engine.sentence_keys import SEED_BANDS

#: Positions of one key in one document that selection looks at.
MAX_REPEATS = 4

#: The default boilerplate limit: text in more than this share of the documents ...
BOILERPLATE_SHARE = 0.5
#: ... but never fewer documents than this.
MIN_BOILERPLATE = 10
#: The pairing limit: a key selects pairs if it is in at most this share of the
#: documents, or in at most MIN_PAIRING of them.
PAIRING_SHARE = 0.1
MIN_PAIRING = 100
#: A sentence key in more documents than this selects no pair, however large the
#: folder: a band of two common words is in the sentences of many unrelated texts.
SENTENCE_PAIRING = 100


def boilerplate_limit(documents: int, setting: int | float = BOILERPLATE_SHARE) -> int:
    """Keys in more documents than this are boilerplate.

    ``setting`` is a number of documents (an int), or a share of them (a float
    below 1), which never gives fewer than MIN_BOILERPLATE.
    """
    if isinstance(setting, int):
        return setting
    return max(MIN_BOILERPLATE, math.ceil(setting * documents))


def pairing_limit(documents: int, max_docs: int) -> int:
    """Keys in more documents than this select no pairs (``max_docs``: the boilerplate
    limit)."""
    return min(max_docs, max(MIN_PAIRING, math.ceil(PAIRING_SHARE * documents)))


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
        # half the memory for the pairs made of them (ids and positions fit 32 bits)
        docs = docs.astype(np.int32) if docs.max() < 2**31 else docs
        return _Postings(keys, docs, positions.astype(np.uint32), starts, counts, documents)

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

    def pairs(self) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
        """Every two postings of one key in different documents, in chunks of (doc a, doc b,
        at a, at b) with doc a < doc b: one chunk per number of postings per key."""
        docs, positions = self.docs, self.positions
        shared = self.documents >= 2
        for size in np.unique(self.counts[shared]).tolist():
            rows = self.starts[shared & (self.counts == size)][:, None] + np.arange(size)
            left, right = np.triu_indices(size, 1)
            doc_a, doc_b = docs[rows[:, left]], docs[rows[:, right]]
            different = doc_a != doc_b  # rows are sorted by document, so doc_a <= doc_b
            yield (
                doc_a[different],
                doc_b[different],
                positions[rows[:, left]][different],
                positions[rows[:, right]][different],
            )


def all_candidates(index: Index, max_docs: int) -> tuple[list[Candidate], np.ndarray]:
    """Every pair of indexed documents worth aligning, and the fingerprint keys to ignore
    (boilerplate and templates) when aligning them."""
    entries = {e.id: e for e in index.entries()}
    if len(entries) < 2:
        return [], np.zeros(0, np.uint32)
    pairing = pairing_limit(len(entries), max_docs)
    templates = np.array([i for i, e in entries.items() if e.role.template], dtype=np.int64)
    modes = {e.mode for e in entries.values()}
    reach = max(m.alignment.reach for m in modes)
    min_seeds = max(1, min(m.min_seeds for m in modes))
    evidence: dict[tuple[int, int], list[int]] = {}

    n = index.id_count()
    copied = _Postings.of(*index.live_postings(FINGERPRINTS))
    ignored = _ignored(copied, templates, max_docs)
    copied = copied.without_keys(_ignored(copied, templates, pairing))
    for p, count in _dense_pairs(copied, n, reach, min_seeds):
        evidence[divmod(p, n)] = [count, 0]
    del copied
    reworded = _Postings.of(*index.live_postings(SENTENCES))
    limit = min(pairing, SENTENCE_PAIRING)
    reworded = reworded.without_keys(_ignored(reworded, templates, limit))
    pair_ids, seeds = _sentence_seeds(
        _sentence_pairs(a.astype(np.int64) * n + b, at_a, at_b)
        for a, b, at_a, at_b in reworded.pairs()
    )
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


def _dense_pairs(
    postings: _Postings, n: int, reach: int, min_seeds: int
) -> Iterator[tuple[int, int]]:
    """Pairs (as a * n + b) with ``min_seeds`` shared keys within ``reach`` in both
    documents, and how many keys they share."""
    pair_parts, at_a_parts, at_b_parts = [], [], []
    for a, b, at_a, at_b in postings.pairs():
        pair_parts.append(a.astype(np.int64) * n + b)
        at_a_parts.append(at_a)
        at_b_parts.append(at_b)
    if not pair_parts:
        return iter(())
    pair = np.concatenate(pair_parts)
    del pair_parts
    dense_in_a = clustered_groups(pair, np.concatenate(at_a_parts), reach, min_seeds)
    del at_a_parts
    dense = np.intersect1d(
        dense_in_a, clustered_groups(pair, np.concatenate(at_b_parts), reach, min_seeds)
    )
    del at_b_parts
    pair_ids, shared = np.unique(pair[np.isin(pair, dense)], return_counts=True)
    return zip(pair_ids.tolist(), shared.tolist(), strict=True)


def _ignored(postings: _Postings, templates: np.ndarray, max_docs: int) -> np.ndarray:
    """Keys to leave out: boilerplate (in more than ``max_docs`` documents) and templates'."""
    of_templates = np.unique(postings.keys[np.isin(postings.docs, templates)])
    return np.union1d(postings.frequent(max_docs), of_templates).astype(np.uint32)


def _sentence_pairs(
    groups: np.ndarray, at_a: np.ndarray, at_b: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Shared sentence keys as (group, hash naming the group and the two sentences); a
    group is a pair of documents, or a document facing a query."""
    with np.errstate(over="ignore"):
        named = mix64(groups) ^ mix64(
            (at_a.astype(np.uint64) << np.uint64(32)) | at_b.astype(np.uint64), 1
        )
    return groups, named


def _sentence_seeds(
    chunks: Iterable[tuple[np.ndarray, np.ndarray]],
) -> tuple[np.ndarray, np.ndarray]:
    """Groups with sentence seeds, and how many: shared keys (bands) are counted per
    (group, sentence of each side), and SEED_BANDS of them make a seed."""
    groups_parts, named_parts = [], []
    for groups, named in chunks:
        groups_parts.append(groups)
        named_parts.append(named)
    if not groups_parts:
        nothing = np.zeros(0, np.int64)
        return nothing, nothing
    named = np.concatenate(named_parts)
    del named_parts
    order = np.argsort(named, kind="stable")
    named = named[order]
    starts = np.flatnonzero(np.r_[True, named[1:] != named[:-1]])
    bands = np.diff(np.r_[starts, named.shape[0]])
    del named
    seeded = order[starts[bands >= SEED_BANDS]]
    groups = np.concatenate(groups_parts)[seeded]
    return np.unique(groups, return_counts=True)


def _too_common(index: Index, kind: str, hashes: np.ndarray, limits: tuple[int, ...]):
    """Of a text's keys of ``kind``, for each limit, those in more indexed documents than
    it, or in a template."""
    wanted = np.unique(keys_of(hashes))
    which, doc, _ = index.postings_of(kind, wanted)
    if which.shape[0] == 0:
        return [np.zeros(0, dtype=np.uint32) for _ in limits]
    width = index.id_count()
    per_key = np.bincount(np.unique(which * width + doc) // width, minlength=wanted.shape[0])
    in_template = np.zeros(wanted.shape[0], dtype=bool)
    template_ids = [d for d in np.unique(doc).tolist() if index.entry_of(d).role.template]
    if template_ids:
        in_template[np.unique(which[np.isin(doc, template_ids)])] = True
    return [wanted[(per_key > limit) | in_template] for limit in limits]


def candidates_of(
    index: Index, name: str, keys: DocumentKeys, mode: Mode, role: Role, max_docs: int
) -> tuple[list[Candidate], np.ndarray]:
    """Indexed documents worth aligning with one text (indexed as ``name`` or not), and the
    text's fingerprint keys to ignore when aligning (boilerplate, templates).

    In every candidate, A is ``name``.
    """
    allowed = _allowed(index, name, mode, role)
    evidence: dict[int, list[int]] = {}
    options = mode.alignment
    pairing = pairing_limit(len(index), max_docs)
    fingerprints = keys.fingerprints
    ignored, skip = _too_common(index, FINGERPRINTS, fingerprints.hashes, (max_docs, pairing))
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
    [frequent] = _too_common(index, SENTENCES, sentence_keys.hashes, (pairing,))
    doc, at_query, at_doc = _seeds(
        index, SENTENCES, sentence_keys.hashes, sentence_keys.positions, frequent, allowed
    )
    docs, seeds = _sentence_seeds([_sentence_pairs(doc, at_query, at_doc)])
    for d, count in zip(docs.tolist(), seeds.tolist(), strict=True):
        evidence.setdefault(d, [0, 0])[1] = count
    found = [
        Candidate(name, index.entry_of(d).name, fingerprint_seeds, sentence_seeds)
        for d, (fingerprint_seeds, sentence_seeds) in evidence.items()
    ]
    found.sort(key=lambda c: c.b)
    return found, ignored


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
