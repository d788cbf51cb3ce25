"""Template text in a document: the spans a reader sees greyed (engine/given)."""

from __future__ import annotations

import itertools
import random
import string

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from doublet.engine.document import Document
from doublet.engine.given import given_spans
from doublet.engine.index import keys_of
from doublet.engine.modes import MODES


def words(seed: int, count: int) -> str:
    rng = random.Random(seed)
    letters = string.ascii_lowercase
    return " ".join("".join(rng.choices(letters, k=rng.randint(3, 9))) for _ in range(count))


def spans_in(text: str, template: str) -> list[tuple[int, int]]:
    mode = MODES["prose"]
    keys = np.unique(keys_of(Document("t", template, mode).fingerprints.hashes))
    document = Document("d", text, mode)
    return given_spans(text, document.fingerprints, document.units, keys, mode.window)


def test_each_given_paragraph_is_one_span_close_to_its_edges() -> None:
    first, second = words(1, 40), words(2, 30)
    own = [words(3, 50), words(4, 50), words(5, 50)]
    text = f"{own[0]}\n\n{first}\n\n{own[1]}\n\n{second}\n\n{own[2]}"
    found = spans_in(text, f"{first}\n\n{second}")
    assert len(found) == 2
    for (start, end), given_text in zip(found, (first, second), strict=True):
        at = text.index(given_text)  # a paragraph's edges are found exactly
        assert (start, end) == (at, at + len(given_text))


def test_nothing_given_nothing_greyed() -> None:
    text = words(6, 80)
    assert spans_in(text, words(7, 80)) == []
    document = Document("d", text, MODES["prose"])
    empty = np.zeros(0, np.uint32)
    assert given_spans(text, document.fingerprints, document.units, empty, 10) == []


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 3))
def test_spans_are_ordered_apart_and_inside_the_text(seed: int, pieces: int) -> None:
    template = words(seed, 60)
    parts = [words(seed + 1 + i, 20) for i in range(pieces + 1)]
    text = "\n".join(p + "\n" + template[: 100 * (i + 1)] for i, p in enumerate(parts))
    found = spans_in(text, template)
    assert all(0 <= s < e <= len(text) for s, e in found)
    assert all(e1 < s2 for (_, e1), (s2, _) in itertools.pairwise(found))
