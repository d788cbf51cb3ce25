"""Code units: normalized tokens that survive renaming, re-layout and new comments."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from doublet.engine.code import CODE_EXTENSIONS, UnknownLanguage, code_units, lexer_for


def tokens(text: str, filename: str = "a.py", **options: bool) -> list[str]:
    """The original text under every unit's span."""
    units = code_units(text, filename, **options)
    return [text[s:e] for s, e in zip(units.starts.tolist(), units.ends.tolist(), strict=True)]


def symbols(text: str, filename: str = "a.py", **options: bool) -> list[int]:
    return code_units(text, filename, **options).symbols.tolist()


PYTHON_ORIGINAL = '''\
def total_price(items, tax_rate):
    """Price of all items with tax."""
    # add up the prices
    subtotal = 0
    for item in items:
        if item.price > 100:
            subtotal += item.price * 0.9
        else:
            subtotal += item.price
    return round(subtotal * (1 + tax_rate), 2)
'''

PYTHON_DISGUISED = '''\
def compute(xs,r):
    """Sums things up."""

    # loop over everything   (rewritten comment)
    acc=0


    for x in xs:       # each one
        if x.price>250:
            acc += x.price*0.75
        else:
            acc += x.price   # plain
    return round( acc*(1+r) ,3 )
'''

JAVA_ORIGINAL = """\
public class Counter {
    private int count = 0;

    // Adds an amount to the running count.
    public void add(int amount) {
        if (amount > 0) {
            count += amount;
        }
        System.out.println("count is " + count);
    }
}
"""

JAVA_DISGUISED = """\
public class Tally
{
    private int total = 42;
    /* renamed everything */
    public void increase(int step)
    {
        if (step > 7) { total += step; }
        System.out.println("the total: " + total);   // print it
    }
}
"""


# --- invariance under cheap disguises -----------------------------------------------------


def test_renamed_recommented_reformatted_python_has_identical_units() -> None:
    assert symbols(PYTHON_DISGUISED) == symbols(PYTHON_ORIGINAL)
    assert len(symbols(PYTHON_ORIGINAL)) > 30


def test_renamed_recommented_reformatted_java_has_identical_units() -> None:
    assert symbols(JAVA_DISGUISED, "Tally.java") == symbols(JAVA_ORIGINAL, "Counter.java")
    assert len(symbols(JAVA_ORIGINAL, "Counter.java")) > 30


def test_windows_line_endings_do_not_change_units() -> None:
    crlf = PYTHON_ORIGINAL.replace("\n", "\r\n")
    assert symbols(crlf) == symbols(PYTHON_ORIGINAL)


def test_spacing_inside_punctuation_runs_does_not_matter() -> None:
    assert symbols("f(g(x));\n", "a.c") == symbols("f ( g ( x ) ) ;\n", "a.c")


def test_keywords_are_kept_as_written() -> None:
    assert symbols("while x:\n    pass\n") != symbols("if x:\n    pass\n")


def test_operators_are_kept_as_written() -> None:
    assert symbols("y = a + b\n") != symbols("y = a - b\n")


def test_identifiers_all_become_one_symbol() -> None:
    assert symbols("alpha\n") == symbols("b\n") == symbols("_private_name_2\n")


def test_backslash_line_continuation_is_layout() -> None:
    assert symbols("x = 1 + \\\n    2\n") == symbols("x = 1 + 2\n")


# --- literals ----------------------------------------------------------------------------


def test_string_literals_collapse_to_one_unit_whatever_their_content() -> None:
    assert tokens('s = "hello\\tworld\\n"\n') == ["s", "=", '"hello\\tworld\\n"']
    assert symbols('s = "hello"\n') == symbols("s = 'a completely different string'\n")


def test_triple_quoted_multiline_string_is_one_unit() -> None:
    text = 's = """first line\nsecond line\n"""\n'
    assert tokens(text) == ["s", "=", '"""first line\nsecond line\n"""']


def test_prefixed_strings_are_one_unit() -> None:
    assert tokens('a = b"x" + r"\\d+" + f"plain"\n') == [
        "a",
        "=",
        'b"x"',
        "+",
        'r"\\d+"',
        "+",
        'f"plain"',
    ]
    assert symbols('a = f"plain"\n') == symbols('a = "plain"\n')


def test_adjacent_string_literals_are_one_unit() -> None:
    assert tokens('s = "abc" "def"\n') == ["s", "=", '"abc" "def"']


def test_docstring_is_one_string_unit() -> None:
    text = 'def f():\n    """Docs\n    over lines."""\n    return 1\n'
    assert tokens(text)[5] == '"""Docs\n    over lines."""'
    assert symbols(text) == symbols('def f():\n    "x"\n    return 1\n')


def test_f_string_with_replacement_field_is_one_unit() -> None:
    assert tokens('s = f"total {n}!"\n') == ["s", "=", 'f"total {n}!"']


def test_numbers_are_normalized() -> None:
    expected = symbols("x = 0\n")
    for number in ["1", "42", "3.14", "0x1F", "1e10", "1_000_000", "0o17", "0b101"]:
        assert symbols(f"x = {number}\n") == expected, number


