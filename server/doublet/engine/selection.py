"""Selection: a folder's candidates selected again after a few documents changed, at
the cost of what changed rather than of the whole folder.

Selecting a folder's candidates (engine/candidates) sorts every shared key's
postings: most of a scan after a teacher adds a few submissions to a folder of
100,000. Yet a pair's evidence depends only on

- the keys of its two documents, their modes and roles;
- which of those keys select no pair: a template's, or one that more documents
  hold than a limit (``pairing_limit``, and ``SENTENCE_PAIRING`` for sentence
  keys), a limit that moves with the number of documents;
- whether its documents are of one text, and how many documents are of it;
- every mode's reach and least seeds (taken over all the documents' modes).

So a selection is kept with its *basis*: each document's signature (content
digest, mode, role, postings) and digest of its set of fingerprint keys, the
limits, the templates, and for each kind of key the number of documents holding
every key near or above its limits. After a few documents changed, the next
selection

1. selects the pairs of each changed document, looking its keys up in the index
   (all_candidates' evidence, not candidates_of's: ``candidates_touching``);
2. recounts the keys whose count could have crossed a limit — the changed
   documents' keys exactly; the kept counts of removed documents' keys are
   unknown (their keys are gone from the index), but each is at most what was
   kept and at least that less the documents dropped since, so only the keys
   within that margin of a limit are looked up — and selects again every pair
   of the unchanged documents holding a key that crossed one, or of one text
   whose group crossed the limit;
3. keeps every other pair's evidence.

The outcome equals all_candidates on the index (property tests). When it cannot
be sure cheaply — templates or the modes' reach changed, a limit fell below the
counts kept, many documents changed or were dropped, keys crossed a limit in
many documents, a changed document's keys are not those indexed — it is
all_candidates, which makes a new basis.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from doublet.engine.candidates import (
    SENTENCE_PAIRING,
    Candidate,
    Seen,
    all_candidates,
    candidates_touching,
    pairing_limit,
    same_digest_pairs,
    set_digests,
)
from doublet.engine.distinct import distinct, union
from doublet.engine.document import DocumentKeys
from doublet.engine.index import (
    FINGERPRINTS,
    KINDS,
    LEXICON,
    SENTENCES,
    Entry,
    Index,
    documents_per_key,
    keys_of,
)

#: Documents added, changed or removed past which the whole folder is selected again
#: (this share of the documents, or this many in a small folder).
CHANGED_SHARE = 0.02
MIN_CHANGED = 16


def most_changed(documents: int) -> float:
    """How many documents of a folder of ``documents`` may have been added, changed or
    removed for its selection to be made again from the last one."""
    return max(MIN_CHANGED, CHANGED_SHARE * documents)


#: Documents dropped (removed or changed) since the kept counts were exact, at most:
#: past it, the margin of doubt about them would have too many keys looked up.
DROPPED_SHARE = 0.05
MIN_DROPPED = 64
#: Unchanged documents whose pairs are selected again (they hold a key that crossed a
#: limit), at most: each is read and cut up again to know its keys.
RESELECTED_SHARE = 0.01
MIN_RESELECTED = 64
#: Counts are kept for keys that more documents hold than a limit less this share of
#: it (at least MIN_BAND less): the limit may fall that far (documents removed) before
#: the whole folder is selected again.
BAND_SHARE = 0.1
MIN_BAND = 2

#: A document's keys as indexed (read and cut up again, or kept since indexed).
KeysOf = Callable[[str], DocumentKeys]
#: The content digest a document's stamp records (None: unknown).
DigestOf = Callable[[bytes], "str | None"]


@dataclass(frozen=True)
class Counts:
    """How many documents hold the keys of one kind near or above its limits."""

    floor: int  # every key that more documents hold is among ``keys``
    keys: np.ndarray  # sorted, uint32
    counts: np.ndarray  # documents holding each, at most ...
    exact_at: np.ndarray  # ... and at least that less (Basis.dropped - exact_at)
    given: np.ndarray  # the keys templates hold (sorted): they select no pair
    ignored: np.ndarray  # the keys that selected no pair at the selection (sorted)

    def low(self, dropped: int) -> np.ndarray:
        """The fewest documents that may hold each key."""
        return self.counts - (dropped - self.exact_at)


@dataclass(frozen=True)
class Basis:
    """What a selection was made from, as far as selecting again needs it."""

    documents: dict[str, tuple[bytes | None, int | None]]  # signature, set digest
    count: int  # documents
    max_docs: int  # the boilerplate limit
    reach: int  # the modes' greatest reach ...
    min_seeds: int  # ... and least seeds
    templates: frozenset[str]
    dropped: int  # documents dropped (removed, or replaced) since counts were exact
    kinds: dict[str, Counts]


@dataclass(frozen=True)
class Selection:
    """A folder's candidates, the fingerprint keys to ignore when aligning them, and
    what selecting them again needs (None: select the whole folder next time)."""

    candidates: list[Candidate]
    ignored: np.ndarray
    basis: Basis | None = None


def as_data(selection: Selection) -> dict | None:
    """A selection with its basis as plain data (msgpack: arrays as bytes); None without
    a basis (nothing to select again from)."""
    basis = selection.basis
    if basis is None:
        return None
    names = list(basis.documents)
    number = {name: i for i, name in enumerate(names)}
    signatures = [s for s, _ in basis.documents.values()]
    digests = [d for _, d in basis.documents.values()]
    found = selection.candidates
    return {
        "names": [name.encode("utf-8", "surrogateescape") for name in names],
        "signatures": b"".join(s or bytes(_SIGNATURE) for s in signatures),
        "signed": _bytes([s is not None for s in signatures], bool),
        "digests": _bytes([d or 0 for d in digests], "<u8"),
        "has_digest": _bytes([d is not None for d in digests], bool),
        "a": _bytes([number[c.a] for c in found], "<u4"),
        "b": _bytes([number[c.b] for c in found], "<u4"),
        "evidence": _bytes(
            [
                (c.fingerprint_seeds, c.sentence_seeds, c.lexicon_seeds, int(c.identical))
                for c in found
            ],
            "<i8",
        ),
        "ignored": _bytes(selection.ignored, "<u4"),
        "numbers": [basis.count, basis.max_docs, basis.reach, basis.min_seeds, basis.dropped],
        "templates": sorted(number[name] for name in basis.templates),
        "kinds": {
            kind: {
                "floor": counts.floor,
                **{part: _bytes(getattr(counts, part), dtype) for part, dtype in _PARTS.items()},
            }
            for kind, counts in basis.kinds.items()
        },
    }


def from_data(data: dict) -> Selection:
    """:func:`as_data` undone; ValueError (or KeyError, TypeError) if it does not fit."""
    names = [bytes(name).decode("utf-8", "surrogateescape") for name in data["names"]]
    n = len(names)
    blob = bytes(data["signatures"])
    signed = np.frombuffer(data["signed"], bool)
    digests = np.frombuffer(data["digests"], "<u8")
    has_digest = np.frombuffer(data["has_digest"], bool)
    if len(blob) != n * _SIGNATURE or not signed.shape[0] == digests.shape[0] == n:
        raise ValueError("the documents' columns differ in length")
    if has_digest.shape[0] != n:
        raise ValueError("the documents' columns differ in length")
    documents = {
        name: (
            blob[i * _SIGNATURE : (i + 1) * _SIGNATURE] if signed[i] else None,
            int(digests[i]) if has_digest[i] else None,
        )
        for i, name in enumerate(names)
    }
    a = np.frombuffer(data["a"], "<u4").tolist()
    b = np.frombuffer(data["b"], "<u4").tolist()
    evidence = np.frombuffer(data["evidence"], "<i8").reshape(-1, 4).tolist()
    if not len(a) == len(b) == len(evidence):
        raise ValueError("the candidates' columns differ in length")
    candidates = [
        Candidate(names[x], names[y], copied, reworded, said, bool(same))
        for x, y, (copied, reworded, said, same) in zip(a, b, evidence, strict=True)
    ]
    count, max_docs, reach, min_seeds, dropped = (int(v) for v in data["numbers"])
    kinds = {}
    for kind in KINDS:
        raw = data["kinds"][kind]
        parts = {
            part: np.frombuffer(raw[part], dtype).astype(_TYPES[dtype])
            for part, dtype in _PARTS.items()
        }
        if not parts["keys"].shape == parts["counts"].shape == parts["exact_at"].shape:
            raise ValueError(f"{kind}: the counts' columns differ in length")
        kinds[kind] = Counts(int(raw["floor"]), **parts)
    templates = frozenset(names[i] for i in data["templates"])
    basis = Basis(documents, count, max_docs, reach, min_seeds, templates, dropped, kinds)
    ignored = np.frombuffer(data["ignored"], "<u4").astype(np.uint32)
    return Selection(candidates, ignored, basis)


_SIGNATURE = 16
#: The arrays of Counts, and how they are stored.
_PARTS = {
    "keys": "<u4",
    "counts": "<i8",
    "exact_at": "<i8",
    "given": "<u4",
    "ignored": "<u4",
}
_TYPES = {"<u4": np.uint32, "<i8": np.int64}


def _bytes(values, dtype) -> bytes:
    return np.ascontiguousarray(np.asarray(values, dtype=dtype)).tobytes()


def limits(documents: int, max_docs: int) -> dict[str, tuple[int, ...]]:
    """For each kind of key, the limits its counts are held against: past the first a
    key selects no pair; past the second (fingerprints) it is boilerplate."""
    pairing = pairing_limit(documents, max_docs)
    return {
        FINGERPRINTS: (pairing, max_docs),
        SENTENCES: (min(pairing, SENTENCE_PAIRING),),
        LEXICON: (pairing,),
    }


def _floor(limit: int) -> int:
    return limit - max(MIN_BAND, math.ceil(BAND_SHARE * limit))


def select_all(
    index: Index,
    max_docs: int,
    digest_of: DigestOf,
    each: Callable[[Callable[[int], Any], Iterable[int]], Iterable[Any]] = map,
    parts_times: int = 1,
    between: Callable[[], None] = lambda: None,
) -> Selection:
    """The whole folder's selection (all_candidates, its parts of pairs made by ``each``;
    ``between`` called between its kinds of keys) and its basis."""
    entries = index.live_entries()
    held = limits(len(entries), max_docs)
    floors = {kind: _floor(limit[0]) for kind, limit in held.items()}
    seen = Seen(floors)
    candidates, ignored = all_candidates(index, max_docs, seen, each, parts_times, between)
    if len(entries) < 2 or min(floors.values()) < 1:
        return Selection(candidates, ignored)
    kinds = {}
    for kind in KINDS:
        keys, counts = seen.counted[kind]
        given = seen.given[kind]
        counted = Counts(
            floors[kind], keys, counts, np.zeros(keys.shape[0], np.int64), given, given
        )
        kinds[kind] = replace(counted, ignored=_over(counted, 0, held[kind][0]))
    digests = np.zeros(index.id_count(), np.uint64)
    has_digest = np.zeros(index.id_count(), dtype=bool)
    docs, values = seen.digests
    digests[docs], has_digest[docs] = values, True
    signatures = _signatures(entries, digest_of)
    basis = Basis(
        {
            e.name: (s, _digest(e.id, digests, has_digest))
            for e, s in zip(entries, signatures, strict=True)
        },
        len(entries),
        max_docs,
        *_reach(entries),
        frozenset(e.name for e in entries if e.role.template),
        0,
        kinds,
    )
    return Selection(candidates, ignored, basis)


def reselect(
    index: Index, max_docs: int, previous: Selection, keys_for: KeysOf, digest_of: DigestOf
) -> Selection | None:
    """The selection of the index now, made from ``previous`` and what changed since;
    None when that would not be cheap or sure (then :func:`select_all`)."""
    basis = previous.basis
    entries = index.live_entries()
    n = len(entries)
    if basis is None or n < 2:
        return None
    signatures = _signatures(entries, digest_of)
    changed = [
        e
        for e, s in zip(entries, signatures, strict=True)
        if s is None or basis.documents.get(e.name, (None, None))[0] != s
    ]
    changed_names = {e.name for e in changed}
    dropped = [name for name in basis.documents if name not in index or name in changed_names]
    if len(changed) + len(dropped) > most_changed(n):
        return None
    templates = frozenset(e.name for e in entries if e.role.template)
    if templates != basis.templates or templates & changed_names:
        return None
    if _reach(entries) != (basis.reach, basis.min_seeds):
        return None
    held = limits(n, max_docs)
    if any(held[kind][0] < basis.kinds[kind].floor for kind in KINDS):
        return None
    lost = basis.dropped + len(dropped)
    if lost > max(MIN_DROPPED, DROPPED_SHARE * n):
        return None
    if not changed and not dropped and held == limits(basis.count, basis.max_docs):
        return previous
    try:
        return _Reselection(index, basis, held, lost, keys_for).run(
            previous, changed, dropped, signatures, entries, max_docs
        )
    except _Unsure:
        return None


class _Unsure(Exception):
    """Selecting again cannot be sure (a document's keys are not those indexed) or
    cheap (keys crossed a limit in many documents): the whole folder it is."""


class _Reselection:
    """One selection made from the last one's basis, the index and the limits now."""

    def __init__(
        self,
        index: Index,
        basis: Basis,
        held: dict[str, tuple[int, ...]],
        lost: int,
        keys_for: KeysOf,
    ) -> None:
        self.index, self.basis, self.held, self.lost = index, basis, held, lost
        self.keys_for = keys_for
        self.n = index.id_count()

    def run(
        self,
        previous: Selection,
        changed: list[Entry],
        dropped: list[str],
        signatures: list[bytes | None],
        entries: list[Entry],
        max_docs: int,
    ) -> Selection:
        """The selection now; _Unsure when it cannot be made cheaply and surely."""
        index, n = self.index, self.n
        focus = np.zeros(n, dtype=bool)
        focus[[e.id for e in changed]] = True
        # the changed documents' keys, with every posting of them: their counts exact
        touching, documents = self._postings(changed, focus, everywhere=True)
        kinds = {kind: self._counted(kind, *documents[kind]) for kind in KINDS}
        ignored = _over(kinds[FINGERPRINTS], self.lost, self.held[FINGERPRINTS][1])
        digests, has_digest = self._digests(entries, focus, touching[FINGERPRINTS], kinds)
        pairing = self.held[FINGERPRINTS][0]
        # unchanged documents whose pairs may have changed: a key they hold crossed a
        # limit, or the group of their text did
        again = self._holding_crossed(kinds) | self._regrouped(digests, has_digest, focus)
        again &= ~focus
        if again.sum() > max(MIN_RESELECTED, RESELECTED_SHARE * len(entries)):
            raise _Unsure
        stage = {kind: kinds[kind].ignored for kind in KINDS}
        reach, min_seeds = self.basis.reach, self.basis.min_seeds
        identical = self._identical(digests, has_digest, focus, pairing, both=False)
        found = candidates_touching(
            touching, stage, focus, identical, n, reach, min_seeds, index.entry_of
        )
        again_ids = np.flatnonzero(again).tolist()
        if again_ids:
            among, _ = self._postings([index.entry_of(i) for i in again_ids], again, False)
            identical = self._identical(digests, has_digest, again, pairing, both=True)
            found += candidates_touching(
                among, stage, again, identical, n, reach, min_seeds, index.entry_of
            )
        gone = {e.name for e in changed} | set(dropped)
        renewed = {index.entry_of(i).name for i in again_ids}
        found += [
            c
            for c in previous.candidates
            if c.a not in gone and c.b not in gone and not (c.a in renewed and c.b in renewed)
        ]
        found.sort(key=lambda c: (c.a, c.b))
        basis = Basis(
            {
                e.name: (s, _digest(e.id, digests, has_digest))
                for e, s in zip(entries, signatures, strict=True)
            },
            len(entries),
            max_docs,
            reach,
            min_seeds,
            self.basis.templates,
            self.lost,
            kinds,
        )
        return Selection(found, ignored, basis)

    def _postings(
        self, documents: list[Entry], mine: np.ndarray, everywhere: bool
    ) -> tuple[dict[str, tuple[np.ndarray, ...]], dict[str, tuple[np.ndarray, np.ndarray]]]:
        """For each kind, the postings (key, document, position) of ``documents``' keys:
        in every document (``everywhere``), or in theirs alone (``mine``, a mask by id);
        and those keys (sorted) with how many documents hold each. _Unsure unless they
        hold every posting the index holds of those documents."""
        keys_of_each = []
        for entry in documents:
            try:
                keys_of_each.append(self.keys_for(entry.name))
            except Exception as exc:  # gone or unreadable since it was indexed
                raise _Unsure from exc
        found, counted = {}, {}
        for kind in KINDS:
            wanted = _index_keys(keys_of_each, kind)
            which, doc, at = self.index.postings_of(kind, wanted)
            counted[kind] = (wanted, documents_per_key(which, doc, wanted.shape[0]))
            if not everywhere:
                keep = mine[doc]
                which, doc, at = which[keep], doc[keep], at[keep]
            held = np.bincount(doc[mine[doc]], minlength=self.n)
            if any(int(held[e.id]) != e.postings_of(kind) for e in documents):
                raise _Unsure  # the keys read now are not those indexed
            found[kind] = (wanted[which], doc, at)
        return found, counted

    def _counted(self, kind: str, wanted: np.ndarray, documents: np.ndarray) -> Counts:
        """The kept counts of ``kind`` with those of ``wanted`` keys exact, those that
        may have crossed a limit looked up, and the keys to ignore when pairing now."""
        limits_now = self.held[kind]
        counted = _recounted(self.basis.kinds[kind], wanted, documents, self.lost)
        low = counted.low(self.lost)
        unsure = np.zeros(counted.keys.shape[0], dtype=bool)
        for limit in limits_now:
            unsure |= (low <= limit) & (counted.counts > limit)
        if unsure.any():
            asked = counted.keys[unsure]
            which, doc, _ = self.index.postings_of(kind, asked)
            exact = documents_per_key(which, doc, asked.shape[0])
            counted = _recounted(counted, asked, exact, self.lost)
        return replace(counted, ignored=_over(counted, self.lost, limits_now[0]))

    def _digests(
        self,
        entries: list[Entry],
        focus: np.ndarray,
        postings: tuple[np.ndarray, ...],
        kinds: dict[str, Counts],
    ) -> tuple[np.ndarray, np.ndarray]:
        """Each document's digest of its set of fingerprint keys (kept, or made for the
        changed ones), by id, and whether it has one."""
        digests = np.zeros(self.n, np.uint64)
        has_digest = np.zeros(self.n, dtype=bool)
        documents = self.basis.documents
        for e in entries:
            if not focus[e.id]:
                digest = documents[e.name][1]
                if digest is not None:
                    digests[e.id], has_digest[e.id] = digest, True
        keys, docs, _ = postings
        mine = focus[docs]
        keys, docs = keys[mine], docs[mine]
        order = np.lexsort((docs, keys))
        ordered = [(keys[order], docs[order])]
        made, values = set_digests(lambda: ordered, self.n, kinds[FINGERPRINTS].given)
        digests[made], has_digest[made] = values, True
        return digests, has_digest

    def _holding_crossed(self, kinds: dict[str, Counts]) -> np.ndarray:
        """Documents (a mask by id) holding a key that crossed its pairing limit."""
        holding = np.zeros(self.n, dtype=bool)
        for kind in KINDS:
            crossed = np.setxor1d(self.basis.kinds[kind].ignored, kinds[kind].ignored)
            if crossed.shape[0]:
                _, doc, _ = self.index.postings_of(kind, crossed)
                holding[doc] = True
        return holding

    def _regrouped(
        self, digests: np.ndarray, has_digest: np.ndarray, focus: np.ndarray
    ) -> np.ndarray:
        """Unchanged documents (a mask by id) of a text whose group crossed the pairing
        limit (or fell below two), if two or more unchanged documents are of it."""
        kept = [d for _, d in self.basis.documents.values() if d is not None]
        old_values, old_sizes = np.unique(np.array(kept, np.uint64), return_counts=True)
        new_values, new_sizes = np.unique(digests[has_digest], return_counts=True)
        values = union(old_values, new_values)
        before = _pairing_group(values, old_values, old_sizes, self._old_pairing())
        now = _pairing_group(values, new_values, new_sizes, self.held[FINGERPRINTS][0])
        unchanged = has_digest & ~focus
        moved = np.flatnonzero(unchanged & np.isin(digests, values[before != now]))
        groups, sizes = np.unique(digests[moved], return_counts=True)
        regrouped = np.zeros(self.n, dtype=bool)
        regrouped[moved[np.isin(digests[moved], groups[sizes >= 2])]] = True
        return regrouped

    def _old_pairing(self) -> int:
        return limits(self.basis.count, self.basis.max_docs)[FINGERPRINTS][0]

    def _identical(
        self,
        digests: np.ndarray,
        has_digest: np.ndarray,
        mask: np.ndarray,
        pairing: int,
        both: bool,
    ) -> np.ndarray:
        """The pairs (as a * n + b) of one text, of no more documents than ``pairing``,
        with one document in ``mask`` (``both``: two)."""
        values = distinct(digests[mask & has_digest])
        members = np.flatnonzero(has_digest & np.isin(digests, values))
        pairs = same_digest_pairs(members, digests[members], self.n, pairing)
        a, b = np.divmod(pairs, self.n)
        return pairs[(mask[a] & mask[b]) if both else (mask[a] | mask[b])]


def _index_keys(documents: list[DocumentKeys], kind: str) -> np.ndarray:
    """The distinct index keys of one kind that ``documents`` hold, sorted."""
    hashes = [
        {
            FINGERPRINTS: keys.fingerprints.hashes,
            SENTENCES: keys.sentence_keys.hashes,
            LEXICON: keys.lexicon_keys.hashes,
        }[kind]
        for keys in documents
    ]
    return distinct(keys_of(np.concatenate(hashes))) if hashes else np.zeros(0, np.uint32)


def _recounted(kept: Counts, wanted: np.ndarray, documents: np.ndarray, lost: int) -> Counts:
    """``kept`` with the exact counts of ``wanted`` keys (sorted, unique): kept if more
    documents than its floor hold them, else let go."""
    keep = ~np.isin(kept.keys, wanted)
    fresh = documents > kept.floor
    keys = np.concatenate([kept.keys[keep], wanted[fresh]]).astype(np.uint32)
    counts = np.concatenate([kept.counts[keep], documents[fresh].astype(np.int64)])
    exact_at = np.concatenate(
        [kept.exact_at[keep], np.full(int(fresh.sum()), lost, dtype=np.int64)]
    )
    order = np.argsort(keys, kind="stable")
    return replace(kept, keys=keys[order], counts=counts[order], exact_at=exact_at[order])


def _over(counts: Counts, lost: int, limit: int) -> np.ndarray:
    """The keys more documents than ``limit`` hold (every kept count sure of it), and the
    templates' keys."""
    return distinct(np.concatenate([counts.given, counts.keys[counts.low(lost) > limit]])).astype(
        np.uint32
    )


def _pairing_group(
    values: np.ndarray, known: np.ndarray, sizes: np.ndarray, limit: int
) -> np.ndarray:
    """For each digest of ``values``, whether its documents pair as one text, when
    ``known`` digests (sorted) are of ``sizes`` documents (others of none)."""
    size = np.zeros(values.shape[0], np.int64)
    if known.shape[0]:
        at = np.minimum(np.searchsorted(known, values), known.shape[0] - 1)
        hit = known[at] == values
        size[hit] = sizes[at[hit]]
    return (size >= 2) & (size <= limit)


def _digest(doc_id: int, digests: np.ndarray, has_digest: np.ndarray) -> int | None:
    return int(digests[doc_id]) if has_digest[doc_id] else None


def _reach(entries: list[Entry]) -> tuple[int, int]:
    """The modes' greatest reach and least seeds, as all_candidates takes them."""
    modes = {e.mode for e in entries}
    return max(m.alignment.reach for m in modes), max(1, min(m.min_seeds for m in modes))


def _signatures(entries: list[Entry], digest_of: DigestOf) -> list[bytes | None]:
    """Each document's signature: its content digest (``digest_of`` its stamp), mode,
    role and postings; None for one without a digest (changed, every time)."""
    modes: dict[int, bytes] = {}
    found: list[bytes | None] = []
    for e in entries:
        content = digest_of(e.stamp)
        if content is None:
            found.append(None)
            continue
        mode = modes.get(id(e.mode))
        if mode is None:
            mode = modes[id(e.mode)] = repr(sorted(e.mode.as_data().items())).encode()
        role = e.role
        text = (
            f"{content}|{e.units}|{e.postings_of(FINGERPRINTS)}|{e.postings_of(SENTENCES)}|"
            f"{e.postings_of(LEXICON)}|{role.template:d}{role.reference:d}|{role.group!r}|"
        )
        digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16)
        digest.update(mode)
        found.append(digest.digest())
    return found
