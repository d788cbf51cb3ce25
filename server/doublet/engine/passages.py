"""Passages: shared fingerprints of two documents merged into matching ranges.

Three steps turn seeds into passages a person can read:

1. *Seeds.* Every fingerprint the two documents share is a seed: k units at
   ``a`` in A equal k units at ``b`` in B.
2. *Chains.* Seeds close to each other in both documents are chained, bridging
   gaps of up to ``gap`` units, so a lightly edited paragraph (words changed,
   inserted, deleted or moved within the passage) is one passage, not ten.
3. *Exact runs.* Along each diagonal (``b - a``) that carries seeds, the units of
   A and B are compared directly; the maximal equal runs around the seeds are
   the passage's exact matches. They give its true edges (not just where the
   first and last fingerprint happen to sit) and its score: the share of the
   passage's units that belong to an exact run.

Positions here are unit indices; :class:`Passage` also carries the original
text offsets of both sides.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import pairwise
from typing import TYPE_CHECKING

import numpy as np

from doublet.engine.distinct import distinct

if TYPE_CHECKING:
    from doublet.engine.fingerprints import Fingerprints
    from doublet.engine.units import Units

#: Share of a passage in exact runs from which it counts as a verbatim copy.
VERBATIM_SCORE = 0.99
#: Below this share exact, a passage of the paraphrase stage counts as paraphrased.
PARAPHRASED_SCORE = 0.5

#: Seeds whose hash occurs this many times over in the two documents (counted as
#: occurrences in A times occurrences in B) are repetitive filler, not evidence.
MAX_SEED_PRODUCT = 64


@dataclass(frozen=True, slots=True)
class Side:
    """One side of a passage: a range of units and the original text it spans."""

    start: int  # code-point offset, inclusive
    end: int  # code-point offset, exclusive
    first: int  # first unit
    stop: int  # one past the last unit

    @property
    def units(self) -> int:
        return self.stop - self.first

    def __reduce__(self) -> tuple:
        # its fields in order: a slotted dataclass's own pickling looks each one up by
        # name (dataclasses.fields), which took most of the time of sending a scan's
        # aligned pairs back from its workers
        return (Side, (self.start, self.end, self.first, self.stop))


@dataclass(frozen=True, slots=True)
class Passage:
    """A range of A that matches a range of B."""

    a: Side
    b: Side
    matched: int  # units of both sides inside exact runs
    score: float  # matched / (units of a + units of b): 1.0 for a verbatim copy
    longest_run: int  # the longest exact run, in units
    seeds: int  # distinct shared fingerprints inside the passage
    paraphrase: bool = False  # found (or widened) by the paraphrase stage (engine/paraphrase)

    @property
    def units(self) -> int:
        """Length of the passage, the shorter of its two sides."""
        return min(self.a.units, self.b.units)

    def swapped(self) -> Passage:
        """The same passage seen from B."""
        return replace(self, a=self.b, b=self.a)

    def __reduce__(self) -> tuple:  # as Side's
        fields = (self.a, self.b, self.matched, self.score, self.longest_run, self.seeds)
        return (Passage, (*fields, self.paraphrase))

    @property
    def kind(self) -> str:
        """How it matches, in a word: verbatim, edited (mostly exact) or paraphrased."""
        if self.score >= VERBATIM_SCORE:
            return "verbatim"
        if self.paraphrase and self.score < PARAPHRASED_SCORE:
            return "paraphrased"
        return "edited"


@dataclass(frozen=True)
class AlignOptions:
    """Thresholds of alignment, lengths in units.

    A passage is reported when both its sides are at least ``min_length`` long,
    at least ``min_score`` of it lies in exact runs, its longest exact run is at
    least ``anchor`` long, and it holds at least ``min_seeds`` distinct shared
    fingerprints. The last two tell reuse from topic: two pages about the same
    hospital share its name many times over, but not many different phrases.
    """

    k: int
    window: int
    gap: int
    min_length: int
    anchor: int
    min_score: float
    min_seeds: int

    @property
    def reach(self) -> int:
        """Farthest two consecutive seeds of one passage can be apart (in either document).

        Inside an exact run the winnowing guarantee puts a seed in every window;
        between runs a gap of at most ``gap`` is bridged.
        """
        return self.gap + self.k + 2 * self.window


def shared_seeds(fa: Fingerprints, fb: Fingerprints) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every shared fingerprint as (position in A, position in B, hash), sorted by A then B."""
    _, at_a, at_b, hashes = shared_seeds_each([(fa, fb)])
    return at_a, at_b, hashes


