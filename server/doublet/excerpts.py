"""How a passage is quoted and located for a person: one line of text, a line range.

Both adapters (the command line's reports, the editor's hover and lists) show
passages the same way, so they share these.
"""

from __future__ import annotations

import re
import unicodedata

JOINER = "\u2060"  # padding left by markup extraction; invisible, so never shown


def excerpt(text: str, start: int, end: int, width: int = 72) -> str:
    """The passage ``text[start:end]`` on one line, its middle elided when longer than
    ``width``; never between a letter and the accents written after it (decomposed
    text, NFD: "é" as "e" and U+0301), which would show another word."""
    flat = re.sub(r"\s+", " ", text[start:end].replace(JOINER, "")).strip()
    if len(flat) <= width:
        return flat
    head = _whole(flat, width * 3 // 5)
    tail = _whole(flat, len(flat) - (width - width * 3 // 5 - 3))
    return f"{flat[:head].rstrip()} … {flat[tail:].lstrip()}"


def _whole(flat: str, cut: int) -> int:
    """``cut`` moved past the accents that belong to the letter before it (a head keeps
    them; a tail starts at the next letter)."""
    while cut < len(flat) and unicodedata.combining(flat[cut]):
        cut += 1
    return cut


def line_of(text: str, offset: int) -> int:
    """1-based line number of a code-point offset."""
    return text.count("\n", 0, offset) + 1


def line_range(text: str, start: int, end: int) -> tuple[int, int]:
    """1-based lines of the first and last character of ``text[start:end]``."""
    first = line_of(text, start)
    return first, first + text.count("\n", start, max(start, end - 1))


def lines_label(first: int, last: int) -> str:
    """ "line 4" or "lines 4–9"."""
    return f"line {first}" if first == last else f"lines {first}–{last}"
