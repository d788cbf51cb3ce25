"""Selection again after a few changes (engine/selection): after any history of edits,
additions, removals and renames, the candidates and the keys to ignore are those a
selection of the whole folder gives (all_candidates), to the last count."""

from __future__ import annotations

import hashlib

import msgpack
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from prose_samples import UNRELATED_SENTENCES

from doublet.engine.candidates import all_candidates, boilerplate_limit
from doublet.engine.document import Document, DocumentKeys
from doublet.engine.index import Index, Role
from doublet.engine.modes import MODES
from doublet.engine.selection import Selection, as_data, from_data, reselect, select_all

#: Sentences, and the same reworded (words swapped or changed): copied and reworded text.
SENTENCES = [
    *UNRELATED_SENTENCES,
    *(
        " ".join(words[:2] + words[3:4] + words[2:3] + words[4:-1] + ["again."])
        for words in (s.split() for s in UNRELATED_SENTENCES)
    ),
]
#: Lines of programs: literals that a few programs print (lexicon keys).
LINES = [
    'print("the total cost of the order")',
    'print("average speed in metres")',
    "limit = 31415",
    'raise ValueError("no such customer here")',
    "for i in range(2718):\n    total += i * 1618",
    'print("goodbye and thanks for all the fish")',
    "ratio = 0.5772 * count",
]

#: A document: its name, the sentences (prose) or lines (a program) it is made of.
Spec = tuple[str, tuple[int, ...]]


def text_of(name: str, parts: tuple[int, ...]) -> str:
    if name.endswith(".py"):
        return "\n".join(LINES[i % len(LINES)] for i in parts) + "\n"
    return " ".join(SENTENCES[i % len(SENTENCES)] for i in parts)


def role_of(name: str) -> Role:
    if name.startswith("template"):
        return Role(template=True)
    if name.startswith("ref"):
        return Role(reference=True)
    return Role(group=name.split("-")[0]) if "-" in name else Role()


def digest_of(stamp: bytes) -> str | None:
    return stamp.decode() if stamp else None


class Folder:
    """An index of documents made of sample sentences, with each one's keys at hand."""

    def __init__(self) -> None:
        self.index = Index()
        self.keys: dict[str, DocumentKeys] = {}

    def put(self, name: str, parts: tuple[int, ...]) -> None:
        text = text_of(name, parts)
        mode = MODES["code" if name.endswith(".py") else "prose"]
        keys = Document(name, text, mode).keys
        stamp = hashlib.blake2b(text.encode(), digest_size=8).hexdigest().encode()
        self.index.add(name, keys, mode, role_of(name), stamp)
        self.keys[name] = keys

    def remove(self, name: str) -> None:
        self.index.remove(name)
        del self.keys[name]

    def rename(self, old: str, new: str) -> None:
        self.index.rename(old, new)
        self.keys[new] = self.keys.pop(old)

    def selected(self, previous: Selection | None, max_docs: int) -> tuple[Selection, bool]:
        """The selection made from ``previous`` if it can be, else of the whole folder,
        and whether it was made from ``previous``."""
        if previous is not None:
            again = reselect(self.index, max_docs, previous, self.keys.__getitem__, digest_of)
            if again is not None:
                return again, True
        return select_all(self.index, max_docs, digest_of), False


NAMES = ["a.txt", "b.txt", "c.txt", "s1-d.txt", "s1-e.txt", "ref-f.txt", "g.py", "h.py", "i.py"]
#: What a document is made of: any sentences, or a few of three (the same texts often).
parts = st.one_of(
    st.lists(st.integers(0, len(SENTENCES) - 1), min_size=1, max_size=6),
    st.lists(st.integers(0, 2), min_size=1, max_size=2),
).map(tuple)
#: Operations: put (add or replace) a document, remove one, rename one, append to one.
operations = st.lists(
    st.tuples(
        st.sampled_from(["put", "remove", "rename", "append"]), st.sampled_from(NAMES), parts
    ),
    min_size=1,
    max_size=8,
)


def apply(folder: Folder, texts: dict[str, tuple[int, ...]], op: tuple) -> None:
    kind, name, chosen = op
    if kind == "put" or name not in texts:
        texts[name] = chosen
    elif kind == "remove":
        del texts[name]
        folder.remove(name)
        return
    elif kind == "rename":
        free = [n for n in NAMES if n not in texts and n[-3:] == name[-3:]]
        if free:
            texts[free[0]] = texts.pop(name)
            folder.rename(name, free[0])
        return
    else:
        texts[name] = texts[name] + chosen[:1]
    folder.put(name, texts[name])


def same_as_whole(folder: Folder, found: Selection, max_docs: int) -> None:
    candidates, ignored = all_candidates(folder.index, max_docs)
    assert found.candidates == candidates
    assert np.array_equal(found.ignored, ignored) and found.ignored.dtype == ignored.dtype


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    start=st.dictionaries(st.sampled_from(NAMES), parts, min_size=2, max_size=8),
    history=st.lists(operations, min_size=1, max_size=4),
    boilerplate=st.sampled_from([3, 4, 5, 0.5]),
    template=st.booleans(),
)
def test_candidates_selected_again_are_those_of_the_whole_folder(
    start: dict[str, tuple[int, ...]],
    history: list[list[tuple]],
    boilerplate: int | float,
    template: bool,
) -> None:
    folder = Folder()
    texts = dict(start)
    if template:
        texts["template.txt"] = (0, 1)
    for name, chosen in texts.items():
        folder.put(name, chosen)
    max_docs = boilerplate_limit(len(folder.index), boilerplate)
    found, _ = folder.selected(None, max_docs)
    same_as_whole(folder, found, max_docs)
    for ops in history:
        for op in ops:
            apply(folder, texts, op)
        if len(folder.index) < 2:
            return
        max_docs = boilerplate_limit(len(folder.index), boilerplate)
        found, _ = folder.selected(kept(found), max_docs)
        same_as_whole(folder, found, max_docs)


