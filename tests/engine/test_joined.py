"""Documents cut up together (engine/joined) give exactly what each gives alone."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from unittest.mock import patch

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from doublet.engine import document as document_module
from doublet.engine.comparison import compare
from doublet.engine.document import Document, keys_of, prepare_together
from doublet.engine.joined import Joined
from doublet.engine.modes import MODES
from doublet.engine.quotes import quoted_mask
from doublet.engine.sentences import Sentences, give_cells_together, split, split_each

CLOUGH = Path(__file__).parent.parent / "data" / "clough-stevenson"
#: How many characters are joined at once: the default, and limits that cut a batch
#: into several parts, down to one document each.
JOIN_LIMITS = st.sampled_from([document_module.JOIN_CHARS, 1, 40, 90])

#: Pieces of text that meet at a document's edges in every way that matters: stops
#: with and without a space, closing quotes, blank lines, CJK, letters that fold to
#: two, accents and invisible characters that belong to the letter before them.
FRAGMENTS = st.one_of(
    st.text(alphabet="abcdefghij ", min_size=1, max_size=30),
    st.sampled_from(
        [
            ". ",
            ".",
            '."',
            "! ",
            "? ",
            "\n",
            "\n\n",
            " \n",
            "。",
            "文字",
            "  ",
            "Étude ",
            "straße ",
            "e\u0301",
            "\u200b",
            '"',
            "“quoted words here”",
            "\t",
        ]
    ),
)
TEXTS = st.lists(FRAGMENTS, max_size=25).map("".join)


def same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.tolist() == b.tolist()


@settings(max_examples=150, deadline=None)
@given(texts=st.lists(TEXTS, min_size=1, max_size=5))
def test_sentences_of_joined_texts_are_each_texts_own(texts: list[str]) -> None:
    joined = Joined.of(texts)
    together = split(joined.text, None, joined.pieces)
    sentence_cuts = joined.cuts(together.starts)
    term_cuts = np.searchsorted(together.owners, sentence_cuts)
    for i, text in enumerate(texts):
        alone = split(text)
        lo, hi = int(sentence_cuts[i]), int(sentence_cuts[i + 1])
        base = int(joined.starts[i])
        assert same(together.starts[lo:hi] - base, alone.starts)
        assert same(together.ends[lo:hi] - base, alone.ends)
        first, last = int(term_cuts[i]), int(term_cuts[i + 1])
        assert same(together.term_ids[first:last], alone.term_ids)
        assert same(together.owners[first:last] - lo, alone.owners)


@settings(max_examples=100, deadline=None)
@given(texts=st.lists(TEXTS, max_size=5))
def test_split_each_gives_each_texts_own_sentences(texts: list[str]) -> None:
    for each, text in zip(split_each(texts), texts, strict=True):
        alone = split(text)
        assert same(each.starts, alone.starts)
        assert same(each.ends, alone.ends)
        assert same(each.term_ids, alone.term_ids)
        assert same(each.owners, alone.owners)


@settings(max_examples=100, deadline=None)
@given(texts=st.lists(TEXTS, min_size=1, max_size=5))
def test_quotations_are_found_in_each_joined_text_alone(texts: list[str]) -> None:
    joined = Joined.of(texts)
    offsets = np.arange(len(joined.text), dtype=np.int64)
    together = quoted_mask(joined.text, offsets, joined.pieces)
    for i, text in enumerate(texts):
        base = int(joined.starts[i])
        alone = quoted_mask(text, np.arange(len(text), dtype=np.int64))
        assert same(together[base : base + len(text)], alone)


MODES_CUT_TOGETHER = [
    MODES["prose"],
    MODES["words"],
    MODES["prose"].with_thresholds(noise=3, guarantee=5),
    replace(MODES["prose"], skip_quotations=False),
    replace(MODES["prose"], paraphrase=False),
    MODES["code"],
]


@settings(max_examples=100, deadline=None)
@given(
    documents=st.lists(
        st.tuples(TEXTS, st.sampled_from(range(len(MODES_CUT_TOGETHER)))), min_size=1, max_size=6
    ),
    join_chars=JOIN_LIMITS,
)
def test_keys_of_many_documents_are_each_documents_own(
    documents: list[tuple[str, int]], join_chars: int
) -> None:
    def made() -> list[Document]:
        return [
            Document(f"d{i}.txt", text, MODES_CUT_TOGETHER[m])
            for i, (text, m) in enumerate(documents)
        ]

    with patch.object(document_module, "JOIN_CHARS", join_chars):
        together = keys_of(made())
    for alone, keys in zip((d.keys for d in made()), together, strict=True):
        assert keys.units == alone.units
        assert same(keys.fingerprints.hashes, alone.fingerprints.hashes)
        assert same(keys.fingerprints.positions, alone.fingerprints.positions)
        assert same(keys.sentence_keys.hashes, alone.sentence_keys.hashes)
        assert same(keys.sentence_keys.positions, alone.sentence_keys.positions)
        assert same(keys.lexicon_keys.hashes, alone.lexicon_keys.hashes)


def test_a_batch_of_real_answers_keys_as_one_by_one() -> None:
    files = sorted(CLOUGH.glob("*.txt"))
    clough_texts = [f.read_text(encoding="utf-8", errors="replace") for f in files]
    assert len(clough_texts) == 100
    mode = MODES["prose"]
    together = keys_of([Document(str(i), t, mode) for i, t in enumerate(clough_texts)])
    for i, (text, keys) in enumerate(zip(clough_texts, together, strict=True)):
        alone = Document(str(i), text, mode).keys
        assert len(alone.sentence_keys) > 0
        assert same(keys.fingerprints.hashes, alone.fingerprints.hashes)
        assert same(keys.sentence_keys.hashes, alone.sentence_keys.hashes)
        assert same(keys.sentence_keys.positions, alone.sentence_keys.positions)


def _prepared_as_alone(together: Document, alone: Document) -> None:
    """What ``prepare_together`` gave ``together`` is what ``alone`` makes for itself."""
    assert together.unit_count == alone.unit_count
    assert same(together.fingerprints.hashes, alone.fingerprints.hashes)
    assert same(together.fingerprints.positions, alone.fingerprints.positions)
    assert same(together.fingerprint_offsets, alone.fingerprint_offsets)
    mine, theirs = together.sentences, alone.sentences
    assert same(mine.starts, theirs.starts) and same(mine.ends, theirs.ends)
    assert same(mine.term_ids, theirs.term_ids) and same(mine.owners, theirs.owners)
    for field in ("vocabulary", "rows", "terms", "counts", "frequency"):
        made, own = getattr(mine.cells, field), getattr(theirs.cells, field)
        assert made.dtype == own.dtype and same(made, own), field


@settings(max_examples=100, deadline=None)
@given(
    documents=st.lists(
        st.tuples(TEXTS, st.sampled_from(range(len(MODES_CUT_TOGETHER)))), min_size=1, max_size=6
    ),
    join_chars=JOIN_LIMITS,
    fingerprints=st.booleans(),
)
def test_documents_prepared_together_for_aligning_are_each_as_alone(
    documents: list[tuple[str, int]], join_chars: int, fingerprints: bool
) -> None:
    """With or without their fingerprints (a candidate sharing sentences only)."""

    def made() -> list[Document]:
        return [
            Document(f"d{i}.txt", text, MODES_CUT_TOGETHER[m])
            for i, (text, m) in enumerate(documents)
        ]

    together = made()
    with patch.object(document_module, "JOIN_CHARS", join_chars):
        prepare_together(together, fingerprints=fingerprints)
    for prepared, alone in zip(together, made(), strict=True):
        if prepared.mode.paraphrase:
            assert prepared._sentences is not None  # made here, not when asked for
            if not fingerprints:  # not made now: made alone when asked for
                assert prepared._fingerprints is None
            _prepared_as_alone(prepared, alone)


def test_real_answers_prepared_together_align_as_one_by_one() -> None:
    files = sorted(CLOUGH.glob("*.txt"))
    texts = [f.read_text(encoding="utf-8", errors="replace") for f in files]
    mode = MODES["prose"]
    together = [Document(f.name, t, mode) for f, t in zip(files, texts, strict=True)]
    prepare_together(together)
    assert all(d._fingerprints is not None and "cells" in vars(d._sentences) for d in together)
    for prepared, text in zip(together, texts, strict=True):
        _prepared_as_alone(prepared, Document(prepared.name, text, mode))
    by_name = {d.name: d for d in together}
    original = by_name["orig_taska.txt"]
    for name in ("g0pC_taska.txt", "g0pD_taska.txt", "g0pE_taska.txt"):  # heavy, cut, light
        made = compare(original, by_name[name])
        own = compare(
            Document(original.name, original.text, mode), Document(name, by_name[name].text, mode)
        )
        assert made.passages == own.passages and made.passages


@settings(max_examples=200, deadline=None)
@given(
    documents=st.lists(
        st.lists(st.tuples(st.integers(0, 4), st.integers(-3, 3)), max_size=25), max_size=5
    )
)
def test_cells_made_together_are_each_documents_own(
    documents: list[list[tuple[int, int]]],
) -> None:
    """Few sentences and terms, so that one sentence's last term is often the next
    one's first, and documents share terms."""

    def made() -> list[Sentences]:
        each = []
        for words in documents:
            owners = np.array(sorted(o for o, _ in words), dtype=np.int64)
            term_ids = np.array([t * 7_919 for _, t in words], dtype=np.int64)
            bounds = np.arange(5, dtype=np.int64)
            each.append(Sentences(bounds, bounds + 1, term_ids, owners))
        return each

    together = made()
    give_cells_together(together)
    for mine, theirs in zip(together, made(), strict=True):
        for field in ("vocabulary", "rows", "terms", "counts", "frequency"):
            got, own = getattr(mine.cells, field), getattr(theirs.cells, field)
            assert got.dtype == own.dtype and same(got, own), field
