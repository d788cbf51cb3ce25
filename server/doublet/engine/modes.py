"""Modes: how a kind of text is cut into units, and the thresholds that suit it.

A mode names a normalization and default thresholds in its own units. The user
speaks in two lengths, as the winnowing paper does: the *noise* threshold (a
shared run shorter than this is coincidence) and the *guarantee* threshold (a
shared run at least this long is always found). The k-gram length and window
follow: k = noise, w = guarantee - noise + 1.

Documents are only compared with documents of the same mode: the mode's name
salts every hash, so fingerprints of different modes never meet.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, fields, replace
from functools import cached_property
from typing import Any

from doublet.engine.chars import char_units, weigh_cjk
from doublet.engine.code import (
    CODE_EXTENSIONS,
    Lexicon,
    UnknownLanguage,
    code_lexicon,
    code_units,
    lexer_for,
)
from doublet.engine.hashing import salt_of
from doublet.engine.passages import AlignOptions
from doublet.engine.units import Units
from doublet.engine.words import words_of


@dataclass(frozen=True)
class Mode:
    """A normalization with its thresholds, all lengths counted in units."""

    name: str
    unit: str  # what one unit is, for messages: "characters", "words", "tokens"
    noise: int  # k: shared runs shorter than this are ignored
    guarantee: int  # t: shared runs this long are always found
    min_length: int  # shortest passage reported
    gap: int  # largest gap bridged inside one passage
    anchor: int  # a passage must contain an exact run this long ...
    min_seeds: int  # ... and this many distinct shared fingerprints
    min_score: float = 0.2  # ... and this share of it must lie in exact runs
    keep_comments: bool = False
    skip_quotations: bool = True  # text in quotation marks is cited, not copied
    paraphrase: bool = True  # the paraphrase stage: sentences compared too (engine/paraphrase)
    lexical: bool = False  # literals and names are evidence too (engine/resemblance)

    def __post_init__(self) -> None:
        if self.noise < 1:
            raise ValueError(f"noise threshold must be at least 1 {self.unit}")
        if self.guarantee < self.noise:
            raise ValueError(
                f"guarantee threshold ({self.guarantee}) must be at least the noise "
                f"threshold ({self.noise})"
            )
        if self.min_length < 1:
            raise ValueError("minimum passage length must be at least 1")

    @property
    def k(self) -> int:
        return self.noise

    @property
    def window(self) -> int:
        return self.guarantee - self.noise + 1

    @cached_property
    def salt(self) -> int:
        """Names the normalization; k is mixed into every k-gram hash as well."""
        return salt_of(f"doublet/{self.name}/{self.keep_comments}")

    @cached_property
    def key_params(self) -> tuple:
        """Everything besides the text that decides a document's keys in the index."""
        return (
            self.name,
            self.k,
            self.window,
            self.keep_comments,
            self.skip_quotations,
            self.paraphrase,
        )

    @property
    def alignment(self) -> AlignOptions:
        return AlignOptions(
            k=self.k,
            window=self.window,
            gap=self.gap,
            min_length=self.min_length,
            anchor=min(self.anchor, self.min_length),
            min_score=self.min_score,
            min_seeds=self.min_seeds,
        )

    def as_data(self) -> dict[str, Any]:
        """The mode as plain values (the saved index keeps each document's mode)."""
        return asdict(self)

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Mode:
        """A mode from :meth:`as_data`; ValueError if the values do not make one."""
        names = {f.name for f in fields(cls)}
        if not isinstance(data, Mapping) or set(data) != names:
            raise ValueError(f"not a mode: {data!r:.80}")
        try:
            return cls(**data)
        except TypeError as exc:
            raise ValueError(f"not a mode: {exc}") from None

    def with_thresholds(
        self,
        noise: int | None = None,
        guarantee: int | None = None,
        min_length: int | None = None,
        gap: int | None = None,
    ) -> Mode:
        """A copy with some thresholds changed; the guarantee follows a raised noise."""
        noise = self.noise if noise is None else noise
        if guarantee is None:
            guarantee = max(self.guarantee, noise)
        return replace(
            self,
            noise=noise,
            guarantee=guarantee,
            min_length=self.min_length if min_length is None else min_length,
            gap=self.gap if gap is None else gap,
        )

    def units(self, text: str, filename: str | None = None, chars: Units | None = None) -> Units:
        """Cut ``text`` into this mode's units (``chars``: its character units, if made)."""
        return _NORMALIZERS[self.name](text, filename, self, chars)

    def cuts_alike(self, name_a: str, name_b: str) -> bool:
        """Whether one text is cut into the same units under both file names: always,
        but in the code mode, whose lexer the file's name chooses (engine/code)."""
        return self.units_from_chars or _lexer_of(name_a) == _lexer_of(name_b)

    @property
    def units_from_chars(self) -> bool:
        """Whether this mode's units are made of character units alone (not of tokens),
        so that documents can be cut up together (engine/joined)."""
        return self.name in _FROM_CHARS

    def lexicon(self, text: str, filename: str | None = None) -> Lexicon:
        """The literals and names of ``text``, for modes that are ``lexical``."""
        if not self.lexical:
            raise ValueError(f"the {self.name} mode keeps no lexicon")
        return code_lexicon(text, filename=filename)


