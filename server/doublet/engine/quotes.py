"""Quotations: text a writer marked as someone else's words.

A student who puts a sentence of a source between quotation marks is citing
it, not copying it, and prose checkers stay quiet about it. Matching therefore
takes no seeds inside quotation marks (passages may still run through a quote
that sits inside copied text). Quotes are found per paragraph, so an unclosed
mark cannot swallow the rest of a file, and only up to a length: a "quotation"
of several paragraphs is a copy with quotation marks around it.

The rule is a scan from the start of each paragraph: take the next opening
mark; if its closing mark follows within the paragraph and the length, that is
a quotation and the scan goes on after it, else it goes on after the opening
mark. ``quotation_spans`` follows it in every paragraph of every document of a
batch at once with array operations: a novel has a quotation every few hundred
characters, and one regular-expression match at a time cost a twentieth of
indexing it (tests hold the two ways to each other).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from doublet.engine.chars import code_points
from doublet.engine.point_runs import blank_lines, piece_ends_of

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

#: The quotation marks: each one's number (1 up; 0: none) by code point, with a last
#: slot that any larger code point is clipped to.
_MARKS = sorted(set(PAIRS) | set(PAIRS.values()))
assert all(mark == '"' or mark > "\xaa" for mark in _MARKS)  # what quotation_spans looks at
_MARK_NUMBER = np.zeros(max(map(ord, _MARKS)) + 2, dtype=np.int8)
_MARK_NUMBER[[ord(mark) for mark in _MARKS]] = np.arange(1, len(_MARKS) + 1)
#: By mark number: its closing mark's number if it opens a quotation, else 0.
_CLOSED_BY = np.zeros(len(_MARKS) + 1, dtype=np.int8)
_CLOSED_BY[[_MARKS.index(o) + 1 for o in PAIRS]] = [_MARKS.index(c) + 1 for c in PAIRS.values()]


def quoted_spans(
    text: str, limit: int = MAX_QUOTE, start: int = 0, end: int | None = None
) -> list[tuple[int, int]]:
    """``[start, end)`` of every quotation in ``text`` (or in ``text[start:end]``), marks
    included."""
    end = len(text) if end is None else end
    spans = quotation_spans(code_points(text), [(start, end)], limit)
    return [(a, b) for a, b in spans.tolist()]


def quotation_spans(
    points: np.ndarray, pieces: Sequence[tuple[int, int]], limit: int = MAX_QUOTE
) -> np.ndarray:
    """``[start, end)`` of every quotation in the ``pieces`` (ascending, never
    overlapping ``[start, end)``) of a text given as code points, a row each, in
    order; each piece is read as if it were alone."""
    piece_starts = np.array([lo for lo, _ in pieces], dtype=np.int64)
    piece_ends = np.array([hi for _, hi in pieces], dtype=np.int64)
    # every quotation mark inside a piece: '"' or past U+00AA (two comparisons cost less
    # than a lookup of every character)
    at = np.flatnonzero((points == 0x22) | (points > 0xAA))
    at = at[np.take(_MARK_NUMBER, points[at], mode="clip") > 0]
    ends, inside = piece_ends_of(at, piece_starts, piece_ends)
    at, ends = at[inside], ends[inside]
    number = _MARK_NUMBER[points[at]]
    opens = _CLOSED_BY[number] > 0
    opening, closed_by = at[opens], _CLOSED_BY[number[opens]]
    if not opening.shape[0]:
        return np.zeros((0, 2), dtype=np.int64)
    # where each opening mark's paragraph ends
    breaks = _paragraph_breaks(points, piece_starts, piece_ends)
    stops = np.minimum(
        ends[opens],
        np.append(breaks, points.shape[0])[np.searchsorted(breaks, opening, side="right")],
    )
    # each opening mark's closing mark: the first one after it, if within both limits
    closing = np.full(opening.shape[0], -1, dtype=np.int64)
    for mark in np.unique(closed_by).tolist():
        mine = np.flatnonzero(closed_by == mark)
        marks = np.append(at[number == mark], points.shape[0])
        found = marks[np.searchsorted(marks, opening[mine], side="right")]
        within = found < np.minimum(stops[mine], opening[mine] + limit + 1)
        closing[mine[within]] = found[within]
    # the scan's path: from each paragraph's first opening mark, the next one after the
    # quotation (or after the mark, if it opens none), while in the paragraph
    count = opening.shape[0]
    resume = np.where(closing >= 0, closing + 1, opening + 1)
    after = np.searchsorted(opening, resume, side="left")
    same = after < count
    same[same] = opening[after[same]] < stops[same]
    successor = np.append(np.where(same, after, count), count)  # count: the end of a path
    first = np.ones(count + 1, dtype=bool)  # a paragraph's first opening mark
    first[1:count] = stops[1:] != stops[:-1]
    first[count] = False
    taken = _on_paths(first, successor)[:count]
    chosen = taken & (closing >= 0)
    return np.stack([opening[chosen], closing[chosen] + 1], axis=1)


def _paragraph_breaks(
    points: np.ndarray, piece_starts: np.ndarray, piece_ends: np.ndarray
) -> np.ndarray:
    """Where each blank line that ends a paragraph begins, in every piece."""
    lines = np.flatnonzero(points == 0x0A)
    ends, inside = piece_ends_of(lines, piece_starts, piece_ends)
    lines, ends = lines[inside], ends[inside]
    return lines[blank_lines(points, lines, ends)]


def _on_paths(starts: np.ndarray, successor: np.ndarray) -> np.ndarray:
    """Which nodes lie on a path from a node of ``starts``, following ``successor``
    (each node's next, always later; the last node is the end, its own successor):
    the nodes reached in fewer than 2^j steps, for j = 0, 1, 2, ... (pointer jumping)."""
    reached = starts.copy()
    end = successor.shape[0] - 1
    jump = successor
    while True:
        reached[jump[reached]] = True
        if (jump == end).all():
            return reached
        jump = jump[jump]


def quoted_mask(
    text: str, starts: np.ndarray, pieces: Sequence[tuple[int, int]] | None = None
) -> np.ndarray:
    """For units starting at ``starts`` (code-point offsets), whether each lies in a quotation.

    ``pieces``: the ``[start, end)`` of each document when ``text`` is several joined
    (engine/joined); quotations are looked for in each alone.
    """
    spans = quotation_spans(code_points(text), [(0, len(text))] if pieces is None else pieces)
    if not spans.shape[0]:
        return np.zeros(starts.shape[0], dtype=bool)
    # spans come in order and never overlap: the text is runs outside and inside them
    bounds = np.concatenate([[0], spans.ravel(), [len(text) + 1]])
    inside = np.zeros(bounds.shape[0] - 1, dtype=bool)
    inside[1::2] = True
    return np.repeat(inside, np.diff(bounds))[starts]
