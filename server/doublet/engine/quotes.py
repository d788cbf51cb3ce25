"""Quotations: text a writer marked as someone else's words.

A student who puts a sentence of a source between quotation marks is citing
it, not copying it, and prose checkers stay quiet about it. Matching therefore
takes no seeds inside quotation marks (passages may still run through a quote
that sits inside copied text). Quotes are found per paragraph, so an unclosed
mark cannot swallow the rest of a file, and only up to a length: a "quotation"
of several paragraphs is a copy with quotation marks around it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

#: Opening mark -> closing mark. Straight double quotes open and close alike.
PAIRS = {
    "\u201c": "\u201d",  # “ ”
    "\u201e": "\u201c",  # „ “ (German)
    "\u00ab": "\u00bb",  # « »
    "\u300c": "\u300d",  # 「 」
    "\u300e": "\u300f",  # 『 』
    '"': '"',
}
#: Longest span, in characters, still taken for a quotation.
MAX_QUOTE = 600

_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")


def quoted_spans(
    text: str, limit: int = MAX_QUOTE, start: int = 0, end: int | None = None
) -> list[tuple[int, int]]:
    """``[start, end)`` of every quotation in ``text`` (or in ``text[start:end]``), marks
    included."""
    spans = []
    end = len(text) if end is None else end
    for paragraph in [*_PARAGRAPH_BREAK.finditer(text, start, end), None]:
        stop = paragraph.start() if paragraph else end
        spans.extend(_spans_in(text, start, stop, limit))
        start = paragraph.end() if paragraph else stop
    return spans


_OPENING = re.compile("[" + re.escape("".join(PAIRS)) + "]")


def _spans_in(text: str, start: int, end: int, limit: int) -> list[tuple[int, int]]:
    spans = []
    at = start
    while True:
        found = _OPENING.search(text, at, end)
        if found is None:
            return spans
        i = found.start()
        stop = text.find(PAIRS[text[i]], i + 1, min(end, i + limit + 1))
        if stop == -1:
            at = i + 1
            continue
        spans.append((i, stop + 1))
        at = stop + 1


def quoted_mask(
    text: str, starts: np.ndarray, pieces: Sequence[tuple[int, int]] | None = None
) -> np.ndarray:
    """For units starting at ``starts`` (code-point offsets), whether each lies in a quotation.

    ``pieces``: the ``[start, end)`` of each document when ``text`` is several joined
    (engine/joined); quotations are looked for in each alone.
    """
    if pieces is None:
        spans = quoted_spans(text)
    else:
        spans = [span for lo, hi in pieces for span in quoted_spans(text, MAX_QUOTE, lo, hi)]
    if not spans:
        return np.zeros(starts.shape[0], dtype=bool)
    # spans never overlap: +1 where one opens, -1 where it closes, summed along the text
    bounds = np.array(spans, dtype=np.int64)
    marks = np.zeros(len(text) + 1, dtype=np.int8)
    marks[bounds[:, 0]] += 1
    marks[bounds[:, 1]] -= 1
    return np.cumsum(marks, dtype=np.int8)[starts] > 0
