"""Word units: where words begin and end, their symbols, and their spans."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from doublet.engine.chars import fold_text
from doublet.engine.hashing import mix64
from doublet.engine.words import _keyed, word_strings, word_units


def spans(text: str) -> list[str]:
    units = word_units(text)
    return [text[s:e] for s, e in zip(units.starts.tolist(), units.ends.tolist(), strict=True)]


any_text = st.lists(
    st.one_of(
        st.characters(),
        st.sampled_from([" ", ",", "ß", "ﬁ", "é", "中", "文", "。", "\U00020000", "\U0001f600"]),
    ),
    max_size=60,
).map("".join)


def test_words_split_at_spaces_and_punctuation() -> None:
    text = "Hello, world! It's  a well-known\tfact…"
    assert word_strings(text) == ["hello", "world", "it", "s", "a", "well", "known", "fact"]


def test_words_split_at_line_breaks() -> None:
    assert word_strings("one\ntwo\r\nthree") == ["one", "two", "three"]


def test_each_cjk_character_is_a_word() -> None:
    assert word_strings("我爱学习。") == ["我", "爱", "学", "习"]


def test_cjk_next_to_latin_is_a_separate_word() -> None:
    assert word_strings("用Python写code") == ["用", "python", "写", "code"]


def test_folded_word_strings() -> None:
    assert word_strings("CAFÉ Straße ﬁne Ｆｕｌｌ") == ["cafe", "strasse", "fine", "full"]


def test_empty_text_has_no_words() -> None:
    assert word_strings("") == []
    assert len(word_units("")) == 0
    assert len(word_units(" ... ")) == 0
    assert word_units(" ... ").text_length == 5


def test_same_word_gets_the_same_symbol() -> None:
    symbols = word_units("cat dog cat").symbols.tolist()
    assert symbols[0] == symbols[2]
    assert symbols[0] != symbols[1]


def test_disguised_forms_of_a_word_get_the_same_symbol() -> None:
    symbols = word_units("café CAFE Café Ｃａｆｅ").symbols.tolist()
    assert len(set(symbols)) == 1


def test_same_word_in_different_texts_gets_the_same_symbol() -> None:
    assert word_units("essay").symbols.tolist() == word_units("  (Essay)  ").symbols.tolist()


@pytest.mark.parametrize(
    ("a", "b"),
    [("ab", "ba"), ("a", "aa"), ("on", "no"), ("abc", "acb"), ("x1", "1x"), ("中", "文")],
)
def test_similar_words_get_different_symbols(a: str, b: str) -> None:
    assert word_units(a).symbols[0] != word_units(b).symbols[0]


@given(
    st.lists(
        st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=12),
        min_size=2,
        max_size=30,
        unique=True,
    )
)
def test_different_words_get_different_symbols(words: list[str]) -> None:
    units = word_units(" ".join(words))
    assert len(units) == len(words)
    assert len(set(units.symbols.tolist())) == len(words)


def test_word_spans_cover_exactly_the_word() -> None:
    text = "  Hello, wonderful world!  "
    units = word_units(text)
    assert units.starts.tolist() == [2, 9, 19]
    assert units.ends.tolist() == [7, 18, 24]
    assert spans(text) == ["Hello", "wonderful", "world"]


def test_word_spans_for_cjk_and_expansions() -> None:
    assert spans("说：Maß。") == ["说", "Maß"]


@given(any_text)
def test_word_strings_match_the_folded_spans(text: str) -> None:
    units = word_units(text)
    words = word_strings(text)
    assert len(units) == len(words)
    # one character can fold to several words ('㋿' to 令 and 和): they share its span
    by_span: dict[tuple[int, int], str] = {}
    for word, start, end in zip(words, units.starts.tolist(), units.ends.tolist(), strict=True):
        by_span[start, end] = by_span.get((start, end), "") + word
    for (start, end), joined in by_span.items():
        assert fold_text(text[start:end]) == joined


@given(any_text)
def test_word_spans_are_ordered_and_disjoint(text: str) -> None:
    units = word_units(text)
    assert units.text_length == len(text)
    assert np.all(units.starts < units.ends)
    assert np.all(units.starts >= 0)
    assert np.all(units.ends <= len(text))
    assert np.all(units.ends[:-1] <= units.starts[1:])


@given(any_text)
def test_words_concatenate_to_the_folded_text(text: str) -> None:
    assert "".join(word_strings(text)) == fold_text(text)


def test_decomposed_accent_inside_a_word_does_not_split_it() -> None:
    composed = "r\u00e9sum\u00e9"
    decomposed = "re\u0301sume\u0301"
    assert word_strings(decomposed) == word_strings(composed) == ["resume"]
    assert word_units(decomposed).symbols.tolist() == word_units(composed).symbols.tolist()


def test_word_span_includes_a_trailing_combining_accent() -> None:
    text = "cafe\u0301 noir"
    assert spans(text) == ["cafe\u0301", "noir"]


@given(
    st.lists(st.integers(0, 0x3FFFF), min_size=1, max_size=80),
    st.lists(st.integers(0, 90), min_size=80, max_size=80),
)
def test_character_keys_from_the_table_are_the_mixed_ones(symbols, places) -> None:
    """Looked up (ASCII letters and digits, early in a word) or mixed, a key is the same."""
    symbols = np.array(symbols, dtype=np.uint64)
    place = np.array(places[: symbols.shape[0]], dtype=np.uint64)
    with np.errstate(over="ignore"):
        expected = mix64(symbols ^ (place << np.uint64(40)))
    assert (_keyed(symbols, place) == expected).all()
    small = symbols % np.uint64(128)
    assert (
        _keyed(small, place % np.uint64(32))
        == mix64(small ^ ((place % np.uint64(32)) << np.uint64(40)))
    ).all()
