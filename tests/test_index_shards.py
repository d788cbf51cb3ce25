"""The saved index in shards (index_store, ``index_shards``): cut by hash range of the
keys, loaded whole again; a crash, a missing or foreign shard never serve an answer."""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from doublet import index_store
from doublet.engine.index import KINDS
from doublet.workspace import Workspace

CORPUS = Path(__file__).parent / "data" / "clough-stevenson"


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    """The Clough & Stevenson answers, indexed once (100 documents)."""
    root = tmp_path_factory.mktemp("shards") / "cs"
    shutil.copytree(CORPUS, root)
    workspace = Workspace.open(root, saved=False)
    workspace.refresh()
    return workspace


def _tables(index) -> dict:
    data = index.export()
    return {
        kind: {part: np.asarray(array).tolist() for part, array in data[kind].items()}
        for kind in KINDS
    }


def _entries(index) -> list:
    data = index.export()["documents"]
    return {key: np.asarray(value).tolist() for key, value in data.items()}


def _shard_files(root: Path) -> list[Path]:
    return sorted((root / index_store.FOLDER).glob("index.*-of-*.msgpack"))


@pytest.mark.parametrize("shards", [1, 2, 7, 64])
def test_an_index_saved_in_shards_loads_as_it_was(indexed: Workspace, shards: int) -> None:
    root = indexed.root
    index_store.save(indexed.index, root, shards=shards)
    assert len(_shard_files(root)) == (shards if shards > 1 else 0)
    loaded = index_store.load(root)
    assert _entries(loaded) == _entries(indexed.index)
    assert _tables(loaded) == _tables(indexed.index)
    assert sum(len(table["keys"]) for table in _tables(loaded).values()) > 10_000


def test_each_shard_holds_one_range_of_keys_and_saving_again_replaces_them(
    indexed: Workspace,
) -> None:
    root = indexed.root
    index_store.save(indexed.index, root, shards=4)
    first = _shard_files(root)
    assert [p.name.rsplit(".", 2)[1] for p in first] == ["1-of-4", "2-of-4", "3-of-4", "4-of-4"]
    counts = []
    expected_low = 0
    for path in first:
        piece = index_store._read_file(path)
        low, high = piece["low"], piece["high"]
        assert low == expected_low and low <= high
        expected_low = high
        size = 0
        for kind in KINDS:
            keys = np.frombuffer(piece[kind]["keys"], dtype="<u4")
            assert keys.size == 0 or (low <= keys.min() and keys.max() < high)
            size += keys.size
        counts.append(size)
    assert expected_low == 1 << 32
    # winnowed hashes crowd the low keys: the ranges follow the postings, not the key space
    assert max(counts) < 1.5 * min(counts), counts
    index_store.save(indexed.index, root, shards=4)
    second = _shard_files(root)
    assert len(second) == 4 and not set(second) & set(first), "a new save's own files"
    index_store.save(indexed.index, root, shards=1)
    assert _shard_files(root) == [], "one file again: the shards are removed"


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        ("remove", "a shard of the index is missing"),
        ("truncate", "truncated|checksum"),
        ("swap", "a shard of another save"),
    ],
)
def test_a_damaged_or_foreign_shard_is_refused(
    indexed: Workspace, tmp_path: Path, damage: str, reason: str
) -> None:
    root = tmp_path / "ws"
    shutil.copytree(indexed.root, root, ignore=shutil.ignore_patterns(".doublet"))
    index_store.save(indexed.index, root, shards=3)
    victim = _shard_files(root)[1]
    if damage == "remove":
        victim.unlink()
    elif damage == "truncate":
        victim.write_bytes(victim.read_bytes()[:-100])
    else:  # the same range from another save: a crash between saves, or a copied folder
        kept = victim.read_bytes()
        changed = Workspace.open(root, saved=False)
        (root / "g0pA_taska.txt").unlink()
        changed.refresh()
        index_store.save(changed.index, root, shards=3)
        _shard_files(root)[1].write_bytes(kept)
    with pytest.raises(index_store.IndexFileError, match=reason):
        index_store.load(root)


