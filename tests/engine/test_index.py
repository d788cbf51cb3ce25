"""The incremental index answers every query as an index rebuilt from scratch would.

Every kind of key is checked: fingerprints (copied text), sentence keys
(reworded text) and lexicon keys (what programs print: the ``.py`` documents),
through every query that reads them.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
from prose_samples import UNRELATED_SENTENCES

from doublet import index_store
from doublet.engine import index as index_module
from doublet.engine.candidates import all_candidates, candidates_of
from doublet.engine.document import Document, DocumentKeys
from doublet.engine.fingerprints import Fingerprints
from doublet.engine.index import FINGERPRINTS, KINDS, Index, Role
from doublet.engine.keys_batch import KeysBatch
from doublet.engine.matching import Settings, all_pairs
from doublet.engine.modes import MODES
from doublet.engine.sentence_keys import SentenceKeys

PROSE = MODES["prose"].with_thresholds(min_length=40)
CODE = MODES["code"]
SENTENCES = UNRELATED_SENTENCES
NAMES = ["a.txt", "b.txt", "c.txt", "d.txt", "e.txt", "f.txt", "g.py", "h.py", "i.py"]
GROUPS = [None, "alice", "bob"]


def text_of(picks: list[int]) -> str:
    return " ".join(SENTENCES[i] for i in picks)


def mode_of(name: str):
    return CODE if name.endswith(".py") else PROSE


def text_for(name: str, picks: list[int]) -> str:
    """Prose of the picked sentences, or a program that prints them."""
    if name.endswith(".py"):
        return "".join(f'print("{SENTENCES[i]}")\n' for i in picks)
    return text_of(picks)


def document(name: str, text: str) -> Document:
    return Document(name, text, mode_of(name))


def query_all(index: Index, texts: dict[str, str], extra: str) -> dict:
    """Every kind of query, with answers that name documents, not internal ids."""
    answers: dict = {}
    for name in sorted(texts):
        doc = document(name, texts[name])
        found, ignored = candidates_of(
            index, name, doc.keys, mode_of(name), index.entry(name).role, max_docs=3
        )
        answers[name] = (found, ignored.tolist())
    buffer = document("unsaved", extra)
    found, ignored = candidates_of(index, "unsaved", buffer.keys, PROSE, Role(), max_docs=3)
    answers["<buffer>"] = (found, ignored.tolist())
    answers["<candidates>"] = all_candidates(index, max_docs=3)[0]
    documents = {name: document(name, text) for name, text in texts.items()}
    answers["<pairs>"] = [
        (r.a.name, r.b.name, [(p.a.start, p.a.end, p.b.start, p.b.end) for p in r.passages])
        for r in all_pairs(index, documents.__getitem__, Settings(max_docs=3))
    ]
    for kind in KINDS:
        keys, ids, positions = index.live_postings(kind)
        names = [index.entry_of(i).name for i in ids.tolist()]
        answers[f"<{kind}>"] = sorted(zip(keys.tolist(), names, positions.tolist(), strict=True))
    return answers


def rebuilt(texts: dict[str, str], roles: dict[str, Role]) -> Index:
    fresh = Index()
    for name in sorted(texts):
        fresh.add(name, document(name, texts[name]).keys, mode_of(name), roles[name])
    return fresh


class Written:
    """What a payload writer writes, kept."""

    def __init__(self) -> None:
        self.data = bytearray()

    def write(self, data) -> None:
        self.data += data


class IndexMatchesRebuild(RuleBasedStateMachine):
    """Random histories of edits; after each, queries equal a fresh build's."""

    def __init__(self) -> None:
        super().__init__()
        self.index = Index()
        self.texts: dict[str, str] = {}
        self.roles: dict[str, Role] = {}
        self.extra = text_of([0, 1, 2])

    def _add(self, name: str, text: str, role: Role) -> None:
        self.index.add(name, document(name, text).keys, mode_of(name), role)
        self.texts[name] = text
        self.roles[name] = role

    @rule(
        name=st.sampled_from(NAMES),
        picks=st.lists(st.integers(0, len(SENTENCES) - 1), min_size=1, max_size=6),
        group=st.sampled_from(GROUPS),
        template=st.booleans(),
        reference=st.booleans(),
    )
    def add_or_update(self, name, picks, group, template, reference) -> None:
        role = Role(template=template and random.random() < 0.3, reference=reference, group=group)
        self._add(name, text_for(name, picks), role)

    @precondition(lambda self: self.texts)
    @rule(data=st.data())
    def remove(self, data) -> None:
        name = data.draw(st.sampled_from(sorted(self.texts)))
        self.index.remove(name)
        del self.texts[name]
        del self.roles[name]

    @precondition(lambda self: self.texts)
    @rule(data=st.data(), new=st.sampled_from(NAMES))
    def rename(self, data, new) -> None:
        old = data.draw(st.sampled_from(sorted(self.texts)))
        if old == new or mode_of(old) != mode_of(new):
            return  # a file renamed into another mode is indexed anew (workspace.py)
        self.index.rename(old, new)
        self.texts[new] = self.texts.pop(old)
        self.roles[new] = self.roles.pop(old)

    @precondition(lambda self: self.texts)
    @rule(data=st.data(), group=st.sampled_from(GROUPS))
    def change_role(self, data, group) -> None:
        name = data.draw(st.sampled_from(sorted(self.texts)))
        role = Role(reference=not self.roles[name].reference, group=group)
        self.index.set_role(name, role)
        self.roles[name] = role

    @rule(snapshot=st.booleans(), at=st.integers(0, 15))
    def save_and_load(self, snapshot, at) -> None:
        """Saved (removed documents' postings dropped, or all renumbered) and read back,
        through the file's payload (``at`` bytes into its file; the postings are views
        of what was read, the entries made as they are asked for); ``snapshot``: as a
        save does, or the index itself."""
        data = (self.index.snapshot() if snapshot else self.index).export()
        data["documents"] = index_store._pack_documents(data["documents"])
        data["state"] = "a save"
        written = Written()
        index_store._write_payload(written, data, index_store.VERSION, at)
        payload = memoryview(bytes(at) + bytes(written.data))[at:]
        self.index = index_store._restored(Path("."), index_store._read_payload(payload, at))

    @rule(
        changed=st.booleans(),
        picks=st.lists(st.integers(0, len(SENTENCES) - 1), min_size=1, max_size=4),
    )
    def saved_and_kept(self, changed, picks) -> None:
        """As a save does: a snapshot exported (its segments folded, the dead dropped or
        all renumbered), whose postings the index then takes, unless it changed since."""
        snapshot = self.index.snapshot()
        snapshot.export()
        if changed:
            self._add("a.txt", text_for("a.txt", picks), Role())
        self.index.take_merged(snapshot)

    @rule(picks=st.lists(st.integers(0, len(SENTENCES) - 1), min_size=1, max_size=5))
    def new_buffer(self, picks) -> None:
        self.extra = text_of(picks)

    @invariant()
    def same_documents(self) -> None:
        assert self.index.names() == sorted(self.texts)
        assert len(self.index) == len(self.texts)
        assert {name: self.index.entry(name).role for name in self.texts} == self.roles

    @invariant()
    def queries_equal_a_rebuild(self) -> None:
        fresh = rebuilt(self.texts, self.roles)
        assert query_all(self.index, self.texts, self.extra) == query_all(
            fresh, self.texts, self.extra
        )


