"""Ignore marks: comments in a file that take part of it out of matching.

Text everyone may share (a licence, a function the assignment hands out, a quoted
test case) can be marked where it stands, as linters and copy detectors let a
programmer do (jscpd's ``jscpd:ignore-start``): ``doublet: ignore-start`` and
``doublet: ignore-end`` leave out the lines from the first mark's through the
second's, and ``doublet: ignore-line`` its own line. The marks are found as
words, inside any comment syntax (``#``, ``//``, ``<!-- -->``, ``%``) or in
plain text; a start without an end runs to the end of the file, an end without a
start leaves out only its own line.

Left-out text is blanked (spaces, line breaks kept), so every offset into the
file stays as it was: nothing in it matches, and passages are placed as before.
"""

from __future__ import annotations

import re

#: A mark: its kind is the group.
MARK = re.compile(r"doublet:[ \t]*ignore-(start|end|line)\b")
_NOT_LINE_BREAK = re.compile(r"[^\n]")


def ignored_spans(text: str) -> list[tuple[int, int]]:
    """``[start, end)`` of every part of ``text`` the marks leave out, in order, disjoint."""
    if "doublet:" not in text:  # the common case, without a regular expression
        return []
    spans: list[tuple[int, int]] = []
    opened: int | None = None
    for mark in MARK.finditer(text):
        line_start = text.rfind("\n", 0, mark.start()) + 1
        line_end = text.find("\n", mark.end())
        line_end = len(text) if line_end == -1 else line_end
        kind = mark.group(1)
        if kind == "start":
            opened = line_start if opened is None else opened
        elif kind == "end" and opened is not None:
            spans.append((opened, line_end))
            opened = None
        elif opened is None:  # ignore-line, or an end that closes nothing
            spans.append((line_start, line_end))
    if opened is not None:
        spans.append((opened, len(text)))
    return _merged(spans)


def without_ignored(text: str) -> str:
    """``text`` with what the marks leave out blanked (the same length, the same lines)."""
    spans = ignored_spans(text)
    if not spans:
        return text
    parts, at = [], 0
    for start, end in spans:
        parts.append(text[at:start])
        parts.append(_NOT_LINE_BREAK.sub(" ", text[start:end]))
        at = end
    parts.append(text[at:])
    return "".join(parts)


def keep_marks(original: str, masked: str) -> str:
    """``masked`` (``original`` with markup blanked in place) with the marks put back,
    so that a mark written in a markup comment (``<!-- doublet: ignore-start -->``)
    still counts."""
    if "doublet:" not in original or len(original) != len(masked):
        return masked
    parts, at = [], 0
    for mark in MARK.finditer(original):
        parts.append(masked[at : mark.start()])
        parts.append(mark.group(0))
        at = mark.end()
    parts.append(masked[at:])
    return "".join(parts)


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged
