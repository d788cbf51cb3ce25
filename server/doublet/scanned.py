"""A scan's pairs as they are kept and shown: no documents, no text.

A scan of a folder of 100,000 documents lists tens of thousands of pairs. What
a report shows of each (names, passages with their lines, figures, the code
resemblance) is small, and is all made where the pair is aligned, while its
two documents are at hand — in a worker process, say. So the pair travels,
is kept between scans (scan_store) and is printed without its documents being
read again; only the text renderings, which quote passages, read them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cached_property

from doublet.engine.comparison import Covered, PairResult, passage_digest
from doublet.engine.passages import Passage, union_length
from doublet.engine.resemblance import Resemblance, combined
from doublet.excerpts import line_range


@dataclass(frozen=True, slots=True)
class ScannedPassage:
    """A passage with the lines of both its sides (1-based, first and last) and its
    ``digest`` (the name an "ignore this match" entry records)."""

    passage: Passage
    a_lines: tuple[int, int]
    b_lines: tuple[int, int]
    digest: str

    def __reduce__(self) -> tuple:  # as engine/passages.Side's
        return (ScannedPassage, (self.passage, self.a_lines, self.b_lines, self.digest))


@dataclass(frozen=True)
class ScannedPair(Covered):
    """Two documents by name, the passages they share and the pair's figures."""

    a: str
    b: str
    passages: tuple[ScannedPassage, ...]
    a_covered: int
    b_covered: int
    a_units: int
    b_units: int
    resemblance: Resemblance
    lexical: bool  # a pair of programs: its resemblance is more than its similarity

    @cached_property
    def exact_coverage(self) -> float:
        matched = 0
        for p in self.passages:
            matched += p.passage.matched
        return min(matched / max(self.a_units + self.b_units, 1), 1.0)

    @cached_property
    def longest(self) -> int:
        """Length in characters (of A's text) of the longest passage, 0 if none."""
        return max((p.passage.a.end - p.passage.a.start for p in self.passages), default=0)

    def keeping(self, keep: Callable[[ScannedPassage], bool]) -> ScannedPair:
        """The pair with only the passages ``keep`` takes: coverage and resemblance
        counted again (as ``PairResult.with_passages`` would give them)."""
        kept = tuple(p for p in self.passages if keep(p))
        if len(kept) == len(self.passages):
            return self
        pair = replace(
            self,
            passages=kept,
            a_covered=union_length([(p.passage.a.first, p.passage.a.stop) for p in kept]),
            b_covered=union_length([(p.passage.b.first, p.passage.b.stop) for p in kept]),
        )
        if not self.lexical:
            return replace(
                pair, resemblance=Resemblance(pair.similarity, 0.0, 0.0, pair.similarity)
            )
        evidence = self.resemblance
        return replace(
            pair, resemblance=combined(pair.exact_coverage, evidence.literals, evidence.names)
        )


def scanned(result: PairResult) -> ScannedPair:
    """What is kept of an aligned pair (its documents' text is read here, once)."""
    a, b = result.a, result.b
    passages = tuple(
        ScannedPassage(
            p,
            line_range(a.text, p.a.start, p.a.end),
            line_range(b.text, p.b.start, p.b.end),
            passage_digest(a, b, p),
        )
        for p in result.passages
    )
    return ScannedPair(
        a.name,
        b.name,
        passages,
        result.a_covered,
        result.b_covered,
        result.a_units,
        result.b_units,
        result.resemblance,
        a.mode.lexical,
    )


def ranked(pairs: list[ScannedPair]) -> list[ScannedPair]:
    """Best first: by resemblance, then the longest passage, then the names."""
    return sorted(pairs, key=lambda r: (-r.resemblance.score, -r.longest, r.a, r.b))
