"""A table from 64-bit symbols to 64-bit values, looked up for many symbols at once.

Open addressing with linear probing in two numpy arrays, kept at most half full:
looking up every word of a batch is a few gathers over the table, where sorted
arrays had to sort the words first (``np.unique``) to search them. Symbols are
hashes already (engine/words), so their low bits are the home slot.

Symbol 0 marks an empty slot and is never stored: it is never found, and its
caller works it out again each time (one symbol in 2^64). A table is changed in
place: threads that share one take a lock around it.
"""

from __future__ import annotations

import numpy as np

EMPTY = 0


class SymbolTable:
    """Distinct 64-bit symbols -> int64 values."""

    def __init__(self, bits: int = 16) -> None:
        self._allocate(bits)

    def _allocate(self, bits: int) -> None:
        self.mask = np.uint64((1 << bits) - 1)
        self.symbols = np.zeros(1 << bits, dtype=np.uint64)
        self.values = np.zeros(1 << bits, dtype=np.int64)
        self.count = 0

    def __len__(self) -> int:
        return self.count

    def lookup(self, symbols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each symbol's value (0 if absent), and whether it is present."""
        # slots as signed integers: indexing with unsigned ones converts them first
        mask = np.int64(self.mask)
        slot = (symbols & self.mask).view(np.int64)
        held = self.symbols[slot]
        stored = symbols != EMPTY
        found = (held == symbols) & stored
        values = np.where(found, self.values[slot], 0)
        # a symbol whose home slot holds another is looked for further along
        going = np.flatnonzero(~found & (held != EMPTY) & stored)
        while going.shape[0]:
            slot[going] = (slot[going] + 1) & mask
            held = self.symbols[slot[going]]
            hit = held == symbols[going]
            found[going[hit]] = True
            values[going[hit]] = self.values[slot[going[hit]]]
            going = going[~hit & (held != EMPTY)]
        return values, found

    def add(self, symbols: np.ndarray, values: np.ndarray) -> None:
        """Store distinct ``symbols``, none present yet (symbol 0 is left out)."""
        stored = symbols != EMPTY
        symbols, values = symbols[stored], values[stored]
        if 2 * (self.count + symbols.shape[0]) > self.symbols.shape[0]:
            self._grow(self.count + symbols.shape[0])
        slot = symbols & self.mask
        going = np.arange(symbols.shape[0])
        while going.shape[0]:
            free = self.symbols[slot[going]] == EMPTY
            # of the symbols that reach one free slot together, the first takes it
            free_slots, first = np.unique(slot[going[free]], return_index=True)
            taking = going[free][first]
            self.symbols[free_slots] = symbols[taking]
            self.values[free_slots] = values[taking]
            placed = np.zeros(symbols.shape[0], dtype=bool)
            placed[taking] = True
            going = going[~placed[going]]
            slot[going] = (slot[going] + np.uint64(1)) & self.mask
        self.count += symbols.shape[0]

    def _grow(self, needed: int) -> None:
        held = np.flatnonzero(self.symbols != EMPTY)
        symbols, values = self.symbols[held], self.values[held]
        bits = int(self.mask).bit_length()
        while 1 << bits < 2 * needed:
            bits += 1
        self._allocate(bits)
        self.add(symbols, values)