@given(
    keys=st.lists(st.integers(0, (1 << 32) - 1), max_size=300).map(sorted),
    shards=st.integers(1, 50),
)
def test_shards_cut_sorted_keys_into_consecutive_ranges(keys: list[int], shards: int) -> None:
    array = np.array(keys, dtype=np.uint32)
    table = {"fingerprints": {"keys": array, "positions": np.arange(array.size, dtype=np.uint32)}}
    pieces = index_store.shard_tables(table, shards)
    assert len(pieces) == shards
    assert pieces[0][0] == 0 and pieces[-1][1] == 1 << 32
    for (_, high, _), (low, _, _) in itertools.pairwise(pieces):
        assert high == low
    joined = np.concatenate([p[2]["fingerprints"]["keys"] for p in pieces])
    assert joined.tolist() == keys
    for low, high, piece in pieces:
        assert all(low <= k < high for k in piece["fingerprints"]["keys"].tolist())
    positions = np.concatenate([p[2]["fingerprints"]["positions"] for p in pieces])
    assert positions.tolist() == list(range(len(keys)))


def _doublet(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "doublet", *args], capture_output=True, text=True, check=True
    )


def test_index_shards_from_the_command_line_and_doublet_toml(tmp_path: Path) -> None:
    """`doublet index --index-shards 4` saves four shards; the next scan reads the index
    from them (no file read again) and reports what a scan of one file reports."""
    root = tmp_path / "cs"
    shutil.copytree(CORPUS, root)
    expected = json.loads(_doublet("scan", str(root), "--format", "json", "--no-progress").stdout)
    shutil.rmtree(root / ".doublet")
    _doublet("index", str(root), "--index-shards", "4", "--no-progress")
    assert len(_shard_files(root)) == 4
    again = _doublet("scan", str(root), "--format", "json", "--no-progress", "--index-shards", "4")
    assert json.loads(again.stdout)["pairs"] == expected["pairs"]
    (root / "doublet.toml").write_text("index_shards = 2\n")
    (root / "new-answer.txt").write_text("A new text about nothing else.\n" * 20)
    _doublet("index", str(root), "--no-progress")
    assert len(_shard_files(root)) == 2


def _stored_copy(workspace: Workspace, shards: int) -> tuple:
    """The workspace's index saved in ``shards`` files, with its postings as saved."""
    index = workspace.index.snapshot()
    readable: index_store.Readable = {}
    index_store.save(index, workspace.root, shards=shards, readable=readable)
    return index, readable