@pytest.fixture(autouse=True)
def small_segments(monkeypatch):
    """Merge (both levels) and compact after a few documents, so that histories
    exercise them all."""
    monkeypatch.setattr(index_module, "MERGE_POSTINGS", 40)
    monkeypatch.setattr(index_module, "MIDDLE_POSTINGS", 120)
    monkeypatch.setattr(index_module, "COMPACT_SHARE", 0.1)
    monkeypatch.setattr(index_module, "SPARSE_SHARE", random.choice([0.05, 0.25, 0.9]))
    monkeypatch.setattr(index_module, "DIRECTORY_FROM", random.choice([1, 1 << 18]))
    monkeypatch.setattr(index_module, "PENDING_CHUNK", random.choice([1, 7, 64, 1 << 18]))


TestIndexMatchesRebuild = IndexMatchesRebuild.TestCase
TestIndexMatchesRebuild.settings = settings(max_examples=60, stateful_step_count=25, deadline=None)


def test_a_document_finds_the_one_that_shares_its_paragraph():
    index = Index()
    shared = text_of([0, 1, 2, 3])
    for name, text in [("a", shared), ("b", text_of([4, 5]) + " " + shared), ("c", text_of([6]))]:
        index.add(name, document(name, text).keys, PROSE)
    doc = document("a", shared)
    found, _ = candidates_of(index, "a", doc.keys, PROSE, Role(), max_docs=10)
    assert [(c.a, c.b) for c in found] == [("a", "b")]
    assert found[0].fingerprint_seeds >= PROSE.min_seeds and found[0].sentence_seeds >= 3


def test_sentence_keys_are_indexed_beside_fingerprints():
    index = Index()
    doc = document("a", text_of([0, 1, 2, 3]))
    index.add("a", doc.keys, PROSE)
    entry = index.entry("a")
    sentence_keys = index_module.SENTENCES
    assert entry.postings == (len(doc.fingerprints), len(doc.sentence_keys), 0)  # prose: no lexicon
    assert entry.postings_of(FINGERPRINTS) == len(doc.fingerprints)
    assert entry.postings_of(index_module.LEXICON) == 0
    assert entry.postings_of(sentence_keys) == len(doc.sentence_keys) > 0
    keys, _, positions = index.live_postings(sentence_keys)
    assert len(keys) == entry.postings_of(sentence_keys)
    assert set(positions.tolist()) <= set(range(doc.unit_count))


def test_a_template_is_subtracted_and_never_reported():
    index = Index()
    assignment = text_of([0, 1, 2])
    docs = {
        "task": document("task", assignment),
        "x": document("x", assignment + " " + text_of([3, 4])),
        "y": document("y", assignment + " " + text_of([5, 6])),
    }
    for name, doc in docs.items():
        index.add(name, doc.keys, PROSE, Role(template=name == "task"))
    assert all_pairs(index, docs.__getitem__, Settings(max_docs=10)) == []


def test_one_group_never_matches_itself_and_references_not_each_other():
    index = Index()
    shared = text_of([0, 1, 2, 3])
    roles = {
        "alice/1": Role(group="alice"),
        "alice/2": Role(group="alice"),
        "ref/1": Role(reference=True),
        "ref/2": Role(reference=True),
        "bob/1": Role(group="bob"),
    }
    docs = {name: document(name, shared) for name in roles}
    for name, doc in docs.items():
        index.add(name, doc.keys, PROSE, roles[name])
    reported = {(r.a.name, r.b.name) for r in all_pairs(index, docs.__getitem__, Settings(10))}
    assert ("alice/1", "alice/2") not in reported
    assert ("ref/1", "ref/2") not in reported
    assert ("alice/1", "bob/1") in reported
    assert ("alice/1", "ref/1") in reported


