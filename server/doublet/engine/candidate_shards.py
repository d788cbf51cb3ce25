"""A folder's candidates as map, shuffle and reduce: how a cluster selects them.

engine/candidates selects a folder's pairs on one machine, from all postings at
once. Every rule it applies is about one key (how many documents hold it: the
boilerplate and pairing limits; a template's keys; MAX_REPEATS), or about one
pair of documents (dense fingerprint seeds, sentence seeds, literals shared);
and the sum naming a document's set of keys adds up over its keys. So:

1. *map*: the postings are cut by key range into shards (all postings of a key
   in one shard, so each key's rules are applied there) and each shard is
   turned into seeds — two postings of one key in two documents;
2. *shuffle*: each shard's seeds are cut by pair of documents (``part_of``: all
   seeds of a pair, of every kind, in one part);
3. *reduce*: each part's seeds become evidence per pair;

and the evidence of every part makes the candidates that ``all_candidates``
makes, to the byte. The steps are functions of arrays: whoever runs them
(doublet/cluster, on Dask; the tests, here) passes ``submit``, which runs a step
somewhere and returns a handle that later steps may take as an argument, and
``gather``, which turns handles into results.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise

import numpy as np

from doublet.engine.candidates import (
    SENTENCE_PAIRING,
    Candidate,
    _dense_of,
    _found_in,
    _given_keys,
    _isin_sorted,
    _left_out,
    _lexicon_evidence,
    _Postings,
    _sentence_evidence,
    _sentence_pairs,
    _sentence_seeds,
    digests_of,
    pairing_limit,
    part_of,
    same_digest_pairs,
    set_sums,
)
from doublet.engine.distinct import distinct
from doublet.engine.index import FINGERPRINTS, KINDS, LEXICON, SENTENCES, Index

#: Submit a step (a function and its arguments, handles among them) to run; get a handle.
Submit = Callable[..., object]
#: Turn handles into what their steps returned.
Gather = Callable[[list], list]


@dataclass(frozen=True)
class Limits:
    """What every step needs to know of the whole folder."""

    n: int  # document ids (pairs are named a * n + b)
    max_docs: int  # the boilerplate limit
    pairing: int  # keys in more documents select no pair
    templates: np.ndarray  # ids of the templates
    parts: int  # how many parts the pairs are cut into


@dataclass(frozen=True)
class ShardSeeds:
    """The map's output for one kind of key in one key range: per part, the seeds
    (sentences: (pair, name of the seed); fingerprints: (pair, at a, at b); lexicon:
    (pair,)); and for fingerprints the keys to ignore when aligning and the shard's
    set sums (candidates.set_sums) with the documents holding a template's key."""

    kind: str
    parts: list[tuple[np.ndarray, ...]]
    ignored: np.ndarray
    sums: tuple[np.ndarray, np.ndarray, np.ndarray] | None


@dataclass(frozen=True)
class PartEvidence:
    """The reduce's output for one part of the pairs."""

    dense: tuple[np.ndarray, np.ndarray]  # pairs with dense fingerprint seeds, how many
    sentences: tuple[np.ndarray, np.ndarray, np.ndarray]  # pairs, seeds, share a fingerprint
    lexicon: tuple[np.ndarray, np.ndarray]  # pairs sharing literals, how many


