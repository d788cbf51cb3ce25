"""Code units: lexer tokens with the parts a copier changes cheaply made equal.

Source is tokenized by a Pygments lexer chosen from the file name. Layout and
comments disappear, every identifier becomes ``N``, every string ``S``, every
number ``0``; keywords, builtins, operators and punctuation stay as written,
except that mirrored comparisons count as one (``a > b`` is ``b < a``). A
renamed, re-indented and re-commented copy therefore has the same units as its
original; statements inserted or moved cut a passage into pieces that the
alignment joins again when they are close (engine/passages). What the units
drop, the lexicon keeps (literals and names), for engine/resemblance.
Comments can be kept (as words) for courses where copied comments are evidence.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

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

#: The Pygments lexer (by its alias) of each file extension treated as code when the
#: mode is chosen automatically (compared lower-case). Naming the lexer is 50 times
#: cheaper than Pygments' search of every lexer's file patterns, and settles the
#: extensions several languages claim for the common one: Perl for .pl and .pm (not
#: Prolog, Promela), R for .r (not REBOL), SQL for .sql, F# for .fs (not Forth).
LEXER_BY_EXTENSION: dict[str, str] = {
    ".ada": "ada",
    ".adb": "ada",
    ".asm": "nasm",
    ".bash": "bash",
    ".c": "c",
    ".cc": "cpp",
    ".cjs": "javascript",
    ".clj": "clojure",
    ".cpp": "cpp",
    ".cs": "csharp",
    ".cxx": "cpp",
    ".dart": "dart",
    ".el": "emacs-lisp",
    ".erl": "erlang",
    ".ex": "elixir",
    ".exs": "elixir",
    ".f": "fortranfixed",
    ".f90": "fortran",
    ".fs": "fsharp",
    ".fsx": "fsharp",
    ".go": "go",
    ".groovy": "groovy",
    ".h": "c",
    ".hh": "cpp",
    ".hpp": "cpp",
    ".hs": "haskell",
    ".java": "java",
    ".jl": "julia",
    ".js": "javascript",
    ".jsx": "jsx",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".lisp": "common-lisp",
    ".lua": "lua",
    ".m": "objective-c",
    ".mjs": "javascript",
    ".ml": "ocaml",
    ".mli": "ocaml",
    ".mm": "objective-c++",
    ".nim": "nimrod",
    ".pas": "delphi",
    ".php": "php",
    ".pl": "perl",
    ".pm": "perl",
    ".ps1": "powershell",
    ".py": "python",
    ".pyw": "python",
    ".r": "splus",
    ".rb": "ruby",
    ".rs": "rust",
    ".s": "gas",
    ".scala": "scala",
    ".scm": "scheme",
    ".sh": "bash",
    ".sol": "solidity",
    ".sql": "sql",
    ".sv": "systemverilog",
    ".swift": "swift",
    ".ts": "typescript",
    ".tsx": "tsx",
    ".v": "verilog",
    ".vb": "vb.net",
    ".vhd": "vhdl",
    ".zig": "zig",
    ".zsh": "bash",
}
CODE_EXTENSIONS = frozenset(LEXER_BY_EXTENSION)


@dataclass(frozen=True)
class Lexicon:
    """What a program says in its own words: literals and names, as 64-bit hashes.

    The code units make these all equal (``S``, ``0``, ``N``) so that renaming
    cannot hide a copy; the lexicon keeps them for the opposite question —
    whether two programs that look alike in structure also print the same
    messages and use the same constants and names (engine/resemblance.py).
    """

    literals: np.ndarray  # string contents (escapes and outer spaces dropped) and numbers
    names: np.ndarray  # identifiers other than builtins, keywords and the file's own name


class UnknownLanguage(ValueError):
    """No lexer is known for a file name or language name."""


_LEXER_OPTIONS = {"stripnl": False, "stripall": False, "ensurenl": False, "tabsize": 0}


def lexer_for(filename: str | None = None, language: str | None = None) -> Lexer:
    """A lexer by language name, else by file name; raises UnknownLanguage."""
    if language:
        return _lexer_named(language)
    if filename:
        alias = LEXER_BY_EXTENSION.get(os.path.splitext(filename)[1].lower())
        return _lexer_named(alias) if alias else _lexer_of_filename(os.path.basename(filename))
    raise UnknownLanguage("no file name or language given")


@lru_cache(maxsize=256)
def _lexer_named(language: str) -> Lexer:
    try:
        return get_lexer_by_name(language, **_LEXER_OPTIONS)
    except ClassNotFound as exc:
        raise UnknownLanguage(str(exc)) from exc


@lru_cache(maxsize=256)
def _lexer_of_filename(filename: str) -> Lexer:
    try:
        return get_lexer_for_filename(filename, **_LEXER_OPTIONS)
    except ClassNotFound as exc:
        raise UnknownLanguage(str(exc)) from exc


@lru_cache(maxsize=2)
def _tokens(text: str, lexer: Lexer) -> tuple[tuple[int, Any, str], ...]:
    """The lexer's tokens of ``text``: kept for the last two texts, because a code
    document's units and its lexicon are read from the same tokens, and lexing is
    most of what either costs."""
    return tuple(lexer.get_tokens_unprocessed(text))


#: Operators with a mirror image: ``a > b`` is ``b < a``, and every name is ``N``,
#: so the comparisons count as one.
MIRRORED = {">": "<", ">=": "<="}


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
    tokens = _tokens(text, lexer_for(filename, language))
    symbols: list[int] = []
    starts: list[int] = []
    ends: list[int] = []
    last_was_string = False
    interpolation = 0  # depth inside "{...}" of an f-string or template literal
    for index, ttype, value in tokens:
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
        operator = value.strip()
        symbols.append(_symbol(form if ttype not in Operator else MIRRORED.get(operator, operator)))
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


#: Literals every program has say nothing about who wrote it: strings shorter
#: than this ("", " ", "r", ", ") and the commonest numbers.
MIN_LITERAL = 3
COMMON_NUMBERS = frozenset(["0", "1", "2", "-1", "0.0", "1.0", "10", "100"])

_ESCAPE = re.compile(r"\\(?:u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|[0-7]{1,3}|.)")
_QUOTES = "\"'`"


def _literal_text(value: str) -> str:
    """A string literal's words as written, without quotes, escapes and outer spaces."""
    return " ".join(_ESCAPE.sub(" ", value.strip(_QUOTES)).split())


