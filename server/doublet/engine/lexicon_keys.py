"""Lexicon keys: how the index finds programs that say the same things.

A copier who moves methods about, rewrites loops and flips conditions leaves
no passage that fingerprints can find, but rarely rewrites what the program
prints or the names it uses (engine/resemblance). So for code the index also
keeps one key per distinct string and number literal of the program (not its
names: every program of a language uses ``System``, ``main`` and ``args``, and
names weigh little in the resemblance). Two programs sharing ``LEXICON_SEEDS``
keys that few documents hold become a candidate pair (engine/candidates),
ranked by their resemblance even when they share no passage.

The keys carry no position worth the name: each sits at the document's first
unit, so that the index stores, updates and removes them as it does the other
kinds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from doublet.engine.code import Lexicon
from doublet.engine.distinct import distinct
from doublet.engine.hashing import mix64

#: Distinct literals, each in few documents, two programs must share to be a candidate.
LEXICON_SEEDS = 2


@dataclass(frozen=True)
class LexiconKeys:
    """One key per distinct literal, all at position 0."""

    hashes: np.ndarray  # uint64
    positions: np.ndarray  # int64, all 0

    def __len__(self) -> int:
        return int(self.hashes.shape[0])

    @staticmethod
    def empty() -> LexiconKeys:
        """No keys (every prose document's: one shared, its arrays read-only)."""
        return _EMPTY


def lexicon_keys(lexicon: Lexicon, salt: int) -> LexiconKeys:
    """The keys of a program's literals (``salt``: the mode's)."""
    hashes = distinct(mix64(distinct(lexicon.literals), salt))
    return LexiconKeys(hashes, np.zeros(hashes.shape[0], dtype=np.int64))


def _read_only(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


_EMPTY = LexiconKeys(_read_only(np.zeros(0, np.uint64)), _read_only(np.zeros(0, np.int64)))
