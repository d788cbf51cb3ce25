"""Prose units: the characters a reader sees, folded so that disguises vanish.

A character is folded by Unicode NFKC (full-width and compatibility forms
become their plain form), case folding, and removal of the generic diacritics
of Latin, Greek and Cyrillic (so café, cafe and café with a combining accent
agree); what remains is kept if it is a letter, a digit or a script's own mark
(Devanagari vowel signs, Japanese voicing marks). Whitespace, punctuation
(Western, Chinese and full-width alike) and symbols are dropped, which is what
makes a copied passage match even when its line breaks, quotes or spacing
changed. Invisible characters (combining accents, soft hyphens, zero-width
spaces) are dropped too but count as part of the character before them, so
they neither split a word nor show in a unit's span as a gap. Chinese,
Japanese and Korean text needs nothing more: each character is one unit.

Folding is done with a per-code-point table filled lazily for the characters a
text actually uses, so a document is folded by array lookups, not a Python
loop per character.
"""

from __future__ import annotations

import threading
import unicodedata

import numpy as np

from doublet.engine.distinct import distinct
from doublet.engine.units import Units

_BMP = 0x10000
_UNSET = np.uint32(0xFFFFFFFF)
_EXPANDS = np.uint32(0xFFFFFFFE)  # folds to more than one character
_DROP = np.uint32(0)  # U+0000 never survives folding, so 0 can mean "dropped"
_JOIN = np.uint32(0xFFFFFFFD)  # dropped, but part of the character before it
_ASTRAL = _BMP  # table slot that marks "look this one up in the dict"

_lock = threading.Lock()
_table = np.full(_BMP + 1, _UNSET, dtype=np.uint32)
_expansions: dict[int, tuple[int, ...]] = {}
_astral: dict[int, tuple[int, ...]] = {}


_DIACRITIC_BLOCKS = (
    (0x0300, 0x036F),  # Combining Diacritical Marks
    (0x1AB0, 0x1AFF),  # ... Extended
    (0x1DC0, 0x1DFF),  # ... Supplement
    (0x20D0, 0x20FF),  # ... for Symbols
    (0xFE20, 0xFE2F),  # Combining Half Marks
)


def _is_diacritic(c: str) -> bool:
    cp = ord(c)
    return any(lo <= cp <= hi for lo, hi in _DIACRITIC_BLOCKS)


def fold_char(ch: str) -> str:
    """The folded form of one character: zero, one or a few letters, digits and marks."""
    folded = unicodedata.normalize("NFKC", ch).casefold()
    decomposed = unicodedata.normalize("NFD", folded)
    if any(_is_diacritic(c) for c in decomposed):
        kept = "".join(c for c in decomposed if not _is_diacritic(c))
        folded = unicodedata.normalize("NFC", kept)
    return "".join(c for c in folded if unicodedata.category(c)[0] in "LNM")


def is_joiner(ch: str) -> bool:
    """Invisible characters that belong to their neighbour: accents, soft hyphen, ZWSP."""
    return unicodedata.category(ch) in ("Mn", "Me", "Cf")


def fold_text(text: str) -> str:
    """Folded text as a string; for tests and for showing what matching sees."""
    return "".join(fold_char(c) for c in text)


def _fill(code_points: np.ndarray) -> None:
    """Compute table entries for BMP code points not seen before."""
    with _lock:
        for cp in distinct(code_points).tolist():
            folded = fold_char(chr(cp))
            if not folded:
                _table[cp] = _JOIN if is_joiner(chr(cp)) else _DROP
            elif len(folded) == 1:
                _table[cp] = ord(folded)
            else:
                _expansions[cp] = tuple(ord(c) for c in folded)
                _table[cp] = _EXPANDS


def _astral_fold(cp: int) -> tuple[int, ...]:
    folded = _astral.get(cp)
    if folded is None:
        folded = tuple(ord(c) for c in fold_char(chr(cp)))
        _astral[cp] = folded
    return folded


def code_points(text: str) -> np.ndarray:
    """The text as an array of code points (lone surrogates included)."""
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