def code_lexicon(text: str, filename: str | None = None, language: str | None = None) -> Lexicon:
    """The literals and names of ``text`` (one pass of the lexer).

    A name that is the file's own (``T01`` in ``T01.java``) is left out: Java
    makes a public class bear its file's name, and the file's name is what the
    exercise or the hand-in system asked for, so two files of one name share
    that identifier whoever wrote them (in IR-Plag, 12 independent solutions
    of one exercise are all ``class T01``, while renamed copies must rename it).
    """
    literals: list[int] = []
    names: list[int] = []
    own = os.path.splitext(os.path.basename(filename))[0] if filename else None
    string: list[str] = []  # the parts of the string literal being read

    def end_string() -> None:
        words = _literal_text("".join(string))
        if len(words) >= MIN_LITERAL:
            literals.append(_symbol("S" + words))
        string.clear()

    for _, ttype, value in _tokens(text, lexer_for(filename, language)):
        if ttype in String.Affix:
            continue  # the f of f"...", the b of b"..."
        if ttype in String and ttype not in String.Doc:
            string.append(value)
            continue
        if string:
            end_string()
        if ttype in Literal.Number:
            number = value.strip().lower()
            if number not in COMMON_NUMBERS:
                literals.append(_symbol("0" + number))
        elif ttype in Name and ttype not in Name.Builtin:
            name = value.strip()
            if name != own:
                names.append(_symbol("N" + name))
    if string:
        end_string()
    return Lexicon(np.array(literals, dtype=np.uint64), np.array(names, dtype=np.uint64))