def test_the_role_rule_is_symmetric():
    roles = [
        Role(),
        Role(template=True),
        Role(reference=True),
        Role(group="a"),
        Role(group="b"),
        Role(reference=True, group="a"),
    ]
    for x in roles:
        for y in roles:
            assert x.may_pair(y) == y.may_pair(x)


def test_compaction_keeps_every_live_posting():
    index = Index()
    docs = {name: document(name, text_of([i, (i + 3) % 10])) for i, name in enumerate("abcdef")}
    for name, doc in docs.items():
        index.add(name, doc.keys, PROSE)
    before = {name: index.entry(name) for name in docs}
    for name in "abc":
        index.remove(name)
    index._compact()
    for kind in KINDS:
        _, ids, _ = index.live_postings(kind)
        counts = np.bincount(ids)
        assert {index.entry_of(i).name: int(c) for i, c in enumerate(counts) if c} == {
            name: before[name].postings_of(kind) for name in "def" if before[name].postings_of(kind)
        }


def test_each_document_keeps_its_mode_through_export_and_restore():
    index = Index()
    prose, code = PROSE, MODES["code"]
    index.add("essay.txt", document("essay.txt", text_of([0, 1])).keys, prose)
    index.add("main.py", Document("main.py", "def f(x):\n    return x + 1\n", code).keys, code)
    restored = Index.restore(index.export())
    assert restored.entry("essay.txt").mode == prose
    assert restored.entry("main.py").mode == code
    for kind in KINDS:
        for got, want in zip(restored.live_postings(kind), index.live_postings(kind), strict=True):
            assert got.tolist() == want.tolist()


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(0, 300), min_size=1, max_size=60),
    st.lists(st.integers(0, 10**6), max_size=200),
)
def test_the_owner_of_a_position_is_the_document_that_holds_it(sizes, picks):
    """The block table answers as a binary search over the documents' starts would,
    documents of every size (empty ones too) side by side."""
    starts = np.cumsum([0] + [s + 1 for s in sizes[:-1]]).astype(np.int64)
    end = int(starts[-1]) + sizes[-1] + 1
    at = np.array([p % end for p in picks], dtype=np.int64)
    owners = index_module._Owners(starts, end)
    assert owners.of(at).tolist() == (np.searchsorted(starts, at, side="right") - 1).tolist()


def test_rare_postings_are_exact_when_keys_repeat_inside_few_documents():
    """A key that one document holds many times is rare, and all its postings are
    given; a key that many documents hold once is common, and none are."""
    index = Index()
    repeated, spread = np.uint64(7 << 32), np.uint64(9 << 32)

    def keys(hashes: list[np.uint64]) -> DocumentKeys:
        positions = np.arange(len(hashes), dtype=np.int64)
        sentence_keys = SentenceKeys(np.array(hashes, dtype=np.uint64), positions)
        empty = Fingerprints(np.zeros(0, np.uint64), np.zeros(0, np.int64), k=1)
        return DocumentKeys(empty, sentence_keys, len(hashes))

    index.add("many", keys([repeated] * 200 + [spread]), PROSE)
    for i in range(40):
        index.add(f"d{i:02d}", keys([spread]), PROSE)
    index.remove("d03")  # a dead posting among the sampled ones
    wanted = np.array([7, 9], dtype=np.uint32)
    which, doc, at, common = index.rare_postings_of(index_module.SENTENCES, wanted, 30)
    assert common.tolist() == [False, True]
    assert set(which.tolist()) == {0} and sorted(at.tolist()) == list(range(200))
    assert {index.entry_of(d).name for d in doc.tolist()} == {"many"}
    which, doc, at, common = index.rare_postings_of(index_module.SENTENCES, wanted, 40)
    assert common.tolist() == [False, False]  # 40 documents hold 9 (one of 41 removed)
    assert (which == 1).sum() == 40


def test_renaming_a_document_to_its_own_name_changes_nothing():
    index = Index()
    index.add("a.txt", document("a.txt", text_of([0, 1])).keys, PROSE)
    index.rename("a.txt", "a.txt")
    assert index.names() == ["a.txt"]


@given(
    lengths=st.lists(st.integers(0, 300), min_size=1, max_size=60),
    cut=st.integers(1, 60),
    probes=st.lists(st.integers(0, 20_000), max_size=50),
)
def test_owners_extended_with_new_documents_answer_as_built_afresh(
    lengths: list[int], cut: int, probes: list[int]
) -> None:
    """The table of owners grown as documents are added (an editor's edits) finds the
    same document for every position as one built for all of them at once."""
    from doublet.engine.index import _Owners

    starts = np.cumsum([0] + [n + 1 for n in lengths[:-1]]).astype(np.int64)
    end = int(starts[-1] + lengths[-1] + 1)
    cut = min(cut, len(lengths))
    grown = _Owners(starts[:cut], int(starts[cut - 1] + lengths[cut - 1] + 1))
    for more in range(cut + 1, len(lengths) + 1):
        stop = int(starts[more - 1] + lengths[more - 1] + 1)
        grown = grown.extended(starts[:more], stop)
    at = np.array([p % end for p in probes] + list(range(end)), dtype=np.int64)
    expected = np.searchsorted(starts, at, side="right") - 1
    assert np.array_equal(grown.of(at), expected)
    assert np.array_equal(_Owners(starts, end).of(at), expected)


