"""Work spread over the machine's cores: reading files, and aligning a scan's pairs.

Both are many small independent jobs whose inputs are files on disk, so worker
processes read the files themselves and send back only what the index or the
report needs. Aligning: the engine aligns candidates one after the other
(engine/matching ``align_candidates``); a scan of a big folder has tens of
thousands of them, a few milliseconds each. ``parallel_aligner`` hands chunks
of them to workers; each pair comes back as a report shows it (doublet/scanned:
names, passages with their lines, figures), so no document is read again here.
Results are the same as in one process: each pair is aligned the same way
wherever it runs.

The workers are this machine's processes, or those of a cluster the caller
names with :func:`running_on` (doublet/cluster: Dask): the same jobs, the same
results.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import logging
import multiprocessing
import os
import signal
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

import numpy as np

from doublet import heap
from doublet.engine.candidates import Candidate, all_candidates
from doublet.engine.document import Document, prepare_together
from doublet.engine.index import Index
from doublet.engine.matching import Progress, Settings, align_each
from doublet.engine.modes import Mode
from doublet.scanned import Packed, PackedPair, ScannedPair, pack, scanned
from doublet.sources import read_bytes, read_document

#: At most this many worker processes.
MAX_WORKERS = 8
#: Below this many candidate pairs, a scan aligns them in its own process.
PARALLEL_PAIRS = 256
#: Characters of text a worker keeps while aligning its chunk, with what is
#: derived from it (sentences, fingerprints); units only for the last few
#: documents, as the workspace does.
_WORKER_CHARS = 16_000_000
_WORKER_UNITS = 64
#: Documents read and cut into sentences together: at most this many, ...
_BATCH_FILES = 256
#: ... of at most this many characters (unless one is longer).
_BATCH_CHARS = 1_000_000

log = logging.getLogger(__name__)


#: How a cluster selects a folder's candidates (index, boilerplate limit -> candidates,
#: fingerprint keys to ignore), if it does.
Selector = Callable[[Index, int], tuple[list[Candidate], np.ndarray]]

#: The cluster work goes to instead of this machine's processes, with its worker count
#: and its way of selecting candidates.
_cluster: ContextVar[tuple[Executor, int, Selector | None] | None] = ContextVar(
    "cluster", default=None
)


@contextmanager
def running_on(executor: Executor, count: int, select: Selector | None = None) -> Iterator[None]:
    """Send the work of this context to ``executor`` (a cluster's, with ``count`` workers)
    instead of this machine's processes, however little there is; and the selection
    of a scan's candidates to ``select``, if given."""
    token = _cluster.set((executor, count, select))
    try:
        yield
    finally:
        _cluster.reset(token)


def select_candidates(
    index: Index, max_docs: int, threaded: bool = False
) -> tuple[list[Candidate], np.ndarray]:
    """A folder's candidate pairs (engine/candidates ``all_candidates``): on the cluster
    when there is one that selects them (doublet/cluster), else here (its parts on
    every core if ``threaded``: :func:`threaded_parts`)."""
    cluster = _cluster.get()
    if cluster is not None and cluster[2] is not None:
        return cluster[2](index, max_docs)
    with threaded_parts(threaded) as (each, times):
        return all_candidates(index, max_docs, each=each, parts_times=times)


#: How a selection makes its parts of pairs: a map over the parts' numbers, and how
#: many times as many parts as one at a time needs.
PartMap = tuple[Callable[[Callable[[int], Any], Iterable[int]], Iterable[Any]], int]


@contextmanager
def threaded_parts(wanted: bool) -> Iterator[PartMap]:
    """A candidate selection's parts of pairs (engine/candidates) made by a thread per
    core when ``wanted`` and there are several, else one after another; the parts are
    as many times more, and smaller, so that those in hand at once take the memory
    one took. Threads, not processes: most of a part's work is numpy's sorting and
    indexing, which lets the other threads run, and the postings are shared, not
    copied (on two cores, 100,000 documents: 16.5 -> 12.2 s at the same peak;
    24,150: 4.4-5.0 -> 3.7-4.4 s)."""
    count = min(os.cpu_count() or 1, MAX_WORKERS)
    if not wanted or count < 2:
        yield map, 1
        return
    with ThreadPoolExecutor(count, thread_name_prefix="doublet-parts") as pool:
        yield pool.map, count


def on_cluster() -> bool:
    """Whether the work goes to a cluster (which the caller asked for: use it always)."""
    return _cluster.get() is not None


def workers() -> int:
    cluster = _cluster.get()
    if cluster is not None:
        return cluster[1]
    return min(os.cpu_count() or 1, MAX_WORKERS)


class _Borrowed(Executor):
    """A cluster's executor for one ``with`` block: leaving it does not shut the cluster."""

    def __init__(self, executor: Executor):
        self.executor = executor

    def submit(self, fn, /, *args, **kwargs):
        return self.executor.submit(fn, *args, **kwargs)

    def map(self, fn, *iterables, timeout=None, chunksize=1):
        return self.executor.map(fn, *iterables, timeout=timeout)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        pass


def process_pool(count: int, afresh: bool = False) -> Executor:
    """A pool of ``count`` worker processes, started safely for this process (or the
    cluster's workers, within :func:`running_on`).

    Forking copies every lock held by other threads (a language server's
    thread reading stdin, say) into the child, where nobody releases it; so
    fork only a process that has no other thread, else start workers afresh.
    ``afresh`` starts them afresh anyway: a forked child allocates in the free
    room of its parent's heap, which the parent had given back to the system and
    which the child then holds (the aligners of a 100,000-document scan, forked
    from a parent of 165 MB, grew to 390 MB each; started afresh, 234-281 MB).
    """
    cluster = _cluster.get()
    if cluster is not None:
        return _Borrowed(cluster[0])
    methods = multiprocessing.get_all_start_methods()
    if threading.active_count() == 1 and "fork" in methods and not afresh:
        context = multiprocessing.get_context("fork")
    elif "forkserver" in methods:
        context = multiprocessing.get_context("forkserver")
        # the server imports the workers' code once; each worker is forked from it
        context.set_forkserver_preload([__name__])
    else:
        context = multiprocessing.get_context("spawn")
    return ProcessPoolExecutor(
        count,
        mp_context=context,
        initializer=_start_worker,
        initargs=(_background.get(), heap.keeping_freed_arrays()),
    )


#: Whether work started in this context is background work (a language server's
#: indexing), whose worker processes leave the cores to the editor's requests first.
_background: ContextVar[bool] = ContextVar("background", default=False)
#: How much lower the priority of background workers is (``nice``: 0 to 19).
BACKGROUND_NICENESS = 10


@contextmanager
def in_background() -> Iterator[None]:
    """Start the worker processes of this context at a lower priority: a language
    server indexing 24,000 documents at start-up kept its answers to the edits made
    meanwhile waiting for a core."""
    token = _background.set(True)
    try:
        yield
    finally:
        _background.reset(token)


def _start_worker(background: bool = False, keep_freed_arrays: bool = False) -> None:
    """A worker collects cycles as usual even if forked while its parent had the
    collector held off (heap.collections_paused), serves its arrays as its parent does
    (one started afresh does not inherit it), yields to its parent's process when it
    does background work, and dies with its parent."""
    gc.enable()
    if keep_freed_arrays:
        heap.keep_freed_arrays()
    if background:
        with contextlib.suppress(OSError, AttributeError):  # not on every platform
            os.nice(BACKGROUND_NICENESS)
    _die_with_parent()


def _die_with_parent() -> None:
    """In a worker: end when the process that started it ends, even by ``kill -9`` (else
    workers waiting for work it will never send stay forever). Linux only; elsewhere
    the pool's own shutdown is all there is."""
    if sys.platform != "linux":
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() == 1:  # the parent is already gone
        os._exit(1)


_PR_SET_PDEATHSIG = 1  # linux/prctl.h


class Sized:
    """An iterable with a known length (for progress bars over generators)."""

    def __init__(self, items: Iterable, length: int):
        self.items = items
        self.length = length

    def __len__(self) -> int:
        return self.length

    def __iter__(self) -> Iterator:
        return iter(self.items)


#: What the index says of a document a worker reads: its mode and how many units it has.
Known = tuple[Mode, int]


#: Aligns a scan's candidates: (candidates, load, ignored keys, settings, progress) ->
#: each candidate's outcome, in order (None: a document it could not read any more;
#: packed, if aligned by another process).
ScanAligner = Callable[
    [list[Candidate], Callable[[str], Document], np.ndarray, Settings, Progress | None],
    list[ScannedPair | PackedPair | None],
]


def align_here(
    candidates: list[Candidate],
    load: Callable[[str], Document],
    ignored: np.ndarray,
    settings: Settings,
    progress: Progress | None = None,
) -> list[ScannedPair | None]:
    """A scan's candidates aligned in this process, each kept as ``scanned`` makes it."""
    return [
        None if result is None else scanned(result)
        for result in align_each(candidates, load, ignored, settings, progress)
    ]


def parallel_aligner(root: Path, known: Mapping[str, Known]) -> ScanAligner:
    """An aligner for a folder's files (``known``: each document's mode and unit count,
    by root-relative name) that spreads big scans over worker processes."""

    def align(
        candidates: list[Candidate],
        load: Callable[[str], Document],
        ignored: np.ndarray,
        settings: Settings,
        progress: Progress | None = None,
    ) -> list[ScannedPair | PackedPair | None]:
        count = workers()
        few = len(candidates) < PARALLEL_PAIRS or count < 2
        if not candidates or (few and not on_cluster()):
            return align_here(candidates, load, ignored, settings, progress)
        order = neighbourhood_order(candidates)
        ordered = [candidates[i] for i in order]
        size = -(-len(ordered) // (2 * count))
        chunks = [ordered[i : i + size] for i in range(0, len(ordered), size)]
        jobs = [(root, _known_of(chunk, known), chunk, ignored, settings) for chunk in chunks]
        del ordered, chunks
        aligned: list[Packed | None] = []
        with process_pool(count, afresh=True) as pool:
            done = Sized(pool.map(_align_chunk, jobs), len(jobs))
            for found in progress(done) if progress else done:
                aligned.extend(found)
        results: list[ScannedPair | PackedPair | None] = [None] * len(candidates)
        for at, packed in zip(order, aligned, strict=True):
            if packed is not None:
                results[at] = PackedPair(candidates[at].a, candidates[at].b, packed)
        return results

    return align


def neighbourhood_order(candidates: Sequence[Candidate]) -> list[int]:
    """The candidates' places in an order where pairs of the same documents come near
    each other: the documents numbered breadth first over the pairs, each pair placed
    at its first document. A chunk of a scan's pairs, dealt to a worker, then needs
    fewer documents that other chunks read and cut up too (100,000 documents, 102,000
    candidates in four chunks: 46,500 documents read instead of 54,500 in name order)."""
    neighbours: dict[str, list[str]] = {}
    for candidate in candidates:
        neighbours.setdefault(candidate.a, []).append(candidate.b)
        neighbours.setdefault(candidate.b, []).append(candidate.a)
    number: dict[str, int] = {}
    for start in neighbours:
        if start in number:
            continue
        number[start] = len(number)
        queue = [start]
        for name in queue:  # grows as it is walked: breadth first
            for other in neighbours[name]:
                if other not in number:
                    number[other] = len(number)
                    queue.append(other)
    first = [min(number[c.a], number[c.b]) for c in candidates]
    return sorted(range(len(candidates)), key=first.__getitem__)


def _known_of(chunk: list[Candidate], known: Mapping[str, Known]) -> dict[str, Known]:
    return {name: known[name] for candidate in chunk for name in (candidate.a, candidate.b)}


def _align_chunk(job: tuple) -> list[Packed | None]:
    """Align a chunk of candidates in a worker, reading the files under ``root``; each
    outcome packed (doublet/scanned): sent back and held so until reported."""
    root, known, chunk, ignored, settings = job
    documents = _ChunkDocuments(root, known, [name for c in chunk for name in (c.a, c.b)])
    aligned = align_here(chunk, documents.load, ignored, settings)
    return [None if pair is None else pack(pair) for pair in aligned]


class _ChunkDocuments:
    """The documents a worker aligns, read a batch at a time in the order they are
    needed and cut into sentences together (engine/joined); each let go of once asked
    for the last time, at most _WORKER_CHARS characters of text kept, and units only
    for the last _WORKER_UNITS.

    ``needed`` is the order in which the documents are asked for (each pair's two, in
    turn): with the pairs in neighbourhood order, what a worker holds is then the few
    documents still to come, not all it has read (at 100,000 documents, a chunk's
    16,000 documents were all held until its end, 270 MB an aligner)."""

    def __init__(self, root: Path, known: Mapping[str, Known], needed: list[str]) -> None:
        self.root = root
        self.known = known
        self.order = list(dict.fromkeys(needed))
        self.place = {name: i for i, name in enumerate(self.order)}
        self.cache: OrderedDict[str, Document] = OrderedDict()
        self.recent: OrderedDict[str, Document] = OrderedDict()
        self.chars = 0
        self.first_unread = 0  # documents before it in ``order`` were read once already
        last = {name: at for at, name in enumerate(needed)}
        self.last_asked = sorted((at, name) for name, at in last.items())
        self.done = 0  # documents of ``last_asked`` let go of (asked for the last time)
        self.asked = 0  # how many times a document was asked for

    def load(self, rel: str) -> Document:
        document = self.cache.get(rel)
        if document is None:
            document = self._read_from(rel)
        self.cache.move_to_end(rel)
        self.recent[rel] = document
        self.recent.move_to_end(rel)
        while len(self.recent) > _WORKER_UNITS:
            self.recent.popitem(last=False)[1].drop_units()
        self.asked += 1
        self._let_go_of_done()
        return document

    def _let_go_of_done(self) -> None:
        """Drop the documents asked for the last time (were they ever asked for in
        another order than ``needed``, one dropped too soon would be read again)."""
        ending = self.last_asked
        while self.done < len(ending) and ending[self.done][0] < self.asked:
            dropped = self.cache.pop(ending[self.done][1], None)
            if dropped is not None:
                self.chars -= len(dropped.text)
            self.done += 1

    def _read_from(self, rel: str) -> Document:
        """Read ``rel`` and, the first time it is needed, the documents needed for the
        first time next, up to a batch (one read again after it was dropped from the
        cache comes alone: reading ahead then would drop others still needed)."""
        batch = [self._read(rel)]
        at = self.place.get(rel, -1)
        if at >= self.first_unread:
            chars = len(batch[0].text)
            self.first_unread = at + 1
            while (
                self.first_unread < len(self.order)
                and len(batch) < _BATCH_FILES
                and chars < _BATCH_CHARS
            ):
                batch.append(self._read(self.order[self.first_unread]))
                chars += len(batch[-1].text)
                self.first_unread += 1
        prepare_together(batch)
        for document in batch:
            self.cache[document.name] = document
            self.chars += len(document.text)
        while self.chars > _WORKER_CHARS and len(self.cache) > len(batch):
            self.chars -= len(self.cache.popitem(last=False)[1].text)
        return batch[0]

    def _read(self, rel: str) -> Document:
        path = self.root / rel
        mode, units = self.known[rel]
        document = Document(rel, read_document(path, read_bytes(path, rel)), mode)
        document.assume_unit_count(units)  # no need to cut it up unless a passage is found
        return document
