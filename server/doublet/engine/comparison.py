"""Comparing two documents: their passages and what share of each they cover.

Coverage and similarity are counted in units (letters and digits in prose,
tokens in code), so layout, punctuation and comments weigh nothing:

    a_coverage = units of A inside some passage / units of A
    similarity = (covered units of A + covered units of B) / (units of A + units of B)
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from doublet.engine.document import Document
from doublet.engine.fingerprints import Fingerprints
from doublet.engine.passages import AlignOptions, Passage, align_seeds, find_seeds, union_length


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
) -> PairResult:
    """All passages shared by two documents of the same mode.

    ``fingerprints`` replaces the documents' own (a scan passes them with
    boilerplate removed).
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
    return PairResult(
        a,
        b,
        passages,
        union_length([(p.a.first, p.a.stop) for p in passages]),
        union_length([(p.b.first, p.b.stop) for p in passages]),
        a.unit_count,
        b.unit_count,
    )


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
