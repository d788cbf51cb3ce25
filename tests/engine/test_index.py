"""The incremental index answers every query as an index rebuilt from scratch would."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from doublet.engine import index as index_module
from doublet.engine.document import Document
from doublet.engine.index import Index, Role, keys_of
from doublet.engine.modes import MODES
from doublet.engine.scan import pairs

PROSE = MODES["prose"].with_thresholds(min_length=40)
SENTENCES = [
    "The lighthouse keeper climbed the stairs every evening before sunset.",
    "Copper kettles hung above the stove in the narrow kitchen of the inn.",
    "A migrating flock of geese crossed the valley in a long uneven line.",
    "The committee postponed its decision until the spring meeting.",
    "Rain had washed the chalk drawings off the pavement overnight.",
    "She kept a ledger of every seed she planted and every one that failed.",
    "The old bridge was closed to carts after the flood cracked its pillars.",
    "Students argued about the meaning of the final chapter for an hour.",
    "Fresh bread cooled on the windowsill while the children waited outside.",
    "The telescope revealed four moons circling the bright planet.",
]
NAMES = ["a.txt", "b.txt", "c.txt", "d.txt", "e.txt", "f.txt"]
GROUPS = [None, "alice", "bob"]


def text_of(picks: list[int]) -> str:
    return " ".join(SENTENCES[i] for i in picks)


def document(name: str, text: str) -> Document:
    return Document(name, text, PROSE)


def query_all(index: Index, texts: dict[str, str], extra: str) -> dict:
    """Every kind of query, with answers that name documents, not internal ids."""
    options = PROSE.alignment
    answers = {}
    for name in sorted(texts):
        doc = document(name, texts[name])
        answers[name] = index.candidates(
            doc.fingerprints,
            PROSE.salt,
            max_docs=3,
            reach=options.reach,
            min_seeds=options.min_seeds,
            exclude=name,
            role=index.entry(name).role,
        )
    buffer = document("unsaved", extra)
    answers["<buffer>"] = index.candidates(
        buffer.fingerprints,
        PROSE.salt,
        max_docs=3,
        reach=options.reach,
        min_seeds=options.min_seeds,
    )
    answers["<ignored>"] = index.ignored_keys(keys_of(buffer.fingerprints.hashes), 3).tolist()
    documents = {name: document(name, text) for name, text in texts.items()}
    answers["<pairs>"] = [
        (r.a.name, r.b.name, [(p.a.start, p.a.end, p.b.start, p.b.end) for p in r.passages])
        for r in pairs(index, documents.__getitem__, max_docs=3)
    ]
    return answers


def rebuilt(texts: dict[str, str], roles: dict[str, Role]) -> Index:
    fresh = Index()
    for name in sorted(texts):
        doc = document(name, texts[name])
        fresh.add(name, doc.fingerprints, doc.unit_count, PROSE.salt, roles[name])
    return fresh


class IndexMatchesRebuild(RuleBasedStateMachine):
    """Random histories of edits; after each, queries equal a fresh build's."""

    def __init__(self) -> None:
        super().__init__()
        self.index = Index()
        self.texts: dict[str, str] = {}
        self.roles: dict[str, Role] = {}
        self.extra = text_of([0, 1, 2])

    def _add(self, name: str, text: str, role: Role) -> None:
        doc = document(name, text)
        self.index.add(name, doc.fingerprints, doc.unit_count, PROSE.salt, role)
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
        self._add(name, text_of(picks), role)

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
        if old == new:
            return
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

    @rule(picks=st.lists(st.integers(0, len(SENTENCES) - 1), min_size=1, max_size=5))
    def new_buffer(self, picks) -> None:
        self.extra = text_of(picks)

    @invariant()
    def same_documents(self) -> None:
        assert self.index.names() == sorted(self.texts)
        assert len(self.index) == len(self.texts)

    @invariant()
    def queries_equal_a_rebuild(self) -> None:
        fresh = rebuilt(self.texts, self.roles)
        assert query_all(self.index, self.texts, self.extra) == query_all(
            fresh, self.texts, self.extra
        )


@pytest.fixture(autouse=True)
def small_segments(monkeypatch):
    """Merge and compact after a few documents, so that histories exercise both."""
    monkeypatch.setattr(index_module, "MERGE_POSTINGS", 40)
    monkeypatch.setattr(index_module, "COMPACT_SHARE", 0.1)


TestIndexMatchesRebuild = IndexMatchesRebuild.TestCase
TestIndexMatchesRebuild.settings = settings(max_examples=60, stateful_step_count=25, deadline=None)


def test_a_document_finds_the_one_that_shares_its_paragraph():
    index = Index()
    shared = text_of([0, 1, 2, 3])
    for name, text in [("a", shared), ("b", text_of([4, 5]) + " " + shared), ("c", text_of([6]))]:
        doc = document(name, text)
        index.add(name, doc.fingerprints, doc.unit_count, PROSE.salt)
    doc = document("a", shared)
    options = PROSE.alignment
    found = index.candidates(
        doc.fingerprints,
        PROSE.salt,
        max_docs=10,
        reach=options.reach,
        min_seeds=options.min_seeds,
        exclude="a",
    )
    assert [c.name for c in found] == ["b"]


def test_a_template_is_subtracted_and_never_reported():
    index = Index()
    assignment = text_of([0, 1, 2])
    docs = {
        "task": document("task", assignment),
        "x": document("x", assignment + " " + text_of([3, 4])),
        "y": document("y", assignment + " " + text_of([5, 6])),
    }
    for name, doc in docs.items():
        role = Role(template=name == "task")
        index.add(name, doc.fingerprints, doc.unit_count, PROSE.salt, role)
    assert pairs(index, docs.__getitem__) == []


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
        index.add(name, doc.fingerprints, doc.unit_count, PROSE.salt, roles[name])
    reported = {(r.a.name, r.b.name) for r in pairs(index, docs.__getitem__)}
    assert ("alice/1", "alice/2") not in reported
    assert ("ref/1", "ref/2") not in reported
    assert ("alice/1", "bob/1") in reported
    assert ("alice/1", "ref/1") in reported


def test_compaction_keeps_every_live_posting():
    index = Index()
    docs = {name: document(name, text_of([i, (i + 3) % 10])) for i, name in enumerate("abcdef")}
    for name, doc in docs.items():
        index.add(name, doc.fingerprints, doc.unit_count, PROSE.salt)
    before = {name: index.entry(name).postings for name in docs}
    for name in "abc":
        index.remove(name)
    index._compact()
    _, ids, _ = index.live_postings()
    counts = np.bincount(ids)
    assert {index.name_of(i): int(c) for i, c in enumerate(counts) if c} == {
        name: before[name] for name in "def"
    }