def test_a_snapshot_exports_what_the_index_held_whatever_happens_to_it_after() -> None:
    """A save exports a snapshot with its lock released: later edits, removals, renames
    and compactions of the index must not reach the snapshot, nor the reverse."""
    from doublet.engine.document import Document
    from doublet.engine.modes import MODES

    prose = MODES["prose"]
    texts = {f"d{i}.txt": " ".join(UNRELATED_SENTENCES[i : i + 6]) for i in range(12)}
    index = Index()
    for name, text in texts.items():
        index.add(name, Document(name, text, prose).keys, prose, stamp=name.encode())
    index.remove("d3.txt")  # a tombstone, compacted by the export
    expected = index.snapshot().export()
    snapshot = index.snapshot()
    index.add("d0.txt", Document("d0.txt", "Something else entirely.", prose).keys, prose)
    index.rename("d1.txt", "moved.txt")
    index.set_stamp("d2.txt", b"changed")
    for name in list(index.names())[:8]:
        index.remove(name)  # enough dead postings to compact the index itself
    got = snapshot.export()
    assert got["documents"]["names"] == expected["documents"]["names"]
    assert got["documents"]["stamps"] == expected["documents"]["stamps"]
    for kind in ("fingerprints", "sentences"):
        assert np.array_equal(got[kind]["keys"], expected[kind]["keys"])
        assert np.array_equal(got[kind]["positions"], expected[kind]["positions"])
    assert "d3.txt" not in got["documents"]["names"] and len(got["documents"]["names"]) == 11
    assert len(index) == 3  # and the index went its own way


def test_an_index_takes_the_postings_its_exported_snapshot_folded(monkeypatch):
    monkeypatch.setattr(index_module, "DIRECTORY_FROM", 1 << 18)  # none made here
    monkeypatch.setattr(index_module, "SPARSE_SHARE", 0.25)

    def built() -> Index:
        index = Index()
        for i in range(12):
            picks = [i % 10, (i + 3) % 10, (i + 7) % 10]
            index.add(f"d{i}.txt", document(f"d{i}.txt", text_of(picks)).keys, PROSE)
        index.remove("d3.txt")
        return index

    index, twin = built(), built()
    snapshot = index.snapshot()
    assert index._tables[FINGERPRINTS].holds_pending()
    assert not index.take_merged(snapshot)  # not exported: nothing folded to take
    snapshot.export()
    assert index.take_merged(snapshot)
    assert not any(table.holds_pending() for table in index._tables.values())
    assert index._dead_postings == 0
    for kind in KINDS:  # what the twin, folded by itself, holds
        assert postings_by_name(index, kind) == postings_by_name(twin, kind)

    changed = index.snapshot()
    changed.export()
    index.add("new.txt", document("new.txt", text_of([1, 8])).keys, PROSE)
    assert not index.take_merged(changed)  # the index went on: its own postings stay
    assert "new.txt" in {name for _, name, _ in postings_by_name(index, FINGERPRINTS)}


def test_an_index_does_not_take_postings_its_snapshot_renumbered(monkeypatch):
    monkeypatch.setattr(index_module, "COMPACT_SHARE", 10.0)  # never compacted in memory
    monkeypatch.setattr(index_module, "SPARSE_SHARE", 0.25)
    monkeypatch.setattr(index_module, "DIRECTORY_FROM", 1 << 18)
    index = Index()
    for i in range(8):
        index.add(f"d{i}.txt", document(f"d{i}.txt", text_of([i, (i + 5) % 10])).keys, PROSE)
    for name in ["d0.txt", "d1.txt", "d2.txt", "d3.txt"]:
        index.remove(name)  # most positions unused: the export renumbers them
    before = {kind: postings_by_name(index, kind) for kind in KINDS}
    snapshot = index.snapshot()
    snapshot.export()
    assert snapshot.entry("d4.txt").start == 0 != index.entry("d4.txt").start
    assert not index.take_merged(snapshot)
    assert {kind: postings_by_name(index, kind) for kind in KINDS} == before


def test_an_index_being_searched_keeps_its_segments_and_their_directories(monkeypatch):
    monkeypatch.setattr(index_module, "DIRECTORY_FROM", 1)
    index = Index()
    for i in range(6):
        index.add(f"d{i}.txt", document(f"d{i}.txt", text_of([i, (i + 4) % 10])).keys, PROSE)
    index.live_postings(FINGERPRINTS)  # folded into the base ...
    index._tables[FINGERPRINTS].base.prepare()  # ... which an editor's lookups search
    assert index._tables[FINGERPRINTS].base.has_directory()
    index.add("d6.txt", document("d6.txt", text_of([2, 9])).keys, PROSE)
    snapshot = index.snapshot()
    snapshot.export()
    assert not index.take_merged(snapshot)
    assert index._tables[FINGERPRINTS].base.has_directory()


def test_a_save_drops_removed_documents_without_moving_the_others(monkeypatch):
    monkeypatch.setattr(index_module, "SPARSE_SHARE", 0.25)
    monkeypatch.setattr(index_module, "COMPACT_SHARE", 10.0)  # never compacted in memory
    texts = {f"d{i}.txt": " ".join(UNRELATED_SENTENCES[i : i + 6]) for i in range(12)}
    index = Index()
    for name, text in texts.items():
        index.add(name, document(name, text).keys, PROSE)
    starts = {name: index.entry(name).start for name in texts}
    index.remove("d3.txt")
    before = {kind: postings_by_name(index, kind) for kind in KINDS}
    assert any(name == "d3.txt" for _, name, _ in before[FINGERPRINTS]) is False
    restored = Index.restore(index.snapshot().export())
    assert restored.names() == sorted(set(texts) - {"d3.txt"})
    assert {n: restored.entry(n).start for n in restored.names()} == {
        n: s for n, s in starts.items() if n != "d3.txt"
    }
    for kind in KINDS:
        assert postings_by_name(restored, kind) == before[kind]


