"""Comparing two documents: their passages and what share of each they cover.

Coverage and similarity are counted in units (letters and digits in prose,
tokens in code), so layout, punctuation and comments weigh nothing:

    a_coverage = units of A inside some passage / units of A
    similarity = (covered units of A + covered units of B) / (units of A + units of B)
    exact_coverage = units of A and B in exact runs inside passages / (units of A + units of B)

A passage found by the paraphrase stage counts in full for the similarity but
only by its exact runs for the exact coverage, so the two together say how
much was reused and how much of that word for word.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from doublet.engine.document import Document
from doublet.engine.fingerprints import Fingerprints
from doublet.engine.paraphrase import SentenceAlignment, alignments, with_paraphrase
from doublet.engine.passages import (
    AlignOptions,
    Passage,
    align_seeds_each,
    find_seeds_each,
    union_length,
)
from doublet.engine.resemblance import Resemblance, resemblance
from doublet.engine.sentences import Sentences


class Covered:
    """The figures of a pair made of its counts of covered units (``a_covered``,
    ``b_covered``, ``a_units``, ``b_units``): the engine's pairs and a scan's kept ones
    (doublet/scanned) count them alike."""

    a_covered: int
    b_covered: int
    a_units: int
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


@dataclass(frozen=True)
class PairResult(Covered):
    """Passages between documents A and B with pair-level figures."""

    a: Document
    b: Document
    passages: list[Passage]
    a_covered: int
    b_covered: int
    a_units: int  # units of the whole of A
    b_units: int

    @property
    def exact_coverage(self) -> float:
        """Share of both documents' units in exact runs: how much was copied word for word."""
        matched = sum(p.matched for p in self.passages)
        return min(matched / max(self.a_units + self.b_units, 1), 1.0)

    @cached_property
    def resemblance(self) -> Resemblance:
        """How alike the documents are as a whole (for code, more than the passages).

        For code the structure is the exact coverage: passages bridge small gaps,
        so two independent solutions of a small exercise a few tokens apart are
        covered whole (similarity 1) though only most of them is the same.
        """
        structure = self.exact_coverage if self.a.mode.lexical else self.similarity
        return resemblance(structure, self.a, self.b)

    @staticmethod
    def nothing(a: Document, b: Document) -> PairResult:
        """Two documents that share no passage."""
        return PairResult(a, b, [], 0, 0, a.unit_count, b.unit_count)

    def swapped(self) -> PairResult:
        """The same pair with B first."""
        return PairResult(
            self.b,
            self.a,
            sorted((p.swapped() for p in self.passages), key=lambda p: (p.a.first, p.b.first)),
            self.b_covered,
            self.a_covered,
            self.b_units,
            self.a_units,
        )

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
    paraphrase: bool | None = None,
    copied: bool = True,
) -> PairResult:
    """All passages shared by two documents of the same mode.

    ``fingerprints`` replaces the documents' own (boilerplate and template
    fingerprints removed, say); text whose fingerprints were left out is left
    out of the paraphrase stage too. Without ``copied`` and ``fingerprints``, no
    fingerprint is computed at all. ``paraphrase`` says whether to compare the
    documents sentence by sentence as well (None: as their mode says); ``copied``
    whether to look for copied passages (False when it is known there are none).

    The answer does not depend on which document is given first: the pair is
    aligned in one orientation (the shorter document first) and turned as asked.
    """
    return compare_many([Asked(a, b, options, fingerprints, paraphrase, copied)])[0]


@dataclass(frozen=True)
class Asked:
    """One pair to compare, and how (the arguments of :func:`compare`)."""

    a: Document
    b: Document
    options: AlignOptions | None = None
    fingerprints: tuple[Fingerprints, Fingerprints] | None = None
    paraphrase: bool | None = None
    copied: bool = True


def compare_many(asked: Sequence[Asked]) -> list[PairResult]:
    """:func:`compare` of each pair, their stages run together: the copied passages'
    seeds and exact runs (engine/passages ``find_seeds_each``, ``align_seeds_each``),
    and the paraphrase stage's weights and seeds (engine/paraphrase ``alignments``).
    One text asked against its candidates, or a scan's batch of pairs, pays numpy's
    overhead once, not once a pair."""
    started = [_started(pair) for pair in asked]
    _copied_passages(started)
    wanted = [s for s in started if s.paraphrase]
    for s in wanted:  # after the units: cutting them folds the characters sentences use
        s.sentences = s.sentences_left()
    for s, alignment in zip(wanted, alignments([s.sentences for s in wanted]), strict=True):
        s.alignment = alignment
    return [s.finished() for s in started]


