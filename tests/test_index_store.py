"""The documents' columns as saved (doublet/index_store): stamps unpacked one by one."""

from __future__ import annotations

import numpy as np
import pytest

from doublet import index_store
from doublet.index_store import PackedStamps

STAMPS = [(10, 1_700_000_000_000_000_000, "ab12", 9), (-1, -1, "ff", 0), (0, 5, "", 0)] * 3


def packed(stamps: list) -> PackedStamps:
    columns = {
        "names": [f"d{i}.txt" for i in range(len(stamps))],
        "group_names": [],
        "stamps": stamps,
    }
    columns |= {
        key: np.zeros(len(stamps), dtype=dtype) for key, dtype in index_store._COLUMNS.items()
    }
    return index_store._unpack_documents(index_store._pack_documents(columns))["stamps"]


def test_stamps_come_back_as_they_went_in_one_by_one_and_in_slices() -> None:
    stamps = packed(STAMPS)
    assert len(stamps) == len(STAMPS)
    assert [stamps[i] for i in range(len(STAMPS))] == STAMPS
    assert stamps[-1] == STAMPS[-1] and stamps[2:7] == STAMPS[2:7] and stamps[::2] == STAMPS[::2]
    assert stamps[5:5] == [] and list(stamps) == STAMPS
    with pytest.raises(IndexError):
        stamps[len(STAMPS)]
    assert len(packed([])) == 0 and packed([])[0:3] == []


def test_a_stamp_that_is_no_tuple_is_empty_and_its_neighbours_are_kept() -> None:
    good, bad = b"\x94\x01\x02\xa1x\x03", b"\xc1"  # (1, 2, "x", 3), and no msgpack at all
    blob = good + bad + b"\x07" + good  # the third is a number, not a tuple
    ends = np.cumsum([len(good), len(bad), 1, len(good)]).astype("<u8")
    stamps = PackedStamps(blob, ends)
    assert stamps[0] == stamps[3] == (1, 2, "x", 3)
    assert stamps[1] == () and stamps[2] == ()
    assert stamps[0:4] == [(1, 2, "x", 3), (), (), (1, 2, "x", 3)]


@pytest.mark.parametrize("ends", [[3, 2, 6], [2, 4, 7], [0, 3, 6], [3, 5]])
def test_ends_that_do_not_cut_the_stamps_are_damage(ends: list) -> None:
    with pytest.raises(ValueError):
        PackedStamps(b"\x93\x01\x02\x03\x01\x02", np.array(ends, dtype="<u8"))
