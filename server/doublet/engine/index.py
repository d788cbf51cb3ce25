"""The inverted index: fingerprint keys to (document, position), kept current as documents change.

Postings live in numpy arrays, never in dicts of lists. Each posting is 8
bytes: a 32-bit key (the top half of the fingerprint's hash) and a 32-bit
*global* position (a document's units occupy a range of the global position
space, so the document is found by binary search over range starts). That
keeps the index smaller than the text it indexes.

Changes go to a small *delta* segment; removals mark documents dead. The delta
is merged into the sorted *base* segment once it grows, and dead postings are
dropped once they are a quarter of the base, so one edit costs milliseconds
while the index stays compact. Whatever the history of edits, every query
answers as an index built from scratch from the same documents would: the
answers depend only on the live postings, never on how they are stored.

The index keys are 32-bit, so two different fingerprints can share a key. The
index therefore only *selects* candidates (a superset of the documents that
share passages); passages are always computed from full 64-bit fingerprints.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace

import numpy as np

from doublet.engine.fingerprints import Fingerprints
from doublet.engine.passages import clustered_groups, dense_seeds

#: The delta segment is merged into the base past this many postings.
MERGE_POSTINGS = 65536
#: Dead postings are dropped once they are this share of the base.
COMPACT_SHARE = 0.25
_POSITION_LIMIT = 2**32 - 1


def keys_of(hashes: np.ndarray) -> np.ndarray:
    """Index keys of 64-bit fingerprint hashes: their top 32 bits."""
    return (hashes >> np.uint64(32)).astype(np.uint32)


def _sorted_segment(keys: np.ndarray, positions: np.ndarray) -> _Segment:
    """Postings sorted by (key, position): both are 32-bit, so one 64-bit sort does it."""
    packed = (keys.astype(np.uint64) << np.uint64(32)) | positions.astype(np.uint64)
    packed.sort()
    return _Segment((packed >> np.uint64(32)).astype(np.uint32), packed.astype(np.uint32))


@dataclass(frozen=True)
class Role:
    """How a document takes part: matched and reported, or only one of the two.

    A template's text is subtracted from every document (assignment text,
    starter code); a reference is matched against but never reported on
    itself; documents of one group (one author's folder) never match each other.
    """

    template: bool = False
    reference: bool = False
    group: str | None = None


@dataclass
class Entry:
    """What the index knows of one document (no text: hashes and positions only)."""

    name: str
    id: int
    salt: int  # the mode's salt: documents of different modes never match
    units: int
    start: int  # global position of the document's unit 0
    postings: int
    role: Role = field(default_factory=Role)
    stamp: tuple = ()  # the caller's record of the file version (size, mtime, digest)


@dataclass(frozen=True)
class Candidate:
    """A document that may share passages with the query, and the seeds it shares."""

    name: str
    seeds: int


@dataclass
class _Segment:
    keys: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint32))
    positions: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint32))

    def __len__(self) -> int:
        return int(self.keys.shape[0])


class Index:
    """Documents' fingerprints, searchable by key; add, update, remove and rename."""

    def __init__(self) -> None:
        self._entries: list[Entry | None] = []  # by id; None once compacted away
        self._by_name: dict[str, int] = {}
        self._starts: list[int] = []  # by id, increasing
        self._alive: list[bool] = []
        self._next_start = 0
        self._base = _Segment()
        self._pending: list[_Segment] = []  # added since the last merge
        self._pending_postings = 0
        self._delta: _Segment | None = _Segment()  # pending, sorted; None when stale
        self._dead_postings = 0
        self._arrays: tuple[np.ndarray, np.ndarray] | None = None  # starts, alive as arrays

    # --- documents ------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._by_name)

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def names(self) -> list[str]:
        return sorted(self._by_name)

    def entry(self, name: str) -> Entry:
        entry = self._entries[self._by_name[name]]
        assert entry is not None
        return entry

    def entries(self) -> Iterator[Entry]:
        for name in self.names():
            yield self.entry(name)

    def add(
        self,
        name: str,
        fingerprints: Fingerprints,
        units: int,
        salt: int,
        role: Role | None = None,
        stamp: tuple = (),
    ) -> None:
        """Index a document under ``name``, replacing any document of that name."""
        if name in self._by_name:
            self.remove(name)
        if self._next_start + units + 1 > _POSITION_LIMIT:
            self._compact()
            if self._next_start + units + 1 > _POSITION_LIMIT:
                raise ValueError("index full: more than 4 billion units")
        doc_id = len(self._entries)
        start = self._next_start
        self._next_start += units + 1
        entry = Entry(name, doc_id, salt, units, start, len(fingerprints), role or Role(), stamp)
        self._entries.append(entry)
        self._starts.append(start)
        self._alive.append(True)
        self._by_name[name] = doc_id
        self._arrays = None
        positions = (fingerprints.positions + start).astype(np.uint32)
        self._pending.append(_sorted_segment(keys_of(fingerprints.hashes), positions))
        self._pending_postings += len(fingerprints)
        self._delta = None

    def remove(self, name: str) -> None:
        doc_id = self._by_name.pop(name)
        entry = self._entries[doc_id]
        assert entry is not None
        self._alive[doc_id] = False
        self._dead_postings += entry.postings
        self._arrays = None
        if self._dead_postings > COMPACT_SHARE * max(len(self._base), MERGE_POSTINGS):
            self._compact()

    def rename(self, old: str, new: str) -> None:
        """Move a document to a new name (a file moved on disk); its postings stay."""
        if new in self._by_name:
            self.remove(new)
        doc_id = self._by_name.pop(old)
        self._by_name[new] = doc_id
        entry = self._entries[doc_id]
        assert entry is not None
        entry.name = new

    def set_role(self, name: str, role: Role) -> None:
        self.entry(name).role = role

    def set_stamp(self, name: str, stamp: tuple) -> None:
        self.entry(name).stamp = stamp

    # --- storage --------------------------------------------------------------------

    def _merge(self) -> None:
        """Fold the pending segments into the base, keeping (key, position) order."""
        delta = self._delta_segment()
        if len(delta):
            where = np.searchsorted(self._base.keys, delta.keys, side="right")
            # equal keys: delta positions are newer, hence larger, so they go after
            self._base = _Segment(
                np.insert(self._base.keys, where, delta.keys),
                np.insert(self._base.positions, where, delta.positions),
            )
        self._pending = []
        self._pending_postings = 0
        self._delta = _Segment()

    def _compact(self) -> None:
        """Drop dead postings and renumber global positions densely."""
        self._merge()
        starts, alive = self._id_arrays()
        owner = np.searchsorted(starts, self._base.positions, side="right") - 1
        keep = alive[owner]
        live_ids = [i for i, ok in enumerate(self._alive) if ok]
        new_start = np.zeros(len(self._entries), dtype=np.int64)
        cursor = 0
        entries: list[Entry | None] = []
        for new_id, old_id in enumerate(live_ids):
            entry = self._entries[old_id]
            assert entry is not None
            new_start[old_id] = cursor
            entries.append(replace(entry, id=new_id, start=cursor))
            cursor += entry.units + 1
        shift = (new_start - starts)[owner[keep]]
        positions = (self._base.positions[keep].astype(np.int64) + shift).astype(np.uint32)
        self._base = _Segment(self._base.keys[keep], positions)
        self._entries = entries
        self._by_name = {e.name: e.id for e in entries if e is not None}
        self._starts = [e.start for e in entries if e is not None]
        self._alive = [True] * len(entries)
        self._next_start = cursor
        self._dead_postings = 0
        self._arrays = None

    def _delta_segment(self) -> _Segment:
        if self._delta is None:
            if self._pending:
                self._delta = _sorted_segment(
                    np.concatenate([s.keys for s in self._pending]),
                    np.concatenate([s.positions for s in self._pending]),
                )
            else:
                self._delta = _Segment()
        return self._delta

    def _id_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        if self._arrays is None:
            self._arrays = (
                np.array(self._starts, dtype=np.int64),
                np.array(self._alive, dtype=bool),
            )
        return self._arrays

    def segments(self) -> list[_Segment]:
        """The sorted segments to search; a delta grown large is merged first."""
        if self._pending_postings > MERGE_POSTINGS:
            self._merge()
        return [self._base, self._delta_segment()]

    # --- queries --------------------------------------------------------------------

    def _postings_of(self, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Live postings of sorted unique ``wanted`` keys: (which wanted key, doc id, position)."""
        which_parts, global_parts = [], []
        for segment in self.segments():
            if not len(segment):
                continue
            lo = np.searchsorted(segment.keys, wanted, side="left")
            hi = np.searchsorted(segment.keys, wanted, side="right")
            count = hi - lo
            total = int(count.sum())
            if not total:
                continue
            within = np.arange(total) - np.repeat(np.cumsum(count) - count, count)
            which_parts.append(np.repeat(np.arange(wanted.shape[0]), count))
            global_parts.append(segment.positions[np.repeat(lo, count) + within])
        if not which_parts:
            nothing = np.zeros(0, dtype=np.int64)
            return nothing, nothing, nothing
        which = np.concatenate(which_parts)
        at = np.concatenate(global_parts).astype(np.int64)
        starts, alive = self._id_arrays()
        doc = np.searchsorted(starts, at, side="right") - 1
        live = alive[doc]
        return which[live], doc[live], at[live] - starts[doc[live]]

    def ignored_keys(self, keys: np.ndarray, max_docs: int) -> np.ndarray:
        """Of ``keys``, those to leave out: in more than ``max_docs`` documents or in a template."""
        wanted = np.unique(keys)
        which, doc, _ = self._postings_of(wanted)
        if which.shape[0] == 0:
            return np.zeros(0, dtype=np.uint32)
        pair = np.unique(which * len(self._entries) + doc)
        per_key = np.bincount(pair // len(self._entries), minlength=wanted.shape[0])
        ignored = per_key > max_docs
        templates = np.array([e is not None and e.role.template for e in self._entries])
        if templates.any():
            ignored[np.unique(which[templates[doc]])] = True
        return wanted[ignored]

    def candidates(
        self,
        fingerprints: Fingerprints,
        salt: int,
        *,
        max_docs: int,
        reach: int,
        min_seeds: int,
        exclude: str | None = None,
        role: Role | None = None,
        ignored: np.ndarray | None = None,
    ) -> list[Candidate]:
        """Documents that may share a passage with a text of these fingerprints.

        ``exclude`` names the document itself (when it is indexed); ``role`` is
        the querying document's role, so that its own group is left out;
        ``ignored`` is :meth:`ignored_keys` of these fingerprints, if known.
        """
        keys = keys_of(fingerprints.hashes)
        skip = self.ignored_keys(keys, max_docs) if ignored is None else ignored
        usable = ~np.isin(keys, skip)
        keys, query_positions = keys[usable], fingerprints.positions[usable]
        if keys.shape[0] == 0:
            return []
        order = np.argsort(keys, kind="stable")
        keys, query_positions = keys[order], query_positions[order]
        wanted, first, repeats = np.unique(keys, return_index=True, return_counts=True)
        which, doc, at = self._postings_of(wanted)
        allowed = self._allowed(doc, salt, exclude, role)
        which, doc, at = which[allowed], doc[allowed], at[allowed]
        # every occurrence of a key in the query meets every posting of it
        count = repeats[which]
        total = int(count.sum())
        if total == 0:
            return []
        within = np.arange(total) - np.repeat(np.cumsum(count) - count, count)
        seeds_query = query_positions[np.repeat(first[which], count) + within]
        seeds_doc = np.repeat(doc, count)
        seeds_at = np.repeat(at, count)
        maybe = clustered_groups(seeds_doc, seeds_query, reach, min_seeds)
        maybe = np.intersect1d(maybe, clustered_groups(seeds_doc, seeds_at, reach, min_seeds))
        keep = np.isin(seeds_doc, maybe)
        seeds_doc, seeds_query, seeds_at = seeds_doc[keep], seeds_query[keep], seeds_at[keep]
        found = []
        order = np.argsort(seeds_doc, kind="stable")
        seeds_doc, seeds_query, seeds_at = seeds_doc[order], seeds_query[order], seeds_at[order]
        bounds = np.flatnonzero(np.r_[True, seeds_doc[1:] != seeds_doc[:-1], True])
        for lo, hi in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
            dense = dense_seeds(seeds_query[lo:hi], seeds_at[lo:hi], reach, min_seeds)
            if dense.any():
                entry = self._entries[int(seeds_doc[lo])]
                assert entry is not None
                found.append(Candidate(entry.name, int(dense.sum())))
        found.sort(key=lambda c: c.name)
        return found

    def _allowed(
        self, doc: np.ndarray, salt: int, exclude: str | None, role: Role | None
    ) -> np.ndarray:
        """Mask of postings whose documents may be reported against the query."""
        blocked = set()
        for entry in self._entries:
            if entry is None:
                continue
            if (
                entry.salt != salt
                or entry.role.template
                or entry.name == exclude
                or (role is not None and role.group is not None and entry.role.group == role.group)
                or (role is not None and role.reference and entry.role.reference)
            ):
                blocked.add(entry.id)
        if not blocked:
            return np.ones(doc.shape[0], dtype=bool)
        return ~np.isin(doc, np.fromiter(blocked, dtype=np.int64))

    def live_postings(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """All live postings as (key, document id, position), sorted by key, id, position."""
        self._merge()
        keys, at = self._base.keys, self._base.positions.astype(np.int64)
        starts, alive = self._id_arrays()
        doc = np.searchsorted(starts, at, side="right") - 1
        live = alive[doc]
        return keys[live], doc[live], at[live] - starts[doc[live]]

    # --- saving and loading ---------------------------------------------------------

    def export(self) -> dict:
        """The index as plain data (compacted first): entries, keys and positions."""
        self._compact()
        entries = []
        for entry in self._entries:
            assert entry is not None
            role = entry.role
            entries.append(
                [
                    entry.name,
                    entry.salt,
                    entry.units,
                    entry.start,
                    entry.postings,
                    [role.template, role.reference, role.group],
                    list(entry.stamp),
                ]
            )
        return {
            "entries": entries,
            "keys": self._base.keys,
            "positions": self._base.positions,
            "next_start": self._next_start,
        }

    @classmethod
    def restore(cls, data: dict) -> Index:
        """An index from :meth:`export`'s data; ValueError if it does not hold together."""
        index = cls()
        keys = np.asarray(data["keys"], dtype=np.uint32)
        positions = np.asarray(data["positions"], dtype=np.uint32)
        if keys.shape != positions.shape:
            raise ValueError("keys and positions differ in length")
        if keys.shape[0] > 1 and np.any(np.diff(keys.astype(np.int64)) < 0):
            raise ValueError("keys are not sorted")
        cursor = 0
        total = 0
        for doc_id, row in enumerate(data["entries"]):
            name, salt, units, start, postings, role, stamp = row
            if start != cursor or units < 0 or postings < 0 or name in index._by_name:
                raise ValueError(f"entry {doc_id} ({name!r}) is inconsistent")
            template, reference, group = role
            entry = Entry(
                str(name),
                doc_id,
                int(salt),
                int(units),
                int(start),
                int(postings),
                Role(bool(template), bool(reference), group),
                tuple(stamp),
            )
            index._entries.append(entry)
            index._by_name[entry.name] = doc_id
            index._starts.append(entry.start)
            index._alive.append(True)
            cursor += entry.units + 1
            total += entry.postings
        if total != keys.shape[0] or cursor != data["next_start"]:
            raise ValueError("postings do not add up to the entries")
        if keys.shape[0] and int(positions.max()) >= cursor:
            raise ValueError("a position lies outside every document")
        index._base = _Segment(keys, positions)
        index._next_start = cursor
        return index

    def name_of(self, doc_id: int) -> str:
        entry = self._entries[doc_id]
        assert entry is not None
        return entry.name
