"""Where a document holds text it was given: the spans its templates share with it.

A template (the assignment, starter code) is subtracted before matching; a
reader still wants to see which parts of a document were given, greyed. The
spans come from the document's fingerprints whose keys a template holds: each
covers its k-gram, and neighbours no further apart than a window join (winnowing
keeps one fingerprint per window of a shared run), so a given paragraph reads
as one span. Its ends are exact only to within a window (where winnowing
happened to pick the first and last fingerprint of the run), so an end that
close to a sentence's or a line's edge, or to the text's, is moved there.
"""

from __future__ import annotations

import re

import numpy as np

from doublet.engine.fingerprints import Fingerprints
from doublet.engine.index import keys_of
from doublet.engine.units import Units


def given_spans(
    text: str, fingerprints: Fingerprints, units: Units, keys: np.ndarray, window: int
) -> list[tuple[int, int]]:
    """Character spans ``[start, end)`` of ``text`` whose fingerprints' index keys are
    among ``keys`` (sorted, unique: the templates' keys)."""
    if not len(fingerprints) or not keys.shape[0] or not len(units):
        return []
    held = np.isin(keys_of(fingerprints.hashes), keys)
    first = fingerprints.positions[held]
    if not first.shape[0]:
        return []
    last = np.minimum(first + fingerprints.k, len(units)) - 1  # the k-gram's last unit
    # runs of k-grams with gaps of at most a window between them
    breaks = np.flatnonzero(first[1:] > last[:-1] + window) + 1
    starts = first[np.r_[0, breaks]].tolist()
    ends = last[np.r_[breaks - 1, first.shape[0] - 1]].tolist()
    return [
        (_snapped_start(text, units, s, window), _snapped_end(text, units, e, window))
        for s, e in zip(starts, ends, strict=True)
    ]


_BEFORE = re.compile(r"(?:[.!?;:]\s+|\n\s*)")  # what ends the text before a sentence
_AFTER = re.compile(r"[.!?;:]|\n")  # what ends a sentence or a line


def _snapped_start(text: str, units: Units, unit: int, window: int) -> int:
    start = int(units.starts[unit])
    lo = 0 if unit <= window else int(units.starts[unit - window])
    edges = [m.end() for m in _BEFORE.finditer(text, lo, start)]
    if edges:
        return edges[-1]
    return int(units.starts[0]) if unit <= window else start


def _snapped_end(text: str, units: Units, unit: int, window: int) -> int:
    end = int(units.ends[unit])
    last = len(units) - 1
    hi = len(text) if unit + window >= last else int(units.ends[unit + window])
    found = _AFTER.search(text, end, hi)
    if found:
        return found.start() + (found.group() != "\n")
    return int(units.ends[last]) if unit + window >= last else end