def kept(found: Selection) -> Selection | None:
    """The selection as the scan store writes and reads it back."""
    data = as_data(found)
    if data is None:
        return None
    return from_data(msgpack.unpackb(msgpack.packb(data, use_bin_type=True), raw=False))


def test_a_selection_kept_and_read_back_is_the_same() -> None:
    folder = Folder()
    for number, name in enumerate(NAMES):
        folder.put(name, (number, number + 1, 2))
    found = select_all(folder.index, 10, digest_of)
    back = kept(found)
    assert back is not None and found.basis is not None and back.basis is not None
    assert back.candidates == found.candidates and len(found.candidates) > 3
    assert np.array_equal(back.ignored, found.ignored)
    assert back.basis.documents == found.basis.documents
    for kind, counts in found.basis.kinds.items():
        again = back.basis.kinds[kind]
        assert again.floor == counts.floor
        for part in ("keys", "counts", "exact_at", "given", "ignored"):
            assert np.array_equal(getattr(again, part), getattr(counts, part))
    assert back.basis.count == found.basis.count and back.basis.templates == found.basis.templates


def test_keys_read_again_that_are_not_those_indexed_select_the_whole_folder() -> None:
    folder = Folder()
    for number, name in enumerate(NAMES[:5]):
        folder.put(name, (number, 3))
    found = select_all(folder.index, 10, digest_of)
    folder.put("a.txt", (0, 3, 4))
    stale = {**folder.keys, "a.txt": folder.keys["b.txt"]}  # as if the file changed again
    assert reselect(folder.index, 10, found, stale.__getitem__, digest_of) is None
    again = reselect(folder.index, 10, found, folder.keys.__getitem__, digest_of)
    assert again is not None
    same_as_whole(folder, again, 10)


#: A larger folder, whose limits move with every document added or removed (the
#: boilerplate limit is half the documents): sentences of a few kinds, some in most.
MANY = [f"p{number:02d}.txt" for number in range(40)]
common_parts = st.lists(
    st.one_of(st.integers(0, 3), st.integers(0, len(SENTENCES) - 1)), min_size=1, max_size=4
).map(tuple)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    start=st.dictionaries(st.sampled_from(MANY), common_parts, min_size=20, max_size=30),
    history=st.lists(
        st.lists(st.tuples(st.sampled_from(MANY), common_parts, st.booleans()), max_size=3),
        min_size=1,
        max_size=5,
    ),
)
def test_candidates_selected_again_as_the_limits_move(
    start: dict[str, tuple[int, ...]], history: list[list[tuple[str, tuple[int, ...], bool]]]
) -> None:
    folder = Folder()
    texts = dict(start)
    for name, chosen in texts.items():
        folder.put(name, chosen)
    found, _ = folder.selected(None, boilerplate_limit(len(folder.index)))
    for changes in history:
        for name, chosen, remove in changes:
            if remove and name in texts and len(texts) > 2:
                del texts[name]
                folder.remove(name)
            else:
                texts[name] = chosen
                folder.put(name, chosen)
        max_docs = boilerplate_limit(len(folder.index))
        found, _ = folder.selected(kept(found), max_docs)
        same_as_whole(folder, found, max_docs)


def test_pairs_of_unchanged_documents_follow_a_key_that_crossed_the_limit() -> None:
    """Three documents share a sentence; a fourth makes its keys too common to pair
    (max_docs 3), and its removal makes them pair again: the three, unchanged, are
    selected again from the kept selection, not from the whole folder."""
    folder = Folder()
    for name, chosen in [("a.txt", (0, 5)), ("b.txt", (0, 6)), ("c.txt", (0, 7))]:
        folder.put(name, chosen)
    found, _ = folder.selected(None, 3)
    among = {("a.txt", "b.txt"), ("a.txt", "c.txt"), ("b.txt", "c.txt")}
    assert {(c.a, c.b) for c in found.candidates} == among
    folder.put("d.txt", (0, 8))
    found, again = folder.selected(kept(found), 3)
    assert again and not {(c.a, c.b) for c in found.candidates} & among
    same_as_whole(folder, found, 3)
    folder.remove("d.txt")
    found, again = folder.selected(kept(found), 3)
    assert again and {(c.a, c.b) for c in found.candidates} == among
    same_as_whole(folder, found, 3)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    texts=st.dictionaries(st.sampled_from(NAMES), parts, min_size=2, max_size=9),
    template=st.booleans(),
    slice_size=st.sampled_from([1, 2, 3, 5, 17]),
)
def test_a_selection_is_the_same_whatever_slices_the_postings_are_read_in(
    texts: dict[str, tuple[int, ...]], template: bool, slice_size: int
) -> None:
    """Selection reads the postings a slice at a time, keeping only keys several
    documents hold (a key's run may go on into the next slices), and the templates'
    keys and the documents' digests in passes of their own: the same candidates, keys
    to ignore and basis as when a slice holds them all."""
    from doublet.engine import index as index_module

    folder = Folder()
    if template:
        texts = {**texts, "template.txt": (0, 1)}
    for name, chosen in texts.items():
        folder.put(name, chosen)
    whole = select_all(folder.index, 3, digest_of)
    original = index_module._SLICE
    index_module._SLICE = slice_size
    try:
        sliced = select_all(folder.index, 3, digest_of)
    finally:
        index_module._SLICE = original
    assert sliced.candidates == whole.candidates
    assert np.array_equal(sliced.ignored, whole.ignored)
    assert msgpack.packb(as_data(sliced)) == msgpack.packb(as_data(whole))
