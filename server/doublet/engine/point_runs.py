"""Character classes and runs over a text's code points, for rules written as regular
expressions but followed for every match in a batch of documents at once
(engine/sentences' sentence ends, engine/quotes' paragraphs): one match at a time,
the regular expression's Python loop cost more than the text's array work.
"""

from __future__ import annotations

import numpy as np


def table_of(characters: str) -> np.ndarray:
    """Whether each code point is one of ``characters``: a table one past the largest,
    so that any code point clipped to its end is not."""
    table = np.zeros(max(map(ord, characters)) + 2, dtype=bool)
    table[[ord(c) for c in characters]] = True
    return table


def in_table(table: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Whether each code point is in ``table`` (made by :func:`table_of`)."""
    return np.take(table, points, mode="clip")


def piece_ends_of(
    at: np.ndarray, piece_starts: np.ndarray, piece_ends: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """For positions ``at``, the end of the piece holding each (pieces ascending, never
    overlapping), and whether one holds it."""
    piece = np.searchsorted(piece_starts, at, side="right") - 1
    ends = np.append(piece_ends, 0)[piece]  # before every piece (-1): none holds it
    return ends, at < ends


#: Spaces and tabs: what lies between the two newlines of a blank line.
BLANK = table_of(" \t")

#: A run is followed one character at a time for one step per this many characters of
#: the text (at least two), then the rest are found by one pass over the text: a step
#: costs about what a pass over 4,096 characters does.
_CHARACTERS_A_STEP = 4096


def run_end(points: np.ndarray, table: np.ndarray, at: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """For each of ``at``, the first position from it where the code point is not in
    ``table``, at the latest its ``ends``.

    Runs after a full stop or a newline are short: they are followed a character
    at a time for all at once, and the few still going after a while by one pass
    over the text.
    """
    at = at.copy()
    going = np.flatnonzero(at < ends)
    for _ in range(max(2, points.shape[0] // _CHARACTERS_A_STEP)):
        if not going.shape[0]:
            return at
        going = going[in_table(table, points[at[going]])]
        at[going] += 1
        going = going[at[going] < ends[going]]
    if going.shape[0]:
        n = points.shape[0]
        where = np.where(np.append(in_table(table, points), False), n, np.arange(n + 1))
        after = np.minimum.accumulate(where[::-1])[::-1]
        at[going] = np.minimum(after[at[going]], ends[going])
    return at


def blank_lines(points: np.ndarray, lines: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Which of the newlines ``lines`` (ascending; ``ends``: where the piece holding each
    ends) begin a blank line, ``\\n[ \\t]*\\n``, as a regular expression finds them from
    the start of each piece: each pairs with the next newline, and in a run of blank
    lines the first newline pairs with the second, the third with the fourth."""
    following = run_end(points, BLANK, lines + 1, ends)
    linked = np.zeros(lines.shape[0], dtype=bool)
    linked[:-1] = (following[:-1] == lines[1:]) & (following[:-1] < ends[:-1])
    chain_begins = np.ones(lines.shape[0], dtype=bool)
    chain_begins[1:] = ~linked[:-1]
    number = np.arange(lines.shape[0])
    chain_first = np.maximum.accumulate(np.where(chain_begins, number, 0))
    return np.flatnonzero(linked & ((number - chain_first) % 2 == 0))
