"""How the C heap serves numpy's arrays: kept for reuse while a step works, given
back to the system between steps.

Within a step, numpy makes and drops temporaries of megabytes at every call.
glibc serves blocks that large with fresh pages from the system (mmap) and
returns them when freed, so every array is faulted in page by page again:
keying 2,391 novel pieces took 800,000 page faults and 2.3 s of system time,
and cutting twelve of them into sentences together was slower than one by one.
:func:`keep_freed_arrays` has such blocks served from the heap and kept there
(110,000 faults, 0.9 s; no higher peak). The batch commands ask for it; the
language server does not: its questions are small, and kept blocks left it
holding 240 MB after a bench's edits on those pieces instead of 206.

Some steps are better served the other way (:func:`freed_arrays_given_back`):
a scan's selection holds many arrays of megabytes at once, made and freed by two
threads in no order, and the report made from its pairs builds texts of tens of
megabytes. Served from the heap and kept there when freed, the room each leaves
is reused only by smaller ones, and the heap grows past what is live. Selecting
100,000 documents' candidates peaked at 416 MB with every block kept, 386 MB
with blocks of 4 MB and more mapped afresh (13.5 against 12.0-12.4 s: their
pages faulted in again), 370 MB from 256 KB up (15.2 s), 410 MB from 16 MB up.

Between steps the opposite holds: a scan's steps each build and drop hundreds of
megabytes of arrays and small objects (keying, then the candidates' parts).
glibc's allocator keeps what is freed inside its heap for later use, and a heap
with a few live blocks near its top cannot shrink: the process stays at its
high-water mark. Worker processes forked then share those dead pages too, and
each page they touch is copied. On the 100,000-document folder the scan's
processes held 1.9 GB together while aligning; given back (:func:`give_back`)
before the workers start, 1.1–1.5 GB. Within a step too, where it lets go of big
arrays while it makes others (the save's sort of each kind's postings, the
selection's kinds of keys one after the other): otherwise what it let go of is
still counted while the next is made.
"""

from __future__ import annotations

import ctypes
import gc
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

#: mallopt's parameters (glibc's malloc.h) and the values chosen: blocks up to
#: 32 MB (glibc's largest) come from the heap, and up to 64 MB freed at its top is
#: kept there rather than returned at once; and one heap for every thread.
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_M_ARENA_MAX = -8
KEPT_BLOCKS = 32 << 20
KEPT_AT_TOP = 64 << 20
#: glibc gives threads heaps of their own (arenas) of at most 64 MB each, and
#: ``malloc_trim`` never shrinks their top: with 64 MB kept at the top, what a
#: thread frees there stays with the process for good. A scan's threads make big
#: arrays (the results received from the workers, the candidates' parts): two
#: such heaps held 127 MB of free pages after keying 100,000 documents. In the
#: process's one heap they are given back like the rest; the threads are few and
#: allocate in big blocks, so sharing its lock costs nothing measurable.
ARENAS = 1
#: Blocks from this size on are mapped afresh within :func:`freed_arrays_given_back`.
GIVEN_BACK_BLOCKS = 4 << 20

_kept = False  # whether keep_freed_arrays is in effect
_switching = threading.Lock()
_giving_back = 0  # steps under way in freed_arrays_given_back


def keep_freed_arrays() -> bool:
    """Have big blocks served from the heap and kept there when freed (glibc only);
    whether it was done. For the whole process, and for the processes it forks.
    Call it before the process starts any thread (see ARENAS)."""
    global _kept
    mallopt = _glibc("mallopt")
    if mallopt is None:
        return False
    _kept = (
        bool(mallopt(_M_MMAP_THRESHOLD, KEPT_BLOCKS))
        and bool(mallopt(_M_TRIM_THRESHOLD, KEPT_AT_TOP))
        and bool(mallopt(_M_ARENA_MAX, ARENAS))
    )
    return _kept


def keeping_freed_arrays() -> bool:
    """Whether :func:`keep_freed_arrays` is in effect here (for workers started afresh,
    which do not inherit it: aligning the novels' pieces took 7 % longer without)."""
    return _kept


@contextmanager
def freed_arrays_given_back() -> Iterator[None]:
    """Within, big blocks (GIVEN_BACK_BLOCKS and more) are mapped afresh and returned
    when freed, even where :func:`keep_freed_arrays` is in effect: for a step that
    holds many big arrays at once and frees them in no order. (Room already free in
    the heap is still used first.) Steps on several threads nest; processes forked
    meanwhile start this way too, so a step that forks its workers (keying,
    aligning) runs outside."""
    global _giving_back
    mallopt = _glibc("mallopt") if _kept else None
    if mallopt is None:
        yield
        return
    with _switching:
        if _giving_back == 0:
            mallopt(_M_MMAP_THRESHOLD, GIVEN_BACK_BLOCKS)
        _giving_back += 1
    try:
        yield
    finally:
        with _switching:
            _giving_back -= 1
            if _giving_back == 0:
                mallopt(_M_MMAP_THRESHOLD, KEPT_BLOCKS)


def give_back() -> None:
    """Return the free pages of the C heap to the system, where the allocator can
    (glibc's ``malloc_trim``; elsewhere nothing is done: other allocators give back
    on their own, or cannot be asked)."""
    trim = _glibc("malloc_trim")
    if trim is not None:
        trim(0)


def _glibc(name: str):
    """A function of glibc, or None where the C library is another (musl has neither
    of ours, or only in name)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)
        if not hasattr(libc, "gnu_get_libc_version"):  # glibc's own
            return None
        return getattr(libc, name)
    except (OSError, AttributeError):
        return None


_pausing = threading.Lock()
_paused = 0  # steps under way that paused the collector
_resume = False  # whether it ran before the first of them


@contextmanager
def collections_paused() -> Iterator[None]:
    """Python's cycle collector held off while a step adds many long-lived objects.

    A refresh makes a few objects per document it indexes, and they all live on;
    each full collection walks every one of them again, and a refresh triggers one
    each time their number grows by a quarter (24,150 documents: seven, 0.7 s of
    the main process's time). Objects freed by their count go as usual; cycles
    wait for the step's end. Steps on several threads nest.
    """
    global _paused, _resume
    with _pausing:
        if _paused == 0:
            _resume = gc.isenabled()
            gc.disable()
        _paused += 1
    try:
        yield
    finally:
        with _pausing:
            _paused -= 1
            if _paused == 0 and _resume:
                gc.enable()
