"""Prose folding: which characters survive, what they become, and where they came from."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from doublet.engine import chars
from doublet.engine.chars import CJK_WEIGHT, char_units, fold_text, weigh_cjk


def unit_string(text: str) -> str:
    """The folded characters of ``text`` as char_units sees them."""
    return "".join(map(chr, char_units(text).symbols.tolist()))


# Characters that take the slow paths (expansions, astral, combining marks, surrogates).
SPECIAL = [
    "ß",
    "ẞ",
    "ﬁ",
    "ﬀ",
    "Ǆ",
    "é",
    "\u0301",
    "e\u0301",
    "Ｆ",
    "①",
    "中",
    "文",
    "。",
    "，",
    "が",
    "한",
    "\U00020000",
    "\U0002a6d6",
    "\U0001f600",
    "\U0001d400",
    "\ufa6c",
    "\ud800",
    "\udfff",
    "\u00ad",
    "\u200b",
    "\r\n",
    "\t",
]

any_char = st.one_of(
    st.characters(),
    st.integers(0, 0x10FFFF).map(chr),
    st.integers(0xD800, 0xDFFF).map(chr),
    st.sampled_from(SPECIAL),
)
any_text = st.lists(any_char, max_size=60).map("".join)


# --- folding ---------------------------------------------------------------------------


def test_ascii_whitespace_and_punctuation_are_dropped() -> None:
    assert fold_text('Hello,   world!\n\t(It\'s "fine"); ok? -- yes.') == "helloworlditsfineokyes"


def test_chinese_and_full_width_punctuation_are_dropped() -> None:
    assert (
        fold_text("你好，世界。真的！“引号”（括号）《书名》、；：？") == "你好世界真的引号括号书名"
    )


def test_case_is_folded() -> None:
    assert fold_text("HeLLo WORLD") == fold_text("hello world") == "helloworld"


def test_casefold_expands_sharp_s() -> None:
    assert fold_text("STRASSE") == fold_text("Straße") == "strasse"


def test_full_width_letters_fold_to_plain_ascii() -> None:
    assert fold_text("Ｆｕｌｌ") == "full"


def test_ligature_folds_to_its_letters() -> None:
    assert fold_text("ﬁne") == "fine"


def test_diacritics_are_removed() -> None:
    assert fold_text("café") == fold_text("cafe") == "cafe"
    assert fold_text("naïve Ångström") == "naiveangstrom"


def test_composed_and_decomposed_accents_agree() -> None:
    composed = "caf\u00e9"
    decomposed = "cafe\u0301"
    assert fold_text(composed) == fold_text(decomposed) == "cafe"
    assert unit_string(composed) == unit_string(decomposed) == "cafe"


def test_digits_are_kept() -> None:
    assert fold_text("Room 101, floor ３") == "room101floor3"


# --- CJK and astral characters -----------------------------------------------------------


def test_each_cjk_character_is_one_unit() -> None:
    text = "学术诚信"
    units = char_units(text)
    assert len(units) == 4
    assert units.starts.tolist() == [0, 1, 2, 3]
    assert units.ends.tolist() == [1, 2, 3, 4]
    assert unit_string(text) == text


def test_mixed_english_and_chinese_keeps_both_scripts() -> None:
    text = "Python 是一种 programming 语言。"
    units = char_units(text)
    assert unit_string(text) == "python是一种programming语言"
    # The Chinese characters sit at their own positions in the original text.
    pieces = [text[s:e] for s, e in zip(units.starts, units.ends, strict=True)]
    assert [piece for piece in pieces if not piece.isascii()] == ["是", "一", "种", "语", "言"]
    assert units.starts[pieces.index("是")] == text.index("是")


def test_emoji_are_dropped() -> None:
    units = char_units("a\U0001f600b")
    assert unit_string("a\U0001f600b") == "ab"
    assert units.starts.tolist() == [0, 2]


def test_cjk_extension_b_character_is_kept_as_one_unit() -> None:
    text = "a\U00020000b"
    units = char_units(text)
    assert units.symbols.tolist() == [ord("a"), 0x20000, ord("b")]
    assert units.starts.tolist() == [0, 1, 2]
    assert units.ends.tolist() == [1, 2, 3]


def test_lone_surrogates_do_not_crash_and_are_dropped() -> None:
    text = "a\ud800b\udfffc\ud83d"
    assert unit_string(text) == "abc"
    assert char_units(text).starts.tolist() == [0, 2, 4]


def test_empty_and_all_dropped_text_give_no_units() -> None:
    assert len(char_units("")) == 0
    nothing = char_units("  ,.!？。\n")
    assert len(nothing) == 0
    assert nothing.text_length == 8


def test_expansion_maps_every_letter_to_the_original_character() -> None:
    text = "Maß"
    units = char_units(text)
    assert unit_string(text) == "mass"
    assert units.starts.tolist() == [0, 1, 2, 2]
    assert units.ends.tolist() == [1, 2, 3, 3]


# --- offset map (properties) -------------------------------------------------------------


@given(any_text)
def test_units_concatenate_to_the_folded_text(text: str) -> None:
    assert unit_string(text) == fold_text(text)


@given(any_text)
def test_unit_spans_lie_inside_the_text_in_order(text: str) -> None:
    units = char_units(text)
    assert units.text_length == len(text)
    assert units.symbols.dtype == np.uint64
    assert np.all(units.starts >= 0)
    assert np.all(units.ends <= len(text))
    assert np.all(units.starts < units.ends)
    assert np.all(np.diff(units.starts) >= 0)


@given(any_text)
def test_each_unit_comes_from_the_text_under_its_span(text: str) -> None:
    units = char_units(text)
    for symbol, start, end in zip(units.symbols.tolist(), units.starts, units.ends, strict=True):
        assert chr(symbol) in fold_text(text[start:end])


# --- lazily filled table -----------------------------------------------------------------


def test_second_call_gives_the_same_units() -> None:
    text = "Ǳ ǲ ǳ ﬃ Ⅻ ㍿ ﹏ ꭰ \U00010400 𝔸 ₂"
    first = char_units(text)
    second = char_units(text)
    assert first.symbols.tolist() == second.symbols.tolist()
    assert first.starts.tolist() == second.starts.tolist()
    assert unit_string(text) == fold_text(text)


def test_cold_table_and_warm_table_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "Straße ﬁne Ｆｕｌｌ café e\u0301 学术 \U00020000 \U0001f600 \ud800 한국 \ufa6c"
    warm = char_units(text)
    monkeypatch.setattr(chars, "_table", np.full(chars._BMP + 1, chars._UNSET, dtype=np.uint32))
    monkeypatch.setattr(chars, "_expansions", {})
    monkeypatch.setattr(chars, "_astral", {})
    cold = char_units(text)
    again = char_units(text)
    for units in (cold, again):
        assert units.symbols.tolist() == warm.symbols.tolist()
        assert units.starts.tolist() == warm.starts.tolist()
        assert units.ends.tolist() == warm.ends.tolist()


def test_partly_filled_table_folds_new_characters_correctly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(chars, "_table", np.full(chars._BMP + 1, chars._UNSET, dtype=np.uint32))
    monkeypatch.setattr(chars, "_expansions", {})
    char_units("abc")
    text = "abc ÀßÇ 中文 ﬂ"
    assert unit_string(text) == fold_text(text) == "abcassc中文fl"


# --- weigh_cjk ---------------------------------------------------------------------------


def test_weigh_cjk_makes_three_distinct_units_with_one_span() -> None:
    units = weigh_cjk(char_units("中"))
    assert len(units) == CJK_WEIGHT == 3
    assert len(set(units.symbols.tolist())) == 3
    assert units.starts.tolist() == [0, 0, 0]
    assert units.ends.tolist() == [1, 1, 1]


def test_weigh_cjk_copies_agree_between_documents() -> None:
    one = weigh_cjk(char_units("中文"))
    two = weigh_cjk(char_units("。中文！"))
    assert one.symbols.tolist() == two.symbols.tolist()
    assert two.starts.tolist() == [1, 1, 1, 2, 2, 2]


def test_weigh_cjk_leaves_latin_untouched() -> None:
    plain = char_units("Hello world")
    weighed = weigh_cjk(plain)
    assert weighed.symbols.tolist() == plain.symbols.tolist()
    assert weighed.starts.tolist() == plain.starts.tolist()


def test_weigh_cjk_in_mixed_text_repeats_only_cjk() -> None:
    text = "ab中c"
    units = weigh_cjk(char_units(text))
    assert [text[s:e] for s, e in zip(units.starts, units.ends, strict=True)] == [
        "a",
        "b",
        "中",
        "中",
        "中",
        "c",
    ]
    assert units.symbols[[0, 1, 5]].tolist() == [ord("a"), ord("b"), ord("c")]
    assert units.text_length == len(text)


def test_weigh_cjk_copies_never_equal_another_character() -> None:
    units = weigh_cjk(char_units("中"))
    # Copies carry their index above bit 32, so they cannot be mistaken for any code point.
    assert all(s > 0x10FFFF for s in units.symbols.tolist()[1:])


@given(any_text)
def test_weigh_cjk_keeps_spans_in_order(text: str) -> None:
    base = char_units(text)
    units = weigh_cjk(base)
    assert np.all(np.diff(units.starts) >= 0)
    cjk = int(chars.cjk_mask(base.symbols).sum())
    assert len(units) == len(base) + (CJK_WEIGHT - 1) * cjk
