"""Code units: lexer tokens with the parts a copier changes cheaply made equal.

Source is tokenized by a Pygments lexer chosen from the file name. Layout and
comments disappear, every identifier becomes ``N``, every string ``S``, every
number ``0``; keywords, builtins, operators and punctuation stay as written. A
renamed, re-indented and re-commented copy therefore has the same units as its
original. Comments can be kept (as words) for courses where copied comments are
evidence.
"""

from __future__ import annotations

import re
from functools import lru_cache

import numpy as np
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.token import (
    Comment,
    Error,
    Keyword,
    Literal,
    Name,
    Operator,
    Punctuation,
    String,
    Text,
)
from pygments.util import ClassNotFound

from doublet.engine.hashing import salt_of
from doublet.engine.units import Units

_WORD = re.compile(r"\w+")

#: File extensions treated as code when the mode is chosen automatically.
CODE_EXTENSIONS = frozenset(
    [
        ".py",
        ".pyw",
        ".java",
        ".c",
        ".h",
        ".cc",
        ".cpp",
        ".cxx",
        ".hpp",
        ".hh",
        ".cs",
        ".js",
        ".mjs",
        ".cjs",
        ".ts",
        ".tsx",
        ".jsx",
        ".go",
        ".rs",
        ".rb",
        ".php",
        ".swift",
        ".kt",
        ".kts",
        ".scala",
        ".m",
        ".mm",
        ".r",
        ".jl",
        ".lua",
        ".pl",
        ".pm",
        ".sh",
        ".bash",
        ".zsh",
        ".ps1",
        ".hs",
        ".ml",
        ".mli",
        ".fs",
        ".fsx",
        ".clj",
        ".ex",
        ".exs",
        ".erl",
        ".dart",
        ".vb",
        ".sql",
        ".asm",
        ".s",
        ".f",
        ".f90",
        ".pas",
        ".ada",
        ".adb",
        ".groovy",
        ".v",
        ".sv",
        ".vhd",
        ".scm",
        ".lisp",
        ".el",
        ".nim",
        ".zig",
        ".sol",
    ]
)


class UnknownLanguage(ValueError):
    """No lexer is known for a file name or language name."""


@lru_cache(maxsize=256)
def lexer_for(filename: str | None = None, language: str | None = None) -> Lexer:
    """A lexer by language name, else by file name; raises UnknownLanguage."""
    options = {"stripnl": False, "stripall": False, "ensurenl": False, "tabsize": 0}
    try:
        if language:
            return get_lexer_by_name(language, **options)
        if filename:
            return get_lexer_for_filename(filename, **options)
    except ClassNotFound as exc:
        raise UnknownLanguage(str(exc)) from exc
    raise UnknownLanguage("no file name or language given")


@lru_cache(maxsize=65536)
def _symbol(token: str) -> int:
    return salt_of(token)


def _normal_form(ttype, value: str) -> str | None:
    """What a token contributes, or None when it is layout."""
    if ttype in Literal.String or ttype in Literal.String.Doc:
        return "S"
    if ttype in Literal.Number:
        return "0"
    if ttype in Literal:
        return "L"
    if ttype in Name.Builtin or ttype in Keyword:
        return value.strip()
    if ttype in Name:
        return "N"
    stripped = value.strip()
    if ttype in Text and not stripped.strip("\\"):
        return None  # a line continuation is layout
    return stripped or None


def code_units(
    text: str,
    filename: str | None = None,
    language: str | None = None,
    keep_comments: bool = False,
) -> Units:
    """Normalized tokens of ``text`` with their spans in the original text."""
    lexer = lexer_for(filename, language)
    symbols: list[int] = []
    starts: list[int] = []
    ends: list[int] = []
    last_was_string = False
    interpolation = 0  # depth inside "{...}" of an f-string or template literal
    for index, ttype, value in lexer.get_tokens_unprocessed(text):
        if not value:
            continue
        if ttype in String.Interpol:
            interpolation = max(0, interpolation + value.count("{") - value.count("}"))
        elif interpolation:
            ends[-1] = index + len(value)  # code inside a string is part of the string
            continue
        if ttype in Comment and ttype not in Comment.Preproc and ttype not in Comment.PreprocFile:
            last_was_string = False
            if keep_comments:
                for word in _WORD.finditer(value):
                    symbols.append(_symbol("#" + word.group().casefold()))
                    starts.append(index + word.start())
                    ends.append(index + word.end())
            continue
        if ttype in Text and value.isspace():
            continue
        form = _normal_form(ttype, value)
        if form is None:
            continue
        # A string literal is several tokens (quotes, body, escapes): one unit.
        if form == "S" and last_was_string:
            ends[-1] = index + len(value)
            continue
        last_was_string = form == "S"
        if ttype in Punctuation or ttype in Error:
            # Split runs such as "));" so that spacing inside them never matters.
            for offset, ch in enumerate(value):
                if not ch.isspace():
                    symbols.append(_symbol(ch))
                    starts.append(index + offset)
                    ends.append(index + offset + 1)
            continue
        lead = len(value) - len(value.lstrip())
        symbols.append(_symbol(form if ttype not in Operator else value.strip()))
        starts.append(index + lead)
        ends.append(index + len(value.rstrip()))
    if not symbols:
        return Units.empty(len(text))
    return Units(
        np.array(symbols, dtype=np.uint64),
        np.array(starts, dtype=np.int64),
        np.array(ends, dtype=np.int64),
        len(text),
    )