def _chars(text: str, filename: str | None, mode: Mode, chars: Units | None) -> Units:
    return weigh_cjk(char_units(text) if chars is None else chars)


def _words(text: str, filename: str | None, mode: Mode, chars: Units | None) -> Units:
    return words_of(char_units(text) if chars is None else chars)[0]


def _code(text: str, filename: str | None, mode: Mode, chars: Units | None) -> Units:
    return code_units(text, filename=filename, keep_comments=mode.keep_comments)


def _lexer_of(filename: str) -> type | None:
    """The class of the lexer a file's name chooses (None: none is known for it)."""
    try:
        return type(lexer_for(filename))
    except UnknownLanguage:
        return None


_FROM_CHARS = frozenset({"prose", "words"})
_NORMALIZERS: dict[str, Callable[[str, str | None, Mode, Units | None], Units]] = {
    "prose": _chars,
    "words": _words,
    "code": _code,
}

#: The built-in modes with their default thresholds.
MODES: dict[str, Mode] = {
    "prose": Mode(
        "prose",
        "characters",
        noise=12,
        guarantee=24,
        min_length=80,
        gap=200,
        anchor=16,
        min_seeds=5,
    ),
    "words": Mode(
        "words", "words", noise=3, guarantee=6, min_length=15, gap=40, anchor=4, min_seeds=4
    ),
    "code": Mode(
        "code",
        "tokens",
        noise=12,
        guarantee=24,
        min_length=40,
        gap=30,
        anchor=16,
        min_seeds=3,
        skip_quotations=False,
        paraphrase=False,
        lexical=True,
    ),
}

MODE_NAMES = tuple(MODES)


def mode_by_name(name: str) -> Mode:
    try:
        return MODES[name]
    except KeyError:
        raise ValueError(f"unknown mode {name!r}; choose one of {', '.join(MODES)}") from None


def detect_mode_name(filename: str | None) -> str:
    """The mode a file gets when none is asked for: code by extension, else prose.

    Prose covers Chinese, Japanese and Korean too (one character each, weighted),
    so a document that mixes scripts still matches documents in either script.
    """
    if filename and _suffix(filename).lower() in CODE_EXTENSIONS:
        return "code"
    return "prose"


def _suffix(filename: str) -> str:
    """The file name's extension as ``PurePath.suffix`` gives it (a leading dot is no
    extension), without a PurePath: a refresh asks it of every file."""
    name = filename.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return name[dot:] if 0 < dot < len(name) - 1 else ""