def postings_by_name(index: Index, kind: str) -> list[tuple[int, str, int]]:
    keys, ids, positions = index.live_postings(kind)
    names = [index.entry_of(i).name for i in ids.tolist()]
    return sorted(zip(keys.tolist(), names, positions.tolist(), strict=True))


def test_a_save_renumbers_when_most_positions_are_unused(monkeypatch):
    monkeypatch.setattr(index_module, "COMPACT_SHARE", 10.0)  # never compacted in memory
    monkeypatch.setattr(index_module, "SPARSE_SHARE", 0.25)  # not the fixture's random one
    texts = {f"d{i}.txt": " ".join(UNRELATED_SENTENCES[i : i + 6]) for i in range(8)}
    index = Index()
    for name, text in texts.items():
        index.add(name, document(name, text).keys, PROSE)
    for name in ["d0.txt", "d1.txt", "d2.txt", "d3.txt"]:
        index.remove(name)
    data = index.snapshot().export()
    assert data["documents"]["starts"][0] == 0  # d4 moved to the front
    assert data["next_start"] == sum(index.entry(n).units + 1 for n in index.names())


@given(
    positions=st.lists(st.integers(0, 5000), max_size=200),
    cuts=st.lists(st.integers(0, 5000), max_size=60, unique=True),
)
def test_positions_outside_ranges_by_either_way(positions, cuts):
    cuts = sorted(cuts)
    ranges = [(a, b) for a, b in zip(cuts[::2], cuts[1::2], strict=False)]  # sorted, apart
    at = np.array(positions, dtype=np.uint32)
    want = [all(not (a <= p < b) for a, b in ranges) for p in positions]
    assert index_module._outside(at, ranges).tolist() == want


_KEY = st.one_of(
    st.integers(0, 2**32 - 1),  # anywhere
    st.integers(0x7F000000, 0x7F0000FF),  # many in one range of the directory
    st.sampled_from([0, 5, 2**32 - 1]),  # long runs of one key, and the extremes
)


@given(
    keys=st.lists(_KEY, max_size=400)
    | st.lists(st.integers(0x7F000000, 0x7F0000FF), max_size=100),  # one range, any length
    wanted=st.lists(_KEY, max_size=60),
)
@example(  # every key of a range as long as the directory's steps can search
    keys=[0x7F000000 + 2 * i for i in range(63)], wanted=[0x7F000000 + i for i in range(127)]
)
def test_the_runs_of_keys_are_found_through_the_directory_as_by_a_binary_search(keys, wanted):
    sorted_keys = np.array(sorted(keys), dtype=np.uint32)
    segment = index_module._Segment(sorted_keys, np.arange(len(keys), dtype=np.uint32))
    asked = np.unique(np.array(wanted, dtype=np.uint32))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(index_module, "DIRECTORY_FROM", 1)
        patch.setattr(index_module, "_DIRECTORY_SLICE", 7)  # made in many slices
        first, stop = segment.runs(asked)
    assert first.tolist() == np.searchsorted(sorted_keys, asked, side="left").tolist()
    assert stop.tolist() == np.searchsorted(sorted_keys, asked, side="right").tolist()


def test_a_query_searches_without_the_directory_while_another_thread_makes_it():
    keys = np.array(sorted(random.Random(3).choices(range(1 << 32), k=5000)), dtype=np.uint32)
    segment = index_module._Segment(keys, np.arange(keys.shape[0], dtype=np.uint32))
    asked = np.unique(keys[::7] + np.uint32(1))
    expected = (
        np.searchsorted(keys, asked, side="left").tolist(),
        np.searchsorted(keys, asked, side="right").tolist(),
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(index_module, "DIRECTORY_FROM", 1)
        with segment._making:  # another thread is making it
            first, stop = segment.runs(asked)
            assert segment._directory is None  # not made a second time, nor waited for
        assert (first.tolist(), stop.tolist()) == expected
        segment.prepare()
        assert segment._directory is not None
        first, stop = segment.runs(asked)
    assert (first.tolist(), stop.tolist()) == expected


def saved_and_loaded(index: Index) -> Index:
    data = index.snapshot().export()
    data["documents"] = index_store._pack_documents(data["documents"])
    data["state"] = "a save"
    written = Written()
    index_store._write_payload(written, data, index_store.VERSION, 0)
    return index_store._restored(
        Path("."), index_store._read_payload(memoryview(bytes(written.data)), 0)
    )


def test_entries_replaced_while_a_loaded_index_makes_them_all_stay_replaced(monkeypatch):
    """Index.prepare_entries runs beside the index's holder: what the holder renames or
    gives a new role between two slices must not be put back as it was loaded."""
    monkeypatch.setattr(index_module, "_MAKE_SLICE", 2)
    index = Index()
    names = [f"{letter}.txt" for letter in "abcdefgh"]
    for number, name in enumerate(names):
        index.add(name, document(name, text_of([number, number + 1])).keys, PROSE)
    loaded = saved_and_loaded(index)
    changes = iter(
        [
            lambda: loaded.set_role("h.txt", Role(reference=True)),  # not made yet
            lambda: loaded.rename("g.txt", "renamed.txt"),
            lambda: loaded.entry("a.txt"),  # made one by one first
            lambda: loaded.set_role("b.txt", Role(group="alice")),  # in the slice made next
        ]
    )
    loaded.prepare_entries(between=lambda: next(changes, lambda: None)())
    assert loaded.entry("h.txt").role == Role(reference=True)
    assert loaded.entry("b.txt").role == Role(group="alice")
    assert "g.txt" not in loaded and loaded.entry("renamed.txt").id == index.entry("g.txt").id
    by_id = {entry.id: entry for entry in loaded.live_entries()}
    assert [by_id[i].name for i in range(len(names))] == [
        *names[:6],
        "renamed.txt",
        "h.txt",
    ]
    for name in names[:6]:
        if name != "b.txt":
            assert loaded.entry(name) == index.entry(name)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 50), max_size=400), st.integers(1, 5))