#: A pair with more fingerprints than this (both sides) is searched on its own: its
#: documents' sorted hashes are kept (``Fingerprints.by_hash``), where a batch would
#: copy and sort a long document again for every pair it is in.
SMALL_PAIR = 4096


def shared_seeds_each(
    prints: Sequence[tuple[Fingerprints, Fingerprints]],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The shared fingerprints of many pairs as (pair, position in A, position in B,
    hash), sorted by pair, then A, then B: each pair's are :func:`shared_seeds`.

    A scan aligns tens of thousands of short pairs, and thirty numpy calls a pair
    cost more than the work. So short pairs are searched all at once (each hash
    renamed by its rank among theirs, which leaves room to pack the pair's number
    above it in one 64-bit key); long ones one at a time.
    """
    small = [p for p, (fa, fb) in enumerate(prints) if len(fa) + len(fb) <= SMALL_PAIR]
    found = [_shared_together([prints[p] for p in small], np.array(small, dtype=np.int64))]
    if len(small) < len(prints):
        alone = sorted(set(range(len(prints))) - set(small))
        found += [_shared_alone(*prints[p], p) for p in alone]
        pair, at_a, at_b, hashes = (np.concatenate(column) for column in zip(*found, strict=True))
        order = np.argsort(pair, kind="stable")  # each pair's own order kept
        return pair[order], at_a[order], at_b[order], hashes[order]
    return found[0]


def _no_seeds() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    empty = np.zeros(0, dtype=np.int64)
    return empty, empty, empty, np.zeros(0, dtype=np.uint64)


def _hashes(arrays: list[np.ndarray]) -> np.ndarray:
    """Hashes of several fingerprints end to end, as 64-bit unsigned integers (a mix
    of signed and unsigned arrays would otherwise become floating point)."""
    if len(arrays) == 1 and arrays[0].dtype == np.uint64:
        return arrays[0]
    return np.concatenate(arrays, dtype=np.uint64, casting="unsafe")


def _shared_alone(
    fa: Fingerprints, fb: Fingerprints, pair: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The shared fingerprints of one pair, numbered ``pair``, each side sorted once."""
    if len(fa) == 0 or len(fb) == 0:
        return _no_seeds()
    order_a, sorted_a = fa.by_hash
    order_b, sorted_b = fb.by_hash
    return _matched(
        sorted_a, sorted_b, order_a, order_b, fa.positions, fb.positions, sorted_a, pair
    )


def _shared_together(
    prints: Sequence[tuple[Fingerprints, Fingerprints]], numbers: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The shared fingerprints of many pairs (numbered ``numbers``) in one search."""
    count_a = np.array([len(fa) for fa, _ in prints], dtype=np.int64)
    count_b = np.array([len(fb) for _, fb in prints], dtype=np.int64)
    na, nb = int(count_a.sum()), int(count_b.sum())
    if na == 0 or nb == 0:
        return _no_seeds()
    hashes_a = _hashes([fa.hashes for fa, _ in prints])
    both = np.concatenate((hashes_a, _hashes([fb.hashes for _, fb in prints])))
    order = np.argsort(both)
    new = np.empty(both.shape[0], dtype=bool)
    new[0] = True
    ordered = both[order]
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    rank = np.empty(both.shape[0], dtype=np.int64)
    rank[order] = np.cumsum(new) - 1
    del both, ordered, new, order
    key_a = np.repeat(numbers << 32, count_a) | rank[:na]
    key_b = np.repeat(numbers << 32, count_b) | rank[na:]
    order_a = np.argsort(key_a, kind="stable")
    order_b = np.argsort(key_b, kind="stable")
    return _matched(
        key_a[order_a],
        key_b[order_b],
        order_a,
        order_b,
        np.concatenate([fa.positions for fa, _ in prints]),
        np.concatenate([fb.positions for _, fb in prints]),
        hashes_a[order_a],
        np.repeat(numbers, count_a)[order_a],
    )


def _matched(
    sorted_a: np.ndarray,
    sorted_b: np.ndarray,
    order_a: np.ndarray,
    order_b: np.ndarray,
    positions_a: np.ndarray,
    positions_b: np.ndarray,
    hashes: np.ndarray,
    pair: np.ndarray | int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every (pair, position in A, position in B, hash) of equal keys, where ``sorted_a``
    and ``sorted_b`` are both sides' keys sorted (``order_*`` their places among the
    positions), ``hashes`` and ``pair`` (one, or one per key) A's in sorted order;
    sorted by pair, then A, then B. Keys that occur more than MAX_SEED_PRODUCT times
    over (in A times in B) are repetitive filler, not evidence."""
    lo = np.searchsorted(sorted_b, sorted_a, side="left")
    count = np.searchsorted(sorted_b, sorted_a, side="right") - lo
    if not count.any():
        return _no_seeds()
    # occurrences of the same key in A: sorted_a is grouped, so count runs
    run_start = np.ones(sorted_a.shape[0], dtype=bool)
    np.not_equal(sorted_a[1:], sorted_a[:-1], out=run_start[1:])
    run_id = np.cumsum(run_start) - 1
    repeats_a = np.bincount(run_id)[run_id]
    count[repeats_a * count > MAX_SEED_PRODUCT] = 0
    total = int(count.sum())
    if total == 0:
        return _no_seeds()
    which = np.repeat(np.arange(sorted_a.shape[0]), count)
    within = np.arange(total) - np.repeat(np.cumsum(count) - count, count)
    at_a = positions_a[order_a[which]]
    at_b = positions_b[order_b[np.repeat(lo, count) + within]]
    if isinstance(pair, int):
        order = np.lexsort((at_b, at_a))
        return np.full(total, pair, dtype=np.int64), at_a[order], at_b[order], hashes[which][order]
    pair = pair[which]
    order = np.lexsort((at_b, at_a, pair))
    return pair[order], at_a[order], at_b[order], hashes[which][order]


def _clustered(groups: np.ndarray, positions: np.ndarray, reach: int, min_seeds: int) -> np.ndarray:
    """Mask of positions that have ``min_seeds`` distinct positions of their group
    within ``reach`` steps. Positions are below 2^31 (unit indices), so in the packed
    (group, position) integers a step into another group is longer than any reach."""
    packed = groups.astype(np.int64)
    packed <<= 32
    packed |= positions.astype(np.int64, copy=False)
    order = np.argsort(packed)
    packed = packed[order]
    step = packed[1:] - packed[:-1]
    starts = np.ones(positions.shape[0], dtype=bool)  # a new cluster; then: a new position
    np.greater(step, reach, out=starts[1:])
    cluster = np.cumsum(starts) - 1
    np.not_equal(step, 0, out=starts[1:])
    held = np.bincount(cluster, weights=starts)
    mask = np.empty(positions.shape[0], dtype=bool)
    mask[order] = held[cluster] >= min_seeds
    return mask


def dense_seeds(
    seeds_a: np.ndarray,
    seeds_b: np.ndarray,
    reach: int,
    min_seeds: int,
    groups: np.ndarray | None = None,
) -> np.ndarray:
    """Mask of the seeds that can belong to a passage: clustered in A and in B.

    A passage's seeds lie within ``reach`` of each other in both documents, so
    a seed with too few others near it in either document is chance. ``groups``
    numbers the pair of each seed when many pairs are filtered at once (each as
    if alone).
    """
    keep = np.ones(seeds_a.shape[0], dtype=bool)
    if groups is None:
        groups = np.zeros(seeds_a.shape[0], dtype=np.int64)
    index = np.arange(seeds_a.shape[0])
    while index.shape[0]:
        group = groups[index]
        ok = _clustered(group, seeds_a[index], reach, min_seeds)
        ok &= _clustered(group, seeds_b[index], reach, min_seeds)
        if ok.all():
            break
        keep[index[~ok]] = False
        # only the groups that lost seeds can lose more
        index = index[ok & np.isin(group, group[~ok])]
    return keep


def clustered_groups(
    groups: np.ndarray, positions: np.ndarray, reach: int, min_seeds: int
) -> np.ndarray:
    """Groups (documents, pairs) with ``min_seeds`` distinct positions no more than ``reach`` apart.

    One sort of packed (group, position) integers for all groups at once: the
    cheap, one-sided form of :func:`dense_seeds`, which spares most candidates
    the exact (iterative) filter. Positions must be below 2^32; groups of 2^31 or
    more (pairs of a folder of more than 46,340 documents) are renumbered first.
    """
    if groups.shape[0] == 0:
        return groups
    if int(groups.max()) >= 1 << 31:
        named, numbers = np.unique(groups, return_inverse=True)
        return named[clustered_groups(numbers, positions, reach, min_seeds)]
    packed = groups.astype(np.int64)  # built in place: a scan has millions of seeds
    packed <<= 32
    packed |= positions
    packed.sort()
    step = np.diff(packed)
    new_run = np.ones(packed.shape[0], dtype=bool)
    new_run[1:] = step > reach
    new_run[1:] |= (packed[1:] ^ packed[:-1]) >= 1 << 32  # another group
    new_position = np.ones(packed.shape[0], dtype=bool)
    new_position[1:] = step != 0
    del step
    runs = np.flatnonzero(new_run)
    sizes = np.add.reduceat(new_position, runs, dtype=np.int64)
    chosen = runs[sizes >= min_seeds]
    return distinct(packed[chosen] >> 32)


def chain_seeds(
    seeds_a: np.ndarray, seeds_b: np.ndarray, k: int, gap: int, first: int = 0
) -> list[list[int]]:
    """Group seeds (sorted by A) into chains that advance together in A and B; a chain
    lists its seeds' indices, counted from ``first``.

    A seed joins the open chain whose front it is nearest to, if it lies past
    the chain's last seed in A by at most ``gap`` units beyond its end, and in B
    at most ``gap`` units past the chain's last seed or a little (``k``) behind
    it, so that words moved a short way stay in the passage while text repeated
    elsewhere does not.
    """
    chains: list[list[int]] = []
    open_chains: list[list[int]] = []  # [a_end, b_last, b_end, index into chains]
    # a scan chains the seeds of tens of thousands of pairs one at a time: the loop
    # reads each chain's fields once and calls no function (max and abs were a fifth)
    for i, (a, b) in enumerate(zip(seeds_a.tolist(), seeds_b.tolist(), strict=True), first):
        best = None
        best_cost = 3 * gap + 1
        closed = False
        for chain in open_chains:
            a_end = chain[0]
            ahead = a - a_end
            if ahead > gap:
                closed = True  # seeds come in A order: this chain can grow no more
                continue
            b_last = chain[1]
            if ahead <= -k or b < b_last - k or b > chain[2] + gap:
                continue  # a chain moves forward in A; in B forward, or back a little
            off = b - b_last - ahead - k  # from where B would be, moving as A does
            cost = (ahead if ahead > 0 else 0) + (off if off >= 0 else -off)
            if cost < best_cost:
                best, best_cost = chain, cost
        if closed:
            open_chains = [chain for chain in open_chains if a - chain[0] <= gap]
        if best is None:
            open_chains.append([a + k, b, b + k, len(chains)])
            chains.append([i])
        else:
            if a + k > best[0]:
                best[0] = a + k
            best[1] = b
            if b + k > best[2]:
                best[2] = b + k
            chains[best[3]].append(i)
    return chains


#: Units of A and B compared in one pass of :func:`_exact_runs`: the pass holds about
#: 50 bytes per unit, so two long documents of one text are compared in slices.
_RUNS_UNITS = 1 << 20


def _exact_runs(
    ua: np.ndarray,
    ub: np.ndarray,
    seeds_a: np.ndarray,
    seeds_b: np.ndarray,
    chains: list[list[int]],
    k: int,
    reach: int,
) -> list[list[tuple[int, int, int]]]:
    """Each chain's maximal runs ``(a_start, a_stop, diagonal)`` where A equals B, around
    its seeds, in order of diagonal, then of position (:func:`_exact_runs_each` of one
    pair)."""
    zero = np.zeros(1, dtype=np.int64)
    ends = (np.array([ua.shape[0]]), np.array([ub.shape[0]]))
    return _exact_runs_each(
        (ua, ub),
        (zero, zero),
        ends,
        seeds_a,
        seeds_b,
        chains,
        np.zeros(len(chains), np.int64),
        k,
        reach,
    )


def _exact_runs_each(
    symbols: tuple[np.ndarray, np.ndarray],
    bases: tuple[np.ndarray, np.ndarray],
    lengths: tuple[np.ndarray, np.ndarray],
    seeds_a: np.ndarray,
    seeds_b: np.ndarray,
    chains: list[list[int]],
    chain_pair: np.ndarray,
    k: int,
    reach: int,
) -> list[list[tuple[int, int, int]]]:
    """The exact runs of the chains of many pairs at once, in each pair's own positions.

    Pair p's A is ``symbols[0][bases[0][p] :]`` for ``lengths[0][p]`` units, its B
    likewise in ``symbols[1]``; ``chain_pair`` says whose each chain is. Along each
    diagonal of a chain, the segment from ``reach`` units before its first seed to
    ``reach`` after its last is compared; runs that hold a seed are kept. The
    segments of all chains are laid end to end and compared in one pass (a pair has
    hundreds of them, a scan's batch thousands, and a numpy call per segment cost
    more than the comparing), up to _RUNS_UNITS units at a time; a longer segment is
    compared alone.
    """
    found: list[list[tuple[int, int, int]]] = [[] for _ in chains]
    if not chains:
        return found
    members = np.concatenate([np.asarray(c, dtype=np.int64) for c in chains])
    chain_of = np.repeat(np.arange(len(chains)), [len(c) for c in chains])
    at_a = seeds_a[members].astype(np.int64)
    diagonal = seeds_b[members].astype(np.int64) - at_a
    order = np.lexsort((at_a, diagonal, chain_of))
    at_a, diagonal, chain_of = at_a[order], diagonal[order], chain_of[order]
    # one segment per (chain, diagonal): its seeds are consecutive, by position in A
    new_group = np.ones(at_a.shape[0], dtype=bool)
    new_group[1:] = (diagonal[1:] != diagonal[:-1]) | (chain_of[1:] != chain_of[:-1])
    first = new_group.nonzero()[0]
    bounds = np.append(first, at_a.shape[0])  # segment g's seeds: bounds[g] to bounds[g + 1]
    d = diagonal[first]
    chain = chain_of[first]
    pair = chain_pair[chain]
    lo = np.maximum(np.maximum(at_a[first] - reach, 0), -d)
    hi = np.minimum(
        np.minimum(at_a[bounds[1:] - 1] + k + reach, lengths[0][pair]), lengths[1][pair] - d
    )
    base_a = bases[0][pair]
    segments = _Segments(lo, np.maximum(hi - lo, 0), d, chain, bounds, base_a, bases[1][pair] + d)
    for g0, g1 in _slices(segments.length, _RUNS_UNITS):
        for chain_at, run in segments.runs(*symbols, at_a, g0, g1, k):
            found[chain_at].append(run)
    return found


def _slices(length: np.ndarray, most: int) -> list[tuple[int, int]]:
    """Consecutive ranges of segments of at most ``most`` units together (or one longer)."""
    if int(length.sum()) <= most:
        return [(0, length.shape[0])]
    slices, begun, held = [], 0, 0
    for g, units in enumerate(length.tolist()):
        if held and held + units > most:
            slices.append((begun, g))
            begun, held = g, 0
        held += units
    slices.append((begun, length.shape[0]))
    return slices


@dataclass(frozen=True)
class _Segments:
    """The segments :func:`_exact_runs_each` compares: where each begins in its pair's A,
    its length, its diagonal, its chain, where its seeds lie among the seeds sorted by
    segment, and where its pair's A (``base_a``) and its own diagonal of B
    (``base_b``) begin in the symbols compared."""

    lo: np.ndarray
    length: np.ndarray
    d: np.ndarray
    chain: np.ndarray
    bounds: np.ndarray
    base_a: np.ndarray
    base_b: np.ndarray

    def runs(
        self, ua: np.ndarray, ub: np.ndarray, at_a: np.ndarray, g0: int, g1: int, k: int
    ) -> Iterator[tuple[int, tuple[int, int, int]]]:
        """(chain, run) of segments ``g0`` to ``g1``, compared laid end to end."""
        if g1 - g0 == 1 and self.length[g0] > _RUNS_UNITS:
            yield from self._alone(ua, ub, at_a, g0, k)
            return
        lo, length, d = self.lo[g0:g1], self.length[g0:g1], self.d[g0:g1]
        total = int(length.sum())
        if total == 0:
            return
        offset = np.cumsum(length) - length
        group_of = np.repeat(np.arange(g1 - g0), length)
        pos_a = np.arange(total) - offset[group_of] + lo[group_of]
        equal = ua[pos_a + self.base_a[g0:g1][group_of]] == ub[pos_a + self.base_b[g0:g1][group_of]]
        # runs of equal units, never across the end of a segment
        follows = np.zeros(total, dtype=bool)  # a unit that continues the run before it
        follows[1:] = equal[:-1] & equal[1:] & (group_of[1:] == group_of[:-1])
        opens = equal & ~follows
        starts = opens.nonzero()[0]
        stops = (equal & ~np.append(follows[1:], False)).nonzero()[0] + 1
        run_of = np.cumsum(opens) - 1
        # the runs that hold a seed
        s0, s1 = int(self.bounds[g0]), int(self.bounds[g1])
        seed_group = np.repeat(np.arange(g1 - g0), np.diff(self.bounds[g0 : g1 + 1]))
        inside = at_a[s0:s1] - lo[seed_group]
        inside_ok = (inside >= 0) & (inside < length[seed_group])
        at = offset[seed_group[inside_ok]] + inside[inside_ok]
        held = distinct(run_of[at[equal[at]]])
        held = held[stops[held] - starts[held] >= k]
        run_group = group_of[starts[held]]
        yield from zip(
            self.chain[g0:g1][run_group].tolist(),
            zip(
                pos_a[starts[held]].tolist(),
                (pos_a[stops[held] - 1] + 1).tolist(),
                d[run_group].tolist(),
                strict=True,
            ),
            strict=True,
        )

    def _alone(
        self, ua: np.ndarray, ub: np.ndarray, at_a: np.ndarray, g: int, k: int
    ) -> Iterator[tuple[int, tuple[int, int, int]]]:
        """The runs of one long segment, in a few bytes a unit (two long documents of one
        text: the laid-end-to-end pass would hold ten times as much)."""
        lo, d, chain = int(self.lo[g]), int(self.d[g]), int(self.chain[g])
        hi = lo + int(self.length[g])
        base_a, base_b = int(self.base_a[g]), int(self.base_b[g])
        equal = ua[base_a + lo : base_a + hi] == ub[base_b + lo : base_b + hi]
        edge = np.zeros(1, dtype=np.int8)
        edges = np.diff(np.concatenate((edge, equal.view(np.int8), edge)))
        starts, stops = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
        del edges
        seed_at = at_a[int(self.bounds[g]) : int(self.bounds[g + 1])] - lo
        seed_at = seed_at[(seed_at >= 0) & (seed_at < hi - lo)]
        held = distinct(np.searchsorted(starts, seed_at[equal[seed_at]], side="right") - 1)
        held = held[stops[held] - starts[held] >= k]
        for start, stop in zip(starts[held].tolist(), stops[held].tolist(), strict=True):
            yield chain, (lo + start, lo + stop, d)


def union_length(intervals: list[tuple[int, int]]) -> int:
    """Number of positions inside the union of half-open intervals."""
    total = 0
    end = -1
    for start, stop in sorted(intervals):
        if stop <= end:
            continue
        total += stop - max(start, end)
        end = stop
    return total


def _box(runs: list[tuple[int, int, int]]) -> tuple[int, int, int, int]:
    a0 = min(r[0] for r in runs)
    a1 = max(r[1] for r in runs)
    b0 = min(r[0] + r[2] for r in runs)
    b1 = max(r[1] + r[2] for r in runs)
    return a0, a1, b0, b1


def _belong_together(earlier: list, later: list, gap: int, k: int) -> bool:
    """Whether two boxes (``later`` starting no earlier in A) are one passage.

    They are if ``later`` follows ``earlier`` within ``gap`` units in A and B,
    or if they touch in A (within ``k``) and overlap in B: sentences swapped
    inside a paragraph leave the two parts side by side in A but interleaved in B.
    """
    _, a1, b0, b1 = earlier[:4]
    c0, _, d0, d1 = later[:4]
    follows = a1 - k <= c0 <= a1 + gap and b1 - k <= d0 <= b1 + gap
    interleaved = c0 <= a1 + k and d0 < b1 and b0 < d1
    return follows or interleaved


def _merge_close(groups: list[list[tuple[int, int, int]]], gap: int, k: int) -> list[list]:
    """Join groups of runs whose boxes belong to one passage, until none do."""
    boxes = [[*_box(g), g] for g in groups if g]
    changed = True
    while changed and len(boxes) > 1:
        changed = False
        boxes.sort(key=lambda x: (x[0], x[2]))
        merged: list[list] = []
        for box in boxes:
            for other in reversed(merged[-8:]):
                if _belong_together(other, box, gap, k):
                    other[0] = min(other[0], box[0])
                    other[1] = max(other[1], box[1])
                    other[2] = min(other[2], box[2])
                    other[3] = max(other[3], box[3])
                    other[4] = other[4] + box[4]
                    changed = True
                    break
            else:
                merged.append(box)
        boxes = merged
    return boxes


@dataclass(frozen=True)
class Seeds:
    """Shared fingerprints of two documents that could belong to a passage."""

    a: np.ndarray  # unit positions in A, ascending
    b: np.ndarray  # unit positions in B
    hashes: np.ndarray

    def __len__(self) -> int:
        return int(self.a.shape[0])


def find_seeds(fa: Fingerprints, fb: Fingerprints, options: AlignOptions) -> Seeds:
    """The shared fingerprints of A and B that are dense enough to make a passage.

    Needs no text: when it comes back empty, the documents need not be read.
    """
    return find_seeds_each([(fa, fb)], options)[0]


def find_seeds_each(
    prints: Sequence[tuple[Fingerprints, Fingerprints]], options: AlignOptions
) -> list[Seeds]:
    """:func:`find_seeds` of many pairs, found for all at once."""
    pair, seeds_a, seeds_b, hashes = shared_seeds_each(prints)
    keep = dense_seeds(seeds_a, seeds_b, options.reach, options.min_seeds, pair)
    pair, seeds_a, seeds_b, hashes = pair[keep], seeds_a[keep], seeds_b[keep], hashes[keep]
    bounds = np.searchsorted(pair, np.arange(len(prints) + 1)).tolist()
    return [Seeds(seeds_a[lo:hi], seeds_b[lo:hi], hashes[lo:hi]) for lo, hi in pairwise(bounds)]


def align(
    fa: Fingerprints, ua: Units, fb: Fingerprints, ub: Units, options: AlignOptions
) -> list[Passage]:
    """Passages shared by A and B, ordered by their position in A."""
    return align_seeds(find_seeds(fa, fb, options), ua, ub, options)


def align_seeds(seeds: Seeds, ua: Units, ub: Units, options: AlignOptions) -> list[Passage]:
    """Passages grown from ``seeds`` (see :func:`find_seeds`), ordered by position in A."""
    return align_seeds_each([(seeds, ua, ub)], options)[0]


def align_seeds_each(
    asked: Sequence[tuple[Seeds, Units, Units]], options: AlignOptions
) -> list[list[Passage]]:
    """:func:`align_seeds` of many pairs: the exact runs of a batch of pairs are found
    together, over the symbols of their documents laid end to end (each once)."""
    found: list[list[Passage]] = [[] for _ in asked]
    live = [i for i, (seeds, _, _) in enumerate(asked) if len(seeds)]
    for batch in _batches([asked[i][1:] for i in live]):
        pairs = [asked[live[j]] for j in batch]
        for j, groups in zip(batch, _runs_together(pairs, options), strict=True):
            seeds, ua, ub = asked[live[j]]
            found[live[j]] = _passages(groups, seeds, ua, ub, options)
    return found


#: Units of the documents of one batch of pairs at most, laid end to end (a copy of
#: their symbols, 8 bytes a unit); a pair with more is compared on its own documents.
_BATCH_UNITS = 1 << 20


def _batches(documents: list[tuple[Units, Units]]) -> list[list[int]]:
    """Consecutive pairs whose distinct documents hold at most _BATCH_UNITS units
    together (a larger pair alone)."""
    batches: list[list[int]] = []
    placed: set[int] = set()
    held = 0
    for j, pair in enumerate(documents):
        new = {id(units): len(units) for units in pair if id(units) not in placed}
        if batches and held + sum(new.values()) > _BATCH_UNITS:
            batches.append([])
            placed, held = set(), 0
            new = {id(units): len(units) for units in pair}
        if not batches:
            batches.append([])
        batches[-1].append(j)
        placed.update(new)
        held += sum(new.values())
    return batches


def _runs_together(
    pairs: list[tuple[Seeds, Units, Units]], options: AlignOptions
) -> list[list[list[tuple[int, int, int]]]]:
    """For each pair, its chains' exact runs (:func:`_exact_runs_each`); one pair is
    compared on its own documents, several on their documents laid end to end."""
    k, gap = options.k, options.gap
    if len(pairs) == 1:
        _, ua, ub = pairs[0]
        zero = np.zeros(1, dtype=np.int64)
        symbols, bases = (ua.symbols, ub.symbols), (zero, zero)
    else:
        placed: dict[int, int] = {}  # id of a document's units -> where they begin
        parts: list[np.ndarray] = []
        size = 0
        starts = np.zeros((2, len(pairs)), dtype=np.int64)
        for j, (_, *documents) in enumerate(pairs):
            for side, units in enumerate(documents):
                if id(units) not in placed:
                    placed[id(units)] = size
                    parts.append(units.symbols)
                    size += len(units)
                starts[side, j] = placed[id(units)]
        every = np.concatenate(parts)
        symbols, bases = (every, every), (starts[0], starts[1])
    lengths = (
        np.array([len(ua) for _, ua, _ in pairs], dtype=np.int64),
        np.array([len(ub) for _, _, ub in pairs], dtype=np.int64),
    )
    chains: list[list[int]] = []
    cuts = [0]
    seen = 0
    for seeds, _, _ in pairs:
        chains.extend(chain_seeds(seeds.a, seeds.b, k, gap, seen))
        seen += len(seeds)
        cuts.append(len(chains))
    groups = _exact_runs_each(
        symbols,
        bases,
        lengths,
        np.concatenate([seeds.a for seeds, _, _ in pairs]),
        np.concatenate([seeds.b for seeds, _, _ in pairs]),
        chains,
        np.repeat(np.arange(len(pairs)), np.diff(cuts)),
        k,
        2 * gap + k,
    )
    return [groups[lo:hi] for lo, hi in pairwise(cuts)]


def _passages(
    groups: list[list[tuple[int, int, int]]],
    seeds: Seeds,
    ua: Units,
    ub: Units,
    options: AlignOptions,
) -> list[Passage]:
    """The passages a pair's chains' exact runs make, ordered by position in A."""
    k = options.k
    passages = []
    for a0, a1, b0, b1, runs in _merge_close(groups, options.gap, k):
        if min(a1 - a0, b1 - b0) < options.min_length:
            continue
        matched = union_length([(r[0], r[1]) for r in runs]) + union_length(
            [(r[0] + r[2], r[1] + r[2]) for r in runs]
        )
        score = matched / ((a1 - a0) + (b1 - b0))
        longest_run = max(r[1] - r[0] for r in runs)
        if score < options.min_score or longest_run < options.anchor:
            continue
        inside = (seeds.a >= a0) & (seeds.a < a1) & (seeds.b >= b0) & (seeds.b < b1)
        held = int(distinct(seeds.hashes[inside]).size)
        if held < options.min_seeds:
            continue
        side_a = Side(*ua.span(a0, a1), a0, a1)
        side_b = Side(*ub.span(b0, b1), b0, b1)
        passages.append(Passage(side_a, side_b, matched, round(score, 4), longest_run, held))
    passages = _best_per_region(passages)
    passages.sort(key=lambda p: (p.a.first, p.b.first))
    return passages


def _overlap(x0: int, x1: int, y0: int, y1: int) -> int:
    return max(0, min(x1, y1) - max(x0, y0))


def _best_per_region(passages: list[Passage]) -> list[Passage]:
    """Where text repeats, keep for each region the passage that matches it best.

    A paragraph that occurs twice in B matches A's copy twice; reporting the
    stronger match once is what a reader wants (and what keeps one reuse from
    counting as two).
    """
    kept: list[Passage] = []
    for p in sorted(passages, key=lambda p: -p.matched):
        clash = False
        for q in kept:
            if _overlap(p.a.first, p.a.stop, q.a.first, q.a.stop) * 2 > p.a.units or (
                _overlap(p.b.first, p.b.stop, q.b.first, q.b.stop) * 2 > p.b.units
            ):
                clash = True
                break
        if not clash:
            kept.append(p)
    return kept
