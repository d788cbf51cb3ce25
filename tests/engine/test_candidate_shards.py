"""Candidates selected by map, shuffle and reduce are those selected at once.

engine/candidate_shards is what a Dask cluster runs (tests/cli/test_dask.py runs
it there); here its steps run in this process, over any number of key ranges
and parts of the pairs, against ``all_candidates`` on the same index.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from prose_samples import UNRELATED_SENTENCES

from doublet.engine.candidate_shards import sharded_candidates
from doublet.engine.candidates import all_candidates
from doublet.engine.document import Document
from doublet.engine.index import Index, Role
from doublet.engine.modes import MODES
from doublet.sources import read_document

PROSE = MODES["prose"].with_thresholds(min_length=40)
CODE = MODES["code"]
CLOUGH_STEVENSON = Path(__file__).parents[1] / "data" / "clough-stevenson"


def here(function, *args):
    """Run a step now; its result is its own handle."""
    return function(*args)


def selected(index: Index, max_docs: int, shards: int, parts: int):
    return sharded_candidates(index, max_docs, shards, parts, here, list)


def assert_same(index: Index, max_docs: int, shards: int, parts: int) -> None:
    want, want_ignored = all_candidates(index, max_docs)
    got, got_ignored = selected(index, max_docs, shards, parts)
    assert got == want
    assert got_ignored.dtype == want_ignored.dtype
    assert got_ignored.tolist() == want_ignored.tolist()


@pytest.fixture(scope="module")
def essays() -> Index:
    """Clough & Stevenson's answers and originals; one original as a template, and two
    answers handed in by one student (a group)."""
    index = Index()
    for path in sorted(CLOUGH_STEVENSON.glob("*.txt")):
        text = read_document(path, path.read_bytes())
        role = Role(template=path.name == "orig_taska.txt")
        if path.name in ("g0pA_taskb.txt", "g0pA_taskc.txt"):
            role = Role(group="g0pA")
        index.add(path.name, Document(path.name, text, PROSE).keys, PROSE, role)
    return index


@pytest.mark.parametrize(
    ("max_docs", "shards", "parts"), [(5, 1, 1), (5, 2, 3), (5, 7, 4), (50, 16, 1), (50, 3, 5)]
)
def test_a_folder_cut_into_shards_and_parts_has_the_candidates_of_one_selection(
    essays: Index, max_docs: int, shards: int, parts: int
) -> None:
    """At 5 documents much is boilerplate; at 50, sentence keys have a lower limit (30)
    than fingerprints."""
    want, ignored = all_candidates(essays, max_docs)
    assert len(want) > 100 and ignored.shape[0] > 0  # pairs, and boilerplate to drop
    assert any(c.sentence_seeds and not c.fingerprint_seeds for c in want)  # reworded only
    assert_same(essays, max_docs, shards, parts)


def text_for(name: str, picks: list[int]) -> str:
    """Prose of the picked sentences, or a program that prints them."""
    if name.endswith(".py"):
        return "".join(f'print("{UNRELATED_SENTENCES[i]}")\n' for i in picks)
    return " ".join(UNRELATED_SENTENCES[i] for i in picks)


_PICKS = st.lists(st.integers(0, len(UNRELATED_SENTENCES) - 1), min_size=1, max_size=8)
_ROLE = st.sampled_from(
    [Role(), Role(), Role(template=True), Role(group="g"), Role(reference=True)]
)


@settings(max_examples=40, deadline=None)
@given(
    folder=st.lists(st.tuples(st.booleans(), _PICKS, _ROLE), min_size=0, max_size=9),
    max_docs=st.integers(1, 6),
    shards=st.integers(1, 6),
    parts=st.integers(1, 4),
    removed=st.sets(st.integers(0, 8), max_size=3),
)
def test_any_folder_gives_the_same_candidates_however_it_is_cut(
    folder, max_docs, shards, parts, removed
) -> None:
    """Prose and programs sharing sentences (copies, the same text twice), templates,
    groups and references, documents removed: the same candidates and ignored keys."""
    index = Index()
    for i, (program, picks, role) in enumerate(folder):
        name = f"d{i}.py" if program else f"d{i}.txt"
        mode = CODE if program else PROSE
        index.add(name, Document(name, text_for(name, picks), mode).keys, mode, role)
    for i in sorted(removed):
        for name in (f"d{i}.py", f"d{i}.txt"):
            if name in index:
                index.remove(name)
    assert_same(index, max_docs, shards, parts)


def test_sentence_keys_in_more_documents_than_their_own_limit_select_no_pair() -> None:
    """A paragraph in 40 of 45 documents: its sentence keys are past their limit (30
    documents), its fingerprints are not (100): seeds by the one, none by the other."""
    shared = " ".join(UNRELATED_SENTENCES[:4])
    index = Index()
    for i in range(45):
        own = f"Document {i} was written on day {i * 7} by writer number {i * 13}. " * 3
        text = own + (shared if i < 40 else " ".join(UNRELATED_SENTENCES[4:]))
        index.add(f"d{i:02d}.txt", Document(f"d{i:02d}.txt", text, PROSE).keys, PROSE)
    want, _ = all_candidates(index, 100)
    sharing = [c for c in want if c.b < "d40"]
    assert len(sharing) == 40 * 39 // 2 and not any(c.sentence_seeds for c in sharing)
    assert any(c.sentence_seeds for c in want if c.a >= "d40")  # the five others: seeds
    assert_same(index, 100, 3, 2)


def test_no_document_is_no_candidate() -> None:
    found, ignored = selected(Index(), 10, 4, 2)
    assert found == [] and np.array_equal(ignored, np.zeros(0, np.uint32))
