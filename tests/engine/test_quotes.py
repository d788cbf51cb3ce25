"""Quotations are cited, not copied: no passage grows from text in quotation marks."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from doublet.engine.comparison import compare
from doublet.engine.document import Document
from doublet.engine.modes import MODES
from doublet.engine.quotes import MAX_QUOTE, quoted_mask, quoted_spans

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
    starts = np.arange(len(text), dtype=np.int64)
    mask = quoted_mask(text, starts)
    inside = np.zeros(len(text), dtype=bool)
    for a, b in quoted_spans(text):
        inside[a:b] = True
    assert (mask == inside).all()


def test_a_cited_sentence_is_not_reported_but_the_same_sentence_copied_is():
    prose = MODES["prose"].with_thresholds(min_length=40)
    source = Document("source", SOURCE, prose)
    cited = Document("cited", f'As the article puts it, "{SOURCE}" I agree with it.', prose)
    copied = Document("copied", f"As I see it, {SOURCE} I agree with it.", prose)
    assert compare(cited, source).passages == []
    assert len(compare(copied, source).passages) == 1


def test_code_mode_keeps_strings():
    assert MODES["code"].skip_quotations is False
