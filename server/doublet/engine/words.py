"""Word units: prose seen as a sequence of words instead of characters.

Words are the runs of folded letters and digits between dropped characters
(spaces, punctuation). Text without spaces (Chinese, Japanese) has no visible
word boundaries, so each CJK character is a word of its own here; the SimHash
measure segments Chinese with jieba instead, where real words matter.

A word's symbol is a 64-bit hash of its folded characters, computed for all
words at once with a positional sum (``np.add.reduceat``), not word by word.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from doublet.engine.chars import char_units, cjk_mask
from doublet.engine.hashing import mix64
from doublet.engine.units import Units


def word_boundaries(chars: Units) -> np.ndarray:
    """Index of the first character unit of every word, ascending."""
    n = len(chars)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    new_word = np.ones(n, dtype=bool)
    # A word continues while nothing but invisible joiners lies between two
    # characters (or both come from one character, as the two letters of "ß" do).
    new_word[1:] = chars.starts[1:] > chars.ends[:-1]
    cjk = cjk_mask(chars.symbols)
    new_word |= cjk
    new_word[1:] |= cjk[:-1]
    return np.flatnonzero(new_word)


def word_units(text: str) -> Units:
    """One unit per word, spanning the word in the original text."""
    return words_of(char_units(text))[0]


def words_of(chars: Units) -> tuple[Units, np.ndarray]:
    """Word units made of character units, and each word's first character.

    For callers that need a word's folded letters (``chars.symbols`` from
    ``first[i]`` to ``first[i + 1]``) as well as its symbol.
    """
    if len(chars) == 0:
        return Units.empty(chars.text_length), np.zeros(0, dtype=np.int64)
    first = word_boundaries(chars)
    lengths = np.diff(np.append(first, len(chars)))
    # each character's place in its word, counted in 64 bits and read as unsigned
    # (no negative value): no converted copies of the characters' arrays
    place = (np.arange(len(chars), dtype=np.int64) - np.repeat(first, lengths)).view(np.uint64)
    with np.errstate(over="ignore"):
        symbols = mix64(
            np.add.reduceat(_keyed(chars.symbols, place), first) + lengths.astype(np.uint64)
        )
    last = first + lengths - 1
    words = Units(symbols, chars.starts[first], chars.ends[last], chars.text_length)
    return words, first


#: Each character's key, ``mix64(symbol ^ place << 40)``, made once for the common
#: ones: symbols below _TABLE_SYMBOLS (folded ASCII letters and digits) at places
#: below _TABLE_PLACES in their word. A lookup is a tenth of the mixing.
_TABLE_SYMBOLS, _TABLE_PLACES = 128, 32
_KEYS = mix64(
    (np.arange(_TABLE_SYMBOLS, dtype=np.uint64)[:, None])
    ^ (np.arange(_TABLE_PLACES, dtype=np.uint64)[None, :] << np.uint64(40))
).ravel()


def _keyed(symbols: np.ndarray, place: np.ndarray) -> np.ndarray:
    """``mix64(symbols ^ place << 40)``: looked up where the table has it."""
    # the slots as signed: indexing with unsigned integers converts them first
    slot = (symbols * np.uint64(_TABLE_PLACES) + place).view(np.int64)
    common = (symbols < _TABLE_SYMBOLS) & (place < _TABLE_PLACES)
    if common.all():
        return _KEYS[slot]
    keyed = np.empty(symbols.shape[0], dtype=np.uint64)
    keyed[common] = _KEYS[slot[common]]
    rare = ~common
    keyed[rare] = mix64(symbols[rare] ^ (place[rare] << np.uint64(40)))
    return keyed


def word_strings(text: str) -> list[str]:
    """The folded words of ``text`` as strings (for measures that weigh words)."""
    chars = char_units(text)
    if len(chars) == 0:
        return []
    first = word_boundaries(chars)
    folded = "".join(map(chr, chars.symbols.tolist()))
    bounds = [*first.tolist(), len(chars)]
    return [folded[a:b] for a, b in pairwise(bounds)]
