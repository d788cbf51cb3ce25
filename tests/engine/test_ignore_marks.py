"""Ignore marks: ``doublet: ignore-start`` / ``ignore-end`` / ``ignore-line`` in any file."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from doublet.engine.document import Document
from doublet.engine.ignore_marks import MARK, ignored_spans, keep_marks, without_ignored
from doublet.engine.index import Index
from doublet.engine.matching import Settings, all_pairs
from doublet.engine.modes import MODES

SHARED = (
    "The committee met on a grey morning to weigh the evidence gathered over three "
    "long winters, and agreed that the northern colony had failed for want of bees."
)


def test_start_and_end_leave_out_their_lines_and_everything_between() -> None:
    text = "kept\n# doublet: ignore-start\nleft out\n# doublet: ignore-end\nkept too"
    [(start, end)] = ignored_spans(text)
    assert text[start:end] == "# doublet: ignore-start\nleft out\n# doublet: ignore-end"
    blanked = without_ignored(text)
    assert len(blanked) == len(text) and blanked.count("\n") == text.count("\n")
    assert blanked.startswith("kept\n") and blanked.endswith("\nkept too")
    assert "left" not in blanked


def test_ignore_line_leaves_out_its_own_line_in_any_comment_syntax() -> None:
    for comment in (
        "# doublet: ignore-line",
        "// doublet:ignore-line",
        "<!-- doublet: ignore-line -->",
    ):
        text = f"first\nx = 1  {comment}\nlast"
        assert without_ignored(text) == "first\n" + " " * len(f"x = 1  {comment}") + "\nlast"


def test_a_start_without_an_end_runs_to_the_end_and_an_end_alone_is_its_line() -> None:
    assert ignored_spans("a\n% doublet: ignore-start\nb\nc") == [(2, 29)]
    assert ignored_spans("a\ndoublet: ignore-end\nb") == [(2, 21)]
    assert ignored_spans("no marks here, doublet: ignore-everything") == []


@given(
    st.lists(
        st.sampled_from(
            [
                "text ",
                "\n",
                "doublet: ignore-start",
                "doublet: ignore-end",
                "doublet: ignore-line",
                "é",
            ]
        ),
        max_size=30,
    )
)
def test_blanking_keeps_length_and_lines_and_spans_are_ordered_and_disjoint(
    parts: list[str],
) -> None:
    text = "".join(parts)
    spans = ignored_spans(text)
    assert all(0 <= s < e <= len(text) for s, e in spans)
    assert all(a[1] < b[0] for a, b in itertools.pairwise(spans))
    blanked = without_ignored(text)
    assert len(blanked) == len(text)
    assert [i for i, c in enumerate(blanked) if c == "\n"] == [
        i for i, c in enumerate(text) if c == "\n"
    ]
    assert not MARK.search(blanked)


def test_marks_blanked_with_their_markup_are_put_back() -> None:
    original = "<!-- doublet: ignore-start -->\ncopied\n<!-- doublet: ignore-end -->"
    masked = " " * 30 + "\ncopied\n" + " " * 28
    kept = keep_marks(original, masked)
    assert len(kept) == len(original)
    assert without_ignored(kept).strip() == ""


def test_marked_text_matches_nothing_and_the_rest_still_does() -> None:
    prose = MODES["prose"]
    source = Document("source.txt", f"{SHARED}\n\n{SHARED.upper()} AGAIN, IN CAPITALS.", prose)
    marked = (
        f"Intro of mine.\n<!-- doublet: ignore-start -->\n{SHARED}\n"
        "<!-- doublet: ignore-end -->\nThe end."
    )
    unmarked = f"Intro of mine.\n\n{SHARED}\n\nThe end."
    for text, expected in ((marked, 0), (unmarked, 1)):
        documents = {d.name: d for d in (source, Document("essay.md", text, prose))}
        index = Index()
        for document in documents.values():
            index.add(document.name, document.keys, document.mode)
        found = all_pairs(index, documents.__getitem__, Settings(max_docs=10))
        assert len(found) == expected
        if found:  # offsets are into the file as written
            [passage] = found[0].passages
            essay = found[0].a if found[0].a.name == "essay.md" else found[0].b
            side = passage.a if found[0].a is essay else passage.b
            assert text[side.start : side.end].startswith("The committee")