def test_a_sort_shared_between_threads_sorts_as_one(values, threshold) -> None:
    """Slices sorted in threads and merged give what one sort gives (duplicates,
    fewer values than threads, any threshold)."""
    packed = np.array(values, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15 >> 8)
    expected = np.sort(packed)
    original = index_module.THREADED_SORT_FROM
    index_module.THREADED_SORT_FROM = threshold
    try:
        index_module._sort_in_threads(packed)
    finally:
        index_module.THREADED_SORT_FROM = original
    assert packed.tolist() == expected.tolist()


@pytest.mark.parametrize("slice_size", [3, 1 << 21])
def test_live_postings_leave_out_removed_documents_slice_by_slice(monkeypatch, slice_size):
    """Written in place a slice at a time and cut to the live ones: the same postings
    as an index of the remaining documents alone."""
    monkeypatch.setattr(index_module, "COMPACT_SHARE", 10.0)  # the removed stay in the base
    monkeypatch.setattr(index_module, "_SLICE", slice_size)
    texts = {f"d{i}.txt": " ".join(UNRELATED_SENTENCES[i : i + 6]) for i in range(6)}
    index, alone = Index(), Index()
    for name, text in texts.items():
        index.add(name, document(name, text).keys, PROSE)
        if name not in ("d1.txt", "d4.txt"):
            alone.add(name, document(name, text).keys, PROSE)
    index.remove("d1.txt")
    index.remove("d4.txt")
    for kind in KINDS:
        keys, ids, positions = index.live_postings(kind)
        assert (keys.dtype, ids.dtype, positions.dtype) == (np.uint32, np.int32, np.uint32)
        assert postings_by_name(index, kind) == postings_by_name(alone, kind)
        assert len(keys) == len(alone.live_postings(kind)[0]) > 0 or kind != FINGERPRINTS


@settings(max_examples=200, deadline=None)
@given(
    sizes=st.lists(st.integers(0, 30), max_size=12),
    chunk=st.sampled_from([1, 3, 8, 1 << 18]),
    copied_after=st.integers(0, 12),
)
def test_pending_postings_read_back_in_order_and_copies_keep_theirs(sizes, chunk, copied_after):
    """Appended across the arrays' ends, read from any posting on; a copy holds what was
    there when it was made, whatever either adds after."""
    original = index_module.PENDING_CHUNK
    index_module.PENDING_CHUNK = chunk
    try:
        pending, added, copy, at_copy = index_module._Pending(), [], None, []
        for number, size in enumerate(sizes):
            if number == copied_after:
                copy, at_copy = pending.copy(), list(added)
            keys = np.arange(len(added), len(added) + size, dtype=np.uint32)
            pending.append(keys, keys * 2)
            added.extend(keys.tolist())
            if copy is not None:
                copy.append(np.full(3, 99999, np.uint32), np.full(3, 99999, np.uint32))
                at_copy.extend([99999] * 3)

        def read(held, first):
            parts = held.since(first)
            return [k for part in parts for k in part.keys.tolist()], [
                p for part in parts for p in part.positions.tolist()
            ]

        for first in range(len(added) + 1):
            assert read(pending, first) == (added[first:], [2 * k for k in added[first:]])
        if copy is not None:
            keys, positions = read(copy, 0)
            assert keys == at_copy and len(copy) == len(at_copy)
            assert positions == [k if k == 99999 else 2 * k for k in at_copy]
    finally:
        index_module.PENDING_CHUNK = original


@settings(max_examples=200, deadline=None)
@given(
    postings=st.lists(st.tuples(st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1)), max_size=60),
    slice_size=st.sampled_from([1, 2, 5, 1 << 20]),
)
def test_sorted_postings_unpack_in_place_into_keys_and_positions(postings, slice_size):
    """The positions are moved to the front of the packed array's own memory a slice at
    a time: every key and position where it was, whatever the slices' size."""
    original = index_module._UNPACK_SLICE
    index_module._UNPACK_SLICE = slice_size
    try:
        ordered = sorted(postings)
        packed = np.array([(k << 32) | p for k, p in ordered], dtype=np.uint64)
        segment = index_module._Segment.unpacked(packed)
        assert segment.keys.dtype == segment.positions.dtype == np.uint32
        assert segment.keys.tolist() == [k for k, _ in ordered]
        assert segment.positions.tolist() == [p for _, p in ordered]
    finally:
        index_module._UNPACK_SLICE = original


