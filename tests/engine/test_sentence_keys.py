"""Sentence keys: MinHash bands of each sentence's distinct terms, the same however
they are computed (saved indexes hold them)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from doublet.engine import sentence_keys as keys_module
from doublet.engine.hashing import mix64
from doublet.engine.sentence_keys import _SEEDS, BANDS, MIN_TERMS, ROWS, sentence_keys
from doublet.engine.sentences import Sentences


def _reference(sentences: Sentences, unit_starts: np.ndarray, salt: int) -> list[tuple[int, int]]:
    """(key, position) of each keyed sentence, one sentence and one hash at a time."""
    found = []
    for sentence in range(len(sentences)):
        terms = sorted(set(sentences.terms_of(sentence).tolist()))
        if len(terms) < MIN_TERMS:
            continue
        as_hashes = np.array(terms, dtype=np.int64).astype(np.uint64)
        minima = [int(mix64(as_hashes ^ seed).min()) for seed in _SEEDS]
        position = int(np.searchsorted(unit_starts, sentences.starts[sentence]))
        for band in range(BANDS):
            key = np.array([band], dtype=np.uint64)
            for row in range(ROWS):
                key = mix64(key ^ np.uint64(minima[band * ROWS + row]), row)
            found.append((int(mix64(key, salt)[0]), position))
    return found


def _sentences(term_lists: list[list[int]]) -> Sentences:
    starts = np.arange(len(term_lists), dtype=np.int64) * 10
    owners = np.repeat(np.arange(len(term_lists)), [len(t) for t in term_lists])
    term_ids = np.array([t for terms in term_lists for t in terms], dtype=np.int64)
    return Sentences(starts, starts + 8, term_ids, owners.astype(np.int64))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.lists(st.integers(-(2**63), 2**63 - 1) | st.integers(-5, 5), max_size=9),
        max_size=12,
    ),
    st.integers(0, 2**64 - 1),
    st.integers(1, 12),
    st.sampled_from([0, 5, 1 << 16]),
)
def test_keys_are_minhash_bands_of_each_sentences_distinct_terms(
    term_lists, salt, chunk, table_terms
):
    """Repeated terms count once, sentences with fewer than MIN_TERMS distinct terms
    get none, and sentences keyed a few at a time give the same keys, their terms'
    hashes made once for all or chunk by chunk."""
    sentences = _sentences(term_lists)
    unit_starts = np.arange(0, 10 * len(term_lists) + 1, 5, dtype=np.int64)
    original = keys_module._CHUNK_TERMS, keys_module._TABLE_TERMS
    keys_module._CHUNK_TERMS, keys_module._TABLE_TERMS = chunk, table_terms
    try:
        keys = sentence_keys(sentences, unit_starts, salt)
    finally:
        keys_module._CHUNK_TERMS, keys_module._TABLE_TERMS = original
    found = list(zip(keys.hashes.tolist(), keys.positions.tolist(), strict=True))
    assert found == _reference(sentences, unit_starts, salt)
