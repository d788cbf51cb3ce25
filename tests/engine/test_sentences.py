"""Sentences as bags of content words: spans, stems, stop words, CJK, boilerplate."""

from __future__ import annotations

import random
import string
import sys
import threading
from itertools import pairwise

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from doublet.engine import sentences as sentences_module
from doublet.engine.chars import code_points
from doublet.engine.sentences import (
    _SENTENCE_END,
    MIN_TERMS,
    NO_TERM,
    STOP_WORDS,
    _stemmer,
    _terms_of_words,
    _WordTerms,
    sentence_gaps,
    split,
    term_id,
    terms,
    word_terms,
)


def test_inflections_share_a_term_and_stop_words_have_none() -> None:
    assert terms("The students were copying answers") == terms("a student copies the answer")
    assert terms("the of and is it was") == []
    assert terms("running") == terms("runs") == [term_id("run")]


def test_numbers_and_single_letters_are_not_terms() -> None:
    assert terms("In 1999 x y z") == []


def test_folding_applies_before_stemming() -> None:
    assert terms("NAÏVE Résumés") == terms("naive resumes")


def test_each_cjk_character_is_a_term() -> None:
    found = terms("剽窃检测")
    assert len(found) == 4
    assert found == [term_id(c) for c in "剽窃检测"]


def test_word_terms_point_at_the_words_in_the_original_text() -> None:
    text = "  Copying, Paraphrasing;\nand  SUMMARISING."
    at, ids = word_terms(text)
    words = [text[i : i + 7].lower() for i in at.tolist()]
    assert words == ["copying", "paraphr", "summari"]
    assert ids.tolist() == terms("copy paraphrase summarising")


def test_sentences_are_cut_at_their_ends_and_trimmed() -> None:
    first = "Plagiarism detection compares documents against each other."
    second = "Fingerprints find copied runs of characters quickly!"
    third = "Sentences find reworded passages that keep their content words?"
    text = f"  {first}  {second}\n{third}  "
    sentences = split(text)
    spans = [text[a:b] for a, b in zip(sentences.starts, sentences.ends, strict=True)]
    assert spans == [first, second, third]
    for i, span in enumerate(spans):
        assert sorted(sentences.terms_of(i).tolist()) == sorted(terms(span))


def test_a_blank_line_ends_a_sentence_without_a_full_stop() -> None:
    text = "A heading about plagiarism detection methods\n\nThe body explains winnowing of hashes."
    sentences = split(text)
    assert len(sentences) == 2
    assert text[sentences.starts[1] : sentences.ends[1]].startswith("The body")


def test_short_sentences_join_the_next_one() -> None:
    text = "Yes. Indeed. The committee approved the proposal after a long debate."
    sentences = split(text)
    assert len(sentences) == 1
    assert (sentences.starts[0], sentences.ends[0]) == (0, len(text))


def test_a_short_last_sentence_joins_the_one_before() -> None:
    text = "The committee approved the proposal after a long debate. Good."
    sentences = split(text)
    assert len(sentences) == 1
    assert sentences.ends[0] == len(text)


