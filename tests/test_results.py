"""The report's data (doublet.results): documents that cannot be read to quote."""

from __future__ import annotations

from doublet.engine.document import Document
from doublet.engine.modes import MODES
from doublet.engine.resemblance import Resemblance
from doublet.results import Listing, quotable, texts_of
from doublet.scanned import ScannedPair
from doublet.skipped import NotText


def test_a_document_gone_before_it_is_quoted_leaves_only_its_pairs_out() -> None:
    names = ["a.txt", "b.txt", "c.txt"]
    listing = Listing(names, dict.fromkeys(names, 10), dict.fromkeys(names, "prose"), {})
    nothing = Resemblance(0.5, 0.0, 0.0, 0.5)
    pairs = [
        ScannedPair("a.txt", "b.txt", (), 5, 5, 10, 10, nothing, False),
        ScannedPair("a.txt", "c.txt", (), 5, 5, 10, 10, nothing, False),
    ]

    def document(name: str) -> Document:
        if name == "c.txt":
            raise NotText(name, "no such file (it may have been moved or deleted)")
        return Document(name, "some text", MODES["prose"])

    texts = texts_of(pairs, listing, document)
    assert sorted(texts) == [0, 1]
    data = {"pairs": [{"a": 0, "b": 1}, {"a": 0, "b": 2}], "documents": []}
    assert quotable(data, texts)["pairs"] == [{"a": 0, "b": 1}]
