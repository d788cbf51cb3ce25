"""Quotations are cited, not copied: no passage grows from text in quotation marks."""

from __future__ import annotations

import re

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st

from doublet.engine.chars import code_points
from doublet.engine.comparison import compare
from doublet.engine.document import Document
from doublet.engine.modes import MODES
from doublet.engine.quotes import MAX_QUOTE, PAIRS, quotation_spans, quoted_mask, quoted_spans

SOURCE = (
    "Honeybees are livestock, and livestock needs pasture; a city that adds hives without "
    "adding flowers only moves hunger from one insect to another, and the wild bees lose."
)


def test_curly_straight_and_cjk_quotations_are_found():
    text = 'He said “one two” and "three" then 「四五」 and «six».'
    spans = [text[a:b] for a, b in quoted_spans(text)]
    assert spans == ["“one two”", '"three"', "「四五」", "«six»"]


def test_an_unclosed_mark_does_not_swallow_the_next_paragraph():
    text = 'An opening “ without end.\n\nA new paragraph with "a quote".'
    assert [text[a:b] for a, b in quoted_spans(text)] == ['"a quote"']


def test_a_quotation_longer_than_the_limit_is_not_one():
    text = '"' + "word " * (MAX_QUOTE // 5 + 10) + '"'
    assert quoted_spans(text) == []


@given(st.text(alphabet='ab "“”\n', max_size=200))
def test_mask_marks_exactly_the_offsets_inside_spans(text):
    starts = np.arange(len(text) + 1, dtype=np.int64)  # the end too: inside nothing
    mask = quoted_mask(text, starts)
    inside = np.zeros(len(text) + 1, dtype=bool)
    for a, b in quoted_spans(text):
        inside[a:b] = True
    assert (mask == inside).all()


_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
_OPENING = re.compile("[" + re.escape("".join(PAIRS)) + "]")


def _spans_by_the_rule(text: str, start: int, end: int, limit: int) -> list[tuple[int, int]]:
    """The rule, one paragraph and one opening mark at a time."""
    spans = []
    for paragraph in [*_PARAGRAPH_BREAK.finditer(text, start, end), None]:
        stop = paragraph.start() if paragraph else end
        at = start
        while (found := _OPENING.search(text, at, stop)) is not None:
            i = found.start()
            close = text.find(PAIRS[text[i]], i + 1, min(stop, i + limit + 1))
            if close == -1:
                at = i + 1
                continue
            spans.append((i, close + 1))
            at = close + 1
        start = paragraph.end() if paragraph else stop
    return spans


_MARKS = "".join(PAIRS) + "".join(PAIRS.values()) + "ab \t\n"


@given(
    st.lists(st.text(alphabet=_MARKS, max_size=60), min_size=1, max_size=5),
    st.lists(st.integers(0, 2), min_size=5, max_size=5),
    st.integers(1, 30),
)
@example(['"a" "b" "c" "d"'], [0] * 5, 30)
@example(['\n \n\n"a\n\t\n"', "“„a“b”"], [0, 1, 0, 0, 0], 3)
@example(['"a" ' * 20], [0] * 5, 30)
def test_spans_follow_the_rule_in_every_piece(texts, apart, limit):
    """Pieces adjacent or apart (``apart``: characters between), each read alone."""
    text, pieces = "", []
    for piece, gap in zip(texts, apart, strict=False):
        text += "x\n"[:gap]
        pieces.append((len(text), len(text) + len(piece)))
        text += piece
    expected = [span for lo, hi in pieces for span in _spans_by_the_rule(text, lo, hi, limit)]
    found = quotation_spans(code_points(text), pieces, limit)
    assert [tuple(span) for span in found.tolist()] == expected


def test_a_cited_sentence_is_not_reported_but_the_same_sentence_copied_is():
    prose = MODES["prose"].with_thresholds(min_length=40)
    source = Document("source", SOURCE, prose)
    cited = Document("cited", f'As the article puts it, "{SOURCE}" I agree with it.', prose)
    copied = Document("copied", f"As I see it, {SOURCE} I agree with it.", prose)
    assert compare(cited, source).passages == []
    assert len(compare(copied, source).passages) == 1


def test_code_mode_keeps_strings():
    assert MODES["code"].skip_quotations is False