def test_without_empties_the_sentences_whose_fingerprints_were_mostly_dropped() -> None:
    text = (
        "Students must submit their essays online. "
        "Plagiarism detection compares documents against each other. "
        "Late submissions lose marks every single day."
    )
    sentences = split(text)
    assert len(sentences) == 3
    middle = text.index("detection")
    first, last = text.index("essays"), text.index("marks")
    # the middle sentence lost its only fingerprint; the first lost one of two
    emptied = sentences.without(np.array([middle, first]), np.array([first + 5, last]))
    assert len(emptied) == 3  # spans stay, so offsets stay meaningful
    assert emptied.terms_of(1).shape[0] == 0
    assert emptied.terms_of(0).tolist() == sentences.terms_of(0).tolist()
    assert emptied.terms_of(2).tolist() == sentences.terms_of(2).tolist()
    nothing = np.zeros(0, dtype=np.int64)
    assert sentences.without(nothing, np.array([middle])) is sentences


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.text(alphabet="abcdefghij ", min_size=1, max_size=30),
            st.sampled_from([". ", "! ", "? ", "\n\n", "。", "  ", "Étude ", "文字"]),
        ),
        max_size=30,
    ).map("".join)
)
def test_sentences_are_ordered_disjoint_and_own_every_content_word(text: str) -> None:
    sentences = split(text)
    starts, ends = sentences.starts, sentences.ends
    assert np.all(starts < ends)
    assert np.all(ends[:-1] <= starts[1:])
    assert np.all((starts >= 0) & (ends <= len(text)))
    for a, b in zip(starts.tolist(), ends.tolist(), strict=True):
        assert text[a:b] == text[a:b].strip()
    at, ids = word_terms(text)
    # every content word belongs to the sentence around it, in text order
    assert sentences.term_ids.tolist() == ids.tolist()
    owners = sentences.owners
    assert np.all((starts[owners] <= at) & (at < ends[owners]))
    # every sentence but the last has enough content words to be compared
    counts = np.bincount(owners, minlength=len(sentences))
    assert np.all(counts[:-1] >= MIN_TERMS)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.lists(st.integers(1, 400), min_size=1, max_size=40, unique=True),
        min_size=1,
        max_size=25,
    )
)
def test_the_word_table_answers_what_it_learned_as_it_grows(batches) -> None:
    """New words are added batch by batch, and none is lost as the table grows."""
    table = _WordTerms(limit=10_000)
    learned: dict[int, int] = {}
    for batch in batches:
        symbols = np.array(sorted(batch), dtype=np.uint64)
        terms, unknown = table.lookup(symbols)
        known = [s for s in sorted(batch) if s in learned]
        assert unknown.tolist() == [s not in learned for s in sorted(batch)]
        assert terms[~unknown].tolist() == [learned[s] for s in known]
        new = symbols[unknown]
        table.learn(new, new.astype(np.int64) * 7 + 1)
        learned.update({int(s): int(s) * 7 + 1 for s in new.tolist()})


def test_the_word_table_is_emptied_past_its_limit_and_keeps_working() -> None:
    table = _WordTerms(limit=40)
    for start in range(0, 100, 10):
        symbols = np.arange(start, start + 10, dtype=np.uint64)
        table.learn(symbols, symbols.astype(np.int64) + 1)
    terms, unknown = table.lookup(np.arange(0, 100, dtype=np.uint64))
    assert unknown[:50].all()  # forgotten when the table passed its limit
    assert not unknown[-10:].any() and terms[-10:].tolist() == list(range(91, 101))


def test_sentence_ends_after_closing_quotes_and_at_cjk_stops_without_a_space() -> None:
    text = (
        'He said "Stop the engine now please." Then the mechanics left quietly.'
        "中文字很多字。中文字很多字"
    )
    sentences = split(text)
    cut = [text[a:b] for a, b in zip(sentences.starts, sentences.ends, strict=True)]
    assert cut[0] == 'He said "Stop the engine now please.'  # the quote mark is in the gap
    assert cut[1].startswith("Then") and cut[1].endswith("很多字。")
    assert cut[-1] == "中文字很多字"


