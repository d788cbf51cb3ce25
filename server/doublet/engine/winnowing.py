"""Robust winnowing (Schleimer, Wilkerson and Aiken, 2003), vectorized.

Of every window of ``w`` consecutive k-gram hashes the minimum is kept, the
rightmost one on ties; robust winnowing prefers, on ties, the hash already
chosen for the previous window, which keeps runs of repeated text ("aaaa…",
tables of numbers in code) from producing a fingerprint per position. Any
substring shared by two documents that spans at least ``w`` k-grams (``w + k - 1``
units) yields at least one shared fingerprint.

Window minima are computed by doubling (the minima of windows of 2, 4, 8, ...
hashes, each from two of the one before), or for long windows with the van
Herk / Gil-Werman block scheme (prefix and suffix minima of blocks of length
``w``): a few array passes either way. Position and hash are packed into one
64-bit key: the top 32 bits of the hash decide, and the complement of the
position breaks ties towards the right. Only windows with a tie need the robust
rule, and those are handled one by one.
"""

from __future__ import annotations

import numpy as np

_LOW = np.uint64(0xFFFFFFFF)
_HIGH = np.uint64(0xFFFFFFFF00000000)
_MAX = np.uint64(0xFFFFFFFFFFFFFFFF)
_SLICE = 1 << 14  # windows whose minima are computed in one pass (see _extreme_minima)
#: Windows up to this long take their minima by doubling (log2 w passes over the
#: hashes); longer ones by blocks. Prose's window of 13 by doubling: 21 µs a slice of
#: 16,384 windows, against 171 µs by blocks (a numpy loop per block of 13).
_DOUBLING_UP_TO = 64


def sliding_min(values: np.ndarray, w: int) -> np.ndarray:
    """Minimum of every window ``values[i : i + w]`` (a view of ``values`` when ``w``
    is 1)."""
    n = values.shape[0]
    if w < 1:
        raise ValueError("a window holds at least one value")
    if n < w:
        raise ValueError("fewer values than the window")
    if w > _DOUBLING_UP_TO:
        return _block_min(values, w)
    # minima of windows of 1, 2, 4, ... values, each from two of the one before; a
    # window of w is two overlapping ones of the largest power of two not above w
    minima, span = values, 1
    while 2 * span <= w:
        minima = np.minimum(minima[:-span], minima[span:])
        span *= 2
    m = n - w + 1
    return minima[:m] if span == w else np.minimum(minima[:m], minima[w - span : w - span + m])


def _block_min(values: np.ndarray, w: int) -> np.ndarray:
    """``sliding_min`` for long windows: the van Herk / Gil-Werman block scheme, a
    few passes whatever ``w`` is."""
    n = values.shape[0]
    pad = (-n) % w
    padded = np.concatenate([values, np.full(pad, _MAX, dtype=values.dtype)]) if pad else values
    blocks = padded.reshape(-1, w)
    prefix = np.minimum.accumulate(blocks, axis=1).ravel()
    suffix = np.minimum.accumulate(blocks[:, ::-1], axis=1)[:, ::-1].ravel()
    m = n - w + 1
    return np.minimum(suffix[:m], prefix[w - 1 : w - 1 + m])


def winnow(hashes: np.ndarray, w: int, starts: np.ndarray | None = None) -> np.ndarray:
    """Positions (indices into ``hashes``) of the fingerprints kept, ascending.

    ``hashes`` may be several documents' one after the other, document i's
    beginning at ``starts[i]`` (ascending, none empty): no window spans two.
    A document with fewer than ``w`` k-grams is one window: its minimum is kept.
    """
    if w < 1:
        raise ValueError("w must be at least 1")
    n = hashes.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    if n >= 1 << 32:
        raise ValueError("document too long to winnow (2^32 k-grams)")
    if w == 1:
        return np.arange(n, dtype=np.int64)
    starts = np.zeros(1, dtype=np.int64) if starts is None else starts
    sizes = np.diff(starts, append=n)
    positions = np.arange(n, dtype=np.uint64)
    high = hashes & _HIGH
    chosen = []
    short = sizes < w
    if short.any():  # one window each: its minimum (the lower hash, then the later)
        minima = np.minimum.reduceat(high | (_LOW - positions), starts)[short]
        chosen.append((_LOW - (minima & _LOW)).astype(np.int64))
    if not short.all():
        chosen.append(_window_minima(high, positions, w, starts[~short], sizes[~short]))
    kept = np.sort(np.concatenate(chosen)) if len(chosen) > 1 else chosen[0]
    keep = np.empty(kept.shape[0], dtype=bool)
    keep[0] = True
    np.not_equal(kept[1:], kept[:-1], out=keep[1:])
    return kept[keep]


def _window_minima(
    high: np.ndarray, positions: np.ndarray, w: int, starts: np.ndarray, sizes: np.ndarray
) -> np.ndarray:
    """The choice of every window of ``w`` hashes inside one of the documents given
    (``starts``, ``sizes``: each at least ``w``), in order."""
    rightmost, leftmost = _extreme_minima(high, positions, w)
    windows = sizes - w + 1  # each document's windows begin at start .. start + windows - 1
    inside = None
    if windows.shape[0] > 1 or starts[0] != 0 or windows[0] != rightmost.shape[0]:
        marks = np.zeros(rightmost.shape[0] + 1, dtype=np.int8)
        marks[starts] = 1  # a document's windows end before the next one's begin
        marks[starts + windows] = -1
        inside = np.cumsum(marks[:-1], dtype=np.int8) > 0
    tied = leftmost != rightmost
    if inside is not None:
        tied &= inside
    tied[starts] = False  # a document's first window has no previous choice to keep
    chosen = rightmost
    tied_at = np.flatnonzero(tied)
    if tied_at.size:
        chosen = rightmost.copy()
        _prefer_previous_on_ties(chosen, high, tied_at)
    return chosen if inside is None else chosen[inside]


def _extreme_minima(
    high: np.ndarray, positions: np.ndarray, w: int
) -> tuple[np.ndarray, np.ndarray]:
    """The position of every window's minimum, the rightmost and the leftmost on ties.

    Computed _SLICE windows at a time: ``sliding_min`` makes several passes over
    its arrays, and over a whole batch of documents (a megabyte of text) they
    fall out of the cache; slices that stay in it took half the time."""
    m = high.shape[0] - w + 1
    rightmost = np.empty(m, dtype=np.int64)
    leftmost = np.empty(m, dtype=np.int64)
    for lo in range(0, m, _SLICE):
        hi = min(lo + _SLICE, m)
        part, at = high[lo : hi + w - 1], positions[lo : hi + w - 1]
        rightmost[lo:hi] = _LOW - (sliding_min(part | (_LOW - at), w) & _LOW)
        leftmost[lo:hi] = sliding_min(part | at, w) & _LOW
    return rightmost, leftmost


def _prefer_previous_on_ties(chosen: np.ndarray, high: np.ndarray, tied: np.ndarray) -> None:
    """Robust rule: on a tie for the minimum, keep the previous choice while it is in the window."""
    for i in tied.tolist():
        previous = chosen[i - 1]
        if previous >= i and high[previous] == high[chosen[i]]:
            chosen[i] = previous