def _copied_passages(started: list[_Started]) -> None:
    """Find the copied passages of every pair that looks for them, pairs aligned with
    the same options together."""
    by_options: dict[AlignOptions, list[_Started]] = {}
    for s in started:
        if s.searched is not None:
            by_options.setdefault(s.options, []).append(s)
    for options, group in by_options.items():
        seeds = find_seeds_each([s.searched for s in group], options)
        # units (the documents' text, cut up) are needed only when seeds were found
        found = [(s, pair_seeds) for s, pair_seeds in zip(group, seeds, strict=True) if pair_seeds]
        passages = align_seeds_each(
            [(pair_seeds, s.a.units, s.b.units) for s, pair_seeds in found], options
        )
        for (s, _), pair_passages in zip(found, passages, strict=True):
            s.passages = pair_passages


class _Started:
    """A pair being compared, in the orientation it is aligned in (the shorter document
    first): the fingerprints its copied passages are looked for with (``used``: None,
    all of the document's), then those passages, and its sentences for the paraphrase
    stage."""

    def __init__(
        self,
        a: Document,
        b: Document,
        options: AlignOptions,
        used: tuple[Fingerprints | None, Fingerprints | None],
        copied: bool,
        paraphrase: bool,
        turned: bool,
    ) -> None:
        self.a, self.b, self.options, self.used = a, b, options, used
        self.copied, self.paraphrase, self.turned = copied, paraphrase, turned
        self.passages: list[Passage] = []
        self.sentences: tuple[Sentences, Sentences] | None = None
        self.alignment: SentenceAlignment | None = None

    @property
    def searched(self) -> tuple[Fingerprints, Fingerprints] | None:
        """The fingerprints copied passages are looked for with, if they are."""
        fa, fb = self.used
        return (fa, fb) if self.copied and fa is not None and fb is not None else None

    def sentences_left(self) -> tuple[Sentences, Sentences]:
        """Both documents' sentences without the text whose fingerprints were left out."""
        a, b = self.a, self.b
        fa, fb = self.used
        return a.sentences.without(*_left_out(a, fa)), b.sentences.without(*_left_out(b, fb))

    def finished(self) -> PairResult:
        """The pair's result, turned as it was asked."""
        a, b, passages = self.a, self.b, self.passages
        if self.alignment is not None:
            fragments = self.alignment.fragments()
            if fragments or passages:  # units (cut up again if dropped) only when needed
                passages = with_paraphrase(
                    passages,
                    fragments,
                    self.alignment.similarity,
                    a.units,
                    b.units,
                    self.options.min_length,
                )
        result = PairResult(
            a,
            b,
            passages,
            union_length([(p.a.first, p.a.stop) for p in passages]),
            union_length([(p.b.first, p.b.stop) for p in passages]),
            a.unit_count,
            b.unit_count,
        )
        return result.swapped() if self.turned else result


def _started(asked: Asked) -> _Started:
    """A pair turned as it is aligned, with what its stages need."""
    a, b, copied = asked.a, asked.b, asked.copied
    if a.mode.salt != b.mode.salt:
        raise ValueError(
            f"{a.name} ({a.mode.name}) and {b.name} ({b.mode.name}) are in different modes"
        )
    fingerprints = asked.fingerprints
    if fingerprints is None and copied:
        fingerprints = (a.fingerprints, b.fingerprints)
    fa, fb = fingerprints or (None, None)
    turned = (b.unit_count, b.name) < (a.unit_count, a.name)
    if turned:
        a, b, fa, fb = b, a, fb, fa
    options = asked.options or a.mode.alignment
    paraphrase = a.mode.paraphrase if asked.paraphrase is None else asked.paraphrase
    return _Started(a, b, options, (fa, fb), copied, paraphrase, turned)


def _left_out(document: Document, used: Fingerprints | None) -> tuple[np.ndarray, np.ndarray]:
    """Text offsets of the document's fingerprints that are not among ``used`` (None: all
    are used), and of those that are."""
    nothing = np.zeros(0, dtype=np.int64)
    if used is None:
        return nothing, nothing
    every = document.fingerprints
    if len(used) == len(every):
        return nothing, nothing
    kept = np.isin(every.positions, used.positions, assume_unique=True)
    offsets = document.fingerprint_offsets
    return offsets[~kept], offsets[kept]


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
