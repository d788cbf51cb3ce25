"""Sentence keys: how the index finds reworded text without comparing every pair.

A reworded sentence keeps many of its content terms (engine/sentences) but few
runs of characters, so fingerprints miss it. Its keys are MinHash bands
(Broder 1997, banded as in locality-sensitive hashing): under each of
``BANDS × ROWS`` seeded hash functions the sentence's smallest term hash is
kept, and each band of ``ROWS`` such minima is hashed into one key. Two
sentences whose term sets have Jaccard similarity J share a band with
probability J^ROWS, so the number of bands they share estimates how alike they
are: ``SEED_BANDS`` shared bands make a *sentence seed*, and a pair of
documents with enough sentence seeds (engine/candidates) is worth comparing
sentence by sentence (engine/paraphrase).

A key sits at the unit position where its sentence starts, as a fingerprint
sits where its k-gram starts, so the index stores, updates and removes both
kinds the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from doublet.engine.distinct import distinct
from doublet.engine.hashing import mix64
from doublet.engine.sentences import Sentences

#: Keys per sentence, and minima per key (see the module's docstring).
BANDS = 24
ROWS = 2
#: Bands two sentences must share to be a seed. With 24 bands of 2 rows, sentences
#: whose term sets have a Jaccard similarity of 0.5 reach it 9 times in 10; of
#: 0.4, one time in two; of 0.3, one in six; of 0.2 (sentences on one topic), one
#: in seventy. Chosen on PAN 2013 for the most reused pairs found per candidate
#: (docs/benchmarks.md); it decides only which pairs are aligned, not what is
#: reported about them.
SEED_BANDS = 4
#: Sentences with fewer distinct terms than this get no keys: too little to tell.
MIN_TERMS = 4

_STEP = np.uint64(0x9E3779B97F4A7C15)
with np.errstate(over="ignore"):
    #: One seed per minimum: band b's row r uses seed (b * ROWS + r + 1) * _STEP.
    _SEEDS = np.arange(1, BANDS * ROWS + 1, dtype=np.uint64) * _STEP
_BAND_NUMBERS = np.arange(BANDS, dtype=np.uint64)
#: Terms of sentences keyed at once: their hashes under every seed, gathered in one
#: table of _CHUNK_TERMS × BANDS × ROWS × 8 bytes, stay in the processor's cache.
_CHUNK_TERMS = 4096
#: Distinct terms past which the table of their hashes is made per chunk instead.
_TABLE_TERMS = 1 << 16


@dataclass(frozen=True)
class SentenceKeys:
    """``BANDS`` keys per keyed sentence, each at the unit position where it starts."""

    hashes: np.ndarray  # uint64
    positions: np.ndarray  # int64, ascending

    def __len__(self) -> int:
        return int(self.hashes.shape[0])

    @staticmethod
    def empty() -> SentenceKeys:
        return SentenceKeys(np.zeros(0, np.uint64), np.zeros(0, np.int64))


def sentence_keys(sentences: Sentences, unit_starts: np.ndarray, salt: int) -> SentenceKeys:
    """The keys of every sentence with at least MIN_TERMS distinct terms.

    ``unit_starts`` are the text offsets of the document's units (positions are
    unit indices); ``salt`` keeps the keys of different modes apart.
    """
    if not len(sentences):
        return SentenceKeys.empty()
    # each (sentence, term) once, as one number: sentence × width + the term's place
    # among the sorted distinct terms (one sort of numbers, not two of pairs); they
    # come in runs of a sentence, which a stable sort (timsort) merges fastest
    vocabulary, term = np.unique(sentences.term_ids, return_inverse=True)
    width = vocabulary.shape[0]
    cells = distinct(np.sort(sentences.owners * width + term, kind="stable"), presorted=True)
    owners = cells // width
    first = _run_starts(owners)
    sizes = np.diff(first, append=owners.shape[0])
    keyed = sizes >= MIN_TERMS
    if not keyed.any():
        return SentenceKeys.empty()
    keep = np.repeat(keyed, sizes)
    owners, term = owners[keep], cells[keep] % width
    first = _run_starts(owners)
    # every distinct term under every seed, once: 384 bytes a term (a novel's
    # 10,000 stems take 4 MB); past _TABLE_TERMS (a text of names, codes or
    # numbers) each chunk hashes its own terms instead, so the table stays small
    vocabulary = vocabulary.astype(np.uint64)
    table = _hashed(vocabulary) if width <= _TABLE_TERMS else None
    bands = np.concatenate(
        [_bands(vocabulary, table, term, first, lo, hi, salt) for lo, hi in _chunks(first)]
    )
    sentence = owners[first]
    positions = np.searchsorted(unit_starts, sentences.starts[sentence], side="left")
    return SentenceKeys(bands.ravel(), np.repeat(positions.astype(np.int64), BANDS))


def _run_starts(values: np.ndarray) -> np.ndarray:
    """Where each run of equal values begins (``values`` not empty)."""
    change = np.flatnonzero(values[1:] != values[:-1]) + 1
    return np.concatenate([np.zeros(1, dtype=np.int64), change])


def _chunks(first: np.ndarray) -> list[tuple[int, int]]:
    """Runs of whole sentences of about _CHUNK_TERMS terms (``first``: where each
    sentence's terms begin)."""
    if first[-1] < _CHUNK_TERMS:
        return [(0, first.shape[0])]
    cuts = np.searchsorted(first, np.arange(0, int(first[-1]) + 1, _CHUNK_TERMS), side="right") - 1
    cuts = distinct(np.r_[cuts, first.shape[0]])
    return list(zip(cuts[:-1].tolist(), cuts[1:].tolist(), strict=True))


def _hashed(terms: np.ndarray) -> np.ndarray:
    """Each term's hash under every seed, a row per term."""
    return mix64(terms[:, None] ^ _SEEDS[None, :])


def _bands(
    vocabulary: np.ndarray,
    table: np.ndarray | None,
    term: np.ndarray,
    first: np.ndarray,
    lo: int,
    hi: int,
    salt: int,
) -> np.ndarray:
    """The BANDS keys of sentences lo..hi-1, one row each (``first`` indexes their
    terms in ``term``, which index ``vocabulary`` and the rows of ``table``, if made)."""
    start = int(first[lo])
    end = int(first[hi]) if hi < first.shape[0] else term.shape[0]
    terms = term[start:end]
    if table is None:
        own, terms = np.unique(terms, return_inverse=True)
        table = _hashed(vocabulary[own])
    minima = np.minimum.reduceat(table[terms], first[lo:hi] - start, axis=0)
    minima = minima.reshape(hi - lo, BANDS, ROWS)
    key = _BAND_NUMBERS  # broadcast over the sentences
    for row in range(ROWS):
        key = mix64(key ^ minima[:, :, row], row)
    return mix64(key, salt)
