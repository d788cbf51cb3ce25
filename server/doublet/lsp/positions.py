"""Offsets and LSP positions: code points inside Doublet, the editor's units at its edge.

Doublet counts code points (Python string indices); LSP counts characters
within a line in the encoding negotiated at start-up: UTF-16 code units unless
the client prefers UTF-8 bytes or UTF-32 (code points). The counts differ only
on lines holding non-ASCII characters, so those lines alone pay for converting.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

from lsprotocol import types
from pygls.workspace import TextDocument, Workspace

#: What ends a line in LSP: "\r\n", "\r" or "\n", and nothing else (not Python's
#: ``splitlines`` set: a form feed or U+2028 is a character of its line).
NEWLINE = re.compile("\r\n|\r|\n")


_WIDTHS = {"utf-8": "utf-8", "utf-16": "utf-16-le", "utf-32": None}


class LineIndex:
    """Converts between code-point offsets and (line, character) positions."""

    def __init__(self, text: str, encoding: str = "utf-16"):
        self.text = text
        self.codec = _WIDTHS.get(str(encoding), "utf-16-le")
        self.unit = 2 if self.codec == "utf-16-le" else 1
        breaks = list(NEWLINE.finditer(text))
        self.starts = [0, *(m.end() for m in breaks)]
        self._ends = [*(m.start() for m in breaks), len(text)]

    def _line_end(self, line: int) -> int:
        """Offset just past the line's last character (before its line break)."""
        return self._ends[line]

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


#: A line with its break, or the last line without one.
_LINE = re.compile("[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\\Z")
#: What ``str.splitlines`` ends a line at besides "\r\n", "\r" and "\n".
_PYTHON_ONLY_BREAKS = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


class LspTextDocument(TextDocument):
    """pygls's open document, with lines as LSP counts them. pygls splits them as
    Python's ``splitlines`` does, at a form feed, U+0085 or U+2028 too: an edit after
    one landed a line above where the editor made it, and the buffer was no longer
    the editor's text."""

    @property
    def lines(self) -> Sequence[str]:
        source = self.source
        if not any(mark in source for mark in _PYTHON_ONLY_BREAKS):  # the same lines, faster
            return tuple(source.splitlines(True))
        return tuple(_LINE.findall(source))


def use_lsp_lines(workspace: Workspace) -> None:
    """Have ``workspace`` (pygls's, made by ``initialize``) open documents as
    :class:`LspTextDocument`."""

    def create(doc_uri, source=None, version=None, language_id=None) -> TextDocument:
        return LspTextDocument(
            doc_uri,
            source=source,
            version=version,
            language_id=language_id,
            sync_kind=workspace._sync_kind,
            position_codec=workspace.position_codec,
        )

    workspace._create_text_document = create  # type: ignore[method-assign]
