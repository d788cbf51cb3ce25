"""The second stage: aligning reworded passages sentence by sentence.

Fingerprints find what survives as runs of characters; a passage that was
paraphrased, shuffled, translated back and forth or summarised keeps its
content words instead. Following the approach of Sanchez-Perez, Sidorov and
Gelbukh (PAN 2014) — seeding, extension, filtering — written afresh:

1. *Seeds.* Every pair of sentences (one per document) whose tf-isf vectors
   have a cosine above 0.33 and whose term sets have a Dice coefficient above
   0.33. Term weights come from the two documents' own sentences.
2. *Extension.* Seeds are clustered: sorted by sentence in A, cut where two
   neighbours are more than ``max_gap`` sentences apart; then the same in B;
   repeated until stable. A cluster becomes a fragment (first to last sentence
   on each side) if the two sides, taken whole, still have a cosine of at
   least 0.34; if not, the cluster is tried again with a smaller gap.
3. *Filtering.* Fragments shorter than ``min_length`` characters, or built on
   a single pair of sentences that are only loosely alike, are dropped; where
   fragments overlap in A, the more similar one stays.
4. *Summaries.* Only if nothing was found: the same with a wide gap and a
   lower cosine, keeping clusters whose seeds run in the same order in A and
   B, and whose B side is at least twice as long as A's.

``with_paraphrase`` then lays the fragments over the fingerprint passages.
Only candidate pairs get here (engine/candidates selects them, by shared
fingerprints or sentence keys), so its cost — a few milliseconds a pair on
long documents — is paid where it can matter.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from doublet.engine.distinct import distinct
from doublet.engine.passages import Passage, Side
from doublet.engine.sentences import Sentences, TermCells
from doublet.engine.units import Units

SEED_COSINE = 0.33
SEED_DICE = 0.33
VALID_COSINE = 0.34
MAX_GAP = 4  # sentences
MIN_LENGTH = 150  # characters on each side
SINGLE_SEED_COSINE = 0.5  # a fragment of one sentence pair must be this alike


@dataclass(frozen=True)
class Fragment:
    """Reworded text: ``a`` and ``b`` are code-point ranges; ``similarity`` a cosine."""

    a_start: int
    a_end: int
    b_start: int
    b_end: int
    similarity: float
    seeds: int


@dataclass(frozen=True)
class _Weights:
    """tf-isf weights of one document's sentences, as cells (sentence, term, weight).

    Cells are sorted by sentence, so a stretch of sentences is a slice of them.
    Terms are numbered over both documents' vocabulary (``width`` terms).
    """

    rows: np.ndarray
    terms: np.ndarray
    weights: np.ndarray
    norms: np.ndarray  # per sentence, over all its terms
    sizes: np.ndarray  # distinct terms per sentence
    width: int

    def span(self, first: int, last: int) -> np.ndarray:
        """The summed vector of sentences ``first`` to ``last``, over the vocabulary."""
        lo, hi = np.searchsorted(self.rows, [first, last + 1])
        return np.bincount(self.terms[lo:hi], weights=self.weights[lo:hi], minlength=self.width)


#: A pair's weights and its seeds (rows of sentence in A, sentence in B, cosine), or
#: None for either when it has none.
_Weighed = tuple[tuple[_Weights, _Weights] | None, np.ndarray | None]


def _weighed_together(pairs: Sequence[tuple[Sentences, Sentences]]) -> list[_Weighed]:
    """Each pair's tf-isf weights (isf counting the sentences of both documents) and
    seeds, made for all pairs at once: one text asked against ten candidates, or a
    scan's batch of short pairs, costs a few dozen array operations, not that many
    per pair (a pair of 20 KB pieces joins a few thousand term matches: numpy's
    overhead was most of its cost).

    Every number is what the pair alone gives, bit for bit: each value is made by
    the same operations on the same values, and each sum (norms, dot products) adds
    its terms in the same order — a pair's terms numbered in the order of their ids,
    its cells by sentence then term, as each document's ``Sentences.cells`` holds
    them.
    """
    found: list[_Weighed] = [(None, None)] * len(pairs)
    live = [k for k, (sa, sb) in enumerate(pairs) if len(sa) and len(sb)]
    if not live:
        return found
    cells = [[pairs[k][side].cells for k in live] for side in (0, 1)]
    sentences = [np.array([len(pairs[k][side]) for k in live], np.int64) for side in (0, 1)]
    # each pair's two vocabularies numbered together: ranked over every pair's terms,
    # then (pair, rank) made one integer, so a pair's terms follow their ids' order
    vocabularies = [np.concatenate([c.vocabulary for c in side]) for side in cells]
    every = distinct(np.concatenate(vocabularies))
    ranks = max(every.shape[0], 1)
    keyed = []
    for side, vocabulary in zip(cells, vocabularies, strict=True):
        lengths = [c.vocabulary.shape[0] for c in side]
        owner = np.repeat(np.arange(len(live), dtype=np.int64), lengths)
        keyed.append(owner * ranks + np.searchsorted(every, vocabulary))
    terms = distinct(np.concatenate(keyed))  # the pairs' numbered terms, pair by pair
    widths = np.bincount(terms // ranks, minlength=len(live))
    first_term = np.cumsum(widths) - widths
    numbered = [np.searchsorted(terms, side) for side in keyed]
    frequency = np.zeros(terms.shape[0], dtype=np.int64)  # sentences of both holding each
    for side, at in zip(cells, numbered, strict=True):
        frequency[at] += np.concatenate([c.frequency for c in side])
    both = sentences[0] + sentences[1]
    a, b = (
        _Side.of(side, at, count, both, frequency)
        for side, at, count in zip(cells, numbered, sentences, strict=True)
    )
    ids, dots, shared = _sentence_pairs(a, b, terms.shape[0], first_term, widths)
    # each pair's sentence pairs, as (sentence of A, sentence of B), and the seeds
    grid = sentences[0] * sentences[1]
    first_id = np.cumsum(grid) - grid
    pair = np.searchsorted(first_id, ids, side="right") - 1
    local = ids - first_id[pair]
    rows, columns = local // sentences[1][pair], local % sentences[1][pair]
    at_a, at_b = rows + a.first_row[pair], columns + b.first_row[pair]
    cosine = dots / np.maximum(a.norms[at_a] * b.norms[at_b], 1e-12)
    dice = 2 * shared / np.maximum(a.sizes[at_a] + b.sizes[at_b], 1)
    seeded = np.flatnonzero((cosine > SEED_COSINE) & (dice > SEED_DICE))
    seed_cuts = np.searchsorted(pair[seeded], np.arange(len(live) + 1)).tolist()
    for i, k in enumerate(live):
        lo, hi = int(first_term[i]), int(first_term[i] + widths[i])
        width = max(hi - lo, 1)
        weights = (a.weights_of(i, lo, width), b.weights_of(i, lo, width))
        mine = seeded[seed_cuts[i] : seed_cuts[i + 1]]
        seeds = (
            np.column_stack([rows[mine], columns[mine], cosine[mine]]) if mine.shape[0] else None
        )
        found[k] = (weights, seeds)
    return found


@dataclass(frozen=True)
class _Side:
    """One side (A or B) of many pairs' weights, pair after pair: cells by pair, then
    sentence, then term; sentences numbered across the pairs (``first_row``: where
    each pair's begin); terms numbered across them too (each pair's own after the
    earlier pairs' vocabularies)."""

    rows: np.ndarray  # each cell's sentence within its pair
    terms: np.ndarray  # each cell's term, numbered across the pairs
    weights: np.ndarray
    first_cell: np.ndarray  # where each pair's cells begin (and the end)
    first_row: np.ndarray  # where each pair's sentences begin (and the end)
    norms: np.ndarray  # per sentence across the pairs
    sizes: np.ndarray

    @staticmethod
    def of(
        cells: list[TermCells],
        numbered: np.ndarray,
        sentences: np.ndarray,
        both: np.ndarray,
        frequency: np.ndarray,
    ) -> _Side:
        """The side of ``cells`` (each pair's document on this side; ``numbered``: each
        vocabulary entry's number across the pairs), ``sentences`` per pair, ``both``
        the sentences of the two documents of each pair."""
        lengths = np.array([c.rows.shape[0] for c in cells], np.int64)
        first_cell = np.concatenate([[0], np.cumsum(lengths)])
        vocabulary_lengths = np.array([c.vocabulary.shape[0] for c in cells], np.int64)
        first_word = np.cumsum(vocabulary_lengths) - vocabulary_lengths
        terms = numbered[np.concatenate([c.terms for c in cells]) + np.repeat(first_word, lengths)]
        counts = np.concatenate([c.counts for c in cells])
        weights = counts * np.log(np.repeat(both, lengths) / frequency[terms])
        rows = np.concatenate([c.rows for c in cells])
        first_row = np.concatenate([[0], np.cumsum(sentences)])
        across = rows + np.repeat(first_row[:-1], lengths)
        total = int(first_row[-1])
        return _Side(
            rows,
            terms,
            weights,
            first_cell,
            first_row,
            np.sqrt(np.bincount(across, weights=weights**2, minlength=total)),
            np.bincount(across, minlength=total),
        )

    def weights_of(self, pair: int, first_term: int, width: int) -> _Weights:
        """Pair ``pair``'s weights on this side, its terms numbered from 0."""
        lo, hi = int(self.first_cell[pair]), int(self.first_cell[pair + 1])
        r0, r1 = int(self.first_row[pair]), int(self.first_row[pair + 1])
        return _Weights(
            self.rows[lo:hi],
            self.terms[lo:hi] - first_term,
            self.weights[lo:hi],
            self.norms[r0:r1],
            self.sizes[r0:r1],
            width,
        )


#: Most (sentence of A, sentence of B) term matches the seeding join may make for a
#: pair. A term in many sentences of both (a name on every line of two long
#: documents) would make it quadratic; such terms are the least telling, so the most
#: frequent are left out of seeding until the join fits.
MAX_JOIN = 500_000


#: Sentence pairs are counted on the whole grid of them (a bin for each, as long as
#: this many times the term matches at most): sums in a bin add in the same order as
#: after a sort, which costs several times more.
_DENSE_GRID = 8


def _sentence_pairs(
    a: _Side, b: _Side, width: int, first_term: np.ndarray, widths: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sentence pairs sharing terms, every pair's: (ids = the pair's first id + row of A
    × sentences of B + row of B, dot products, counts of shared terms), one entry per
    sentence pair that shares any, ascending.

    A join on terms: each term pairs every sentence of A holding it with every
    sentence of B holding it (terms are numbered per pair, so only within a pair),
    so the work follows the shared terms, not the sizes of the documents.
    """
    count_a = np.bincount(a.terms, minlength=width)
    count_b = np.bincount(b.terms, minlength=width)
    pairs_per_term = count_a * count_b
    usable = pairs_per_term > 0
    m = widths.shape[0]
    term_pair = np.repeat(np.arange(m), widths)
    joined = np.bincount(term_pair, weights=pairs_per_term, minlength=m)
    for k in np.flatnonzero(joined > MAX_JOIN).tolist():
        lo = int(first_term[k])
        part = pairs_per_term[lo : lo + int(widths[k])]
        by_size = np.argsort(part)  # rarest first
        fits = np.cumsum(part[by_size]) <= MAX_JOIN
        usable[lo + by_size[~fits]] = False
    keep_a, keep_b = usable[a.terms] & (a.weights > 0), usable[b.terms] & (b.weights > 0)
    # pairs joined a few at a time, so that a batch of long documents holds no more
    # than one pair could (each pair's join is MAX_JOIN at most)
    matches = np.bincount(term_pair, weights=np.where(usable, pairs_per_term, 0), minlength=m)
    found = []
    first, held = 0, 0.0
    for k, size in enumerate(matches.tolist()):
        if held and held + size > JOIN_AT_ONCE:
            found.append(_term_join(a, b, keep_a, keep_b, width, first, k))
            first, held = k, 0.0
        held += size
    found.append(_term_join(a, b, keep_a, keep_b, width, first, m))
    ids, dots, common = (np.concatenate(parts) for parts in zip(*found, strict=True))
    return ids, dots, common


#: Term matches joined at once, over the pairs of a batch (a pair's own may be more).
JOIN_AT_ONCE = MAX_JOIN


def _term_join(
    a: _Side, b: _Side, keep_a: np.ndarray, keep_b: np.ndarray, width: int, first: int, stop: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_sentence_pairs` of pairs ``first`` to ``stop`` (their cells ``keep_*``)."""
    a0, a1 = int(a.first_cell[first]), int(a.first_cell[stop])
    b0, b1 = int(b.first_cell[first]), int(b.first_cell[stop])
    cells_a, cells_b = np.flatnonzero(keep_a[a0:a1]) + a0, np.flatnonzero(keep_b[b0:b1]) + b0
    order_a = cells_a[np.argsort(a.terms[cells_a], kind="stable")]
    order_b = cells_b[np.argsort(b.terms[cells_b], kind="stable")]
    ta = a.terms[order_a]
    count_b = np.bincount(b.terms[order_b], minlength=width)
    start_b = np.concatenate([[0], np.cumsum(count_b)[:-1]])
    # every (cell of A, cell of B) with the same term
    per_cell = count_b[ta]  # B cells each A cell meets
    left = np.repeat(np.arange(ta.shape[0]), per_cell)
    step = np.arange(left.shape[0]) - np.repeat(np.cumsum(per_cell) - per_cell, per_cell)
    right = np.repeat(start_b[ta], per_cell) + step
    in_a, in_b = order_a[left], order_b[right]
    # each A cell's row in its pair's grid of sentence pairs, the grids one after another
    sentences_b = np.diff(b.first_row)[first:stop]
    grid = np.diff(a.first_row)[first:stop] * sentences_b
    first_id = np.cumsum(grid) - grid  # from the first pair's grid
    pair = np.repeat(np.arange(stop - first), np.diff(a.first_cell[first : stop + 1]))
    row_id = first_id[pair] + a.rows[a0:a1] * sentences_b[pair]
    ids = row_id[in_a - a0] + b.rows[in_b]
    products = a.weights[in_a] * b.weights[in_b]
    total = int(grid.sum())
    before = int((np.diff(a.first_row)[:first] * np.diff(b.first_row)[:first]).sum())
    if total <= _DENSE_GRID * ids.shape[0] + (1 << 16):  # counted on the whole grid
        common = np.bincount(ids, minlength=total)
        dots = np.bincount(ids, weights=products, minlength=total)
        ids = np.flatnonzero(common)
        return ids + before, dots[ids], common[ids]
    ids, inverse, common = np.unique(ids, return_inverse=True, return_counts=True)
    return ids + before, np.bincount(inverse, weights=products, minlength=len(ids)), common


#: Groups of more seeds than this are cut with numpy, smaller ones in plain Python.
_NUMPY_SPLIT = 128


def _split(group: list[int], at: tuple[list[float], np.ndarray], gap: int) -> list[list[int]]:
    """``group`` (seed numbers) ordered by ``at`` (as a list and as an array) and cut
    where neighbours are more than ``gap`` apart. Sorts are stable: ties keep their order."""
    listed, array = at
    if len(group) > _NUMPY_SPLIT:
        numbers = np.asarray(group)
        values = array[numbers]
        order = np.argsort(values, kind="stable")
        cuts = np.flatnonzero(np.diff(values[order]) > gap) + 1
        return [part.tolist() for part in np.split(numbers[order], cuts)]
    ordered = sorted(group, key=listed.__getitem__)
    parts, start = [], 0
    for i in range(1, len(ordered)):
        if listed[ordered[i]] - listed[ordered[i - 1]] > gap:
            parts.append(ordered[start:i])
            start = i
    parts.append(ordered[start:])
    return parts


def _order(cluster: np.ndarray) -> float:
    """How far the seeds keep one order in A and B: 1 in step, 0 unrelated, -1 reversed."""
    if cluster.shape[0] < 3:
        return 1.0
    if cluster.shape[0] > ORDER_SAMPLE:  # pairs of seeds grow with the square: sample them
        cluster = cluster[np.linspace(0, cluster.shape[0] - 1, ORDER_SAMPLE).astype(np.int64)]
    da = np.sign(cluster[:, 0][:, None] - cluster[:, 0][None, :])
    db = np.sign(cluster[:, 1][:, None] - cluster[:, 1][None, :])
    votes = da * db
    counted = np.count_nonzero(votes)
    return float(votes.sum() / counted) if counted else 1.0


#: Each seed's sentence in A and in B (as lists and as arrays), for :func:`_split`.
_Sides = tuple[tuple[list[float], np.ndarray], tuple[list[float], np.ndarray]]


def _clusters(sides: _Sides, group: list[int], gap: int) -> list[list[int]]:
    """Seeds ``group`` (their numbers; ``sides``: every seed's sentences) grouped until
    no group splits in A or B.

    Groups are lists of seed numbers: most are a handful of seeds, for which Python
    lists are several times quicker than numpy calls; a group split again on a
    smaller gap is cut from the same lists.
    """
    done, todo = [], [group]
    while todo:
        group = todo.pop()
        for at in sides:
            parts = _split(group, at, gap)
            if len(parts) > 1:
                todo.extend(parts)
                break
        else:
            done.append(group)
    return done


def _widest(values: list[float]) -> int:
    """The widest step between neighbours of ``values`` (two or more) once sorted."""
    ordered = sorted(values)
    return int(max(b - a for a, b in itertools.pairwise(ordered)))


def _length(vector: np.ndarray) -> float:
    """``np.linalg.norm`` of a vector of floats (the same square root of the same dot
    product), without its checks of the arguments, called for every cluster."""
    return math.sqrt(float(vector.dot(vector)))


#: When nothing is found, a summary is looked for: a short stretch of A whose
#: sentences each echo sentences spread far apart in a longer stretch of B, in
#: the same order (two chapters about the same people echo each other in no order).
SUMMARY_MAX_GAP = 24
SUMMARY_COSINE = 0.3
SUMMARY_ORDER = 0.4
ORDER_SAMPLE = 300  # seeds at most that the order is judged on


class SentenceAlignment:
    """The paraphrase stage for one pair of documents: their sentences, weighed together.

    ``fragments`` are the reworded passages; ``similarity`` is the cosine of any
    two stretches of the documents, which judges whether passages joined into a
    summary still tell the same thing as a whole.
    """

    def __init__(self, sa: Sentences, sb: Sentences, weighed: _Weighed | None = None) -> None:
        self.sa, self.sb = sa, sb
        self._weights, self._seeds = weighed or _weighed_together([(sa, sb)])[0]

    def fragments(self) -> list[Fragment]:
        """Reworded passages shared by the two documents (no two overlap on either side).

        If the usual gap finds nothing, a wider one looks for a summary: kept only
        where one side is at least SUMMARY_SPREAD times as long as the other.
        """
        if self._weights is None or self._seeds is None:
            return []
        wa, wb = self._weights
        seeds = self._seeds
        found = _fragments(wa, wb, seeds, self.sa, self.sb, max_gap=MAX_GAP, valid=VALID_COSINE)
        if found:
            return found
        wide = _fragments(
            wa,
            wb,
            seeds,
            self.sa,
            self.sb,
            max_gap=SUMMARY_MAX_GAP,
            valid=SUMMARY_COSINE,
            min_order=SUMMARY_ORDER,
        )
        return [f for f in wide if _spread(f.a_end - f.a_start, f.b_end - f.b_start)]

    def similarity(self, a_start: int, a_end: int, b_start: int, b_end: int) -> float:
        """Cosine of the sentences overlapping ``[a_start, a_end)`` in A and ``[b_start,
        b_end)`` in B (0 when either holds none)."""
        if self._weights is None:
            return 0.0
        wa, wb = self._weights
        span_a = _sentence_span(self.sa, a_start, a_end)
        span_b = _sentence_span(self.sb, b_start, b_end)
        if span_a is None or span_b is None:
            return 0.0
        va, vb = wa.span(*span_a), wb.span(*span_b)
        norm = float(np.linalg.norm(va) * np.linalg.norm(vb))
        return float(va @ vb) / norm if norm else 0.0


def _sentence_span(sentences: Sentences, start: int, end: int) -> tuple[int, int] | None:
    """First and last sentence overlapping ``[start, end)``, if any."""
    first = int(np.searchsorted(sentences.ends, start, side="right"))
    last = int(np.searchsorted(sentences.starts, end, side="left")) - 1
    return (first, last) if first <= last else None


def align_sentences(sa: Sentences, sb: Sentences) -> list[Fragment]:
    """Reworded passages shared by two documents, as fragments."""
    return SentenceAlignment(sa, sb).fragments()


def alignments(pairs: Sequence[tuple[Sentences, Sentences]]) -> list[SentenceAlignment]:
    """The paraphrase stage of many pairs of documents, weighed and seeded together
    (each exactly as alone)."""
    return [
        SentenceAlignment(sa, sb, weighed)
        for (sa, sb), weighed in zip(pairs, _weighed_together(pairs), strict=True)
    ]


def _spread(a: int, b: int) -> bool:
    """Whether one side is at least SUMMARY_SPREAD times as long as the other."""
    return max(a, b) >= SUMMARY_SPREAD * min(a, b)


def _fragments(
    wa: _Weights,
    wb: _Weights,
    seeds: np.ndarray,
    sa: Sentences,
    sb: Sentences,
    *,
    max_gap: int,
    valid: float,
    min_order: float = -1.0,
) -> list[Fragment]:
    """Seeds extended into fragments (clustered, validated) and filtered."""
    found: list[Fragment] = []
    sides: _Sides = ((seeds[:, 0].tolist(), seeds[:, 0]), (seeds[:, 1].tolist(), seeds[:, 1]))
    (in_a, _), (in_b, _) = sides
    cosines = seeds[:, 2].tolist()

    def extend(group: list[int], gap: int) -> None:
        for cluster in _clusters(sides, group, gap):
            if len(cluster) == 1:
                a0 = a1 = int(in_a[cluster[0]])
                b0 = b1 = int(in_b[cluster[0]])
                similarity = cosines[cluster[0]]  # one sentence pair: its seed's cosine
            else:
                rows, columns = [in_a[i] for i in cluster], [in_b[i] for i in cluster]
                a0, a1, b0, b1 = (
                    int(min(rows)),
                    int(max(rows)),
                    int(min(columns)),
                    int(max(columns)),
                )
                span_a, span_b = wa.span(a0, a1), wb.span(b0, b1)
                norm = _length(span_a) * _length(span_b)
                similarity = float(span_a @ span_b) / norm if norm else 0.0
            if similarity >= valid and (min_order <= -1 or _order(seeds[cluster]) >= min_order):
                found.append(
                    Fragment(
                        int(sa.starts[a0]),
                        int(sa.ends[a1]),
                        int(sb.starts[b0]),
                        int(sb.ends[b1]),
                        similarity,
                        len(cluster),
                    )
                )
            elif gap > 0 and len(cluster) > 1:
                # a smaller gap changes nothing until it is below the widest one left
                # in the cluster: validating the same cluster again would fail again
                widest = max(_widest(rows), _widest(columns))
                if widest > 0:
                    extend(cluster, min(gap, widest) - 1)

    extend(list(range(seeds.shape[0])), max_gap)
    kept: list[Fragment] = []
    for fragment in sorted(found, key=lambda f: -f.similarity):
        if min(fragment.a_end - fragment.a_start, fragment.b_end - fragment.b_start) < MIN_LENGTH:
            continue
        if fragment.seeds == 1 and fragment.similarity < SINGLE_SEED_COSINE:
            continue
        if not any(
            _overlap(fragment.a_start, fragment.a_end, k.a_start, k.a_end)
            or _overlap(fragment.b_start, fragment.b_end, k.b_start, k.b_end)
            for k in kept
        ):
            kept.append(fragment)
    return sorted(kept, key=lambda f: f.a_start)


#: A fingerprint passage this exact says where a reuse lies better than sentences can.
PRECISE_SCORE = 0.98
#: Passages at most this far apart in A (characters) whose B sides spread over at
#: least SUMMARY_SPREAD times their length in A are one summary of a longer text.
SUMMARY_GAP = 300
SUMMARY_SPREAD = 2.0


def _overlap(x0: int, x1: int, y0: int, y1: int) -> bool:
    return x0 < y1 and y0 < x1


def _mostly_within(x0: int, x1: int, y0: int, y1: int) -> bool:
    """Whether more than half of ``[x0, x1)`` lies inside ``[y0, y1)``."""
    return 2 * (min(x1, y1) - max(x0, y0)) > x1 - x0


def _side(units: Units, start: int, end: int) -> Side | None:
    first = int(np.searchsorted(units.starts, start, side="left"))
    stop = int(np.searchsorted(units.starts, end, side="left"))
    if stop <= first:
        return None
    return Side(int(units.starts[first]), int(units.ends[stop - 1]), first, stop)


def _joined(parts: list[Passage], a: Side, b: Side) -> Passage:
    """One reworded passage over ``a`` and ``b``, keeping what the parts matched exactly."""
    matched = sum(p.matched for p in parts)
    score = matched / max(a.units + b.units, 1)
    return Passage(
        a,
        b,
        matched,
        round(min(score, 1.0), 4),
        max((p.longest_run for p in parts), default=0),
        sum(p.seeds for p in parts),
        paraphrase=True,
    )


Similarity = Callable[[int, int, int, int], float]  # (a_start, a_end, b_start, b_end)


def with_paraphrase(
    passages: list[Passage],
    fragments: list[Fragment],
    similarity: Similarity,
    ua: Units,
    ub: Units,
    min_length: int = 1,
) -> list[Passage]:
    """Fingerprint passages and sentence fragments as one list of passages.

    A fragment overlapping a (nearly) verbatim passage adds nothing; fragments
    overlapping looser passages widen them into one (fragments that share a
    passage widen it together); a fragment alone is a passage of its own. Then
    reworded passages that together summarise a longer stretch join. Reworded
    passages shorter than ``min_length`` units on either side are dropped.
    """
    kept: list[tuple[Fragment, set[int]]] = []
    for fragment in fragments:
        near = {
            i
            for i, p in enumerate(passages)
            if _overlap(fragment.a_start, fragment.a_end, p.a.start, p.a.end)
            and _overlap(fragment.b_start, fragment.b_end, p.b.start, p.b.end)
        }
        if any(passages[i].score >= PRECISE_SCORE for i in near):
            continue
        if any(
            p.score >= PRECISE_SCORE
            and (
                _mostly_within(fragment.a_start, fragment.a_end, p.a.start, p.a.end)
                or _mostly_within(fragment.b_start, fragment.b_end, p.b.start, p.b.end)
            )
            for p in passages
        ):
            continue  # this stretch is already matched exactly, elsewhere
        kept.append((fragment, near))
    result: list[Passage] = []
    absorbed: set[int] = set()
    for group, near in _sharing_passages(kept):
        a_start = min([f.a_start for f in group] + [passages[i].a.start for i in near])
        a_end = max([f.a_end for f in group] + [passages[i].a.end for i in near])
        b_start = min([f.b_start for f in group] + [passages[i].b.start for i in near])
        b_end = max([f.b_end for f in group] + [passages[i].b.end for i in near])
        side_a, side_b = _side(ua, a_start, a_end), _side(ub, b_start, b_end)
        if side_a is None or side_b is None or min(side_a.units, side_b.units) < min_length:
            continue
        absorbed.update(near)
        result.append(_joined([passages[i] for i in sorted(near)], side_a, side_b))
    result.extend(p for i, p in enumerate(passages) if i not in absorbed)
    # a summary may be on either side: join along A, then along B
    result = _summaries(_ordered(result), ua, ub, similarity)
    swapped = _summaries(
        _ordered([p.swapped() for p in result]),
        ub,
        ua,
        lambda a0, a1, b0, b1: similarity(b0, b1, a0, a1),
    )
    return _ordered([p.swapped() for p in swapped])


def _ordered(passages: list[Passage]) -> list[Passage]:
    return sorted(passages, key=lambda p: (p.a.start, p.b.start))


def _sharing_passages(
    kept: list[tuple[Fragment, set[int]]],
) -> list[tuple[list[Fragment], set[int]]]:
    """Fragments grouped so that fragments overlapping one passage are in one group."""
    groups: list[tuple[list[Fragment], set[int]]] = []
    for fragment, near in kept:
        joined = [g for g in groups if g[1] & near]
        for g in joined:
            groups.remove(g)
        fragments = [f for g in joined for f in g[0]] + [fragment]
        groups.append((fragments, set(near).union(*(g[1] for g in joined))))
    return groups


def _summaries(
    passages: list[Passage], ua: Units, ub: Units, similarity: Similarity
) -> list[Passage]:
    """Neighbouring passages in A that spread over a stretch of B at least
    SUMMARY_SPREAD times as long, joined into one — unless they are all copied
    word for word (a student quoting two parts of a source side by side is not
    summarising what lies between them), or the two stretches taken whole are
    not alike (two reworded passages of one source put far apart in A)."""
    if len(passages) < 2:
        return passages
    groups: list[list[Passage]] = [[passages[0]]]
    for passage in passages[1:]:
        if passage.a.start - max(p.a.end for p in groups[-1]) <= SUMMARY_GAP:
            groups[-1].append(passage)
        else:
            groups.append([passage])
    result: list[Passage] = []
    for group in groups:
        a_start, a_end = min(p.a.start for p in group), max(p.a.end for p in group)
        b_start, b_end = min(p.b.start for p in group), max(p.b.end for p in group)
        spread = (b_end - b_start) >= SUMMARY_SPREAD * (a_end - a_start)
        reworded = any(p.score < PRECISE_SCORE for p in group)
        if len(group) > 1 and spread and reworded:
            side_a, side_b = _side(ua, a_start, a_end), _side(ub, b_start, b_end)
            alike = similarity(a_start, a_end, b_start, b_end) >= SUMMARY_COSINE
            if side_a is not None and side_b is not None and alike:
                result.append(_joined(group, side_a, side_b))
                continue
        result.extend(group)
    return result
