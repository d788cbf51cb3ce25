"""Candidates: the pairs of documents worth aligning, found from the index alone.

Aligning a pair costs milliseconds; a folder of thousands of documents has
millions of pairs. So pairs are first selected from the index's keys, and only
those are aligned (engine/matching). Four kinds of evidence select a pair:

- *copied text*: fingerprints shared by both documents, at least ``min_seeds``
  of them within ``reach`` of each other in both (a passage's seeds cluster;
  common phrases of two texts on one topic do not);
- *reworded text*: *sentence seeds*, a sentence of each that share at least
  ``SEED_BANDS`` of their MinHash bands (engine/sentence_keys): two of them, or
  one and a shared fingerprint, and more for long documents
  (``enough_sentence_seeds``); a band in more than ``SENTENCE_PAIRING``
  documents (two common words) seeds nothing;
- *what a program says* (code only, in ``all_candidates``): at least
  ``LEXICON_SEEDS`` string and number literals that both programs use
  (engine/lexicon_keys), each in few documents;
- *the same text* (in ``all_candidates``): two documents made of the same
  fingerprints (the same set of keys) — one text, once normalised, give or
  take a token that moves no fingerprint. Such a pair is aligned
  with every key, boilerplate included: a short program that is nothing but
  what every program of the folder says (a class, a main method, five print
  statements) is still copied whole when two students hand in the same one.
  A text that more documents are than the pairing limit was given to
  everyone, and selects nothing; nor does a document holding any of a
  template's text (templates are subtracted; the other rules apply to it).
  Only a scan asks this: an editor's question is which passages of its text
  are not what everyone writes.

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
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from functools import partial, reduce
from typing import Any

import numpy as np

from doublet.engine.distinct import common, distinct
from doublet.engine.document import DocumentKeys
from doublet.engine.hashing import mix64
from doublet.engine.index import (
    FINGERPRINTS,
    LEXICON,
    SENTENCES,
    Entry,
    Index,
    Role,
    documents_per_key,
    keys_of,
)
from doublet.engine.lexicon_keys import LEXICON_SEEDS
from doublet.engine.modes import Mode
from doublet.engine.passages import clustered_groups, dense_seeds
from doublet.engine.sentence_keys import BANDS, SEED_BANDS

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
#: On PAN 2013 in one folder, 100 and 30 find the same reuse (plagdet 0.883 and
#: 0.882); on the 24,000 pieces of novels, 30 aligns a third as many pairs.
SENTENCE_PAIRING = 30

#: Seeds (pairs of postings of one key) made at once when selecting a folder's
#: candidates: past this, the pairs of documents are taken a part at a time, so that
#: memory stays about 16 bytes a seed times this (the seeds of the 100,000-document
#: folder need 1.4 GB at once; two threads make a part each: at 4 million, the
#: fingerprints' parts were that scan's highest point, 380 MB, at 2 million 340).
PAIRS_PER_PART = 2_000_000
#: Pairs of postings made at once (:meth:`_Postings.pairs`): the 24.7 million of the
#: 100,000-document folder's sentence keys were made a size of key at a time, 875,000
#: keys of two postings in one go, in each part.
PAIRS_PER_CHUNK = 1 << 20
#: A pair of two postings of one document, in :meth:`_Postings.plan`'s codes.
SAME_DOCUMENT = 255
#: A pair needs one sentence seed for every this many pairs of keyed sentences it
#: has: two long texts on one topic share a loosely alike pair of sentences by
#: chance (two 20 KB pieces of one novel, 200 sentences each, need 4 seeds; two
#: 2 KB pieces, one). On PAN 2013 this keeps all but 7 of the 249 reused pairs
#: found only by sentence seeds; on five novels in 20 KB pieces it aligns 1,013
#: pairs instead of 6,278.
SENTENCE_PAIRS_PER_SEED = 10_000


#: A pair needs two pieces of evidence: two sentence seeds, or one and a fingerprint
#: that both documents hold. One loosely alike pair of short sentences is chance in a
#: large folder: among the 24,000 pieces of novels, 24,000 pairs had one seed and
#: nothing else, and none of them was reuse; on PAN 2013 the rule drops 1,400
#: pairs to align and 8 of the 2,885 reused ones.
MIN_EVIDENCE = 2


def enough_sentence_seeds(
    seeds: int, sentences_a: int, sentences_b: int, shares_fingerprints: bool
) -> bool:
    """Whether ``seeds`` sentence seeds select a pair of documents with that many keyed
    sentences (``shares_fingerprints``: whether they hold a fingerprint in common)."""
    if seeds + shares_fingerprints < MIN_EVIDENCE:
        return False
    return seeds >= max(1, math.ceil(sentences_a * sentences_b / SENTENCE_PAIRS_PER_SEED))


def boilerplate_limit(documents: int, setting: int | float = BOILERPLATE_SHARE) -> int:
    """Keys in more documents than this are boilerplate.

    ``setting`` is a number of documents (an int), or a share of them (a float
    below 1), which never gives fewer than MIN_BOILERPLATE.
    """
    if isinstance(setting, int):
        return setting
    return max(MIN_BOILERPLATE, math.ceil(setting * documents))


#: A mode whose fingerprints are more than this share boilerplate finds little: its
#: noise threshold is too short to tell copying from what all its documents say.
#: In one folder each, with the default thresholds, Clough & Stevenson, IR-Plag and
#: five novels in pieces have none; with ``noise = 1`` they have 80% to 99.9%, with
#: ``noise = 3`` 16% to 83%.
DROWNED_SHARE = 0.5
#: Fingerprints enough to estimate that share: in a larger index, a sample of keys.
SHARE_SAMPLE = 200_000


def boilerplate_shares(
    index: Index,
    max_docs: int,
    sample: int = SHARE_SAMPLE,
    between: Callable[[], None] = lambda: None,
) -> dict[str, float]:
    """The share of each mode's fingerprints whose key is boilerplate (in more than
    ``max_docs`` documents), estimated on the fingerprints of a sample of the keys when
    there are more than ``sample`` of them.

    ``between`` is called between steps of a few milliseconds: a language server
    estimates this beside an editor's edits, and lets them go first.
    """
    entries = index.live_entries()
    between()
    total = 0
    modes: dict[str, int] = {}
    mode_of = np.zeros(index.id_count(), np.int64)
    for lo in range(0, len(entries), _ENTRIES_SLICE):
        for e in entries[lo : lo + _ENTRIES_SLICE]:
            total += e.postings_of(FINGERPRINTS)
            mode_of[e.id] = modes.setdefault(e.mode.name, len(modes))
        between()
    if not total:
        return {}
    one_in = max(1, total // sample)
    keys, docs, _ = index.live_postings(FINGERPRINTS, one_in=one_in, between=between)
    postings = _Postings.of(keys, docs, np.zeros(keys.shape[0], np.uint32))
    common = np.repeat(postings.documents > max_docs, postings.counts)
    mode = mode_of[postings.docs]
    held = np.bincount(mode, minlength=len(modes))
    drowned = np.bincount(mode[common], minlength=len(modes))
    return {name: drowned[i] / held[i] for name, i in sorted(modes.items()) if held[i]}


#: Entries looked at between two calls of ``between`` (boilerplate_shares): a few ms.
_ENTRIES_SLICE = 8192


def pairing_limit(documents: int, max_docs: int) -> int:
    """Keys in more documents than this select no pairs (``max_docs``: the boilerplate
    limit)."""
    return min(max_docs, max(MIN_PAIRING, math.ceil(PAIRING_SHARE * documents)))


@dataclass(frozen=True, slots=True)
class Candidate:
    """Two documents worth aligning, and the evidence that selected them."""

    a: str
    b: str
    fingerprint_seeds: int  # shared fingerprints in dense clusters (0: none)
    sentence_seeds: int  # pairs of sentences alike enough to seed the paraphrase stage
    lexicon_seeds: int = 0  # rare literals both programs use (code only)
    identical: bool = False  # the same text throughout: aligned with every key


@dataclass(frozen=True)
class _PairPlan:
    """What making one kind's pairs of postings a part at a time works out once
    (:meth:`_Postings.plan`)."""

    by_size: np.ndarray  # the keys that pair, in the order they are taken
    codes: np.ndarray | None  # each pair's part (a byte), in that order


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
        # a folder's postings are tens of millions: masks of one byte each, counts in
        # 32 bits, and no copy of what is already the right type
        new_key = np.empty(keys.shape[0], dtype=bool)
        new_key[0] = True
        np.not_equal(keys[1:], keys[:-1], out=new_key[1:])
        small = keys.shape[0] < 2**31  # per distinct key: half the memory (millions of keys)
        starts = _true_at(new_key, np.int32 if small else np.int64)
        counts = np.diff(starts, append=starts.dtype.type(keys.shape[0]))
        new_doc = new_key
        new_doc[1:] |= docs[1:] != docs[:-1]
        documents = _trues_per_run(new_doc, starts)
        del new_key, new_doc
        # half the memory for the pairs made of them (ids and positions fit 32 bits)
        docs = docs.astype(np.int32, copy=False) if docs.max() < 2**31 else docs
        positions = positions.astype(np.uint32, copy=False)
        return _Postings(keys, docs, positions, starts, counts, documents)

    @staticmethod
    def stitched(
        docs: np.ndarray,
        positions: np.ndarray,
        per_key: list[tuple[np.ndarray, np.ndarray, np.ndarray]],
    ) -> _Postings:
        """Postings read in slices of whole runs of keys, without their keys' values
        (:meth:`without_key_values`): each slice's (starts, counts, documents), put end
        to end, are the whole's, its starts moved by the postings before it. The types
        are those :meth:`of` gives; ``per_key`` is emptied."""
        no_keys = np.zeros(0, np.uint32)
        if not docs.shape[0]:
            nothing = np.zeros(0, np.int64)
            per_key.clear()
            return _Postings(no_keys, docs, positions, nothing, nothing, nothing)
        kind = np.int32 if docs.shape[0] < 2**31 else np.int64
        starts, counts, documents = [], [], []
        before = 0  # postings in the slices before
        for slice_starts, slice_counts, slice_documents in per_key:
            starts.append(slice_starts.astype(kind) + kind(before))
            counts.append(slice_counts.astype(kind))
            documents.append(slice_documents.astype(kind))
            before += int(slice_counts.sum())
        per_key.clear()
        docs = docs.astype(np.int32, copy=False) if docs.max() < 2**31 else docs
        positions = positions.astype(np.uint32, copy=False)
        joined = (np.concatenate(part) for part in (starts, counts, documents))
        return _Postings(no_keys, docs, positions, *joined)

    def without_keys(self, ignored: np.ndarray, own: bool = False) -> _Postings:
        """The postings minus those of ``ignored`` keys, and at most MAX_REPEATS
        positions per key and document (text repeated inside one file — a table,
        a refrain — would otherwise make pairs grow with the square of it).

        ``own``: nothing else reads these postings' arrays, so those kept are moved to
        their front in place, not copied (a folder's sentence keys: 100 MB less)."""
        keys, docs = self.keys, self.docs
        if not docs.shape[0]:
            return self
        _check_key_values(keys, docs)
        # decided once per distinct key, then spread over its postings: one byte each
        keep = np.repeat(~_isin_sorted(keys[self.starts], distinct(ignored)), self.counts)
        # sorted by key and document, a posting is past the first MAX_REPEATS of its
        # (key, document) when the one MAX_REPEATS places back has the same
        back = MAX_REPEATS
        if keys.shape[0] > back:
            repeated = keys[back:] == keys[:-back]
            repeated &= docs[back:] == docs[:-back]
            keep[back:] &= ~repeated
            del repeated
        arrays = (keys, docs, self.positions)
        if own and all(array.flags.owndata and array.flags.writeable for array in arrays):
            return _Postings.of(*_kept_in_place(arrays, keep))
        return _Postings.of(keys[keep], docs[keep], self.positions[keep])

    def without_key_values(self) -> _Postings:
        """The same postings, their keys' values let go of: making pairs needs only where
        each key's run starts, its documents and positions (a folder's sentence keys:
        40 MB held while its parts are made). What asks for the values then fails."""
        return replace(self, keys=np.zeros(0, self.keys.dtype))

    def frequent(self, limit: int) -> np.ndarray:
        """Keys found in more than ``limit`` documents (sorted)."""
        _check_key_values(self.keys, self.docs)
        return self.keys[self.starts[self.documents > limit]]

    def pair_count(self) -> int:
        """How many (posting, posting) pairs of one key :meth:`pairs` makes at most."""
        shared = self.counts[self.documents >= 2].astype(np.int64)
        return int((shared * (shared - 1) // 2).sum())

    def pairs(
        self, part: int = 0, parts: int = 1, plan: _PairPlan | None = None
    ) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
        """Every two postings of one key in different documents, in chunks of (doc a, doc b,
        at a, at b) with doc a < doc b: keys of one number of postings at a time, at
        most about PAIRS_PER_CHUNK pairs of postings in a chunk. With ``parts``, only
        the pairs of documents in ``part`` (:func:`part_of`); ``plan``, if given, is
        :meth:`plan` of ``parts``.

        A folder's keys make tens of millions of pairs, and each part passes over all
        of them: which pairs a part keeps is decided on each key's few documents (a
        byte each, or read from the plan), and only the kept pairs are gathered from
        the postings."""
        by_size = self._by_size() if plan is None else plan.by_size
        codes = None if plan is None else plan.codes
        for chunk, first_of_key, left, right, size in self._chunks(by_size):
            if codes is not None:
                kept = codes[chunk] == part
            else:
                kept = self._part_codes_of(first_of_key, left, right, size, parts)
                kept = kept == (part if parts > 1 else 0)
            kept_at = np.flatnonzero(kept)  # as (key, pair) in row-major order
            if not kept_at.shape[0]:
                continue
            key_at = kept_at // left.shape[0]
            pair_at = kept_at - key_at * left.shape[0]
            first = first_of_key[key_at]
            at_a, at_b = first + left[pair_at], first + right[pair_at]
            yield self.docs[at_a], self.docs[at_b], self.positions[at_a], self.positions[at_b]

    def plan(self, parts: int) -> _PairPlan:
        """What :meth:`pairs` works out before making a pair, made once for every part:
        the order it takes the keys in, and each pair's part (a byte: SAME_DOCUMENT for
        two postings of one document; none past a byte's parts). Made once, they spare
        each part a sort of the keys and a pass over every key's documents (a byte per
        pair: 25 MB for the 100,000-document folder's sentence keys; their sixteen
        parts took 10.4 s without, 3.0 s with)."""
        by_size = self._by_size()
        if 2 * parts >= 256:
            return _PairPlan(by_size, None)
        codes = np.empty(self.pair_count(), np.uint8)
        for chunk, first_of_key, left, right, size in self._chunks(by_size):
            codes[chunk] = self._part_codes_of(first_of_key, left, right, size, parts).ravel()
        return _PairPlan(by_size, codes)

    def _by_size(self) -> np.ndarray:
        """The keys that several documents hold, by their number of postings (in key
        order within a number)."""
        shared = np.flatnonzero(self.documents >= 2)
        if shared.shape[0] and shared[-1] < 2**31:
            shared = shared.astype(np.int32)
        return shared[np.argsort(self.counts[shared], kind="stable")]

    def _chunks(
        self, by_size: np.ndarray
    ) -> Iterator[tuple[slice, np.ndarray, np.ndarray, np.ndarray, int]]:
        """The keys ``by_size``, a number of postings at a time and at most about
        PAIRS_PER_CHUNK pairs in a chunk: (where the chunk's pairs lie among all, where
        each key's postings begin, the pairs of places in a key, their count)."""
        sizes, firsts = np.unique(self.counts[by_size], return_counts=True)
        bounds = np.cumsum(firsts) - firsts
        done = 0  # pairs before the chunk
        for size, first, many in zip(sizes.tolist(), bounds.tolist(), firsts.tolist(), strict=True):
            left, right = np.triu_indices(size, 1)
            step = max(1, PAIRS_PER_CHUNK // left.shape[0])  # keys in a chunk
            for lo in range(first, first + many, step):
                begins = self.starts[by_size[lo : min(lo + step, first + many)]]
                count = begins.shape[0] * left.shape[0]
                yield slice(done, done + count), begins, left, right, size
                done += count

    def _part_codes_of(
        self, begins: np.ndarray, left: np.ndarray, right: np.ndarray, size: int, parts: int
    ) -> np.ndarray:
        """The part of each pair of a chunk of keys (SAME_DOCUMENT for two postings of one
        document), as (key, pair) bytes; with ``parts`` 1, 0 for every other pair."""
        owner = self.docs[begins[:, None] + np.arange(size)]  # sorted: doc a <= doc b
        same = owner[:, left] == owner[:, right]
        if parts > 1:
            small = np.uint8 if 2 * parts < 256 else np.int64  # a sum of two parts fits
            owner_part = (owner % parts).astype(small)
            codes = owner_part[:, left] + owner_part[:, right]
            codes %= small(parts)
        else:
            codes = np.zeros(same.shape, np.uint8)
        codes[same] = SAME_DOCUMENT if codes.dtype == np.uint8 else -1
        return codes


def _check_key_values(keys: np.ndarray, docs: np.ndarray) -> None:
    if keys.shape[0] != docs.shape[0]:
        raise ValueError("the keys' values were let go of (without_key_values)")


def _kept_in_place(arrays: tuple[np.ndarray, ...], keep: np.ndarray) -> tuple[np.ndarray, ...]:
    """``array[keep]`` of each of ``arrays`` (each its memory's owner), made in its own
    memory: the kept moved to the front a slice at a time (a slice's are taken before
    any is written, and go no further than where the slice begins), then the arrays
    cut to them."""
    kept = 0
    for lo in range(0, keep.shape[0], _SLICE):
        chosen = keep[lo : lo + _SLICE]
        count = int(np.count_nonzero(chosen))
        for array in arrays:
            array[kept : kept + count] = array[lo : lo + _SLICE][chosen]
        kept += count
    for array in arrays:
        array.resize(kept, refcheck=False)
    return arrays


def _true_at(mask: np.ndarray, dtype: type) -> np.ndarray:
    """``np.flatnonzero(mask)`` as ``dtype``, made a slice at a time: no 64-bit copy of
    millions of places."""
    found = np.empty(int(np.count_nonzero(mask)), dtype)
    filled = 0
    for lo in range(0, mask.shape[0], _SLICE):
        places = np.flatnonzero(mask[lo : lo + _SLICE]) + lo
        found[filled : filled + places.shape[0]] = places
        filled += places.shape[0]
    return found


def _trues_per_run(mask: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """How many of ``mask`` are true in each run beginning at ``starts`` (ascending,
    the first 0), as ``starts``' type, a slice of runs at a time (a whole folder's at
    once took a 64-bit copy of the starts and a 32-bit one of the mask)."""
    found = np.empty(starts.shape[0], starts.dtype)
    step = max(1, _SLICE * starts.shape[0] // max(mask.shape[0], 1))  # runs in a slice
    for lo in range(0, starts.shape[0], step):
        hi = min(lo + step, starts.shape[0])
        begin = int(starts[lo])
        end = int(starts[hi]) if hi < starts.shape[0] else mask.shape[0]
        found[lo:hi] = np.add.reduceat(
            mask[begin:end], (starts[lo:hi] - begin).astype(np.intp), dtype=found.dtype
        )
    return found


#: Postings looked at a slice at a time where a whole folder's would take a copy.
_SLICE = 1 << 20


def _parts(seeds: int) -> int:
    """In how many parts to make pairs of documents that make ``seeds`` seeds."""
    return max(1, -(-seeds // PAIRS_PER_PART))


def part_of(doc_a: np.ndarray, doc_b: np.ndarray, parts: int) -> np.ndarray:
    """Which of ``parts`` a pair of documents belongs to: every seed of one pair, of
    every kind of key, in the same part, and the parts about even."""
    return (doc_a.astype(np.int64) + doc_b) % parts


@dataclass
class Seen:
    """What a folder's selection saw that selecting again after a few changes needs
    (engine/selection): for each kind of key, the keys that more than ``floors[kind]``
    documents hold, with how many, and the keys templates hold; and each document's
    digest of its set of fingerprint keys (:func:`set_digests`)."""

    floors: dict[str, int]
    counted: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    given: dict[str, np.ndarray] = field(default_factory=dict)
    digests: tuple[np.ndarray, np.ndarray] = field(
        default_factory=lambda: (np.zeros(0, np.int64), np.zeros(0, np.uint64))
    )

    def note(self, kind: str, postings: _Postings, given: np.ndarray) -> None:
        """Note a kind's postings held by several documents; given a slice of keys at a
        time (in key order), each is added to the last."""
        common = postings.documents > self.floors[kind]
        keys = postings.keys[postings.starts[common]]
        counts = postings.documents[common].astype(np.int64)
        if kind in self.counted:  # the next slice
            keys = np.concatenate([self.counted[kind][0], keys])
            counts = np.concatenate([self.counted[kind][1], counts])
        self.counted[kind] = (keys, counts)
        self.given[kind] = given

    def noting(self, kind: str, given: np.ndarray) -> Callable[[_Postings], None]:
        """:meth:`note` of ``kind``'s slices, nothing noted of it so far."""
        self.counted[kind] = (np.zeros(0, np.uint32), np.zeros(0, np.int64))
        self.given[kind] = given
        return partial(self.note, kind, given=given)


def all_candidates(
    index: Index,
    max_docs: int,
    seen: Seen | None = None,
    each: Callable[[Callable[[int], Any], Iterable[int]], Iterable[Any]] = map,
    parts_times: int = 1,
    between: Callable[[], None] = lambda: None,
) -> tuple[list[Candidate], np.ndarray]:
    """Every pair of indexed documents worth aligning, and the fingerprint keys to ignore
    (boilerplate and templates) when aligning them; ``seen`` notes what selecting them
    again needs (when there are two documents or more).

    The pairs are made in parts (``parts_times`` times as many as one at a time
    needs), each part's by ``each(function, parts)``, in order: a thread pool's ``map``
    makes several at once (most of a part's work is numpy's sorting and indexing,
    which lets other threads run). ``between`` is called once a kind of key is done
    with (its postings let go of): a caller may give the memory back there."""
    entries = {e.id: e for e in index.entries()}
    if len(entries) < 2:
        return [], np.zeros(0, np.uint32)
    pairing = pairing_limit(len(entries), max_docs)
    templates = index.templates()
    modes = {e.mode for e in entries.values()}
    reach = max(m.alignment.reach for m in modes)
    min_seeds = max(1, min(m.min_seeds for m in modes))
    # fingerprint, sentence and lexicon seeds, and whether the text is the same
    evidence: dict[tuple[int, int], list[int]] = {}

    n = index.id_count()
    # The pairs of documents sharing a key are made a part of the pairs at a time (a
    # folder of 100,000 documents makes tens of millions), and the sentence keys'
    # postings are let go before the fingerprints' are taken. Only keys that several
    # documents hold are taken at all: a key of one document pairs nothing (a third
    # of the sentence keys' postings, three fifths of the fingerprints'), nor is a key
    # left out of pairing (_paired: decided as the postings are read); the keys
    # templates hold and each document's set of keys are read in passes of their own.
    given = _keys_held_by(index, SENTENCES, templates)
    noted = seen.noting(SENTENCES, given) if seen is not None else None
    reworded = _paired(index, SENTENCES, given, min(pairing, SENTENCE_PAIRING), noted)
    parts = _parts(reworded.pair_count()) * parts_times
    plan = reworded.plan(parts) if parts > 1 else None
    most = int(reworded.positions.max()) if reworded.positions.shape[0] else 0
    bits = sentence_bits(n, most)
    seeds_of_part = partial(_sentence_seeds_of_part, reworded, n, parts, plan, bits=bits)
    found_parts = list(each(seeds_of_part, range(parts)))
    del reworded, plan, seeds_of_part
    pair_ids = np.concatenate([ids for ids, _ in found_parts])  # each pair in one part
    seeds = np.concatenate([counts for _, counts in found_parts])
    del found_parts
    between()

    given = _keys_held_by(index, FINGERPRINTS, templates)
    digests = set_digests(
        lambda: ((keys, owners) for keys, owners, _ in index.live_slices(FINGERPRINTS)), n, given
    )
    boilerplate = [given]  # the keys aligning ignores: templates', and past max_docs
    noted_copied = seen.noting(FINGERPRINTS, given) if seen is not None else None

    def note_fingerprints(held: _Postings) -> None:
        boilerplate.append(held.frequent(max_docs))
        if noted_copied is not None:
            noted_copied(held)

    copied = _paired(index, FINGERPRINTS, given, pairing, note_fingerprints)
    ignored = distinct(np.concatenate(boilerplate)).astype(np.uint32)
    if seen is not None:
        seen.digests = digests
    identical = same_digest_pairs(*digests, n, pairing)
    for p in identical.tolist():
        evidence.setdefault(divmod(p, n), [0, 0, 0, 0])[3] = 1
    shares = np.zeros(pair_ids.shape[0], dtype=bool)  # the pair shares a fingerprint too
    parts = _parts(copied.pair_count()) * parts_times
    sentence_part = part_of(pair_ids // n, pair_ids % n, parts)

    plan = copied.plan(parts) if parts > 1 else None
    dense_part = partial(_dense_pairs, copied, n, reach, min_seeds, parts=parts, plan=plan)
    for part, (dense, sharing) in enumerate(each(dense_part, range(parts))):
        for p, count in dense:
            evidence.setdefault(divmod(p, n), [0, 0, 0, 0])[0] = count
        here = np.flatnonzero(sentence_part == part)
        shares[here] = _isin_sorted(pair_ids[here], sharing)
    del copied, dense_part, plan
    between()
    _sentence_evidence(evidence, pair_ids, seeds, shares, n, entries.__getitem__)
    given = _keys_held_by(index, LEXICON, templates)
    noted = seen.noting(LEXICON, given) if seen is not None else None
    said = _paired(index, LEXICON, given, pairing, noted)
    _lexicon_evidence(evidence, _shared_keys(said, n), n)
    return _found_in(evidence, entries.__getitem__), ignored


def _paired(
    index: Index,
    kind: str,
    given: np.ndarray,
    limit: int,
    noted: Callable[[_Postings], None] | None,
) -> _Postings:
    """A kind's postings that selection pairs: of keys several documents hold, less the
    keys left out (``given``, and those in more than ``limit`` documents) and a key's
    postings past MAX_REPEATS in one document. Each is a question about one key, so it
    is decided a slice of keys at a time as they are read (``noted`` sees each slice
    first): what is left out is never held, nor are the whole kind's postings twice.

    A slice holds whole runs of keys (``held_by_several``), so where each key's run
    starts, its postings and its documents are the slices' put end to end: the keys'
    values are never kept (:meth:`_Postings.without_key_values`; a folder's sentence
    keys 30 MB), nor worked out again over all the postings."""
    per_key: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    def kept(slices: Iterator) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        for keys, docs, positions in held_by_several(slices):
            held = _Postings.of(keys, docs, positions)
            if noted is not None:
                noted(held)
            left = held.without_keys(_left_out(held, given, limit), own=True)
            per_key.append((left.starts, left.counts, left.documents))
            yield left.keys, left.docs, left.positions

    _, docs, positions = index.live_postings(kind, keep=kept, with_keys=False)
    return _Postings.stitched(docs, positions, per_key)


def _sentence_seeds_of_part(
    postings: _Postings,
    n: int,
    parts: int,
    plan: _PairPlan | None,
    part: int,
    bits: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The sentence seeds of the pairs in ``part`` (pair ids as a * n + b, and counts;
    ``plan``: the postings' ``plan`` of ``parts``, or None; ``bits``: ``sentence_bits``
    of the folder, or None)."""
    pairs = postings.pairs(part, parts, plan)
    if bits is not None:
        return _packed_sentence_seeds(
            ((a.astype(np.int64) * n + b, at_a, at_b) for a, b, at_a, at_b in pairs), bits
        )
    return _sentence_seeds(
        _sentence_pairs(a.astype(np.int64) * n + b, at_a, at_b) for a, b, at_a, at_b in pairs
    )


def _sentence_evidence(
    evidence: dict[tuple[int, int], list[int]],
    pair_ids: np.ndarray,
    seeds: np.ndarray,
    shares: np.ndarray,
    n: int,
    entry_of: Callable[[int], Entry],
) -> None:
    """Add pairs' sentence seeds to ``evidence`` (fingerprint seeds and the same text
    already in it): a pair already there takes its count, another is selected by
    :func:`enough_sentence_seeds` (``shares``: whether it shares a fingerprint)."""
    for p, count, share in zip(pair_ids.tolist(), seeds.tolist(), shares.tolist(), strict=True):
        x, y = divmod(p, n)
        if (x, y) in evidence:
            evidence[x, y][1] = count
        elif enough_sentence_seeds(count, _keyed(entry_of(x)), _keyed(entry_of(y)), share):
            evidence[x, y] = [0, count, 0, 0]


def _lexicon_evidence(
    evidence: dict[tuple[int, int], list[int]], shared: Iterable[tuple[int, int]], n: int
) -> None:
    """Add the pairs (as a * n + b) sharing LEXICON_SEEDS lexicon keys or more."""
    for p, count in shared:
        if count >= LEXICON_SEEDS:
            evidence.setdefault(divmod(p, n), [0, 0, 0, 0])[2] = count


def _found_in(
    evidence: dict[tuple[int, int], list[int]], entry_of: Callable[[int], Entry]
) -> list[Candidate]:
    """The candidates that ``evidence`` selects among pairs that may be reported (one
    mode, roles that allow it), named in order, sorted."""
    found = []
    for (x, y), seeds in evidence.items():
        ea, eb = entry_of(x), entry_of(y)
        if ea.mode.salt != eb.mode.salt or not ea.role.may_pair(eb.role):
            continue
        if ea.name > eb.name:
            ea, eb = eb, ea
        fingerprint, sentence, lexicon, same = seeds
        found.append(Candidate(ea.name, eb.name, fingerprint, sentence, lexicon, bool(same)))
    found.sort(key=lambda c: (c.a, c.b))
    return found


def candidates_touching(
    postings: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]],
    ignored: dict[str, np.ndarray],
    focus: np.ndarray,
    identical: np.ndarray,
    n: int,
    reach: int,
    min_seeds: int,
    entry_of: Callable[[int], Entry],
) -> list[Candidate]:
    """The candidates among the pairs of documents that touch a ``focus`` document (a
    mask by id), with the evidence all_candidates gives them (engine/selection asks).

    ``postings`` (key, document, position) of each kind must hold every posting of the
    focus documents' keys in each document that is to pair with them; ``ignored``, the
    keys of each kind that select no pair (boilerplate at the pairing limit, templates');
    ``identical``, the pairs (as a * n + b) of the same text among them.
    """
    seeds = {}
    for kind, (keys, docs, positions) in postings.items():
        order = np.lexsort((positions, docs, keys))
        found = _Postings.of(keys[order], docs[order], positions[order])
        seeds[kind] = _touching(found.without_keys(ignored[kind]), focus, n)
    evidence: dict[tuple[int, int], list[int]] = {}
    for p in identical.tolist():
        evidence.setdefault(divmod(p, n), [0, 0, 0, 0])[3] = 1
    pair, at_a, at_b = seeds[FINGERPRINTS]
    dense, sharing = _dense_of(pair, [at_a], [at_b], reach, min_seeds)
    for p, count in dense:
        evidence.setdefault(divmod(p, n), [0, 0, 0, 0])[0] = count
    pair, at_a, at_b = seeds[SENTENCES]
    pair_ids, counts = _sentence_seeds([_sentence_pairs(pair, at_a, at_b)] if pair.shape[0] else [])
    _sentence_evidence(evidence, pair_ids, counts, _isin_sorted(pair_ids, sharing), n, entry_of)
    pair, _, _ = seeds[LEXICON]
    pair_ids, counts = np.unique(pair, return_counts=True)
    _lexicon_evidence(evidence, zip(pair_ids.tolist(), counts.tolist(), strict=True), n)
    return _found_in(evidence, entry_of)


def _touching(
    postings: _Postings, focus: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every two postings of one key in different documents, one of them a ``focus``
    document's (two focus documents' once), as (pair as a * n + b, at a, at b) with
    a < b: the seeds all_candidates makes for the pairs touching the focus."""
    docs, positions = postings.docs, postings.positions
    group = np.repeat(np.arange(postings.starts.shape[0]), postings.counts)
    mine = np.flatnonzero(focus[docs])
    size = postings.counts[group[mine]].astype(np.int64)
    total = int(size.sum())
    within = np.arange(total) - np.repeat(np.cumsum(size) - size, size)
    i = np.repeat(mine, size)
    j = np.repeat(postings.starts[group[mine]].astype(np.int64), size) + within
    doc_i, doc_j = docs[i], docs[j]
    keep = (doc_i != doc_j) & (~focus[doc_j] | (doc_i < doc_j))
    i, j, doc_i, doc_j = i[keep], j[keep], doc_i[keep], doc_j[keep]
    first = doc_i < doc_j
    a, b = np.where(first, doc_i, doc_j), np.where(first, doc_j, doc_i)
    at_a = np.where(first, positions[i], positions[j])
    at_b = np.where(first, positions[j], positions[i])
    return a.astype(np.int64) * n + b, at_a, at_b


def _given_keys(postings: _Postings, templates: np.ndarray) -> np.ndarray:
    """The keys that templates (ids ``templates``) hold, sorted."""
    return distinct(postings.keys[np.isin(postings.docs, templates)])


Slices = Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]


def held_by_several(slices: Slices) -> Slices:
    """The postings of ``slices`` (Index.live_slices: sorted by key, document,
    position) whose key at least two documents hold. A key's postings may run on into
    the next slice: the last key of each is decided with the next."""
    held: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
    for part in slices:
        if held is not None and held[0].shape[0]:
            part = tuple(np.concatenate([a, b]) for a, b in zip(held, part, strict=True))
        keys = part[0]
        if not keys.shape[0]:
            continue
        last = int(np.searchsorted(keys, keys[-1], side="left"))  # the last key's run
        held = tuple(array[last:] for array in part)
        yield _several_only(*(array[:last] for array in part))
    if held is not None and held[0].shape[0]:
        yield _several_only(*held)


def _several_only(
    keys: np.ndarray, docs: np.ndarray, positions: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The postings (whole runs of keys, sorted by key and document) whose key is in two
    documents or more."""
    if keys.shape[0] < 2:
        return keys[:0], docs[:0], positions[:0]
    same_key = keys[1:] == keys[:-1]
    run = np.empty(keys.shape[0], dtype=np.int64)  # each posting's run of one key
    run[0] = 0
    np.cumsum(~same_key, out=run[1:])
    # a key's documents ascend along its run: another document shows as a change
    several = np.zeros(int(run[-1]) + 1, dtype=bool)
    several[run[1:][same_key & (docs[1:] != docs[:-1])]] = True
    keep = several[run]
    return keys[keep], docs[keep], positions[keep]


def _keys_held_by(index: Index, kind: str, docs: np.ndarray) -> np.ndarray:
    """The keys of a kind that documents ``docs`` (templates) hold, sorted: a pass of
    its own over the postings, when there are any such documents."""
    if not docs.shape[0]:
        return np.zeros(0, np.uint32)
    found = [keys[np.isin(owners, docs)] for keys, owners, _ in index.live_slices(kind)]
    return distinct(np.concatenate(found)) if found else np.zeros(0, np.uint32)


def _left_out(postings: _Postings, given: np.ndarray, max_docs: int) -> np.ndarray:
    """Keys to leave out: boilerplate (in more than ``max_docs`` documents) and the
    ``given`` ones (templates')."""
    return distinct(np.concatenate([postings.frequent(max_docs), given])).astype(np.uint32)


def set_digests(
    postings: Callable[[], Iterable[tuple[np.ndarray, np.ndarray]]], n: int, given: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Documents (ids, ascending) and a digest of each one's set of fingerprint keys,
    for those holding any key and none of ``given`` (a template's). ``postings`` gives
    (keys, owners) in consecutive slices, sorted by key, then owner, each time it is
    called: a folder's are read from the index a slice at a time (each document's set
    is all its keys, those of no other document included), and once more first to
    find the holders of ``given`` keys, if there are any."""
    holding = np.zeros(0, np.int64)
    if given.shape[0]:
        holders = [owners[np.isin(keys, given)] for keys, owners in postings()]
        holding = distinct(np.concatenate(holders)) if holders else holding
    sums = _SetSums(n)
    for keys, owners in postings():
        if holding.shape[0]:
            keep = ~np.isin(owners, holding)
            keys, owners = keys[keep], owners[keep]
        sums.add(keys, owners)
    return digests_of(sums.summed, sums.held.astype(np.uint64))


def set_sums(keys: np.ndarray, owners: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Per document, a sum naming its set of keys and how many there are (postings
    sorted by key, then document). Postings cut by key range add up: the ranges' sums,
    added modulo 2^64, are the whole's (engine/candidate_shards)."""
    sums = _SetSums(n)
    for lo in range(0, keys.shape[0], _SLICE):  # a slice at a time: no 64-bit copy of all
        sums.add(keys[lo : lo + _SLICE], owners[lo : lo + _SLICE])
    return sums.summed, sums.held.astype(np.uint64)


class _SetSums:
    """:func:`set_sums` of postings given in consecutive slices."""

    def __init__(self, n: int) -> None:
        self.summed = np.zeros(n, dtype=np.uint64)
        self.held = np.zeros(n, dtype=np.int64)
        self._last: tuple[int, int] | None = None  # the slice before's last (key, owner)

    def add(self, keys: np.ndarray, owners: np.ndarray) -> None:
        if not keys.shape[0]:
            return
        first = np.empty(keys.shape[0], dtype=bool)  # each key once per document
        first[0] = self._last != (int(keys[0]), int(owners[0]))
        first[1:] = (keys[1:] != keys[:-1]) | (owners[1:] != owners[:-1])
        self._last = (int(keys[-1]), int(owners[-1]))
        k, o = keys[first], owners[first]
        np.add.at(self.summed, o, mix64(k, 2))  # the same set, the same sum
        self.held += np.bincount(o, minlength=self.summed.shape[0])


def digests_of(summed: np.ndarray, held: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The documents holding keys (``held`` above 0) and the digests of their sets."""
    docs = np.flatnonzero(held > 0)
    return docs, mix64(summed[docs] ^ mix64(held[docs], 3))


def same_digest_pairs(docs: np.ndarray, digest: np.ndarray, n: int, limit: int) -> np.ndarray:
    """Pairs (as a * n + b, a < b) of documents of the same digest (:func:`set_digests`),
    but not of a text that more than ``limit`` documents are."""
    if docs.shape[0] < 2:
        return np.zeros(0, np.int64)
    order = np.lexsort((docs, digest))
    digest, docs = digest[order], docs[order]
    starts = np.flatnonzero(np.r_[True, digest[1:] != digest[:-1]])
    sizes = np.diff(np.r_[starts, digest.shape[0]])
    chosen = (sizes >= 2) & (sizes <= limit)
    parts = [np.zeros(0, np.int64)]
    for start, size in zip(starts[chosen].tolist(), sizes[chosen].tolist(), strict=True):
        group = docs[start : start + size].astype(np.int64)  # ascending
        left, right = np.triu_indices(size, 1)
        parts.append(group[left] * n + group[right])
    return np.concatenate(parts)


def _shared_keys(postings: _Postings, n: int) -> Iterator[tuple[int, int]]:
    """Pairs (as a * n + b) sharing keys, and how many keys they share."""
    parts = [a.astype(np.int64) * n + b for a, b, _, _ in postings.pairs()]
    if not parts:
        return iter(())
    pair_ids, shared = np.unique(np.concatenate(parts), return_counts=True)
    return zip(pair_ids.tolist(), shared.tolist(), strict=True)


def _keyed(entry: Entry) -> int:
    """How many of a document's sentences have keys."""
    return entry.postings_of(SENTENCES) // BANDS


def _isin_sorted(values: np.ndarray, sorted_unique: np.ndarray) -> np.ndarray:
    """For each of ``values``, whether it is in ``sorted_unique``."""
    if not sorted_unique.shape[0]:
        return np.zeros(values.shape[0], dtype=bool)
    at = np.minimum(np.searchsorted(sorted_unique, values), sorted_unique.shape[0] - 1)
    return sorted_unique[at] == values


def _dense_pairs(
    postings: _Postings,
    n: int,
    reach: int,
    min_seeds: int,
    part: int = 0,
    parts: int = 1,
    plan: _PairPlan | None = None,
) -> tuple[Iterator[tuple[int, int]], np.ndarray]:
    """Pairs (as a * n + b) with ``min_seeds`` shared keys within ``reach`` in both
    documents, and how many keys they share; and every pair sharing a key (sorted). With
    ``parts``, only the pairs in ``part``."""
    pair_parts, at_a_parts, at_b_parts = [], [], []
    for a, b, at_a, at_b in postings.pairs(part, parts, plan):
        pair_parts.append(a.astype(np.int64) * n + b)
        at_a_parts.append(at_a)
        at_b_parts.append(at_b)
    pair = _emptied_into_one(pair_parts) if pair_parts else np.zeros(0, np.int64)
    return _dense_of(pair, at_a_parts, at_b_parts, reach, min_seeds)


def _dense_of(
    pair: np.ndarray,
    at_a_parts: list[np.ndarray],
    at_b_parts: list[np.ndarray],
    reach: int,
    min_seeds: int,
) -> tuple[Iterator[tuple[int, int]], np.ndarray]:
    """Of the seeds of fingerprint keys (``pair`` as a * n + b, and their positions in
    A and in B, in parts put end to end: the lists are emptied), the pairs with
    ``min_seeds`` seeds within ``reach`` in both documents, and how many seeds they
    have; and every pair with a seed (sorted)."""
    if not pair.shape[0]:  # no key shared (in this part of the pairs)
        return iter(()), pair
    # only pairs sharing min_seeds keys can be dense: a few in a hundred of a big folder
    ordered = np.sort(pair)
    sharing = ordered[np.r_[True, ordered[1:] != ordered[:-1]]]
    enough = _repeated(ordered, min_seeds)
    del ordered
    kept = _carrying(pair, enough)
    pair = pair[kept]
    dense_in_a = clustered_groups(pair, _emptied_into_one(at_a_parts)[kept], reach, min_seeds)
    dense_in_b = clustered_groups(pair, _emptied_into_one(at_b_parts)[kept], reach, min_seeds)
    dense = common(dense_in_a, dense_in_b)
    named, shared = np.unique(pair, return_counts=True)
    is_dense = _isin_sorted(named, dense)
    counts = zip(named[is_dense].tolist(), shared[is_dense].tolist(), strict=True)
    return counts, sharing


def _sentence_pairs(
    groups: np.ndarray, at_a: np.ndarray, at_b: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Shared sentence keys as (group, hash naming the group and the two sentences); a
    group is a pair of documents, or a document facing a query.

    The group's hash is mixed again with the sentences: ``mix64(x, salt)`` is
    ``mix64(x + salt)``, so XOR-ing two of them named group g at sentences p and group
    p + 1 at sentences g - 1 alike, and a seed of one pair was taken for another's —
    which pairs lost one depended on the documents' ids, not only on their text."""
    packed = (at_a.astype(np.uint64) << np.uint64(32)) | at_b.astype(np.uint64)
    return groups, mix64(mix64(groups) ^ packed, 1)


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
    named = _emptied_into_one(named_parts)
    # a plain sort (no argsort: ten times faster on big arrays) finds the seeds' names;
    # then the few postings that carry one are looked up, each seed counted once
    seeds = _repeated(np.sort(named), SEED_BANDS)
    carrying = _carrying(named, seeds)
    _, first = np.unique(named[carrying], return_index=True)
    groups = _emptied_into_one(groups_parts)[carrying[first]]
    return np.unique(groups, return_counts=True)


def sentence_bits(n: int, most_position: int) -> int | None:
    """The bits a sentence's position takes when a pair of ``n`` documents' ids (a * n +
    b) and the positions of its two sentences, up to ``most_position``, fit in 64 bits
    side by side (:func:`_packed_sentence_seeds`); None if they do not (past about
    100,000 documents with positions of 2^14 units)."""
    bits = max(1, most_position.bit_length())
    return bits if max(n * n - 1, 1).bit_length() + 2 * bits <= 64 else None


def _packed_sentence_seeds(
    chunks: Iterable[tuple[np.ndarray, np.ndarray, np.ndarray]], bits: int
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_sentence_seeds` of shared sentence keys given as (group, position in A,
    position in B) that fit 64 bits side by side (``bits`` each position): the packed
    value names the two sentences exactly, and its group is read back from it. No
    array of groups is held beside the names, nor hashed, and the names are sorted in
    place: a part of a folder's pairs (millions) takes a third of the memory."""
    shift = np.uint64(bits)
    named_parts = []
    for groups, at_a, at_b in chunks:
        named = groups.astype(np.uint64) << shift
        named |= at_a.astype(np.uint64)
        named <<= shift
        named |= at_b.astype(np.uint64)
        named_parts.append(named)
    if not named_parts:
        nothing = np.zeros(0, np.int64)
        return nothing, nothing
    named = _emptied_into_one(named_parts)
    named.sort()
    seeds = _repeated(named, SEED_BANDS)
    del named
    return np.unique((seeds >> (shift + shift)).astype(np.int64), return_counts=True)


def _emptied_into_one(parts: list[np.ndarray]) -> np.ndarray:
    """``parts`` end to end (not empty), each let go of as soon as it is copied: the whole
    and one part in memory at once, not twice the whole (a part of a folder's pairs
    holds millions of seeds)."""
    dtype = reduce(np.promote_types, (part.dtype for part in parts))
    joined = np.empty(sum(part.shape[0] for part in parts), dtype)
    parts.reverse()
    at = 0
    while parts:
        part = parts.pop()
        joined[at : at + part.shape[0]] = part
        at += part.shape[0]
    return joined


def _repeated(ordered: np.ndarray, times: int) -> np.ndarray:
    """The values found at least ``times`` times in ``ordered`` (sorted), once each: a
    value that often equals the one ``times - 1`` places on."""
    if times <= 1:
        return distinct(ordered, presorted=True)
    head = ordered[: max(ordered.shape[0] - (times - 1), 0)]
    return distinct(head[head == ordered[times - 1 : times - 1 + head.shape[0]]], presorted=True)


#: Bits of the hash table that screens many hashes for a few (see ``_carrying``).
_SCREEN_BITS = 24
_SCREEN_FROM = 1 << 18


def _carrying(values: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Where ``values`` (hashes, or other integers whose low bits vary) are in ``wanted``
    (sorted, few, same type): their low bits screen out nearly all at once, a binary
    search decides the rest."""
    if values.shape[0] < _SCREEN_FROM:  # an editor's question: searching is quicker
        return np.flatnonzero(_isin_sorted(values, wanted))
    screen = np.zeros(1 << _SCREEN_BITS, dtype=bool)
    low = values.dtype.type((1 << _SCREEN_BITS) - 1)
    screen[(wanted & low).astype(np.intp)] = True
    found = []
    for start in range(0, values.shape[0], _SCREEN_FROM):  # in slices: no copy of values
        part = values[start : start + _SCREEN_FROM]
        maybe = np.flatnonzero(screen[(part & low).astype(np.intp)])
        found.append(start + maybe[_isin_sorted(part[maybe], wanted)])
    return np.concatenate(found)


def candidates_of(
    index: Index, name: str, keys: DocumentKeys, mode: Mode, role: Role, max_docs: int
) -> tuple[list[Candidate], np.ndarray]:
    """Indexed documents worth aligning with one text (indexed as ``name`` or not), and the
    text's fingerprint keys to ignore when aligning (boilerplate, templates).

    In every candidate, A is ``name``. Lexicon keys select nothing here: a pair found
    by them alone shares no passage, and a text's question is where its passages are.
    """

    def allowed(docs: np.ndarray) -> np.ndarray:  # may they be reported against it?
        return index.may_pair(docs, name, mode.salt, role)

    evidence: dict[int, list[int]] = {}
    options = mode.alignment
    pairing = pairing_limit(len(index), max_docs)
    fingerprints = keys.fingerprints
    met = _Met.of(index, FINGERPRINTS, fingerprints.hashes, fingerprints.positions)
    ignored, skip = met.too_common(index, (max_docs, pairing))
    doc, at_query, at_doc = met.seeds(skip, allowed)
    sharing = distinct(doc)
    maybe = common(
        clustered_groups(doc, at_query, options.reach, options.min_seeds),
        clustered_groups(doc, at_doc, options.reach, options.min_seeds),
    )
    keep = np.isin(doc, maybe)
    doc, at_query, at_doc = doc[keep], at_query[keep], at_doc[keep]
    dense = dense_seeds(at_query, at_doc, options.reach, options.min_seeds, doc)
    held, counts = np.unique(doc[dense], return_counts=True)
    for d, count in zip(held.tolist(), counts.tolist(), strict=True):
        evidence[d] = [count, 0, 0]

    sentence_keys = keys.sentence_keys
    limit = min(pairing, SENTENCE_PAIRING)
    met, frequent = _Met.rare(
        index, SENTENCES, sentence_keys.hashes, sentence_keys.positions, limit
    )
    doc, at_query, at_doc = met.seeds(frequent, allowed)
    docs, seeds = _sentence_seeds([_sentence_pairs(doc, at_query, at_doc)])
    keyed = len(sentence_keys) // BANDS
    shares = _isin_sorted(docs, sharing)
    for d, count, share in zip(docs.tolist(), seeds.tolist(), shares.tolist(), strict=True):
        if d in evidence:
            evidence[d][1] = count
        elif enough_sentence_seeds(count, keyed, _keyed(index.entry_of(d)), share):
            evidence[d] = [0, count, 0]
    found = [Candidate(name, index.entry_of(d).name, *seeds) for d, seeds in evidence.items()]
    found.sort(key=lambda c: c.b)
    return found, ignored


def _text_keys(hashes: np.ndarray, positions: np.ndarray) -> tuple[np.ndarray, ...]:
    """A text's index keys: the distinct ones sorted, where each starts among all of
    them sorted, how often each occurs, and the positions in that order."""
    keys = keys_of(hashes)
    order = np.argsort(keys, kind="stable")
    wanted, first, repeats = np.unique(keys[order], return_index=True, return_counts=True)
    return wanted, first, repeats, positions[order]


@dataclass(frozen=True)
class _Met:
    """A text's keys of one kind and their live postings in the index, looked up once."""

    wanted: np.ndarray  # the text's distinct keys, sorted
    first: np.ndarray  # where each starts among the text's keys sorted
    repeats: np.ndarray  # how often the text has it
    positions: np.ndarray  # the text's positions of its keys, sorted by key
    which: np.ndarray  # postings: which wanted key ...
    doc: np.ndarray  # ... in which indexed document ...
    at: np.ndarray  # ... at which position

    @staticmethod
    def of(index: Index, kind: str, hashes: np.ndarray, positions: np.ndarray) -> _Met:
        wanted, first, repeats, positions = _text_keys(hashes, positions)
        which, doc, at = index.postings_of(kind, wanted)
        return _Met(wanted, first, repeats, positions, which, doc, at)

    @staticmethod
    def rare(
        index: Index, kind: str, hashes: np.ndarray, positions: np.ndarray, limit: int
    ) -> tuple[_Met, np.ndarray]:
        """The postings of the text's keys that at most ``limit`` documents hold, and
        the keys that are too common (more documents, or a template's)."""
        wanted, first, repeats, positions = _text_keys(hashes, positions)
        which, doc, at, common = index.rare_postings_of(kind, wanted, limit)
        templates = index.templates()
        if templates.shape[0]:
            common[which[np.isin(doc, templates)]] = True
        met = _Met(wanted, first, repeats, positions, which, doc, at)
        return met, wanted[common]

    def too_common(self, index: Index, limits: tuple[int, ...]) -> list[np.ndarray]:
        """For each limit, the keys in more indexed documents than it, or in a template."""
        which, doc = self.which, self.doc
        per_key = documents_per_key(which, doc, self.wanted.shape[0])
        common = np.zeros(self.wanted.shape[0], dtype=bool)
        templates = index.templates()
        if templates.shape[0]:
            common[which[np.isin(doc, templates)]] = True
        return [self.wanted[(per_key > limit) | common] for limit in limits]

    def seeds(
        self, skip: np.ndarray, allowed: Callable[[np.ndarray], np.ndarray]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every (indexed document, position in the text, position in it) where they share
        a key, keys in ``skip`` left out."""
        ok = ~np.isin(self.wanted[self.which], skip)
        ok[ok] = allowed(self.doc[ok])
        which, doc, at = self.which[ok], self.doc[ok], self.at[ok]
        # every occurrence of a key in the text meets every posting of it
        count = self.repeats[which]
        total = int(count.sum())
        if total == 0:
            nothing = np.zeros(0, dtype=np.int64)
            return nothing, nothing, nothing
        within = np.arange(total) - np.repeat(np.cumsum(count) - count, count)
        at_text = self.positions[np.repeat(self.first[which], count) + within]
        return np.repeat(doc, count), at_text, np.repeat(at, count)
