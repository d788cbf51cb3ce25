"""The inverted index: keys to (document, position), kept current as documents change.

Three kinds of keys are indexed, each in its own table: fingerprints (winnowed
k-gram hashes: copied text), sentence keys (MinHash bands of sentences:
reworded text) and, for programs, lexicon keys (their literals and names). All
sit at unit positions, so they share one position space and one life cycle:
whatever happens to a document happens to all its keys at once.

Postings live in numpy arrays, never in dicts of lists. Each posting is 8
bytes: a 32-bit key (the top half of a 64-bit hash) and a 32-bit *global*
position (a document's units occupy a range of the global position space, so
the document is found from where its range starts: ``_Owners``). That keeps
the index small beside the text it indexes.

Changes go to a small *delta* segment; removals mark documents dead. The delta
is merged into a *middle* segment once it grows, and that into the sorted
*base* only once it holds a million postings; dead postings are dropped once
they are a quarter of all the postings held. So one edit costs milliseconds
while the index stays compact. Whatever the history of edits, every query
answers as an index built from scratch from the same documents would: the
answers depend only on the live postings, never on how they are stored.

The index keys are 32-bit, so two different hashes can share a key. The index
therefore only *selects* candidates (engine/candidates); passages are always
computed from the documents themselves.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

import numpy as np

from doublet.engine.document import DocumentKeys
from doublet.engine.keys_batch import KeysBatch
from doublet.engine.modes import Mode

#: The delta segment of a table is merged into its middle segment past this many postings.
MERGE_POSTINGS = 65536
#: Dead postings are dropped once they are this share of the postings held.
COMPACT_SHARE = 0.25
#: A saved index keeps its documents' positions unless more than this share of the
#: position space is no document's (removed ones'): then they are renumbered.
SPARSE_SHARE = 0.25
_POSITION_LIMIT = 2**32 - 1

#: The kinds of keys, one table each.
FINGERPRINTS = "fingerprints"
SENTENCES = "sentences"
LEXICON = "lexicon"
KINDS = (FINGERPRINTS, SENTENCES, LEXICON)
_KIND_AT = {kind: at for at, kind in enumerate(KINDS)}


def keys_of(hashes: np.ndarray) -> np.ndarray:
    """Index keys of 64-bit hashes: their top 32 bits."""
    return (hashes >> np.uint64(32)).astype(np.uint32)


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

    def may_pair(self, other: Role) -> bool:
        """Whether a document of this role may be reported against one of ``other``."""
        if self.template or other.template or (self.reference and other.reference):
            return False
        return self.group is None or self.group != other.group


_NO_ROLE = Role()


class Entry(NamedTuple):
    """What the index knows of one document (no text: hashes and positions only).

    Never changed once made (``_replace`` makes a new one), so a snapshot of the
    index may share them; a tuple, so that loading 100,000 of them is one pass in C
    (``Entry._make``) rather than a call per entry."""

    name: str
    id: int
    mode: Mode  # how it was cut up: documents of different modes never match
    units: int
    start: int  # global position of the document's unit 0
    postings: tuple[int, ...]  # postings per kind of key, in KINDS' order (postings_of)
    role: Role = _NO_ROLE
    stamp: bytes = b""  # the caller's record of the file version, packed (size, mtime, digest)

    @property
    def salt(self) -> int:
        return self.mode.salt

    def postings_of(self, kind: str) -> int:
        """The document's postings of one kind of key. (A tuple, not a dict by kind: the
        entries of 100,000 documents held 13 MB less.)"""
        return self.postings[_KIND_AT[kind]]


#: A document to add from a batch of keys (``Index.add_many``): its place in the batch,
#: name, mode, role and stamp.
Adding = tuple[int, str, Mode, Role | None, bytes]


class _Columns(NamedTuple):
    """A loaded index's documents, one sequence per field, by id."""

    names: list[str]
    modes: list[Mode]  # the modes; ``mode_of`` points into them
    mode_of: np.ndarray
    units: np.ndarray
    starts: np.ndarray
    postings: np.ndarray  # (documents, len(KINDS))
    templates: np.ndarray
    references: np.ndarray
    group_list: list[str | None]  # the groups' names, then None; ``group_of`` points in
    group_of: np.ndarray
    stamps: Sequence[bytes]

    def per_document(self) -> tuple:
        """The fields with a value per document (``modes`` and ``group_list`` are tables
        the others point into)."""
        return tuple(value for name, value in self._asdict().items() if name not in _TABLES)


#: The fields of _Columns that are not per document.
_TABLES = frozenset({"modes", "group_list"})


#: A slice of entries this long or shorter is made entry by entry, a longer one all at once.
_MAKE_ONE_BY_ONE = 1024
#: Entries made all at once are made this many at a time. Between slices the editor's
#: questions go first (``prepare_entries``' ``between``): a slice of 1,024 takes about
#: 3 ms, and an edit made right after the first answer waited for up to one of 4,096
#: (its p95 over seven alternating runs at 100,000 documents: 57 against 62 ms; all
#: entries made in 0.28 against 0.32–0.37 s).
_MAKE_SLICE = 1024


class _LoadedEntries:
    """The entries of a loaded index by id, each made the first time it is asked for.

    A query right after loading meets a few hundred of 100,000 documents, and making
    every entry took a fifth of a second of an editor's start; a pass over all of
    them makes the rest (:meth:`Index.prepare_entries`, on another thread, after
    the first answers). Entries appended or replaced since loading are held as they
    were given."""

    def __init__(self, columns: _Columns) -> None:
        self._columns = columns
        self._made: list[Entry | None] = [None] * len(columns.names)  # None: not made yet
        self._complete = not columns.names
        self._roles: dict[tuple[bool, bool, int], Role] = {}  # one object of each role
        #: Held while entries made all at once are put in, and while one is replaced:
        #: the making may run beside the index's holder (Index.prepare_entries), and must
        #: not put back an entry replaced meanwhile. (One entry made as it is asked for
        #: is put in without it: only the holder asks and replaces, one at a time.)
        self._filling = threading.Lock()

    def __len__(self) -> int:
        return len(self._made)

    def __getitem__(self, at):
        if isinstance(at, slice):
            ids = range(*at.indices(len(self._made)))
            if len(ids) > _MAKE_ONE_BY_ONE:
                self.make_all()
            return [self[doc_id] for doc_id in ids]
        entry = self._made[at]
        if entry is None:
            entry = self._made[at] = self._make(at if at >= 0 else at + len(self._made))
        return entry

    def __setitem__(self, at: int, entry: Entry) -> None:
        with self._filling:
            self._made[at] = entry

    def __iter__(self) -> Iterator[Entry | None]:
        self.make_all()
        return iter(self._made)

    def append(self, entry: Entry) -> None:
        self._made.append(entry)

    def copy(self) -> _LoadedEntries:
        twin = object.__new__(_LoadedEntries)
        twin._columns, twin._complete, twin._roles = self._columns, self._complete, self._roles
        twin._filling = threading.Lock()
        with self._filling:
            twin._made = self._made.copy()
        return twin

    def _role(self, template: bool, reference: bool, group: int) -> Role:
        key = (template, reference, group)
        role = self._roles.get(key)
        if role is None:
            group_name = self._columns.group_list[group]
            role = self._roles.setdefault(key, Role(template, reference, group_name))
        return role

    def _make(self, doc_id: int) -> Entry:
        c = self._columns
        return Entry(
            c.names[doc_id],
            doc_id,
            c.modes[int(c.mode_of[doc_id])],
            int(c.units[doc_id]),
            int(c.starts[doc_id]),
            tuple(c.postings[doc_id].tolist()),
            self._role(
                bool(c.templates[doc_id]), bool(c.references[doc_id]), int(c.group_of[doc_id])
            ),
            c.stamps[doc_id],
        )

    def make_all(self, between: Callable[[], None] | None = None) -> None:
        """Every entry not made yet, a slice of ids at a time (each field of a slice in
        one pass in C), calling ``between`` before each slice."""
        if self._complete:
            return
        count = len(self._columns.names)
        for lo in range(0, count, _MAKE_SLICE):
            if between is not None:
                between()
            fresh = self._made_from_columns(lo, min(count, lo + _MAKE_SLICE))
            with self._filling:
                made = self._made
                for doc_id, entry in enumerate(fresh, lo):
                    if made[doc_id] is None:
                        made[doc_id] = entry
        self._complete = True

    def _made_from_columns(self, lo: int, hi: int) -> list[Entry]:
        """The entries of ids ``lo`` to ``hi``, field by field."""
        c = self._columns
        role_ids = list(
            zip(
                c.templates[lo:hi].tolist(),
                c.references[lo:hi].tolist(),
                c.group_of[lo:hi].tolist(),
                strict=True,
            )
        )
        roles = {r: self._role(*r) for r in set(role_ids)}
        assert KINDS == (FINGERPRINTS, SENTENCES, LEXICON)  # the columns' order
        fields = (  # each of Entry's fields as a column
            c.names[lo:hi],
            range(lo, hi),
            [c.modes[m] for m in c.mode_of[lo:hi].tolist()],
            c.units[lo:hi].tolist(),
            c.starts[lo:hi].tolist(),
            list(map(tuple, c.postings[lo:hi].tolist())),
            [roles[r] for r in role_ids],
            c.stamps[lo:hi],
        )
        return list(map(Entry._make, zip(*fields, strict=True)))