def _regex_gaps(text: str, pieces: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The gaps as the rule's regular expression finds them, one match at a time."""
    gaps = []
    for start, end in pieces:
        for match in _SENTENCE_END.finditer(text, start, end):
            gaps.append(match.span(match.lastindex or 0))
    return gaps


_TRICKY = [
    *".!?。！？\"'”’)] \t\n\r\u3000\u00a0\u2028ab中\uffff\U0001f600\u3001\u2020!",
    *("\n\n", ". ", ".\n \n", "  \t", "    "),
]


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(_TRICKY), max_size=60).map("".join),
    st.lists(st.tuples(st.integers(0, 300), st.booleans()), max_size=6),
)
@example("a\n\nb", [(2, False)])  # a blank line across two pieces is none
@example("Stop.\n\nNext", [(5, False)])  # nor is a stop's whitespace across them
def test_sentence_gaps_are_the_matches_of_the_rule_in_each_piece(text, cuts) -> None:
    """Found with array operations, the gaps are those of ``_SENTENCE_END.finditer``
    over each piece: pieces adjacent, apart, empty, runs longer than the steps taken
    one character at a time."""
    bounds = sorted({min(at, len(text)) for at, _ in cuts} | {0, len(text)})
    apart = [gap for _, gap in cuts] + [False] * len(bounds)
    pieces = [
        (a + 1 if apart[i] and b > a else a, b) for i, (a, b) in enumerate(pairwise(bounds))
    ] or [(0, 0)]
    starts = np.array([a for a, _ in pieces], dtype=np.int64)
    ends = np.array([b for _, b in pieces], dtype=np.int64)
    gap_starts, gap_ends = sentence_gaps(code_points(text), starts, ends)
    found = list(zip(gap_starts.tolist(), gap_ends.tolist(), strict=True))
    assert found == _regex_gaps(text, pieces)


def test_long_runs_of_whitespace_after_a_stop_are_followed_to_their_end() -> None:
    text = "One two three four." + " " * 100 + "Five six seven eight.\n" + "\t" * 50 + "\nNine"
    pieces = [(0, len(text))]
    gap_starts, gap_ends = sentence_gaps(code_points(text), np.array([0]), np.array([len(text)]))
    found = list(zip(gap_starts.tolist(), gap_ends.tolist(), strict=True))
    assert found == _regex_gaps(text, pieces) and len(found) == 2


def _term_of_word(word: str) -> int:
    """The rule, one word at a time."""
    if any(
        "\u3040" <= c <= "\u30ff"
        or "\u3400" <= c <= "\u4dbf"
        or "\u4e00" <= c <= "\u9fff"
        or "\uac00" <= c <= "\ud7af"
        or "\uf900" <= c <= "\ufaff"
        for c in word
    ):
        return term_id(word)
    if word in STOP_WORDS or word.isdigit() or len(word) < 2:
        return NO_TERM
    return term_id(_stemmer().stemWord(word))


@given(
    st.lists(
        st.sampled_from(
            [
                "running",
                "runs",
                "run",
                "the",
                "x",
                "1999",
                "²³",
                "٣٤",
                "中",
                "文字",
                "ab",
                "Ωmega",
                "é",
            ]
        )
        | st.text(alphabet="abz19中²", max_size=6),
        max_size=30,
    )
)
def test_words_get_their_terms_by_the_rule(words) -> None:
    assert _terms_of_words(words) == [_term_of_word(word) for word in words]


def test_two_threads_learning_words_at_once_get_the_terms_one_thread_gets(monkeypatch) -> None:
    """A language server keys files on one thread while it answers an edit on another:
    the shared word table must neither lose nor garble a word."""
    rng = random.Random(0)

    def words() -> str:  # 300 new words, most never seen before
        letters = string.ascii_lowercase
        return " ".join("".join(rng.choices(letters, k=rng.randint(4, 9))) for _ in range(300))

    texts = [words() for _ in range(40)]
    expected = [word_terms(text)[1] for text in texts]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    wrong = []
    try:
        for _ in range(20):
            monkeypatch.setattr(sentences_module, "_WORD_TERMS", _WordTerms())  # all new again

            def key_all() -> None:
                for text, terms in zip(texts, expected, strict=True):
                    try:
                        if not np.array_equal(word_terms(text)[1], terms):
                            wrong.append(text[:20])
                    except Exception as exc:  # a torn table: an index out of bounds
                        wrong.append(repr(exc))

            threads = [threading.Thread(target=key_all) for _ in range(2)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert wrong == []
    assert all(np.array_equal(word_terms(t)[1], e) for t, e in zip(texts, expected, strict=True))
