"""A scan's pairs as they are kept and shown: no documents, no text.

A scan of a folder of 100,000 documents lists tens of thousands of pairs. What
a report shows of each (names, passages with their lines, figures, the code
resemblance) is small, and is all made where the pair is aligned, while its
two documents are at hand — in a worker process, say. So the pair travels,
is kept between scans (scan_store) and is printed without its documents being
read again; only the text renderings, which quote passages, read them. It travels
from an aligner, is kept, and waits for its report packed (its plain values in
msgpack: ``pack``, ``PackedPair``), made whole when it is asked for: 100,000 of them
as objects took 120 MB of the main process.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import NamedTuple, overload

import msgpack

from doublet.engine.comparison import Covered, PairResult, passage_digest
from doublet.engine.passages import Passage, Side, union_length
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
    return sorted(pairs, key=_rank)


def _rank(pair: ScannedPair) -> tuple[float, int, str, str]:
    return (-pair.resemblance.score, -pair.longest, pair.a, pair.b)


#: Whether an outcome is reported: (similarity, has passages, resemblance or None).
Reported = Callable[[float, bool, "float | None"], bool]


class PackedPair(NamedTuple):
    """A scanned pair by name, packed (``pack``): how an aligner sends it back and how
    a scan holds it until its report (150-250 bytes, where the objects took 1.2 KB)."""

    a: str
    b: str
    packed: Packed

    def unpacked(self) -> ScannedPair:
        return unpacked(self.a, self.b, plain_values(self.packed))


def ranked_outcomes(
    outcomes: Sequence[ScannedPair | PackedPair | None], reported: Reported
) -> ScannedPairs:
    """The outcomes that are ``reported``, ranked as :func:`ranked` ranks pairs; packed
    ones stay packed (each unpacked once here, for its figures)."""
    found: list[tuple[tuple[float, int, str, str], ScannedPair | PackedPair]] = []
    for outcome in outcomes:
        if outcome is None:
            continue
        if isinstance(outcome, ScannedPair):
            if reported_values(outcome, reported):
                found.append((_rank(outcome), outcome))
            continue
        values = plain_values(outcome.packed)
        if reported_values(values, reported):
            passages = values[6]
            longest = max((int(p[0][1]) - int(p[0][0]) for p in passages), default=0)
            found.append(((-float(values[4][3]), -longest, outcome.a, outcome.b), outcome))
    found.sort(key=lambda item: item[0])
    return ScannedPairs([outcome for _, outcome in found])


class ScannedPairs(Sequence[ScannedPair]):
    """A scan's pairs in order, the packed ones made when asked for (again at each ask:
    a report reads each once, and 60,000 pairs as objects took 120 MB beside it)."""

    def __init__(self, items: list[ScannedPair | PackedPair]) -> None:
        self._items = items

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, at: int) -> ScannedPair: ...
    @overload
    def __getitem__(self, at: slice) -> list[ScannedPair]: ...
    def __getitem__(self, at: int | slice) -> ScannedPair | list[ScannedPair]:
        if isinstance(at, slice):
            return [_made(item) for item in self._items[at]]
        return _made(self._items[at])

    def __iter__(self) -> Iterator[ScannedPair]:
        for item in self._items:
            yield _made(item)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (ScannedPairs, list)):
            return len(self) == len(other) and all(x == y for x, y in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ScannedPairs({list(self)!r})"


def _made(item: ScannedPair | PackedPair) -> ScannedPair:
    return item.unpacked() if isinstance(item, PackedPair) else item


# --- a pair as plain values, packed ---------------------------------------------------


#: What plain values that are not an outcome's raise when they are made into one.
BAD_VALUES = (
    ValueError,
    TypeError,
    IndexError,
    KeyError,
    OverflowError,
    msgpack.UnpackException,
)

_FIELDS = ("a_covered", "b_covered", "a_units", "b_units", "resemblance", "lexical", "passages")


#: A pair as kept and sent: its plain values (``_plain``), packed in msgpack. A scan of
#: 100,000 documents keeps 100,000 outcomes: as nested lists they took 144 MB of the
#: memory of the next scan, packed 61 MB, as objects 120 MB in the main process while
#: it waited for its aligners; each is unpacked when it is asked for.
Packed = bytes


def pack(pair: ScannedPair) -> Packed:
    return msgpack.packb(_plain(pair), use_bin_type=True)


def plain_values(outcome: Packed) -> list:
    """An outcome's plain values; ValueError if they are not an outcome's."""
    values = msgpack.unpackb(outcome, raw=False)
    if not isinstance(values, list) or len(values) != len(_FIELDS):
        raise ValueError("an outcome of another shape")
    return values


def reported_values(outcome: ScannedPair | list, reported: Reported) -> bool:
    """``reported`` of an outcome, asked of its plain values without making the pair."""
    if isinstance(outcome, ScannedPair):
        score = outcome.resemblance.score if outcome.lexical else None
        return reported(outcome.similarity, bool(outcome.passages), score)
    a_covered, b_covered, a_units, b_units, resemblance, lexical, passages = outcome
    similarity = (a_covered + b_covered) / max(a_units + b_units, 1)
    return reported(similarity, bool(passages), resemblance[3] if lexical else None)


def _plain(pair: ScannedPair) -> list:
    r = pair.resemblance
    return [
        pair.a_covered,
        pair.b_covered,
        pair.a_units,
        pair.b_units,
        [r.structure, r.literals, r.names, r.score],
        pair.lexical,
        [_plain_passage(p) for p in pair.passages],
    ]


def _plain_passage(kept: ScannedPassage) -> list:
    p = kept.passage
    return [
        [p.a.start, p.a.end, p.a.first, p.a.stop],
        [p.b.start, p.b.end, p.b.first, p.b.stop],
        p.matched,
        p.score,
        p.longest_run,
        p.seeds,
        p.paraphrase,
        list(kept.a_lines),
        list(kept.b_lines),
        kept.digest,
    ]


def unpacked(a: str, b: str, values: Sequence) -> ScannedPair:
    a_covered, b_covered, a_units, b_units, resemblance, lexical, passages = values
    return ScannedPair(
        a,
        b,
        tuple(_passage(*p) for p in passages),
        int(a_covered),
        int(b_covered),
        int(a_units),
        int(b_units),
        Resemblance(*(float(x) for x in resemblance)),
        bool(lexical),
    )


def _passage(a, b, matched, score, longest_run, seeds, paraphrase, a_lines, b_lines, digest):
    return ScannedPassage(
        Passage(
            Side(*(int(x) for x in a)),
            Side(*(int(x) for x in b)),
            int(matched),
            float(score),
            int(longest_run),
            int(seeds),
            bool(paraphrase),
        ),
        (int(a_lines[0]), int(a_lines[1])),
        (int(b_lines[0]), int(b_lines[1])),
        str(digest),
    )