def test_java_numbers_and_strings_are_normalized() -> None:
    one = symbols('int n = 5; String s = "a";\n', "A.java")
    two = symbols('int n = 99; String s = "something else";\n', "A.java")
    assert one == two


# --- comments ----------------------------------------------------------------------------


def test_comments_are_dropped_by_default() -> None:
    assert symbols("x = 1  # note\n") == symbols("x = 1\n")


def test_keep_comments_adds_comment_words() -> None:
    text = "x = 1  # Copied Note\n"
    assert tokens(text, keep_comments=True) == ["x", "=", "1", "Copied", "Note"]


def test_kept_comment_words_are_case_folded_and_compared() -> None:
    same = symbols("x = 1  # copied note\n", keep_comments=True)
    assert symbols("x = 1  # COPIED note\n", keep_comments=True) == same
    assert symbols("x = 1  # another note\n", keep_comments=True) != same


def test_kept_comment_words_differ_from_code_tokens() -> None:
    # A comment word "if" is not the keyword "if".
    assert symbols("# if\n", keep_comments=True) != symbols("if\n")


def test_keep_comments_in_java_block_comment() -> None:
    text = "/* Adds two */ int x;\n"
    assert tokens(text, "A.java", keep_comments=True) == ["Adds", "two", "int", "x", ";"]


# --- spans -------------------------------------------------------------------------------


def test_spans_point_at_the_tokens_in_the_original_text() -> None:
    text = "def  f(a,  b):\n    return a+b  # sum\n"
    assert tokens(text) == ["def", "f", "(", "a", ",", "b", ")", ":", "return", "a", "+", "b"]


def test_spans_in_java_point_at_the_tokens() -> None:
    text = "class A {\n  int x = 10;\n}\n"
    assert tokens(text, "A.java") == ["class", "A", "{", "int", "x", "=", "10", ";", "}"]


def test_spans_after_non_ascii_text_are_code_point_offsets() -> None:
    text = 's = "中文 😀"  # 注释\nt = 1\n'
    assert tokens(text) == ["s", "=", '"中文 😀"', "t", "=", "1"]


python_like = st.lists(
    st.one_of(
        st.sampled_from(list("abcxyz019 \t\n\r()[]{}:;,.+-*/=<>'\"#\\_@fr")),
        st.sampled_from(["def ", "if ", "return ", '"""', 'f"{', "中", "é", "😀"]),
        st.characters(),
    ),
    max_size=60,
).map("".join)


@given(python_like)
@example("\ud800")  # a lone surrogate as a token of its own (it once raised)
@example("x = '\udcff'")
def test_spans_are_inside_the_text_and_not_layout(text: str) -> None:
    units = code_units(text, "a.py", keep_comments=True)
    assert units.text_length == len(text)
    assert np.all(units.starts >= 0)
    assert np.all(units.ends <= len(text))
    assert np.all(units.starts < units.ends)
    assert np.all(np.diff(units.starts) >= 0)
    for start, end in zip(units.starts.tolist(), units.ends.tolist(), strict=True):
        assert text[start:end].strip()


def test_text_with_only_layout_and_comments_has_no_units() -> None:
    units = code_units("\n\n   # nothing here\n\n", "a.py")
    assert len(units) == 0
    assert units.text_length == 21


# --- lexer choice ------------------------------------------------------------------------


def test_unknown_file_name_raises_unknown_language() -> None:
    with pytest.raises(UnknownLanguage):
        code_units("x = 1\n", "notes.unknownext")


def test_missing_file_name_and_language_raise_unknown_language() -> None:
    with pytest.raises(UnknownLanguage):
        code_units("x = 1\n")


def test_unknown_language_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        code_units("x = 1\n", language="no-such-language")


def test_language_name_overrides_file_name() -> None:
    text = "x = 1  # c\n"
    assert code_units(text, "a.txt", language="python").symbols.tolist() == symbols(text)


def test_every_code_extension_has_a_lexer() -> None:
    missing = []
    for extension in sorted(CODE_EXTENSIONS):
        try:
            lexer_for(f"file{extension}")
        except UnknownLanguage:
            missing.append(extension)
    assert missing == []


def test_each_code_extension_names_a_lexer_that_claims_it() -> None:
    """The table agrees with Pygments: each lexer it names lists the extension among its files."""
    from fnmatch import fnmatch

    from doublet.engine.code import LEXER_BY_EXTENSION

    unclaimed = {
        extension: lexer_for(f"file{extension}").name
        for extension in LEXER_BY_EXTENSION
        if not any(
            fnmatch(f"file{extension}", p.lower()) for p in lexer_for(f"file{extension}").filenames
        )
    }
    assert unclaimed == {}


@pytest.mark.parametrize(
    ("filename", "language"),
    [
        ("a.pl", "Perl"),
        ("lib/B.pm", "Perl"),
        ("model.R", "S"),
        ("q.sql", "SQL"),
        ("A.JAVA", "Java"),
    ],
)
def test_an_extension_several_languages_claim_gets_the_common_one(
    filename: str, language: str
) -> None:
    assert lexer_for(filename).name == language


def test_names_outside_the_table_still_find_their_lexer() -> None:
    assert lexer_for("build/Makefile").name == "Makefile"
