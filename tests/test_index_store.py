"""The documents' columns as saved (doublet/index_store): stamps cut out one by one."""

from __future__ import annotations

import numpy as np
import pytest

from doublet import index_store
from doublet.index_store import PackedStamps

STAMPS = [b"\x94\x0a\x01\xa4ab12\x09", b"\xc1", b"", b"any bytes at all"] * 3


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
    """The index keeps its callers' stamps as given (bytes, empty ones too): what they
    hold is for the caller to make sense of (doublet/workspace ``_Stamp``)."""
    stamps = packed(STAMPS)
    assert len(stamps) == len(STAMPS)
    assert [stamps[i] for i in range(len(STAMPS))] == STAMPS
    assert stamps[-1] == STAMPS[-1] and stamps[2:7] == STAMPS[2:7] and stamps[::2] == STAMPS[::2]
    assert stamps[5:5] == [] and list(stamps) == STAMPS
    with pytest.raises(IndexError):
        stamps[len(STAMPS)]
    assert len(packed([])) == 0 and packed([])[0:3] == []


def test_a_stamp_that_is_not_bytes_is_not_saved() -> None:
    with pytest.raises(TypeError):
        packed([b"ok", (1, 2, "x", 3)])


@pytest.mark.parametrize("ends", [[3, 2, 6], [2, 4, 7], [3, 5], [3, 6, 7]])
def test_ends_that_do_not_cut_the_stamps_are_damage(ends: list) -> None:
    with pytest.raises(ValueError):
        PackedStamps(b"\x93\x01\x02\x03\x01\x02", np.array(ends, dtype="<u8"))


def test_rows_made_as_they_are_written_are_the_same_file_as_a_list(tmp_path) -> None:
    """A list given as ``Rows`` (each row made as it is packed, then let go of) writes
    the very bytes the list itself does, and reads back as the list; rows fewer than
    announced are an error, not a file that reads wrong."""
    rows = [[i, i * 7, b"x" * i, [[i, "a"], [2.5, None]]] for i in range(40)]
    arrays = np.arange(12, dtype=np.uint32)
    plain = {"before": arrays, "pairs": rows, "after": "end"}
    streamed = index_store.Rows(len(rows), lambda: iter(rows))
    made = {"before": arrays, "pairs": streamed, "after": "end"}
    for folder in "abc":
        (tmp_path / folder).mkdir()
    index_store.write_checked(tmp_path / "a", "f.msgpack", plain, b"TEST", 1)
    index_store.write_checked(tmp_path / "b", "f.msgpack", made, b"TEST", 1)
    written = (tmp_path / "a" / ".doublet" / "f.msgpack").read_bytes()
    assert (tmp_path / "b" / ".doublet" / "f.msgpack").read_bytes() == written
    back = index_store.read_checked(tmp_path / "b" / ".doublet" / "f.msgpack", b"TEST", 1)
    assert back["pairs"] == rows and back["after"] == "end"
    assert back["before"].tolist() == arrays.tolist()
    short = {"pairs": index_store.Rows(len(rows) + 1, lambda: iter(rows))}
    with pytest.raises(ValueError):
        index_store.write_checked(tmp_path / "c", "f.msgpack", short, b"TEST", 1)
    assert not (tmp_path / "c" / ".doublet" / "f.msgpack").exists()


def test_an_array_written_in_pieces_is_the_same_file_and_must_keep_its_length(
    tmp_path,
) -> None:
    """A StreamedArray (a kind merged as it is written) writes the bytes the whole array
    does; one that gives fewer or more values than its head announced is an error, and
    no file is left that would read wrong."""
    from doublet.engine.index import StreamedArray

    values = np.arange(2500, dtype=np.uint32) * 7

    def pieces(stop: int):
        return lambda: (values[lo : min(lo + 1000, stop)] for lo in range(0, stop, 1000))

    for folder in "abcd":
        (tmp_path / folder).mkdir()
    whole = {"keys": values, "after": "end"}
    index_store.write_checked(tmp_path / "a", "f.msgpack", whole, b"TEST", 1)
    streamed = {"keys": StreamedArray(values.dtype, 2500, pieces(2500)), "after": "end"}
    index_store.write_checked(tmp_path / "b", "f.msgpack", streamed, b"TEST", 1)
    written = (tmp_path / "a" / ".doublet" / "f.msgpack").read_bytes()
    assert (tmp_path / "b" / ".doublet" / "f.msgpack").read_bytes() == written
    for folder, length in (("c", 2501), ("d", 2499)):
        wrong = {"keys": StreamedArray(values.dtype, length, pieces(2500))}
        with pytest.raises(ValueError):
            index_store.write_checked(tmp_path / folder, "f.msgpack", wrong, b"TEST", 1)
        assert not (tmp_path / folder / ".doublet" / "f.msgpack").exists()