#: A segment this long gets a directory of where each range of keys starts (below it,
#: a plain binary search stays in the processor's caches and is as quick).
DIRECTORY_FROM = 1 << 18
#: About this many postings per range of the directory ...
_PER_RANGE = 16
#: ... so that a key's run is found in a few steps; a longer range (one holding a
#: common key's long run) is searched the plain way.
_RANGE_STEPS = 6
#: Keys read at a time while the directory is made.
_DIRECTORY_SLICE = 1 << 20


@dataclass
class _Segment:
    """Postings sorted by (key, position). Never changed in place: replaced."""

    keys: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint32))
    positions: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint32))
    _directory: tuple[int, np.ndarray] | None = field(default=None, repr=False, compare=False)
    #: Held while the directory is made: a query that finds it held searches without
    #: one rather than wait for it, or make it a second time.
    _making: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def __len__(self) -> int:
        return int(self.keys.shape[0])

    @staticmethod
    def unpacked(packed: np.ndarray) -> _Segment:
        """The segment of sorted (key << 32 | position) integers (``packed``, an array of
        its own, given up), read as 32-bit halves: the keys copied out, the positions
        moved to the front of ``packed``'s memory, which is then cut to them. A scan's
        save sorts 15 million postings of a kind at once: a copy of the positions too
        was 61 MB more at its peak."""
        count = packed.shape[0]
        halves = packed.view(np.uint32)  # each posting's two halves side by side
        low, high = (0, 1) if sys.byteorder == "little" else (1, 0)
        keys = np.ascontiguousarray(halves[high::2])
        # position i moves from place 2i + low to place i: front to back, a slice at a
        # time, a slice's places are ones whose positions have moved already
        for lo in range(0, count, _UNPACK_SLICE):
            hi = min(lo + _UNPACK_SLICE, count)
            halves[lo:hi] = halves[2 * lo + low : 2 * hi + low : 2]
        del halves
        packed.resize((count + 1) // 2, refcheck=False)  # no view of it is left
        return _Segment(keys, packed.view(np.uint32)[:count])

    @staticmethod
    def of(parts: list[_Segment], between: Callable[[], None] | None = None) -> _Segment:
        """The postings of ``parts`` in one sorted segment. ``parts`` is emptied: each
        part is let go of once copied, and ``between`` (if given) is called every
        GIVE_BACK_EVERY postings copied, to give the memory freed back (a scan's save
        sorts 15 million postings of a kind: their parts and the whole at once were
        121 MB more at its peak)."""
        # one 64-bit array, filled part by part, then sorted: no other copy
        packed = np.empty(sum(len(part) for part in parts), dtype=np.uint64)
        parts.reverse()
        at = given_back = 0
        while parts:
            part = parts.pop()
            end = at + len(part)
            packed[at:end] = part.keys
            packed[at:end] <<= np.uint64(32)
            packed[at:end] |= part.positions
            at = end
            del part
            if between is not None and at - given_back >= GIVE_BACK_EVERY:
                between()
                given_back = at
        if between is not None:
            between()
        _sort_in_threads(packed)
        return _Segment.unpacked(packed)

    def runs(self, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Where the run of each of sorted ``wanted`` keys starts and ends.

        A binary search over millions of keys misses the caches at nearly every step;
        a directory of where each range of keys starts (by their top bits) leaves a
        few steps inside one range, all of ``wanted`` stepped at once.
        """
        made = self._ranges(wait=False) if len(self) >= DIRECTORY_FROM else None
        if made is None:
            return (
                np.searchsorted(self.keys, wanted, side="left"),
                np.searchsorted(self.keys, wanted, side="right"),
            )
        shift, directory = made
        ranges = (wanted >> np.uint32(shift)).astype(np.intp)
        first, stop = directory[ranges].astype(np.intp), directory[ranges + 1].astype(np.intp)
        long = np.flatnonzero(stop - first >= 1 << _RANGE_STEPS)
        return (
            self._search(wanted, first, stop, long, right=False),
            self._search(wanted, first, stop, long, right=True),
        )

    def _search(
        self, wanted: np.ndarray, lo: np.ndarray, hi: np.ndarray, long: np.ndarray, right: bool
    ) -> np.ndarray:
        """``searchsorted`` of ``wanted``, each known to lie in ``[lo, hi]``; those at
        ``long`` (longer ranges) searched over the whole segment.

        The steps halve a window of 2^_RANGE_STEPS from ``lo`` whatever the range's
        length: the keys are sorted throughout, so those past ``hi`` are all larger and
        never stepped over (four array operations a step, not eight)."""
        keys = self.keys
        before = lo - 1  # the last place known to hold a key below (or, if right, at most)
        for step in (1 << s for s in reversed(range(_RANGE_STEPS))):
            probe = before + step
            at = keys.take(probe, mode="clip")
            before = np.where((at <= wanted) if right else (at < wanted), probe, before)
        found = np.minimum(before + 1, hi)
        if long.shape[0]:
            found[long] = np.searchsorted(keys, wanted[long], side="right" if right else "left")
        return found

    def has_directory(self) -> bool:
        return self._directory is not None

    def prepare(self) -> None:
        """Make the directory now, if the segment is long enough to have one."""
        if len(self) >= DIRECTORY_FROM:
            self._ranges(wait=True)

    def _ranges(self, wait: bool) -> tuple[int, np.ndarray] | None:
        """(shift, where the keys with each value of ``key >> shift`` start), made once,
        a slice of keys at a time: no temporary array as long as the keys (the
        allocator would keep its memory). None if another thread is making it and
        ``wait`` is false."""
        if self._directory is not None:
            return self._directory
        if not self._making.acquire(blocking=wait):
            return None
        try:
            self._make_directory()
        finally:
            self._making.release()
        return self._directory

    def _make_directory(self) -> None:
        if self._directory is None:
            count = len(self)
            bits = int(np.clip(np.ceil(np.log2(max(count, 1) / _PER_RANGE)), 8, 28))
            shift = np.uint32(32 - bits)
            directory = np.empty((1 << bits) + 1, np.int64 if count >> 31 else np.int32)
            done = 0  # the ranges below this start before the slice
            for lo in range(0, count, _DIRECTORY_SLICE):
                top = self.keys[lo : lo + _DIRECTORY_SLICE] >> shift
                last = int(top[-1]) + 1  # every range up to top[-1] starts by this slice's end
                wanted = np.arange(done, last, dtype=np.uint32)
                directory[done:last] = np.searchsorted(top, wanted) + lo
                done = last
            directory[done:] = count
            self._directory = (int(shift), directory)


#: ... and the middle segment into the base past this many: merging into a base of
#: millions of postings takes tens of milliseconds, so an editor pays it only once
#: in a few hundred updates, not once in a dozen.
MIDDLE_POSTINGS = 16 * MERGE_POSTINGS


#: Postings copied between two calls of ``_Segment.of``'s ``between``.
GIVE_BACK_EVERY = 1 << 22

#: Positions moved at once by ``_Segment.unpacked``.
_UNPACK_SLICE = 1 << 20

#: Postings from which a sort is shared between threads.
THREADED_SORT_FROM = 1 << 20


def _sort_in_threads(values: np.ndarray) -> None:
    """Sort ``values`` in place, a slice per core at once (numpy sorts without holding
    the GIL), then merge the sorted slices (a stable sort finds them as runs). A scan
    saves its index by sorting every posting it made, while the other core is idle:
    13 million postings of the novels took 0.86 s in one thread, 0.52 s in two."""
    cores = min(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1, 4)
    if cores < 2 or values.shape[0] < THREADED_SORT_FROM:
        values.sort()
        return
    slices = np.array_split(values, cores)  # views: each is sorted where it lies
    threads = [threading.Thread(target=part.sort, name="doublet-sort") for part in slices[1:]]
    for thread in threads:
        thread.start()
    slices[0].sort()
    for thread in threads:
        thread.join()
    values.sort(kind="stable")


def _merged(older: _Segment, newer: _Segment) -> _Segment:
    """Two sorted segments as one, keeping (key, position) order: ``newer``'s positions
    are all larger (newer documents), so at equal keys they go after."""
    if not len(newer):
        return older
    if not len(older):  # a scan's first merge: nothing to insert into
        return newer
    where = np.searchsorted(older.keys, newer.keys, side="right")
    return _Segment(
        np.insert(older.keys, where, newer.keys), np.insert(older.positions, where, newer.positions)
    )


#: Postings read or converted at once from a base (``live_postings``, and a stored
#: base by ``_merged_from`` and ``_stored_runs``): a slice's temporaries (64-bit ids,
#: the runs of keys held by several) sit on top of what selecting holds, 2^21 of them
#: 60 MB at the sentence keys' peak of a 100,000-document scan (375 -> 313 MB).
_SLICE = 1 << 20


def _merged_from(
    stored: StoredPostings,
    newer: _Segment,
    dead: Sequence[tuple[int, int]] = (),
    size: int = _SLICE,
) -> _Segment:
    """:func:`_merged` of a stored base and ``newer``, less the postings at ``dead``,
    the base read ``size`` postings at a time into arrays made for the result: never
    held whole beside them. (After one edit, the save of a 100,000-document scan read
    each kind's base whole, merged a copy and dropped the dead into a third: 458 MB.)"""
    merge = _StreamedMerge(stored, newer, dead, size)
    keys = np.empty(len(merge), np.uint32)
    positions = np.empty(len(merge), np.uint32)
    at = 0
    for part in merge.parts():
        keys[at : at + len(part)], positions[at : at + len(part)] = part.keys, part.positions
        at += len(part)
    assert at == len(merge)  # as counted beforehand
    return _Segment(keys, positions)


@dataclass(frozen=True)
class StreamedArray:
    """An array that a save writes a piece at a time, never whole (``Index.export``
    with ``streamed``): one side of a stored base merged with newer postings."""

    dtype: np.dtype
    length: int
    pieces: Callable[[], Iterator[np.ndarray]]

    @property
    def shape(self) -> tuple[int]:
        return (self.length,)


class _StreamedMerge:
    """A stored base merged with ``newer`` postings, less those at ``dead``, made a
    slice of the base at a time each time it is read (:meth:`parts`): a batch save
    writes it so into the new file, and the index then reads it back from there. (After
    one edit at 100,000 documents, the merged postings held for writing were the save's
    highest point, 368 MB.)"""

    def __init__(
        self,
        stored: StoredPostings,
        newer: _Segment,
        dead: Sequence[tuple[int, int]] = (),
        size: int = _SLICE,
    ) -> None:
        self._stored, self._newer, self._dead, self._size = stored, newer, dead, size
        count = len(stored) + len(newer)
        if dead:  # counted beforehand: a file's head says how long each array is
            count -= int(np.count_nonzero(~_outside(newer.positions, dead)))
            for lo in range(0, len(stored), size):
                _, positions = stored.read(lo, min(lo + size, len(stored)))
                count -= int(np.count_nonzero(~_outside(positions, dead)))
        self._length = count

    def __len__(self) -> int:
        return self._length

    def parts(self) -> Iterator[_Segment]:
        """The merged postings in order, one slice of the base (with the newer postings
        of its keys) at a time."""
        stored, newer, dead = self._stored, self._newer, self._dead
        count = len(stored)
        taken = 0
        for lo in range(0, max(count, 1), self._size):
            hi = min(lo + self._size, count)
            older = _Segment(*stored.read(lo, hi)) if hi > lo else _Segment()
            # newer postings of the slice's last key go after the older ones of that key,
            # some of which may start the next slice
            upto = len(newer) if hi == count else int(np.searchsorted(newer.keys, older.keys[-1]))
            part = _merged(older, _Segment(newer.keys[taken:upto], newer.positions[taken:upto]))
            taken = upto
            if dead:
                keep = _outside(part.positions, dead)
                part = _Segment(part.keys[keep], part.positions[keep])
            yield part

    def arrays(self) -> dict[str, StreamedArray]:
        """Its keys and its positions, as a save writes them (each reads it all once)."""
        return {
            "keys": StreamedArray(
                np.dtype(np.uint32), len(self), lambda: (p.keys for p in self.parts())
            ),
            "positions": StreamedArray(
                np.dtype(np.uint32), len(self), lambda: (p.positions for p in self.parts())
            ),
        }


def _stored_runs(stored: StoredPostings, wanted: np.ndarray, size: int = _SLICE) -> _Runs:
    """The runs of sorted unique ``wanted`` keys in a stored base, found reading it
    ``size`` postings at a time: their postings copied into a segment of their own, in
    order (a run cut by a slice's end goes on at the next slice's start)."""
    counts = np.zeros(wanted.shape[0], np.int64)
    keys_found, positions_found = [], []
    count = len(stored)
    for lo in range(0, count, size):
        keys, positions = stored.read(lo, min(lo + size, count))
        first = np.searchsorted(keys, wanted, side="left")
        run = np.searchsorted(keys, wanted, side="right") - first
        total = int(run.sum())
        if total:
            place = np.arange(total) + np.repeat(first - (np.cumsum(run) - run), run)
            keys_found.append(keys[place])
            positions_found.append(positions[place])
            counts += run
    hi = np.cumsum(counts)
    if not keys_found:
        return _Runs(_Segment(), hi - counts, hi)
    found = _Segment(np.concatenate(keys_found), np.concatenate(positions_found))
    return _Runs(found, hi - counts, hi)


@dataclass(frozen=True)
class _Runs:
    """Where the runs of some keys start (``lo``) and end (``hi``) in one segment."""

    segment: _Segment
    lo: np.ndarray
    hi: np.ndarray

    def of(self, keys: np.ndarray) -> _Runs:
        """The runs of the keys at ``keys`` (indices) only."""
        return _Runs(self.segment, self.lo[keys], self.hi[keys])


def _taken(
    runs: list[_Runs], count: int, cap: int | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The postings in ``runs`` of ``count`` keys: (which key, global position), and which
    keys had more than ``cap`` in a segment. With a ``cap``, at most that many of a key
    per segment, spread evenly over its run (which is in document order, so that they
    show as many documents as they can)."""
    which_parts, global_parts = [], []
    cut = np.zeros(count, dtype=bool)
    for part in runs:
        lo, run = part.lo, part.hi - part.lo
        taken, over = run, None
        if cap is not None:
            over = np.flatnonzero(run > cap)
            cut[over] = True
            taken = np.minimum(run, cap)
        total = int(taken.sum())
        if not total:
            continue
        first = np.cumsum(taken) - taken  # where each key's postings begin among those taken
        place = np.arange(total) + np.repeat(lo - first, taken)  # the j-th of a run: lo + j
        if over is not None and over.shape[0]:  # of a longer run, the j-th of cap: j * run // cap
            j = np.arange(cap)
            picked = lo[over, None] + j * run[over, None] // cap
            place[(first[over, None] + j).ravel()] = picked.ravel()
        which_parts.append(np.repeat(np.arange(count), taken))
        global_parts.append(part.segment.positions[place])
    if not which_parts:
        nothing = np.zeros(0, dtype=np.int64)
        return nothing, nothing, cut
    return np.concatenate(which_parts), np.concatenate(global_parts).astype(np.int64), cut


#: Postings added and not sorted yet are copied into arrays of this many, filled in
#: turn: a scan adds 100,000 documents, and keeping each one's arrays (two objects
#: and a segment per document and kind) scattered 900,000 small objects through the
#: interpreter's memory, which then could not give back 190 MB of it.
PENDING_CHUNK = 1 << 18


class _Pending:
    """Postings in the order they were added, in arrays of PENDING_CHUNK each. A place
    is written once: a copy shares the full arrays and reads only what it holds."""

    def __init__(self, chunks: list[tuple[np.ndarray, np.ndarray]] | None = None, size: int = 0):
        self._chunks = chunks or []
        self._size = size

    def __len__(self) -> int:
        return self._size

    def copy(self) -> _Pending:
        """The same postings; the array being filled is copied (its next places are
        this one's to write)."""
        chunks = list(self._chunks)
        if self._size % PENDING_CHUNK:
            chunks[-1] = (chunks[-1][0].copy(), chunks[-1][1].copy())
        return _Pending(chunks, self._size)

    def append(self, keys: np.ndarray, positions: np.ndarray) -> None:
        done = 0
        while done < keys.shape[0]:
            at = self._size % PENDING_CHUNK
            if at == 0:
                self._chunks.append(
                    (np.empty(PENDING_CHUNK, np.uint32), np.empty(PENDING_CHUNK, np.uint32))
                )
            chunk_keys, chunk_positions = self._chunks[-1]
            taken = min(keys.shape[0] - done, PENDING_CHUNK - at)
            chunk_keys[at : at + taken] = keys[done : done + taken]
            chunk_positions[at : at + taken] = positions[done : done + taken]
            done += taken
            self._size += taken

    def taken(self) -> list[_Segment]:
        """All the postings as unsorted segments, given up: this holds none after."""
        parts = self.since(0)
        self._chunks, self._size = [], 0
        return parts

    def since(self, first: int) -> list[_Segment]:
        """The postings from the ``first``-th on, as unsorted segments (views)."""
        parts = []
        for number in range(first // PENDING_CHUNK, -(-self._size // PENDING_CHUNK)):
            lo = max(first - number * PENDING_CHUNK, 0)
            hi = min(self._size - number * PENDING_CHUNK, PENDING_CHUNK)
            chunk_keys, chunk_positions = self._chunks[number]
            parts.append(_Segment(chunk_keys[lo:hi], chunk_positions[lo:hi]))
        return parts


class StoredPostings(Protocol):
    """A sorted base segment kept elsewhere (a saved index file), read a part at a time."""

    def __len__(self) -> int: ...

    def read(self, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
        """Keys and positions of postings ``lo`` to ``hi`` (uint32 arrays of their own)."""
        ...


class _Table:
    """The postings of one kind of key: a sorted base, a middle segment of what was
    added lately, and what was added since (a log-structured merge in three levels).

    The base may be *stored* (:meth:`Index.keep_postings_in`): read a slice at a time
    by ``base_slices``, and read whole the first time anything else asks for it."""

    def __init__(self) -> None:
        self._base: _Segment | None = _Segment()
        self._stored: StoredPostings | None = None
        self._streamed = False  # whether the stored base is searched a slice at a time
        self._reading = threading.Lock()
        self._middle = _Segment()
        self._pending = _Pending()
        self._delta = _Segment()  # the first ``_sorted`` pending postings, sorted
        self._sorted = 0

    @property
    def base(self) -> _Segment:
        base = self._base
        if base is None:
            with self._reading:
                if self._base is None:
                    stored = self._stored
                    assert stored is not None
                    self._base, self._stored = _Segment(*stored.read(0, len(stored))), None
                base = self._base
        return base

    @base.setter
    def base(self, segment: _Segment) -> None:
        self._base, self._stored = segment, None

    def base_length(self) -> int:
        return len(self._stored) if self._base is None else len(self._base)  # type: ignore[arg-type]

    def base_slices(self, size: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """The base's keys and positions, ``size`` postings at a time, in order: views of
        the segment held, or parts read from where it is stored (never all at once)."""
        stored, base = self._stored, self._base
        total = self.base_length()
        for lo in range(0, total, size):
            hi = min(lo + size, total)
            if base is not None:
                yield base.keys[lo:hi], base.positions[lo:hi]
            else:
                yield stored.read(lo, hi)  # type: ignore[union-attr]

    def base_stored(self, stored: StoredPostings) -> None:
        """A new table's base, as ``stored`` holds it (a loaded index's, left in its file:
        read whole when first searched, for the questions that follow)."""
        assert not len(self)
        self._base, self._stored, self._streamed = None, stored, False

    def store(self, stored: StoredPostings) -> bool:
        """Let go of the base, which ``stored`` holds (the same postings); only when
        nothing is pending; whether let go. A batch command's: searched a slice at a
        time (a scan's selection again after a few changes asks for a few documents'
        keys, and reading each kind whole for them held 180 MB at 100,000 documents)."""
        if self.holds_pending() or len(stored) != self.base_length():
            return False
        self._base, self._stored, self._streamed = None, stored, True
        return True

    def has_directory(self) -> bool:
        return self._base is not None and self._base.has_directory()

    def is_stored(self) -> bool:
        """Whether the base is left where it is stored (not read into memory)."""
        return self._base is None

    def streamed_merge(self, dead: Sequence[tuple[int, int]]) -> _StreamedMerge:
        """The stored base merged with everything added since, less the postings at
        ``dead``, to be written without being held (this table's segments unchanged but
        the newer ones sorted together)."""
        assert self._stored is not None
        self._merge_delta()
        return _StreamedMerge(self._stored, self._middle, dead, _SLICE)

    def stored_as(self, stored: StoredPostings) -> None:
        """Hold, instead of everything, ``stored``: what :meth:`streamed_merge` gave,
        as written."""
        self._base, self._stored, self._streamed = None, stored, False
        self._middle, self._pending = _Segment(), _Pending()
        self._delta, self._sorted = _Segment(), 0

    def __len__(self) -> int:
        return self.base_length() + len(self._middle) + len(self._pending)

    def copy(self) -> _Table:
        """The same postings in a table of its own (segments' arrays are shared: they
        are replaced, never changed in place)."""
        table = _Table()
        table._base, table._stored, table._middle = self._base, self._stored, self._middle
        table._streamed = self._streamed
        table._pending = self._pending.copy()
        table._delta, table._sorted = self._delta, self._sorted
        return table

    def holds_pending(self) -> bool:
        """Whether any postings are not in the base segment yet."""
        return bool(len(self._pending) or len(self._delta) or len(self._middle))

    def add(self, keys: np.ndarray, positions: np.ndarray) -> None:
        if not keys.shape[0]:
            return
        self._pending.append(keys, positions)  # sorted with the rest, when needed

    def merge(
        self, between: Callable[[], None] | None = None, dead: Sequence[tuple[int, int]] = ()
    ) -> None:
        """Fold every segment into the base (``between``: see ``_Segment.of``), leaving
        out the postings at positions in ``dead`` (sorted ranges, apart). A stored base
        is read a slice at a time into the arrays made for the result, never whole."""
        if self._base is None and (self.holds_pending() or dead):
            self._merge_delta(between)
            with self._reading:  # nobody reads it whole meanwhile (see ``base``)
                stored = self._stored
                if stored is not None:
                    self._base, self._stored = _merged_from(stored, self._middle, dead), None
                    self._middle = _Segment()
                    return
        if self.holds_pending():  # else a stored base stays stored
            self._merge_delta(between)
            self.base = _merged(self.base, self._middle)
            self._middle = _Segment()
        if dead:
            keep = _outside(self.base.positions, dead)
            self.base = _Segment(self.base.keys[keep], self.base.positions[keep])

    def _merge_delta(self, between: Callable[[], None] | None = None) -> None:
        if self._sorted == 0:  # none sorted yet (a scan's first fold): each let go once copied
            pending, self._pending = self._pending, _Pending()
            delta = _Segment.of(pending.taken(), between)
        else:
            delta = self._delta_segment()
            self._pending = _Pending()  # freed before merging: as large as the delta
        self._middle = _merged(self._middle, delta)
        self._delta, self._sorted = _Segment(), 0

    def _delta_segment(self) -> _Segment:
        """The pending postings, sorted: those added since the last call are sorted on
        their own and merged in (an editor adds one document at a time)."""
        if self._sorted < len(self._pending):
            fresh = _Segment.of(self._pending.since(self._sorted))
            self._delta = _merged(self._delta, fresh)  # fresh positions are all larger
            self._sorted = len(self._pending)
        return self._delta

    def segments(self, base: bool = True) -> list[_Segment]:
        """The sorted segments to search, oldest first (without the base unless
        ``base``); segments grown large are merged first. A document's postings are all
        in one of them."""
        if len(self._pending) > MERGE_POSTINGS:
            self._merge_delta()
            if len(self._middle) > MIDDLE_POSTINGS:
                self.merge()
        newer = [self._middle, self._delta_segment()]
        return [self.base, *newer] if base else newer

    def prepare(self) -> None:
        """Make the directories of the long segments (see Index.prepare_lookups)."""
        for segment in (self.base, self._middle):
            segment.prepare()

    def lookup(self, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Postings of sorted unique ``wanted`` keys: (which wanted key, global position)."""
        which, at, _ = _taken(self.runs(wanted), wanted.shape[0], None)
        return which, at

    def runs(self, wanted: np.ndarray) -> list[_Runs]:
        """Where the run of each of sorted unique ``wanted`` keys lies in each segment
        that holds postings: found once, then taken in samples or whole (``_taken``).
        A base stored by a batch command is searched a slice at a time (see ``store``)."""
        newer = self.segments(base=False)  # first: it may merge into the base
        stored = self._stored if self._streamed else None
        if stored is not None and len(stored):
            found = [_stored_runs(stored, wanted)]
        else:
            base = self.base
            found = [_Runs(base, *base.runs(wanted))] if len(base) else []
        return found + [_Runs(segment, *segment.runs(wanted)) for segment in newer if len(segment)]

    def compact(self, keep: np.ndarray, shift: np.ndarray) -> None:
        """Keep the base postings of ``keep`` (merged first), moved by ``shift``."""
        positions = (self.base.positions[keep].astype(np.int64) + shift).astype(np.uint32)
        self.base = _Segment(self.base.keys[keep], positions)


def _outside(positions: np.ndarray, ranges: Sequence[tuple[int, int]]) -> np.ndarray:
    """Whether each position lies outside every ``[start, end)`` of ``ranges`` (sorted,
    apart): range by range for a few (an editor's save drops one or two), else by a
    binary search for the ranges' ends (a position is inside when an odd number of
    them lie at or below it)."""
    if len(ranges) <= 16:
        keep = np.ones(positions.shape[0], dtype=bool)
        for start, end in ranges:
            keep &= (positions < start) | (positions >= end)
        return keep
    edges = np.array(ranges, dtype=positions.dtype).ravel()  # no 64-bit copy of positions
    return np.searchsorted(edges, positions, side="right") % 2 == 0


class _Column:
    """A numpy array by document id that grows at its end in amortised constant time:
    an editor adds a document per edit, and rebuilding an array of 100,000 ids from a
    list took a fifth of each edit's time."""

    def __init__(self, dtype: type, values: np.ndarray | None = None) -> None:
        self._data = np.zeros(16, dtype=dtype) if values is None else values.astype(dtype)
        self._size = 0 if values is None else values.shape[0]

    def __len__(self) -> int:
        return self._size

    def append(self, value: int | bool) -> None:
        if self._size == self._data.shape[0]:
            grown = np.zeros(max(16, 2 * self._size), dtype=self._data.dtype)
            grown[: self._size] = self._data[: self._size]
            self._data = grown
        self._data[self._size] = value
        self._size += 1

    def __setitem__(self, at: int, value: int | bool) -> None:
        self._data[at] = value

    @property
    def array(self) -> np.ndarray:
        """The values (a view: it sees later changes of existing ids, not new ids)."""
        return self._data[: self._size]


class _Owners:
    """Which document holds a global position: a table of the document at the start of
    each block of positions, then a step or two forward, instead of a binary search
    per posting (the positions of a scan's postings number in the millions)."""

    #: Steps forward before the positions left fall back to a binary search.
    STEPS = 3

    def __init__(self, starts: np.ndarray, end: int) -> None:
        self._starts = starts
        self._next = np.r_[starts[1:], np.iinfo(np.int64).max]  # where each document ends
        blocks_wanted = max(1, end // (4 * max(1, starts.shape[0])))
        self._shift = int(blocks_wanted).bit_length() - 1  # about 4 blocks per document
        first = np.arange((end >> self._shift) + 1, dtype=np.int64) << self._shift
        # a block before the first document (its positions unused: a removed document's
        # once, in a saved index) starts at document 0, as every block does in the end
        self._table = np.maximum(np.searchsorted(starts, first, side="right") - 1, 0)
        self.built_for = starts.shape[0]  # documents when the blocks were sized

    @property
    def documents(self) -> int:
        return self._starts.shape[0]

    def extended(self, starts: np.ndarray, end: int) -> _Owners:
        """The table for ``starts``, which are these starts with more documents after
        them (the positions of the new ones come after every old one): only the blocks
        from the last document on are looked up again. Rebuilt whole when the
        documents have doubled, so that the blocks stay about four a document."""
        if starts.shape[0] >= 2 * max(self.built_for, 1):
            return _Owners(starts, end)
        old = self._starts.shape[0]
        first_block = int(self._starts[old - 1]) >> self._shift if old else 0
        blocks = np.arange(first_block, (end >> self._shift) + 1, dtype=np.int64)
        table = np.empty(blocks[-1] + 1, dtype=np.int64)
        table[:first_block] = self._table[:first_block]
        found = np.searchsorted(starts, blocks << self._shift, side="right") - 1
        table[first_block:] = np.maximum(found, 0)
        grown = object.__new__(_Owners)
        grown._starts = starts
        grown._next = np.r_[starts[1:], np.iinfo(np.int64).max]
        grown._shift = self._shift
        grown._table = table
        grown.built_for = self.built_for
        return grown

    def of(self, at: np.ndarray) -> np.ndarray:
        """The document id (an index into ``starts``) of each position in ``at``."""
        at = at.astype(np.int64, copy=False)
        doc = self._table[at >> self._shift]
        for _ in range(self.STEPS):
            beyond = at >= self._next[doc]
            if not beyond.any():
                return doc
            doc = doc + beyond
        rest = np.flatnonzero(at >= self._next[doc])
        doc[rest] = np.searchsorted(self._starts, at[rest], side="right") - 1
        return doc


class _Pairing:
    """Per document id, what decides whether it may be reported against a text (its
    mode's salt and its role, as :meth:`Role.may_pair` reads them), as arrays: a query
    tests every document it meets at once. Ids only grow between compactions, so the
    table is extended, not rebuilt, as documents are added."""

    def __init__(self) -> None:
        self.salts = _Column(np.uint64)
        self.templates = _Column(bool)
        self.references = _Column(bool)
        self.groups = _Column(np.int64)  # a code per group name; -1: none
        self.group_codes: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self.salts)

    @classmethod
    def of_columns(
        cls,
        salts: np.ndarray,
        templates: np.ndarray,
        references: np.ndarray,
        groups: np.ndarray,
        group_names: list[str],
    ) -> _Pairing:
        """The table of a loaded index, from its columns (``groups`` codes into
        ``group_names``, -1 none): made entry by entry, it took a tenth of a second of
        the first answer after loading 100,000 documents."""
        table = cls()
        table.salts = _Column(np.uint64, salts)
        table.templates = _Column(bool, templates)
        table.references = _Column(bool, references)
        table.groups = _Column(np.int64, groups)
        table.group_codes = {name: code for code, name in enumerate(group_names)}
        return table

    def extend(self, entries: Iterable[Entry | None]) -> None:
        for entry in entries:
            assert entry is not None
            role = entry.role
            self.salts.append(entry.mode.salt)
            self.templates.append(role.template)
            self.references.append(role.reference)
            group = (
                -1
                if role.group is None
                else self.group_codes.setdefault(role.group, len(self.group_codes))
            )
            self.groups.append(group)

    def arrays(self) -> tuple[np.ndarray, ...]:
        """(salts, templates, references, groups) by id, as arrays."""
        return self.salts.array, self.templates.array, self.references.array, self.groups.array

    def allowed(self, doc_ids: np.ndarray, salt: int, role: Role) -> np.ndarray:
        salts, templates, references, groups = self.arrays()
        if role.template:
            return np.zeros(doc_ids.shape[0], dtype=bool)
        ok = (salts[doc_ids] == np.uint64(salt)) & ~templates[doc_ids]
        if role.reference:
            ok &= ~references[doc_ids]
        if role.group is not None and role.group in self.group_codes:
            ok &= groups[doc_ids] != self.group_codes[role.group]
        return ok


class Index:
    """Documents' keys, searchable by key; add, update, remove and rename."""

    def __init__(self) -> None:
        # by id; None once compacted away
        self._entries: list[Entry | None] | _LoadedEntries = []
        self._by_name: dict[str, int] = {}
        self._starts = _Column(np.int64)  # by id, increasing
        self._alive = _Column(bool)
        self._next_start = 0
        self._tables = {kind: _Table() for kind in KINDS}
        self._dead_postings = 0
        self._owners: _Owners | None = None  # extended as documents are added
        self._templates: np.ndarray | None = None  # ids of live templates
        self._pairing: _Pairing | None = None  # made on the first query after a role changes
        #: Counts changes, so that a holder can tell whether anything changed since.
        self.generation = 0
        #: A name for the saved copy this index was last read from or written to (set
        #: by whoever saves it; None: never saved). Together with ``generation`` it says
        #: whether two indexes, in two runs, hold the same.
        self.saved_as: str | None = None

    # --- documents ------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._by_name)

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def names(self) -> list[str]:
        return sorted(self._by_name)

    def get(self, name: str) -> Entry | None:
        """The entry of ``name``, None if it is not indexed."""
        doc_id = self._by_name.get(name)
        return None if doc_id is None else self._entries[doc_id]

    def entry(self, name: str) -> Entry:
        entry = self._entries[self._by_name[name]]
        assert entry is not None
        return entry

    def entries(self) -> Iterator[Entry]:
        for name in self.names():
            yield self.entry(name)

    def entry_of(self, doc_id: int) -> Entry:
        """The entry of a document id as queries give them."""
        entry = self._entries[doc_id]
        assert entry is not None
        return entry

    def id_count(self) -> int:
        """One more than the largest document id (ids of removed documents included)."""
        return len(self._entries)

    def posting_count(self) -> int:
        """Postings held, of every kind (removed documents' included until dropped)."""
        return sum(len(table) for table in self._tables.values())

    def add(
        self,
        name: str,
        keys: DocumentKeys,
        mode: Mode,
        role: Role | None = None,
        stamp: bytes = b"",
    ) -> None:
        """Index a document under ``name``, replacing any document of that name."""
        self.add_many(KeysBatch.of([keys]), [(0, name, mode, role, stamp)])

    def add_many(self, batch: KeysBatch, documents: Sequence[Adding]) -> None:
        """Index documents of ``batch``, each as :meth:`add` would, in one go: an entry
        each, and each kind's postings appended at once (a refresh of 100,000 files
        spent 37 µs a document adding them one at a time)."""
        if not documents:
            return
        for _, name, *_ in documents:
            if name in self._by_name:
                self.remove(name)
        slots = np.fromiter((d[0] for d in documents), dtype=np.int64, count=len(documents))
        units = batch.units[slots]
        size = int(units.sum()) + len(documents)  # one position between documents
        if self._next_start + size > _POSITION_LIMIT:
            self._compact()
            if self._next_start + size > _POSITION_LIMIT:
                raise ValueError("index full: more than 4 billion units")
        self.generation += len(documents)
        starts = np.cumsum(units + 1) - (units + 1) + self._next_start
        self._next_start += size
        counts = batch.counts[slots]
        first_id = len(self._entries)
        for at, (_, name, mode, role, stamp), start, unit_count, postings in zip(
            range(len(documents)),
            documents,
            starts.tolist(),
            units.tolist(),
            counts.tolist(),
            strict=True,
        ):
            doc_id = first_id + at
            self._entries.append(
                Entry(
                    name, doc_id, mode, unit_count, start, tuple(postings), role or _NO_ROLE, stamp
                )
            )
            self._starts.append(start)
            self._alive.append(True)
            self._by_name[name] = doc_id
        self._templates = None
        for at, kind in enumerate(KINDS):
            hashes, positions = batch.of_kind(at, slots)
            placed = (positions + np.repeat(starts, counts[:, at])).astype(np.uint32)
            self._tables[kind].add(keys_of(hashes), placed)

    def remove(self, name: str) -> None:
        self.generation += 1
        doc_id = self._by_name.pop(name)
        entry = self._entries[doc_id]
        assert entry is not None
        self._alive[doc_id] = False
        self._dead_postings += sum(entry.postings)
        self._templates = None
        held = sum(len(t) for t in self._tables.values())
        if self._dead_postings > COMPACT_SHARE * max(held, MERGE_POSTINGS):
            self._compact()

    def rename(self, old: str, new: str) -> None:
        """Move a document to a new name (a file moved on disk); its postings stay."""
        if old == new:
            return
        self.generation += 1
        if new in self._by_name:
            self.remove(new)
        doc_id = self._by_name.pop(old)
        self._by_name[new] = doc_id
        entry = self._entries[doc_id]
        assert entry is not None
        self._entries[doc_id] = entry._replace(name=new)

    def set_role(self, name: str, role: Role) -> None:
        self.generation += 1
        self._replace(name, role=role)
        self._templates = None
        self._pairing = None

    def set_mode(self, name: str, mode: Mode) -> None:
        """Change thresholds that do not change the keys (the minimum length, say)."""
        self.generation += 1
        self._replace(name, mode=mode)
        self._pairing = None

    def set_stamp(self, name: str, stamp: bytes) -> None:
        self.generation += 1
        self._replace(name, stamp=stamp)

    def _replace(self, name: str, **changes: object) -> None:
        """An entry changed: a new object, never one changed in place, so that a
        snapshot may share the entries (Entry objects are not changed once made)."""
        doc_id = self._by_name[name]
        self._entries[doc_id] = self.entry(name)._replace(**changes)

    # --- storage --------------------------------------------------------------------

    def _compact(self) -> None:
        """Drop dead postings and renumber global positions densely."""
        if self._alive.array.all():  # nothing dead: positions are dense already
            for table in self._tables.values():
                table.merge()
            return
        starts, alive = self._id_arrays()
        live_ids = np.flatnonzero(alive).tolist()
        new_start = np.zeros(len(self._entries), dtype=np.int64)
        cursor = 0
        entries: list[Entry | None] = []
        for new_id, old_id in enumerate(live_ids):
            entry = self._entries[old_id]
            assert entry is not None
            new_start[old_id] = cursor
            entries.append(entry._replace(id=new_id, start=cursor))
            cursor += entry.units + 1
        for table in self._tables.values():
            table.merge()
            owner = self._owner_of(table.base.positions)
            keep = alive[owner]
            table.compact(keep, (new_start - starts)[owner[keep]])
        self._entries = entries
        self._by_name = {e.name: e.id for e in entries if e is not None}
        self._starts = _Column(np.int64, np.array([e.start for e in entries if e is not None]))
        self._alive = _Column(bool, np.ones(len(entries), dtype=bool))
        self._owners = None
        self._next_start = cursor
        self._dead_postings = 0
        self._templates = None
        self._pairing = None

    def _drop_dead(self, streamed: bool = False) -> dict[str, _StreamedMerge]:
        """Fold every segment into the base and drop removed documents' postings; the
        live ones keep their positions (compacted instead when most of the position
        space would be unused). With ``streamed``, a stored base is left as it is, and
        its fold given back, to be written (``export``)."""
        live, removed = self._live_and_removed()
        if self._sparse(live):
            self._compact()
            return {}
        return self._fold_and_drop(removed, streamed=streamed)

    def _sparse(self, live: list[Entry]) -> bool:
        """Whether most of the position space would be unused without the removed."""
        return sum(e.units + 1 for e in live) < (1 - SPARSE_SHARE) * self._next_start

    def _fold_and_drop(
        self,
        removed: list[Entry],
        between: Callable[[], None] | None = None,
        streamed: bool = False,
        stored_too: bool = True,
    ) -> dict[str, _StreamedMerge]:
        """Each kind's segments folded into its base, then its dead postings dropped,
        a kind at a time: each kind's old arrays are let go of before the next kind's
        are copied (``between``: see ``_Segment.of``). A stored base is, with
        ``streamed``, given back as its fold to be written (which leaves the dead in
        it); one with anything to fold, without ``stored_too``, left for later."""
        dead = sorted((e.start, e.start + e.units + 1) for e in removed)
        dropped = dead if self._dead_postings else []
        merges: dict[str, _StreamedMerge] = {}
        left = False
        for kind, table in self._tables.items():
            if table.is_stored() and streamed:  # written as read, if nothing else
                merges[kind] = table.streamed_merge(dropped)
                continue
            if table.is_stored() and (table.holds_pending() or dropped) and not stored_too:
                left = True
                continue
            table.merge(between, dropped)
        if not left:
            self._dead_postings = 0
        return merges

    def live_entries(self) -> list[Entry]:
        """Every document's entry, in id order (no sorting of names: for a pass over
        all of them)."""
        return self._live_and_removed()[0]

    def _live_and_removed(self) -> tuple[list[Entry], list[Entry]]:
        """The entries of live documents and of removed ones not yet compacted away."""
        live: list[Entry] = []
        removed: list[Entry] = []
        for entry, alive in zip(self._entries, self._alive.array.tolist(), strict=True):
            if entry is not None:
                (live if alive else removed).append(entry)
        return live, removed

    def _id_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """Each id's global start and whether it is alive, as arrays."""
        return self._starts.array, self._alive.array

    def _owner_of(self, at: np.ndarray) -> np.ndarray:
        """The document id holding each global position in ``at``."""
        starts = self._starts.array
        if self._owners is None:
            self._owners = _Owners(starts, self._next_start)
        elif self._owners.documents != starts.shape[0]:  # documents added since
            self._owners = self._owners.extended(starts, self._next_start)
        return self._owners.of(at)

    # --- queries --------------------------------------------------------------------

    def prepare_lookups(self) -> None:
        """Make the lookup directories of the long segments now, not in the first query
        (50 ms at 100,000 documents). Safe beside queries on another thread, which
        search without a directory while it is being made."""
        for table in list(self._tables.values()):
            table.prepare()

    def prepare_entries(self, between: Callable[[], None] | None = None) -> None:
        """Make every entry of a loaded index now (0.2 s at 100,000 documents), not in
        the first pass over all of them: each snapshot taken before (a save, a look
        for boilerplate) would make them again. ``between`` is called between slices
        of a few thousand (a holder lets its questions through first). Safe beside
        the index's holder on another thread: an entry replaced meanwhile stays as
        it was replaced."""
        entries = self._entries
        if isinstance(entries, _LoadedEntries):
            entries.make_all(between)

    def templates(self) -> np.ndarray:
        """Ids of the documents that are templates (kept until the index changes)."""
        if self._templates is None:
            _, templates, _, _ = self._pairing_table().arrays()
            _, alive = self._id_arrays()
            self._templates = np.flatnonzero(templates & alive).astype(np.int64)
        return self._templates

    def _pairing_table(self) -> _Pairing:
        """The pairing table, extended to every id."""
        if self._pairing is None:
            self._pairing = _Pairing()
        if len(self._pairing) < len(self._entries):
            self._pairing.extend(self._entries[len(self._pairing) :])
        return self._pairing

    def may_pair(self, doc_ids: np.ndarray, name: str, salt: int, role: Role) -> np.ndarray:
        """For each of ``doc_ids``, whether that document may be reported against a text
        named ``name``, of a mode salted ``salt``, in ``role`` (:meth:`Role.may_pair`; a
        document is never reported against itself)."""
        ok = self._pairing_table().allowed(doc_ids, salt, role)
        own = self._by_name.get(name)
        if own is not None:
            ok &= doc_ids != own
        return ok

    def rare_postings_of(
        self, kind: str, wanted: np.ndarray, limit: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The live postings of those sorted unique ``wanted`` keys that at most ``limit``
        documents hold, as ``postings_of`` gives them but in no particular order; and a
        mask of the keys more documents hold.

        Exact, but cheap for common keys: ``limit + 1`` postings of a key are fetched,
        spread over its run, and only if they do not already show more than ``limit``
        documents is it fetched whole.
        """
        runs = self._tables[kind].runs(wanted)
        which, at, cut = _taken(runs, wanted.shape[0], limit + 1)
        which, doc, at = self._live(which, at)
        documents = documents_per_key(which, doc, wanted.shape[0])
        again = np.flatnonzero(cut & (documents <= limit))  # not shown yet: fetch whole
        if again.shape[0]:
            keep = ~cut[which]  # the keys cut are either again or common (dropped)
            more_which, more_at, _ = _taken([r.of(again) for r in runs], again.shape[0], None)
            more_which, more_doc, more_at = self._live(more_which, more_at)
            which = np.concatenate([which[keep], again[more_which]])
            doc = np.concatenate([doc[keep], more_doc])
            at = np.concatenate([at[keep], more_at])
            documents[again] = documents_per_key(more_which, more_doc, again.shape[0])
        common = documents > limit
        rare = ~common[which]
        return which[rare], doc[rare], at[rare], common

    def _live(self, which: np.ndarray, at: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Postings at global positions as (which, doc id, position), dead ones left out."""
        if not which.shape[0]:
            return which, which, which
        starts, alive = self._id_arrays()
        doc = self._owner_of(at)
        live = alive[doc]
        return which[live], doc[live], at[live] - starts[doc[live]]

    def postings_of(
        self, kind: str, wanted: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Live postings of sorted unique ``wanted`` keys: (which wanted key, doc id, position).

        They come in runs of one key, each run in document order, and a document's
        postings all sit in one segment: so equal (key, document) postings are
        neighbours."""
        return self._live(*self._tables[kind].lookup(wanted))

    def live_slices(
        self, kind: str, one_in: int = 1, between: Callable[[], None] = lambda: None
    ) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """All live postings of a kind as (key, doc id, position) a slice at a time, in
        order: sorted by key, id, position. Keys and positions are uint32 (a document's
        units fit), ids int32; the 64-bit work is a slice's at a time.

        With ``one_in`` above 1, only those of keys divisible by it: keys are hashes,
        so that is a fair sample of the keys, for a cheap estimate. ``between`` is
        called between slices of the work (see ``candidates.boilerplate_shares``).
        """
        table = self._tables[kind]
        table.merge()
        starts, alive = self._id_arrays()
        for keys, at in table.base_slices(_SLICE):
            if one_in > 1:
                chosen = np.flatnonzero(keys % one_in == 0)
                keys, at = keys[chosen], at[chosen]
            where = at.astype(np.int64)
            doc = self._owner_of(where)
            live = alive[doc]
            doc = doc[live]
            yield (
                keys[live].astype(np.uint32, copy=False),
                doc.astype(np.int32),
                (where[live] - starts[doc]).astype(np.uint32),
            )
            between()

    def live_postings(
        self,
        kind: str,
        one_in: int = 1,
        between: Callable[[], None] = lambda: None,
        keep: Callable[[Iterator], Iterator] | None = None,
        with_keys: bool = True,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """All live postings of a kind as (key, doc id, position), sorted by key, id,
        position (:meth:`live_slices` joined); ``keep`` may leave some out, given the
        slices and giving them back filtered, in order. Without ``with_keys``, the keys
        are not kept (an empty array stands for them): a caller that saw each slice's
        keys as it went by may need only where each key's run starts.

        Each slice is written where it goes, into arrays as long as all the postings
        (not joined at the end: a second copy of all), which are cut to those kept:
        what was never written was never in memory."""
        table = self._tables[kind]
        table.merge()
        total = table.base_length()
        slices = self.live_slices(kind, one_in, between)
        if keep is not None:
            slices = keep(slices)
        found = (
            np.empty(total if with_keys else 0, np.uint32),
            np.empty(total, np.int32),
            np.empty(total, np.uint32),
        )
        filled = 0
        for part in slices:
            end = filled + part[0].shape[0]
            for array, values in zip(found, part, strict=True):
                if array.shape[0]:
                    array[filled:end] = values
            filled = end
        if filled < total:  # postings of removed documents, or not kept: given back
            for array in found:
                if array.shape[0]:
                    array.resize(filled, refcheck=False)
        return found

    # --- saving and loading ---------------------------------------------------------

    def snapshot(self) -> Index:
        """An index of its own holding what this one holds now, made in a fraction of
        the time an export takes (arrays and entries are shared): a holder exports
        the snapshot with its lock released, so an editor's questions are not kept
        waiting while 100,000 documents are compacted (seconds)."""
        copy = Index()
        copy._entries = self._entries.copy()  # entries are replaced, never changed in place
        copy._by_name = dict(self._by_name)
        copy._starts = _Column(np.int64, self._starts.array.copy())
        copy._alive = _Column(bool, self._alive.array.copy())
        copy._next_start = self._next_start
        copy._tables = {kind: table.copy() for kind, table in self._tables.items()}
        copy._dead_postings = self._dead_postings
        copy.generation = self.generation
        copy.saved_as = self.saved_as
        return copy

    def take_merged(self, exported: Index) -> bool:
        """Take the postings of a :meth:`snapshot` of this index that was exported since:
        exporting folded its segments into one and dropped the dead, which this index
        would otherwise do again when first asked for all its postings (a scan's
        selection, after saving: 3.5 s on 100,000 documents). Only if nothing changed
        here since, and the export kept the positions (did not compact), and only if
        nobody searches this index's segments by their lookup directories (an editor's:
        a new base would have its directories made again, at the next edit's cost);
        whether taken."""
        if exported.generation != self.generation or exported._next_start != self._next_start:
            return False
        if any(table.has_directory() for table in self._tables.values()):
            return False
        if any(table.holds_pending() for table in exported._tables.values()):
            return False  # not exported after all
        self._tables = {kind: table.copy() for kind, table in exported._tables.items()}
        self._dead_postings = exported._dead_postings
        return True

    def fold_pending(self, between: Callable[[], None] | None = None) -> None:
        """Sort the postings added since into each kind's base now, in place, and drop
        removed documents' postings. A batch command saves next, and a save's snapshot
        would share the old arrays until the save ends, beside their sorted copies
        without the dead (184 MB at 100,000 documents; the whole index after one edit);
        folded here, a kind at a time, each kind's old arrays are let go of as they are
        copied, and ``between`` is called meanwhile to give their memory back
        (``_Segment.of``). An editor's save does not: sorting 100,000 documents'
        postings holds the index for seconds. Nor an index to be compacted (its ids
        renumbered): its export does that, on the snapshot."""
        removed: list[Entry] = []
        if self._dead_postings:
            live, removed = self._live_and_removed()
            if self._sparse(live):
                return
        # a stored base is folded by the save itself, written as it is merged
        self._fold_and_drop(removed, between, stored_too=False)

    def keep_postings_in(self, stored: dict[str, StoredPostings]) -> bool:
        """Let go of every kind's postings, which ``stored`` holds, the same (a saved copy):
        a batch scan, once it has saved the index, reads them again a slice at a time to
        select its candidates, and needs them for nothing else, so they need not take
        their room (174 MB at 100,000 documents) beside what selecting holds. Anything
        else that asks for them reads them whole. Only if every kind is stored and none
        has postings pending; whether let go."""
        tables = self._tables
        if set(stored) != set(tables) or any(t.holds_pending() for t in tables.values()):
            return False
        if any(len(stored[kind]) != table.base_length() for kind, table in tables.items()):
            return False
        for kind, table in tables.items():
            table.store(stored[kind])
        return True

    def export(self, streamed: bool = False) -> dict:
        """The index as plain data: modes, the live documents as columns (one array per
        field: a hundred thousand documents load in a fraction of a second), each with
        the global position where it starts, and each kind's keys and positions.

        Removed documents' postings are left out, but the others keep their positions:
        renumbering them all (what compacting does) took 4 of the 5 seconds of saving
        100,000 documents after one edit, and an editor saves after every pause.
        Only past SPARSE_SHARE of the position space unused is the index compacted.

        With ``streamed``, a kind whose base is stored is given as StreamedArray keys and
        positions, merged with anything newer as they are written (never read whole);
        the index then holds them as written once told where (:meth:`settle_streamed`)."""
        merges = self._drop_dead(streamed)
        modes: list[dict] = []
        mode_ids: dict[Mode, int] = {}
        groups: dict[str, int] = {}
        entries, _ = self._live_and_removed()
        for entry in entries:
            if entry.mode not in mode_ids:
                mode_ids[entry.mode] = len(modes)
                modes.append(entry.mode.as_data())
            if entry.role.group is not None and entry.role.group not in groups:
                groups[entry.role.group] = len(groups)
        n = len(entries)
        documents = {
            "names": [e.name for e in entries],
            "modes": np.fromiter((mode_ids[e.mode] for e in entries), np.uint32, n),
            "units": np.fromiter((e.units for e in entries), np.int64, n),
            "starts": np.fromiter((e.start for e in entries), np.int64, n),
            "postings": np.column_stack(  # a column per kind: no list per entry
                [
                    np.fromiter((e.postings[at] for e in entries), np.int64, n)
                    for at in _KIND_AT.values()
                ]
            ).reshape(n, len(KINDS)),
            "templates": np.fromiter((e.role.template for e in entries), bool, n),
            "references": np.fromiter((e.role.reference for e in entries), bool, n),
            "group_names": list(groups),
            "groups": np.fromiter(
                (-1 if e.role.group is None else groups[e.role.group] for e in entries),
                np.int64,
                n,
            ),
            "stamps": [e.stamp for e in entries],
        }
        data: dict = {"modes": modes, "documents": documents, "next_start": self._next_start}
        for kind, table in self._tables.items():
            if kind in merges:
                data[kind] = merges[kind].arrays()
            else:
                data[kind] = {"keys": table.base.keys, "positions": table.base.positions}
        return data

    def settle_streamed(self, written: dict[str, StoredPostings]) -> None:
        """After a streamed :meth:`export` was written: each kind given back as its fold
        now holds the postings where ``written`` says they are (the same, in order)."""
        for kind, stored in written.items():
            table = self._tables[kind]
            table.stored_as(stored)

    @classmethod
    def restore(cls, data: dict) -> Index:
        """An index from :meth:`export`'s data; ValueError if it does not hold together."""
        index = cls()
        modes = [Mode.from_data(m) for m in data["modes"]]
        tables: dict[str, _Segment | StoredPostings] = {}
        for kind in KINDS:
            if "stored" in data[kind]:  # left in a file, checked by whoever read past it
                tables[kind] = data[kind]["stored"]
                continue
            keys = np.asarray(data[kind]["keys"], dtype=np.uint32)
            positions = np.asarray(data[kind]["positions"], dtype=np.uint32)
            if keys.shape != positions.shape:
                raise ValueError(f"{kind}: keys and positions differ in length")
            if keys.shape[0] > 1 and np.any(keys[1:] < keys[:-1]):
                raise ValueError(f"{kind}: keys are not sorted")
            tables[kind] = _Segment(keys, positions)
        columns = data["documents"]
        names = list(columns["names"])
        n = len(names)
        mode_of = np.asarray(columns["modes"], dtype=np.int64)
        units = np.asarray(columns["units"], dtype=np.int64)
        starts = np.asarray(columns["starts"], dtype=np.int64)
        postings = np.asarray(columns["postings"], dtype=np.int64).reshape(-1, len(KINDS))
        templates = np.asarray(columns["templates"], dtype=bool)
        references = np.asarray(columns["references"], dtype=bool)
        group_names = [str(g) for g in columns["group_names"]]
        group_of = np.asarray(columns["groups"], dtype=np.int64)
        stamps = columns["stamps"]  # a list of bytes, or a sequence cutting them (index_store)
        if isinstance(stamps, list) and not all(type(stamp) is bytes for stamp in stamps):
            raise ValueError("a stamp is not bytes")
        loaded = _Columns(
            names,
            modes,
            mode_of,
            units,
            starts,
            postings,
            templates,
            references,
            [*group_names, None],
            group_of,
            stamps,
        )
        if any(len(column) != n for column in loaded.per_document()):
            raise ValueError("the documents' columns differ in length")
        if n and (
            mode_of.min() < 0
            or mode_of.max() >= len(modes)
            or units.min() < 0
            or postings.min() < 0
            or group_of.min() < -1
            or group_of.max() >= len(group_names)
        ):
            raise ValueError("a document's mode, units, postings or group is out of range")
        cursor = int(data["next_start"])
        ends = starts + units + 1  # where the next document may start, at the earliest
        if n and (starts[0] < 0 or np.any(starts[1:] < ends[:-1]) or ends[-1] > cursor):
            raise ValueError("documents overlap or lie outside the position space")
        index._entries = _LoadedEntries(loaded)
        index._by_name = {name: doc_id for doc_id, name in enumerate(names)}
        if len(index._by_name) != n:
            raise ValueError("a document is named twice")
        salts = np.array([mode.salt for mode in modes], dtype=np.uint64)
        index._pairing = _Pairing.of_columns(
            salts[mode_of], templates, references, group_of, group_names
        )
        index._starts = _Column(np.int64, starts)
        index._alive = _Column(bool, np.ones(n, dtype=bool))
        totals = postings.sum(axis=0) if n else np.zeros(len(KINDS), dtype=np.int64)
        for (kind, segment), total in zip(tables.items(), totals.tolist(), strict=True):
            if total != len(segment):
                raise ValueError(f"{kind}: postings do not add up to the entries")
            if not isinstance(segment, _Segment):
                index._tables[kind].base_stored(segment)
                continue
            if len(segment) and int(segment.positions.max()) >= cursor:
                raise ValueError(f"{kind}: a position lies outside every document")
            index._tables[kind].base = segment
        index._next_start = cursor
        return index


def documents_per_key(which: np.ndarray, doc: np.ndarray, keys: int) -> np.ndarray:
    """How many documents hold each key, from postings in runs of one key whose
    documents ascend (as lookups give them, one segment after the other: a
    document's postings are all in one segment)."""
    new_doc = np.ones(which.shape[0], dtype=bool)
    new_doc[1:] = (which[1:] != which[:-1]) | (doc[1:] != doc[:-1])
    return np.bincount(which[new_doc], minlength=keys)
