"""PAN text-alignment measures: precision, recall, granularity and plagdet.

Definitions follow Potthast et al. (2010), "An Evaluation Framework for
Plagiarism Detection", as computed by PAN's own evaluator (the perfmeasures
script from PAN 2009 on, pan-webis-de/pan-code).

A case ``s`` and a detection ``r`` are each a pair of character ranges in one
document pair: one in the suspicious document, one in the source document.
``r`` *detects* ``s`` iff the ranges overlap on the suspicious side **and** on
the source side. A passage's characters are its suspicious characters plus its
source characters, counted separately per side, so with ``s ⊓ r`` meaning
``s ∩ r`` if ``r`` detects ``s`` (else nothing):

* recall    = mean over cases      of |∪_r (s ⊓ r)| / |s|
* precision = mean over detections of |∪_s (s ⊓ r)| / |r|
* granularity = mean, over detected cases, of the number of detections of each
* plagdet = F1(precision, recall) / log2(1 + granularity)

Means run over all cases and detections of a whole set of document pairs
(every pair of a folder, or of the corpus), not per pair: evaluate each pair
with :func:`evaluate_pair` and add the results, or call :func:`evaluate`.

Edge cases are PAN's evaluator's, so our numbers compare with published ones:

* no cases and no detections: precision = recall = 1 (nothing to find, nothing
  wrongly found), granularity 1, plagdet 1;
* cases but no detections, or detections but no cases (a folder such as
  01-no-plagiarism): precision = recall = 0 and plagdet 0 -- the paper leaves
  precision undefined for an empty R, the evaluator returns 0;
* no detected case: granularity 1;
* identical detections (or cases) in one pair count once, as the evaluator
  reads annotations into a set.

Ranges are half-open ``[offset, offset + length)``. A side of length 0 has no
characters, so it overlaps nothing and such a passage detects nothing (PAN's
evaluator would let an empty range inside another count as overlapping; PAN
truth has no empty sides). Coverage is computed by merging ranges, never per
character.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from typing import NamedTuple


class Alignment(NamedTuple):
    """One case or detection: a suspicious range aligned with a source range."""

    susp_offset: int
    susp_length: int
    src_offset: int
    src_length: int


@dataclass(frozen=True)
class PanScores:
    """Additive tallies over a set of document pairs, with PAN's measures.

    Keeping sums rather than ratios lets per-pair or per-folder results be
    added (``a + b``, ``sum(..., PanScores())``) into exact micro-averages.
    """

    cases: int = 0
    detections: int = 0
    detected_cases: int = 0
    false_detections: int = 0  # detections that detect no case
    recall_sum: float = 0.0  # sum over cases of the covered fraction
    precision_sum: float = 0.0  # sum over detections of the covering fraction
    detections_of_detected: int = 0  # sum over detected cases of |R_s|

    def __add__(self, other: PanScores) -> PanScores:
        if not isinstance(other, PanScores):
            return NotImplemented
        return PanScores(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))

    def __radd__(self, other: object) -> PanScores:
        # Lets builtin sum() start from 0.
        if other == 0:
            return self
        return NotImplemented

    @property
    def recall(self) -> float:
        if not self.cases or not self.detections:
            return 1.0 if self.cases == self.detections else 0.0
        return self.recall_sum / self.cases

    @property
    def precision(self) -> float:
        if not self.cases or not self.detections:
            return 1.0 if self.cases == self.detections else 0.0
        return self.precision_sum / self.detections

    @property
    def granularity(self) -> float:
        if not self.detected_cases:
            return 1.0
        return self.detections_of_detected / self.detected_cases

    @property
    def plagdet(self) -> float:
        return plagdet(self.precision, self.recall, self.granularity)

    def as_dict(self) -> dict[str, float | int]:
        """Measures and counts, flat, for reports and JSON."""
        return {
            "plagdet": self.plagdet,
            "precision": self.precision,
            "recall": self.recall,
            "granularity": self.granularity,
            "cases": self.cases,
            "detections": self.detections,
            "detected_cases": self.detected_cases,
            "false_detections": self.false_detections,
        }


def plagdet(precision: float, recall: float, granularity: float) -> float:
    """F1 of precision and recall, discounted by log2(1 + granularity)."""
    if precision < 0 or recall < 0 or precision + recall == 0 or granularity < 1:
        return 0.0
    f1 = 2 * precision * recall / (precision + recall)
    return f1 / math.log2(1 + granularity)


def evaluate(
    pairs: Iterable[tuple[Sequence[Sequence[int]], Sequence[Sequence[int]]]],
) -> PanScores:
    """Micro-averaged PAN scores over ``(cases, detections)`` of many pairs."""
    return sum((evaluate_pair(cases, dets) for cases, dets in pairs), PanScores())


def evaluate_pair(cases: Sequence[Sequence[int]], detections: Sequence[Sequence[int]]) -> PanScores:
    """Tallies for one document pair; all ranges refer to its two texts."""
    s_list = _unique(cases)
    r_list = _unique(detections)
    hits = [[r for r in r_list if _detects(s, r)] for s in s_list]
    hit_by = [[s for s in s_list if _detects(s, r)] for r in r_list]
    return PanScores(
        cases=len(s_list),
        detections=len(r_list),
        detected_cases=sum(1 for h in hits if h),
        false_detections=sum(1 for h in hit_by if not h),
        recall_sum=sum(_covered_fraction(s, h) for s, h in zip(s_list, hits, strict=True)),
        precision_sum=sum(_covered_fraction(r, h) for r, h in zip(r_list, hit_by, strict=True)),
        detections_of_detected=sum(len(h) for h in hits),
    )


def _unique(passages: Sequence[Sequence[int]]) -> list[Alignment]:
    """Validated alignments, duplicates dropped (order kept)."""
    out: dict[Alignment, None] = {}
    for p in passages:
        a = Alignment(*(int(v) for v in p))
        if min(a) < 0:
            raise ValueError(f"negative offset or length: {a}")
        if a.susp_length + a.src_length == 0:
            raise ValueError(f"passage has no characters: {a}")
        out[a] = None
    return list(out)


def _detects(s: Alignment, r: Alignment) -> bool:
    """PAN's detection test: overlap on the suspicious and the source side."""
    on_susp = _overlap(s.susp_offset, s.susp_length, r.susp_offset, r.susp_length)
    return on_susp and _overlap(s.src_offset, s.src_length, r.src_offset, r.src_length)


def _overlap(a_off: int, a_len: int, b_off: int, b_len: int) -> bool:
    """Whether two ranges share a character (so an empty range shares none)."""
    return a_len > 0 and b_len > 0 and a_off < b_off + b_len and b_off < a_off + a_len


def _covered_fraction(a: Alignment, others: list[Alignment]) -> float:
    """Share of ``a``'s characters (both sides) covered by ``others``."""
    if not others:
        return 0.0
    susp = _covered(a.susp_offset, a.susp_length, [(o.susp_offset, o.susp_length) for o in others])
    src = _covered(a.src_offset, a.src_length, [(o.src_offset, o.src_length) for o in others])
    return (susp + src) / (a.susp_length + a.src_length)


def _covered(offset: int, length: int, ranges: list[tuple[int, int]]) -> int:
    """Characters of ``[offset, offset+length)`` inside the union of ``ranges``."""
    lo, hi = offset, offset + length
    clipped = sorted((max(o, lo), min(o + n, hi)) for o, n in ranges)
    total, reach = 0, lo
    for start, end in clipped:
        start = max(start, reach)
        if end > start:
            total += end - start
            reach = end
    return total
