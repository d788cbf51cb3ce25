"""Offsets and LSP positions: code points inside Doublet, UTF-16 at the editor's edge.

Doublet counts code points (Python string indices); LSP counts UTF-16 code
units within a line. They differ only on lines holding characters outside the
Basic Multilingual Plane (emoji, rare CJK), so those lines alone pay for the
conversion.
"""

from __future__ import annotations

import bisect
import re

from lsprotocol import types

_NEWLINE = re.compile("\n")


class LineIndex:
    """Converts between code-point offsets and (line, UTF-16 character) positions."""

    def __init__(self, text: str):
        self.text = text
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
        if segment.isascii():
            return types.Position(line=line, character=len(segment))
        return types.Position(line=line, character=len(segment.encode("utf-16-le")) // 2)

    def offset(self, position: types.Position) -> int:
        """The code-point offset of a position; out-of-range positions are clamped."""
        line = max(0, min(position.line, len(self.starts) - 1))
        start, end = self.starts[line], self._line_end(line)
        if position.line >= len(self.starts):
            return len(self.text)
        units = max(0, position.character)
        segment = self.text[start:end]
        if segment.isascii():
            return start + min(units, len(segment))
        count = 0
        for i, ch in enumerate(segment):
            if count >= units:
                return start + i
            count += 2 if ord(ch) > 0xFFFF else 1
        return end

    def range(self, start: int, end: int) -> types.Range:
        return types.Range(start=self.position(start), end=self.position(end))