def test_pending_postings_are_folded_and_the_removed_dropped_in_place(monkeypatch) -> None:
    """A batch command folds what it added, and drops what it removed, before saving (a
    kind at a time: each kind's old arrays let go of as its new ones are made); the
    index answers as before and exports what an unfolded twin's save exports. An index
    whose export would renumber its documents (most positions unused) is left to it."""
    monkeypatch.setattr(index_module, "COMPACT_SHARE", 10.0)  # the removed stay held
    monkeypatch.setattr(index_module, "SPARSE_SHARE", 0.25)
    texts = {f"d{i}.txt": " ".join(UNRELATED_SENTENCES[i : i + 6]) for i in range(4)}

    def built() -> Index:
        index = Index()
        for name, text in texts.items():
            index.add(name, document(name, text).keys, PROSE)
        return index

    index, twin = built(), built()
    before = {kind: [a.tolist() for a in index.live_postings(kind)] for kind in KINDS}
    index.fold_pending()
    assert not any(table.holds_pending() for table in index._tables.values())
    assert {kind: [a.tolist() for a in index.live_postings(kind)] for kind in KINDS} == before
    for edited in (index, twin):
        edited.remove("d1.txt")
        edited.add("d1.txt", document("d1.txt", texts["d2.txt"]).keys, PROSE)
    calls = []
    index.fold_pending(lambda: calls.append(1))
    assert calls and index._dead_postings == 0
    assert not any(table.holds_pending() for table in index._tables.values())
    for kind in KINDS:
        assert postings_by_name(index, kind) == postings_by_name(twin, kind)
        assert int(index._tables[kind].base_length()) == len(postings_by_name(twin, kind))
    exported, expected = index.snapshot().export(), twin.snapshot().export()
    for kind in KINDS:
        for part in ("keys", "positions"):
            assert np.array_equal(exported[kind][part], expected[kind][part])
    assert exported["documents"]["starts"].tolist() == expected["documents"]["starts"].tolist()

    sparse = built()
    for name in ["d0.txt", "d1.txt", "d2.txt"]:
        sparse.remove(name)
    sparse.add("d0.txt", document("d0.txt", texts["d0.txt"]).keys, PROSE)
    sparse.fold_pending()
    assert sparse._tables[FINGERPRINTS].holds_pending() and sparse._dead_postings


@settings(max_examples=40, deadline=None)
@given(
    sizes=st.lists(st.integers(0, 9), max_size=8),
    every=st.sampled_from([1, 3, 1 << 22]),
    seed=st.integers(0, 2**16),
)
def test_segments_joined_let_go_of_each_part_and_give_back_as_asked(sizes, every, seed):
    """``_Segment.of`` empties the list it is given (each part let go of once copied,
    so its memory can be given back while the whole is filled), calls ``between``
    after every ``GIVE_BACK_EVERY`` postings and once at the end, and sorts the same."""
    rng = np.random.default_rng(seed)
    parts = [
        index_module._Segment(
            rng.integers(0, 2**32, size, dtype=np.uint32),
            rng.integers(0, 2**32, size, dtype=np.uint32),
        )
        for size in sizes
    ]
    want = sorted(
        (k, p)
        for part in parts
        for k, p in zip(part.keys.tolist(), part.positions.tolist(), strict=True)
    )
    calls = []
    original = index_module.GIVE_BACK_EVERY
    index_module.GIVE_BACK_EVERY = every
    try:
        joined = index_module._Segment.of(parts, lambda: calls.append(len(parts)))
    finally:
        index_module.GIVE_BACK_EVERY = original
    assert parts == []
    assert list(zip(joined.keys.tolist(), joined.positions.tolist(), strict=True)) == want
    assert calls[-1] == 0  # the last call after every part was let go of
    if every == 1:  # after each part that copied any, then at the end
        assert len(calls) == sum(1 for size in sizes if size) + 1
    if every > len(want):
        assert calls == [0]


def test_a_batch_fold_gives_back_as_it_sorts_and_holds_no_pending_postings() -> None:
    """A scan's save folds what it added, its pending arrays let go of (not kept
    beside the sorted copy) and ``between`` called meanwhile; the postings the same as
    an editor's fold, which sorts what is pending and keeps adding after."""
    texts = {f"d{i}.txt": " ".join(UNRELATED_SENTENCES[i : i + 6]) for i in range(4)}
    folded, merged = Index(), Index()
    for name, text in texts.items():
        folded.add(name, document(name, text).keys, PROSE)
        merged.add(name, document(name, text).keys, PROSE)
    for table in merged._tables.values():  # an editor's: what is pending sorted as asked
        table._delta_segment()
    pending = [kind for kind in KINDS if len(folded._tables[kind]._pending)]
    calls = []
    folded.fold_pending(lambda: calls.append(1))
    merged.fold_pending()
    assert len(pending) >= 2 and len(calls) >= len(pending)  # once a kind at least
    for kind in KINDS:
        assert not folded._tables[kind].holds_pending()
        assert len(folded._tables[kind]._pending) == 0
        got = [a.tolist() for a in folded.live_postings(kind)]
        assert got == [a.tolist() for a in merged.live_postings(kind)]


