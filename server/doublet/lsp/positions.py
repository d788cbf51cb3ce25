"""Offsets and LSP positions: code points inside Doublet, the editor's units at its edge.

Doublet counts code points (Python string indices); LSP counts characters
within a line in the encoding negotiated at start-up: UTF-16 code units unless
the client prefers UTF-8 bytes or UTF-32 (code points). The counts differ only
on lines holding non-ASCII characters, so those lines alone pay for converting.
"""

from __future__ import annotations

import bisect
import re

from lsprotocol import types

_NEWLINE = re.compile("\n")


_WIDTHS = {"utf-8": "utf-8", "utf-16": "utf-16-le", "utf-32": None}


class LineIndex:
    """Converts between code-point offsets and (line, character) positions."""

    def __init__(self, text: str, encoding: str = "utf-16"):
        self.text = text
        self.codec = _WIDTHS.get(str(encoding), "utf-16-le")
        self.unit = 2 if self.codec == "utf-16-le" else 1
        self.starts = [0, *(m.end() for m in _NEWLINE.finditer(text))]

    def _line_end(self, line: int) -> int:
        """Offset just past the line's last character (before its newline)."""
        if line + 1 < len(self.starts):
            end = self.starts[line + 1] - 1
            if end > self.starts[line] and self.text[end - 1] == "\r":
                end -= 1
            return end
        return len(self.text)

    def position(self, offset: int) -> types.Position:
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(self.starts, offset) - 1
        start = self.starts[line]
        segment = self.text[start:offset]
        if segment.isascii() or self.codec is None:
            return types.Position(line=line, character=len(segment))
        width = len(segment.encode(self.codec, "surrogatepass")) // self.unit
        return types.Position(line=line, character=width)

    def offset(self, position: types.Position) -> int:
        """The code-point offset of a position; out-of-range positions are clamped."""
        line = max(0, min(position.line, len(self.starts) - 1))
        start, end = self.starts[line], self._line_end(line)
        if position.line >= len(self.starts):
            return len(self.text)
        units = max(0, position.character)
        segment = self.text[start:end]
        if segment.isascii() or self.codec is None:
            return start + min(units, len(segment))
        count = 0
        for i, ch in enumerate(segment):
            if count >= units:
                return start + i
            count += len(ch.encode(self.codec, "surrogatepass")) // self.unit
        return end

    def range(self, start: int, end: int) -> types.Range:
        return types.Range(start=self.position(start), end=self.position(end))
