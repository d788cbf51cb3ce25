"""The symbol table answers what it was given, however its symbols collide."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from doublet.engine.symbol_table import SymbolTable

# symbols that share their low bits (one home slot), and any others
_SYMBOLS = st.integers(0, 40).map(lambda i: i << 16 | 7) | st.integers(0, 2**64 - 1)


@given(st.lists(st.lists(_SYMBOLS, max_size=30, unique=True), max_size=12), st.integers(1, 6))
def test_lookups_give_what_was_added_through_every_growth(batches, bits) -> None:
    table = SymbolTable(bits)
    added: dict[int, int] = {}
    for batch in batches:
        new = [s for s in batch if s not in added]
        symbols = np.array(new, dtype=np.uint64)
        table.add(symbols, symbols.astype(np.int64) // 3)  # values may repeat
        added.update({s: np.uint64(s).astype(np.int64) // 3 for s in new if s != 0})
        probe = np.array([*added, *batch, 0, 1 << 16 | 7, 12345], dtype=np.uint64)
        values, found = table.lookup(probe)
        assert found.tolist() == [int(s) in added for s in probe.tolist()]
        assert values[found].tolist() == [added[int(s)] for s in probe[found].tolist()]
        assert not values[~found].any()  # 0 where absent
        assert len(table) == len(added)
        assert 2 * len(table) <= table.symbols.shape[0]  # never more than half full


def test_symbol_zero_marks_an_empty_slot_and_is_never_found() -> None:
    table = SymbolTable(4)
    table.add(np.array([0, 5], dtype=np.uint64), np.array([9, 10]))
    values, found = table.lookup(np.array([0, 5], dtype=np.uint64))
    assert found.tolist() == [False, True] and values[1] == 10