class _Stored:
    """A stored base (engine/index StoredPostings) held in arrays: read copies of them."""

    def __init__(self, keys: np.ndarray, positions: np.ndarray) -> None:
        self.keys, self.positions = keys, positions

    def __len__(self) -> int:
        return int(self.keys.shape[0])

    def read(self, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
        return self.keys[lo:hi].copy(), self.positions[lo:hi].copy()


@settings(max_examples=200, deadline=None)
@given(
    old=st.lists(st.integers(0, 6), max_size=40),
    new=st.lists(st.integers(0, 6), max_size=20),
    dead=st.lists(st.integers(0, 80), max_size=6, unique=True),
    size=st.integers(1, 9),
)
def test_a_stored_base_merged_a_slice_at_a_time_is_the_whole_merged(
    old: list[int], new: list[int], dead: list[int], size: int
) -> None:
    """After an edit, a batch save folds the new postings into a base left in its file
    a slice at a time; the result is the base read whole, merged, less the dead. Keys
    repeat across slices' edges (few values), and newer positions are all larger."""
    from doublet.engine.index import _merged, _merged_from, _outside, _Segment

    older = _Segment(np.array(sorted(old), np.uint32), np.arange(len(old), dtype=np.uint32) * 2)
    newer = _Segment(np.array(sorted(new), np.uint32), np.arange(len(new), dtype=np.uint32) + 100)
    edges = sorted(dead)
    ranges = [(a, a + 3) for a in edges if all(a + 3 <= b for b in edges if b > a)]
    whole = _merged(older, newer)
    keep = _outside(whole.positions, ranges)
    got = _merged_from(_Stored(older.keys, older.positions), newer, ranges, size=size)
    assert got.keys.tolist() == whole.keys[keep].tolist()
    assert got.positions.tolist() == whole.positions[keep].tolist()


@settings(max_examples=200, deadline=None)
@given(
    keys=st.lists(st.integers(0, 9), max_size=50),
    wanted=st.sets(st.integers(0, 11), max_size=8),
    size=st.integers(1, 9),
)
def test_a_stored_base_searched_a_slice_at_a_time_gives_the_postings_searched_whole(
    keys: list[int], wanted: set[int], size: int
) -> None:
    """A batch scan's selection again, after a few changes, searches each kind's base
    where its save left it, a slice at a time: the same postings of each key, in the
    same order, as the base read whole (runs cut by slices' ends included)."""
    from doublet.engine.index import _Runs, _Segment, _stored_runs, _taken

    base = _Segment(np.array(sorted(keys), np.uint32), np.arange(len(keys), dtype=np.uint32))
    asked = np.array(sorted(wanted), np.uint32)
    stored = _Stored(base.keys, base.positions)
    for cap in (None, 2):  # whole, and sampled as rare_postings_of samples common keys
        whole = _taken([_Runs(base, *base.runs(asked))], len(asked), cap)
        sliced = _taken([_stored_runs(stored, asked, size)], len(asked), cap)
        assert [a.tolist() for a in sliced] == [a.tolist() for a in whole]


def _document_keys_equal(a: DocumentKeys, b: DocumentKeys) -> bool:
    return (
        a.units == b.units
        and a.fingerprints.k == b.fingerprints.k
        and all(
            np.array_equal(x.hashes, y.hashes)
            and x.hashes.dtype == y.hashes.dtype
            and np.array_equal(x.positions, y.positions)
            for x, y in (
                (a.fingerprints, b.fingerprints),
                (a.sentence_keys, b.sentence_keys),
                (a.lexicon_keys, b.lexicon_keys),
            )
        )
    )


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(NAMES), st.lists(st.integers(0, len(SENTENCES) - 1), max_size=4)),
        min_size=1,
        max_size=8,
    ),
    st.lists(
        st.tuples(st.sampled_from(NAMES), st.lists(st.integers(0, len(SENTENCES) - 1), max_size=4)),
        max_size=5,
    ),
    st.randoms(use_true_random=False),
)
def test_documents_added_in_a_batch_are_indexed_as_one_by_one(first, batch, rnd):
    """A refresh adds a batch's new content at once (``add_many``), some of it replacing
    documents, its keys taken from the batch in any order: the same index as ``add``
    called for each in turn."""
    one_by_one, together = Index(), Index()
    for name, picks in first:
        keys = document(name, text_for(name, picks)).keys
        for index in (one_by_one, together):
            index.add(name, keys, mode_of(name), stamp=b"1")
    names = list(dict.fromkeys(name for name, _ in batch))  # a batch names a file once
    texts = {name: text_for(name, picks) for name, picks in batch}
    keys = [document(name, texts[name]).keys for name in names]
    order = list(range(len(names)))
    rnd.shuffle(order)  # where each document's keys sit in the batch
    packed = KeysBatch.of([keys[at] for at in order])
    for slot, at in enumerate(order):
        assert _document_keys_equal(packed.keys(slot), keys[at])
    slot_of = {at: slot for slot, at in enumerate(order)}
    for at, name in enumerate(names):
        one_by_one.add(name, keys[at], mode_of(name), Role(group="g"), b"2")
    together.add_many(
        packed,
        [
            (slot_of[at], name, mode_of(name), Role(group="g"), b"2")
            for at, name in enumerate(names)
        ],
    )
    entry_fields = lambda index: [  # noqa: E731
        (e.name, e.units, e.postings, e.mode, e.role, e.stamp) for e in index.entries()
    ]
    assert entry_fields(together) == entry_fields(one_by_one)
    for kind in KINDS:
        assert postings_by_name(together, kind) == postings_by_name(one_by_one, kind)
    texts = {name: text_for(name, picks) for name, picks in first} | texts
    assert query_all(together, texts, SENTENCES[0]) == query_all(one_by_one, texts, SENTENCES[0])