def char_units(text: str) -> Units:
    """Fold ``text`` into one unit per surviving character."""
    cps = code_points(text)
    n = cps.shape[0]
    if n == 0:
        return Units.empty(0)
    astral = cps >= _BMP
    has_astral = bool(astral.any())
    # signed indices: numpy converts unsigned ones itself, at twice the cost of this
    index = (np.where(astral, _ASTRAL, cps) if has_astral else cps).astype(np.intp)
    folded = _table[index]
    unknown = folded == _UNSET
    if has_astral:
        unknown &= ~astral
    if unknown.any():
        _fill(cps[unknown])
        folded = _table[index]

    special = folded == _EXPANDS
    if has_astral:
        special |= astral
    joiners = folded == _JOIN
    if not special.any():
        keep = np.flatnonzero((folded != _DROP) & ~joiners)
        symbols = folded[keep].astype(np.uint64)
        starts = keep.astype(np.int64, copy=False)  # flatnonzero's own: no copy
    else:
        symbols, starts = _units_with_expansions(cps, folded, np.flatnonzero(special), joiners)
    return Units(symbols, starts, _ends(starts, joiners), n)


def _ends(starts: np.ndarray, joiners: np.ndarray) -> np.ndarray:
    """A unit ends where the next character that is not a joiner begins."""
    if not joiners.any():
        return starts + 1
    solid = np.flatnonzero(~joiners)
    following = np.searchsorted(solid, starts, side="right")
    return np.where(
        following < solid.shape[0],
        solid[np.minimum(following, solid.shape[0] - 1)],
        joiners.shape[0],
    )


def _units_with_expansions(
    cps: np.ndarray, folded: np.ndarray, special: np.ndarray, joiners: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Slow path for the rare characters that fold to several (ß, ﬁ) or live outside the BMP.

    Marks astral joiners (tag characters, variation selectors) in ``joiners``.
    """
    replacement: dict[int, tuple[int, ...]] = {}
    counts = ((folded != _DROP) & ~joiners).astype(np.int64)
    for pos in special.tolist():
        cp = int(cps[pos])
        parts = _astral_fold(cp) if cp >= _BMP else _expansions[cp]
        replacement[pos] = parts
        counts[pos] = len(parts)
        if not parts and is_joiner(chr(cp)):
            joiners[pos] = True
    origin = np.repeat(np.arange(cps.shape[0], dtype=np.int64), counts)
    symbols = np.repeat(folded.astype(np.uint64), counts)
    first = np.cumsum(counts) - counts
    for pos, parts in replacement.items():
        at = int(first[pos])
        symbols[at : at + len(parts)] = parts
    return symbols, origin


def is_cjk(cp: int) -> bool:
    """True for Han, kana and Hangul code points: scripts written without spaces."""
    return (
        0x3040 <= cp <= 0x30FF  # hiragana, katakana
        or 0x3400 <= cp <= 0x4DBF  # Han extension A
        or 0x4E00 <= cp <= 0x9FFF  # Han
        or 0xAC00 <= cp <= 0xD7AF  # Hangul syllables
        or 0xF900 <= cp <= 0xFAFF  # Han compatibility
        or 0x20000 <= cp <= 0x3FFFF  # Han extensions B and later
    )


def cjk_mask(symbols: np.ndarray) -> np.ndarray:
    """Vectorized :func:`is_cjk` over folded code points (the ranges are tested only
    where a symbol is at least U+3040, where the first begins: in Latin text, nowhere)."""
    mask = symbols >= 0x3040
    if mask.any():
        at = np.flatnonzero(mask)
        mask[at] = _in_cjk_ranges(symbols[at])
    return mask


def _in_cjk_ranges(s: np.ndarray) -> np.ndarray:
    return (
        ((s >= 0x3040) & (s <= 0x30FF))
        | ((s >= 0x3400) & (s <= 0x4DBF))
        | ((s >= 0x4E00) & (s <= 0x9FFF))
        | ((s >= 0xAC00) & (s <= 0xD7AF))
        | ((s >= 0xF900) & (s <= 0xFAFF))
        | ((s >= 0x20000) & (s <= 0x3FFFF))
    )


#: How many units one CJK character counts for in prose. A Chinese character
#: carries about as much as a short English word, so counting it three times
#: lets one set of thresholds serve English, Chinese and text that mixes them.
CJK_WEIGHT = 3


def weigh_cjk(units: Units, weight: int = CJK_WEIGHT) -> Units:
    """Repeat every CJK unit ``weight`` times (each copy a distinct symbol)."""
    if weight == 1 or len(units) == 0 or units.symbols.max() < 0x3040:
        return units
    cjk = cjk_mask(units.symbols)
    if not cjk.any():
        return units
    counts = np.where(cjk, weight, 1)
    index = np.repeat(np.arange(len(units)), counts)
    first = np.cumsum(counts) - counts
    copy = (np.arange(index.shape[0]) - first[index]).astype(np.uint64)
    symbols = units.symbols[index] | (copy << np.uint64(32))
    return Units(symbols, units.starts[index], units.ends[index], units.text_length)
