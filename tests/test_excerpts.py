"""How passages are quoted on one line (doublet/excerpts)."""

from __future__ import annotations

import unicodedata

from doublet.excerpts import excerpt


def test_a_long_passage_is_elided_in_the_middle_to_its_width() -> None:
    text = " ".join(f"word{i}" for i in range(60))
    shown = excerpt(text, 0, len(text), width=40)
    assert shown.startswith("word0 word1") and shown.endswith("word58 word59")
    assert " … " in shown and len(shown) <= 40
    assert excerpt("short  and\n\nflat", 0, 16) == "short and flat"


def test_decomposed_accents_stay_with_their_letters() -> None:
    """An NFD "é" is "e" and a combining accent: a cut between them would show "resume"
    for "résumé" (or an accent with no letter)."""
    for at in range(30):
        text = unicodedata.normalize("NFD", "x" * at + "résumé café naïve " * 8)
        shown = excerpt(text, 0, len(text), width=40)
        head, tail = shown.split(" … ")
        for part in (head, tail):
            assert not unicodedata.combining(part[0])
            composed = unicodedata.normalize("NFC", part)
            assert all(word in "x" * at + "résumé café naïve" for word in composed.split()[1:-1])
        # the head ends on a whole letter: its accents, if any, are kept
        assert (
            unicodedata.normalize("NFC", head)
            == unicodedata.normalize("NFC", text)[: len(unicodedata.normalize("NFC", head))]
        )