@pytest.mark.parametrize("shards", [1, 3])
def test_saved_postings_read_back_as_the_index_held_them(indexed: Workspace, shards: int) -> None:
    index, readable = _stored_copy(indexed, shards)
    held = _tables(index)
    assert set(readable) == set(KINDS)
    for kind in KINDS:
        stored = readable[kind]
        keys, positions = held[kind]["keys"], held[kind]["positions"]
        assert len(stored) == len(keys) > 0 or kind == "lexicon"
        # any slice, across the shards' files: the postings as they were
        for lo, hi in [(0, len(keys)), (0, 1), (len(keys) // 3, 2 * len(keys) // 3 + 1)]:
            got_keys, got_positions = stored.read(lo, hi)
            assert got_keys.dtype == got_positions.dtype == np.uint32
            assert got_keys.tolist() == keys[lo:hi]
            assert got_positions.tolist() == positions[lo:hi]


def test_an_index_reads_back_what_it_let_go_of(indexed: Workspace) -> None:
    index, readable = _stored_copy(indexed, 3)
    before = {kind: [a.tolist() for a in index.live_postings(kind)] for kind in KINDS}
    wanted = np.unique(index.live_postings("fingerprints")[0][::50])
    looked_up = [a.tolist() for a in index.postings_of("fingerprints", wanted)]
    assert index.keep_postings_in(readable)
    assert all(table._base is None for table in index._tables.values())
    # selection's pass over all of a kind reads them a slice at a time, and keeps none
    for kind in KINDS:
        assert [a.tolist() for a in index.live_postings(kind)] == before[kind]
        assert index._tables[kind]._base is None
    # so does a lookup of some keys (a scan's selection again after a few changes)
    assert [a.tolist() for a in index.postings_of("fingerprints", wanted)] == looked_up
    assert index._tables["fingerprints"]._base is None
    # anything else reads them whole, once
    index.export()
    assert index._tables["fingerprints"]._base is not None
    assert [a.tolist() for a in index.postings_of("fingerprints", wanted)] == looked_up


def test_saving_again_does_not_change_what_an_earlier_save_reads_back(
    indexed: Workspace,
) -> None:
    index, readable = _stored_copy(indexed, 1)
    expected = _tables(index)
    changed = index.snapshot()
    changed.remove(changed.names()[0])
    index_store.save(changed, indexed.root)  # renamed over the file being read
    assert index.keep_postings_in(readable)
    for kind in KINDS:
        keys, positions = readable[kind].read(0, len(readable[kind]))
        assert keys.tolist() == expected[kind]["keys"]
        assert positions.tolist() == expected[kind]["positions"]


def test_an_index_with_postings_pending_keeps_them(indexed: Workspace) -> None:
    index, readable = _stored_copy(indexed, 1)
    document = indexed.document(indexed.index.names()[0])
    index.add("another.txt", document.keys, document.mode)
    assert not index.keep_postings_in(readable)
    assert all(table._base is not None for table in index._tables.values())


def test_where_an_open_file_cannot_be_renamed_nothing_is_kept_to_read_back(
    indexed: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Windows renames no open file: the save is the same, and the index keeps its
    postings (none are handed back to read)."""
    monkeypatch.setattr(index_store.sys, "platform", "win32")
    index = indexed.index.snapshot()
    readable: index_store.Readable = {}
    index_store.save(index, indexed.root, readable=readable)
    assert readable == {}
    assert _tables(index_store.load(indexed.root)) == _tables(index)


@pytest.mark.parametrize("change", ["edited", "touched"])
def test_a_stored_index_saved_again_is_merged_as_it_is_written(
    indexed: Workspace, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    """A batch save of an index whose postings are left in the last save's file (a
    scan after an edit, or after a touch that changed nothing but a stamp) writes each
    kind merged with what is new and without the removed, a slice at a time as it reads
    the old file: never held whole. The new file holds what a plain save would, and
    the index reads its postings back from there."""
    from doublet.engine import index as index_module

    index, readable = _stored_copy(indexed, 1)
    assert index.keep_postings_in(readable)
    names = index.names()
    if change == "edited":
        document = indexed.document(names[1])
        index.remove(names[0])
        index.add("another.txt", document.keys, document.mode)
    else:
        index.set_stamp(names[0], b"touched")
    expected = _tables(index.snapshot())  # a plain export: each kind merged whole
    monkeypatch.setattr(index_module, "_SLICE", 1000)
    monkeypatch.setattr(index_module, "_merged_from", None)  # called: a TypeError
    reads: list[int] = []
    read = index_store._StoredPostings.read

    def counted(self, lo: int, hi: int):
        reads.append(min(hi, len(self)) - lo)
        return read(self, lo, hi)

    monkeypatch.setattr(index_store._StoredPostings, "read", counted)
    index.fold_pending()  # as a batch save does first: the stored kinds are left
    again: index_store.Readable = {}
    index_store.save(index, indexed.root, readable=again)
    assert len(reads) > 3 * len(KINDS) and max(reads) <= 1000
    assert index.keep_postings_in(again)
    assert all(table._base is None for table in index._tables.values())
    monkeypatch.undo()
    assert _tables(index_store.load(indexed.root)) == expected
    assert _tables(index) == expected  # read back from the new file
