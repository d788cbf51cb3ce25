"""Comparing two documents: their passages and what share of each they cover.

Coverage and similarity are counted in units (letters and digits in prose,
tokens in code), so layout, punctuation and comments weigh nothing:

    a_coverage = units of A inside some passage / units of A
    similarity = (covered units of A + covered units of B) / (units of A + units of B)
    exact_coverage = units of A and B in exact runs inside passages / (units of A + units of B)

A reworded passage counts in full for the similarity but only by its exact
runs for the exact coverage, so the two together say how much was reused and
how much of that word for word.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

import numpy as np

from doublet.engine.document import Document
from doublet.engine.fingerprints import Fingerprints
from doublet.engine.paraphrase import align_sentences, with_reworded
from doublet.engine.passages import AlignOptions, Passage, align_seeds, find_seeds, union_length
from doublet.engine.resemblance import Resemblance, resemblance
from doublet.engine.sentences import split_spans


@dataclass(frozen=True)
class PairResult:
    """Passages between documents A and B with pair-level figures."""

    a: Document
    b: Document
    passages: list[Passage]
    a_covered: int
    b_covered: int
    a_units: int  # units of the whole of A
    b_units: int

    @property
    def a_coverage(self) -> float:
        return self.a_covered / max(self.a_units, 1)

    @property
    def b_coverage(self) -> float:
        return self.b_covered / max(self.b_units, 1)

    @property
    def similarity(self) -> float:
        return (self.a_covered + self.b_covered) / max(self.a_units + self.b_units, 1)

    @property
    def exact_coverage(self) -> float:
        """Share of both documents' units in exact runs: how much was copied word for word."""
        matched = sum(p.matched for p in self.passages)
        return min(matched / max(self.a_units + self.b_units, 1), 1.0)

    @cached_property
    def resemblance(self) -> Resemblance:
        """How alike the documents are as a whole (for code, more than the passages)."""
        return resemblance(self)

    def with_passages(self, passages: list[Passage]) -> PairResult:
        """The same pair with only ``passages`` (coverage recounted)."""
        return PairResult(
            self.a,
            self.b,
            passages,
            union_length([(p.a.first, p.a.stop) for p in passages]),
            union_length([(p.b.first, p.b.stop) for p in passages]),
            self.a_units,
            self.b_units,
        )

    @property
    def longest(self) -> int:
        """Length in characters (of A's text) of the longest passage, 0 if none."""
        return max((p.a.end - p.a.start for p in self.passages), default=0)


def compare(
    a: Document,
    b: Document,
    options: AlignOptions | None = None,
    fingerprints: tuple[Fingerprints, Fingerprints] | None = None,
    reworded: bool | Literal["widen"] | None = None,
) -> PairResult:
    """All passages shared by two documents of the same mode.

    ``fingerprints`` replaces the documents' own (a scan passes them with
    boilerplate removed). ``reworded`` says whether to look for paraphrase
    sentence by sentence as well: True, False, None (as the mode says) or
    ``"widen"``: only within WIDEN_REACH of copied passages, if there are any
    (so a copied passage grows over the reworded text around it).
    """
    if a.mode.salt != b.mode.salt:
        raise ValueError(
            f"{a.name} ({a.mode.name}) and {b.name} ({b.mode.name}) are in different modes"
        )
    options = options or a.mode.alignment
    fa, fb = fingerprints or (a.fingerprints, b.fingerprints)
    seeds = find_seeds(fa, fb, options)
    # units (the documents' text, cut up) are needed only when seeds were found
    passages = align_seeds(seeds, a.units, b.units, options) if len(seeds) else []
    widen = reworded == "widen"
    if widen and not passages:
        reworded = False
    if a.mode.reworded if reworded is None or widen else reworded:
        if widen:  # only the surroundings of the copied passages
            sentences_a = split_spans(a.text, _around([(p.a.start, p.a.end) for p in passages]))
            sentences_b = split_spans(b.text, _around([(p.b.start, p.b.end) for p in passages]))
        else:
            sentences_a, sentences_b = a.sentences, b.sentences
        # text whose fingerprints were left out (boilerplate, templates) is left out here too
        sentences_a = sentences_a.without(_left_out(a, fa))
        sentences_b = sentences_b.without(_left_out(b, fb))
        fragments = align_sentences(sentences_a, sentences_b)
        passages = with_reworded(passages, fragments, a.units, b.units, options.min_length)
    return PairResult(
        a,
        b,
        passages,
        union_length([(p.a.first, p.a.stop) for p in passages]),
        union_length([(p.b.first, p.b.stop) for p in passages]),
        a.unit_count,
        b.unit_count,
    )


#: How far (characters) around a copied passage ``reworded="widen"`` looks for
#: reworded sentences: about two paragraphs.
WIDEN_REACH = 2000


def _around(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans widened by WIDEN_REACH on each side, overlapping ones merged."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted((max(0, s - WIDEN_REACH), e + WIDEN_REACH) for s, e in spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _left_out(document: Document, used: Fingerprints) -> np.ndarray:
    """Text offsets of the document's fingerprints that are not among ``used``."""
    every = document.fingerprints
    if len(used) == len(every):
        return np.zeros(0, dtype=np.int64)
    positions = np.setdiff1d(every.positions, used.positions, assume_unique=True)
    return document.units.starts[positions]


def passage_digest(a: Document, b: Document, passage: Passage) -> str:
    """A name for a passage that survives reformatting and the order of the pair.

    It hashes the folded units of both sides, so re-wrapping or re-indenting
    either file keeps it; it is what an "ignore this match" entry records.
    """
    sides = sorted(
        hashlib.blake2b(symbols.tobytes(), digest_size=16).digest()
        for symbols in (
            a.units.symbols[passage.a.first : passage.a.stop],
            b.units.symbols[passage.b.first : passage.b.stop],
        )
    )
    return hashlib.blake2b(b"".join(sides), digest_size=12).hexdigest()
