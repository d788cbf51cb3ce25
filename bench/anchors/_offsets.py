"""Convert Dolos selections (row, UTF-16 column) into code-point offsets.

Dolos runs in JavaScript, so its char tokenizer splits the text on "\\n" and
counts columns in UTF-16 code units; a character outside the Basic
Multilingual Plane is two columns (and two tokens) there but one index in a
Python string. Our passages are code-point offsets into the original text.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence

Selection = Sequence[int]  # (startRow, startCol, endRow, endCol), end exclusive


class LineIndex:
    """Row/UTF-16-column to code-point lookups for one text."""

    def __init__(self, text: str) -> None:
        self._lines = text.split("\n")  # same split as Dolos' CharTokenizer
        self._line_starts: list[int] = []
        start = 0
        for line in self._lines:
            self._line_starts.append(start)
            start += len(line) + 1
        self._units: dict[int, list[int]] = {}

    def _unit_starts(self, row: int) -> list[int]:
        """UTF-16 offset at which each code point of a line starts, plus its length."""
        cached = self._units.get(row)
        if cached is None:
            cached = [0]
            for ch in self._lines[row]:
                cached.append(cached[-1] + (2 if ord(ch) > 0xFFFF else 1))
            self._units[row] = cached
        return cached

    def start(self, row: int, col: int) -> int:
        """Code-point offset of UTF-16 unit `col` of `row`.

        Dolos tokens are UTF-16 units, so a match can begin on the second half
        of a surrogate pair; the start then moves past that character, keeping
        only whole characters that matched.
        """
        return self._line_starts[row] + _ceil_index(self._unit_starts(row), col)

    def end(self, row: int, col: int) -> int:
        """Code-point offset of exclusive end column `col` of `row`.

        An end inside a surrogate pair moves back before that character.
        """
        return self._line_starts[row] + _floor_index(self._unit_starts(row), col)

    def span(self, selection: Selection) -> tuple[int, int]:
        """[start, end) code-point offsets of a Dolos selection."""
        start_row, start_col, end_row, end_col = selection
        return self.start(start_row, start_col), self.end(end_row, end_col)


def _floor_index(units: list[int], col: int) -> int:
    """Index of the last code point starting at or before UTF-16 unit `col`."""
    return max(bisect_right(units, col) - 1, 0)


def _ceil_index(units: list[int], col: int) -> int:
    """Index of the first code point starting at or after UTF-16 unit `col`."""
    return min(bisect_left(units, col), len(units) - 1)