def key_bounds(index: Index, shards: int) -> np.ndarray:
    """The ``shards - 1`` keys where shards begin (the first begins at key 0), cutting
    the postings of every kind into about equal shards: quantiles of a sample of the
    keys (the keys of one mode spread less evenly than their hashes)."""
    sample = np.sort(np.concatenate([index.live_postings(k, one_in=97)[0] for k in KINDS]))
    if not sample.shape[0]:
        return np.zeros(0, np.uint32)
    return distinct(sample[(np.arange(1, shards) * sample.shape[0]) // shards])


def seeds_of_shard(
    kind: str, keys: np.ndarray, docs: np.ndarray, positions: np.ndarray, limits: Limits
) -> ShardSeeds:
    """The map: one shard's postings of one kind (all postings of its keys, sorted by
    key, document and position) as seeds, cut by part."""
    postings = _Postings.of(keys, docs, positions)
    templates, n = limits.templates, limits.n
    ignored, sums = np.zeros(0, np.uint32), None
    limit = min(limits.pairing, SENTENCE_PAIRING) if kind == SENTENCES else limits.pairing
    given = _given_keys(postings, templates)
    if kind == FINGERPRINTS:
        ignored = _left_out(postings, given, limits.max_docs)
        # the holders of a template's keys pair by no same text
        holding = distinct(postings.docs[np.isin(postings.keys, given)]).astype(np.int64)
        sums = (*set_sums(postings.keys, postings.docs, n), holding)
    postings = postings.without_keys(_left_out(postings, given, limit))
    chunks = [_cut(kind, a, b, at_a, at_b, limits) for a, b, at_a, at_b in postings.pairs()]
    width = {SENTENCES: 2, FINGERPRINTS: 3, LEXICON: 1}[kind]
    parts = [
        tuple(_joined([chunk[p][i] for chunk in chunks]) for i in range(width))
        for p in range(limits.parts)
    ]
    return ShardSeeds(kind, parts, ignored, sums)


def _cut(
    kind: str,
    a: np.ndarray,
    b: np.ndarray,
    at_a: np.ndarray,
    at_b: np.ndarray,
    limits: Limits,
) -> list[tuple[np.ndarray, ...]]:
    """One chunk of seeds, as the part each belongs to will take them."""
    pair = a.astype(np.int64) * limits.n + b
    if kind == SENTENCES:
        columns: tuple[np.ndarray, ...] = _sentence_pairs(pair, at_a, at_b)
    elif kind == FINGERPRINTS:
        columns = (pair, at_a, at_b)
    else:
        columns = (pair,)
    part = part_of(a, b, limits.parts)
    order = np.argsort(part, kind="stable")
    cuts = np.searchsorted(part[order], np.arange(limits.parts + 1)).tolist()
    sorted_columns = [column[order] for column in columns]
    return [
        tuple(column[cuts[p] : cuts[p + 1]] for column in sorted_columns)
        for p in range(limits.parts)
    ]


def _joined(arrays: list[np.ndarray]) -> np.ndarray:
    return np.concatenate(arrays) if arrays else np.zeros(0, np.int64)


def part_seeds(shard: ShardSeeds, part: int) -> tuple[str, tuple[np.ndarray, ...]]:
    """The shuffle: what one part takes of one shard's seeds."""
    return shard.kind, shard.parts[part]


def shard_summary(shard: ShardSeeds) -> tuple[np.ndarray, tuple | None]:
    """What the last step takes of a shard: its ignored keys and set sums."""
    return shard.ignored, shard.sums


def evidence_of_part(reach: int, min_seeds: int, *pieces: tuple) -> PartEvidence:
    """The reduce: one part's seeds, from every shard, as evidence per pair."""
    by_kind: dict[str, list[tuple[np.ndarray, ...]]] = {kind: [] for kind in KINDS}
    for kind, columns in pieces:
        by_kind[kind].append(columns)
    pair_ids, counts = _sentence_seeds(iter(by_kind[SENTENCES]))
    copied = by_kind[FINGERPRINTS]
    pair = _joined([c[0] for c in copied])
    dense, sharing = _dense_of(
        pair, [c[1] for c in copied], [c[2] for c in copied], reach, min_seeds
    )
    named = [(p, count) for p, count in dense]
    said, shared = np.unique(_joined([c[0] for c in by_kind[LEXICON]]), return_counts=True)
    return PartEvidence(
        (
            np.array([p for p, _ in named], np.int64),
            np.array([count for _, count in named], np.int64),
        ),
        (pair_ids, counts, _isin_sorted(pair_ids, sharing)),
        (said, shared),
    )


def sharded_candidates(
    index: Index,
    max_docs: int,
    shards: int,
    parts: int,
    submit: Submit,
    gather: Gather,
) -> tuple[list[Candidate], np.ndarray]:
    """``all_candidates(index, max_docs)``, selected by map, shuffle and reduce: the
    postings cut into ``shards`` key ranges, the pairs into ``parts``."""
    entries = {e.id: e for e in index.entries()}
    if len(entries) < 2:
        return [], np.zeros(0, np.uint32)
    modes = {e.mode for e in entries.values()}
    reach = max(m.alignment.reach for m in modes)
    min_seeds = max(1, min(m.min_seeds for m in modes))
    n = index.id_count()
    limits = Limits(n, max_docs, pairing_limit(len(entries), max_docs), index.templates(), parts)
    bounds = key_bounds(index, shards)
    mapped, fingerprinted = [], []
    for kind in KINDS:  # one kind's postings at a time here
        keys, docs, positions = index.live_postings(kind)
        cuts = [0, *np.searchsorted(keys, bounds).tolist(), keys.shape[0]]
        for lo, hi in pairwise(cuts):
            shard = submit(seeds_of_shard, kind, keys[lo:hi], docs[lo:hi], positions[lo:hi], limits)
            mapped.append(shard)
            if kind == FINGERPRINTS:
                fingerprinted.append(submit(shard_summary, shard))
        del keys, docs, positions
    reduced = [
        submit(evidence_of_part, reach, min_seeds, *[submit(part_seeds, s, p) for s in mapped])
        for p in range(parts)
    ]
    return _candidates(entries, limits, gather(fingerprinted), gather(reduced))


def _candidates(
    entries: dict,
    limits: Limits,
    summaries: Sequence[tuple[np.ndarray, tuple | None]],
    evidences: Sequence[PartEvidence],
) -> tuple[list[Candidate], np.ndarray]:
    """The last step, here: the candidates from every part's evidence, with the pairs of
    documents of the same text found from the shards' set sums."""
    n = limits.n
    summed, held = np.zeros(n, np.uint64), np.zeros(n, np.uint64)
    holding, ignored = [], []
    for shard_ignored, (shard_summed, shard_held, shard_holding) in summaries:
        summed += shard_summed  # modulo 2^64, as the whole's sum
        held += shard_held
        holding.append(shard_holding)
        ignored.append(shard_ignored)
    held[_joined(holding).astype(np.int64)] = 0
    evidence: dict[tuple[int, int], list[int]] = {}
    for p in same_digest_pairs(*digests_of(summed, held), n, limits.pairing).tolist():
        evidence.setdefault(divmod(p, n), [0, 0, 0, 0])[3] = 1
    for part in evidences:
        for p, count in zip(part.dense[0].tolist(), part.dense[1].tolist(), strict=True):
            evidence.setdefault(divmod(p, n), [0, 0, 0, 0])[0] = count
    pair_ids, counts, shares = (
        _joined([part.sentences[i] for part in evidences]) for i in range(3)
    )
    _sentence_evidence(evidence, pair_ids, counts, shares, n, entries.__getitem__)
    lexicon = zip(
        _joined([part.lexicon[0] for part in evidences]).tolist(),
        _joined([part.lexicon[1] for part in evidences]).tolist(),
        strict=True,
    )
    _lexicon_evidence(evidence, lexicon, n)
    return _found_in(evidence, entries.__getitem__), _joined(ignored).astype(np.uint32)
