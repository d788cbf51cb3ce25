"""Matching: candidates aligned into pairs, the one loop behind every question.

Every question Doublet answers goes through here: every pair of a folder
(``doublet scan``), everything similar to one document (``doublet similar``,
the editor), and one given pair (``doublet compare``: a folder of two). The
index selects candidates (engine/candidates); each is aligned by
``compare`` (engine/comparison) with boilerplate and template text left out,
and the paraphrase stage run on the whole of both documents. So a pair gets the
same passages whichever question found it — but for two documents of the same
text, which only a scan aligns whole, boilerplate included (engine/candidates).
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import numpy as np

from doublet.engine.candidates import Candidate, all_candidates, candidates_of
from doublet.engine.comparison import Asked, PairResult, compare_many
from doublet.engine.document import Document, prepare_together
from doublet.engine.fingerprints import Fingerprints
from doublet.engine.index import Index, Role, keys_of

log = logging.getLogger(__name__)


class Unavailable(Exception):
    """What a loader raises for a document it cannot give any more (its file gone or
    unreadable since it was indexed): that document's pairs are left out, logged,
    and the rest aligned."""


Progress = Callable[[Iterable], Iterable]


@dataclass(frozen=True)
class Settings:
    """What decides which pairs are reported, besides each document's mode."""

    max_docs: int  # the boilerplate limit (engine/candidates)
    min_similarity: float = 0.0
    paraphrase: bool = True  # the paraphrase stage, for modes that have one


def all_pairs(
    index: Index,
    load: Callable[[str], Document],
    settings: Settings,
    progress: Progress | None = None,
) -> list[PairResult]:
    """Every pair of indexed documents with a passage and enough similarity, best first;
    and pairs of programs alike enough in what they say (LISTED_RESEMBLANCE) even
    without a passage.

    ``load`` gives the document of a name (its text is read only for
    candidates); ``progress`` wraps the loop over candidates (a progress bar).
    """
    candidates, ignored = all_candidates(index, settings.max_docs)
    results = align_candidates(candidates, load, ignored, settings, progress)
    results.sort(key=lambda r: (-r.resemblance.score, -r.longest, r.a.name, r.b.name))
    return results


def align_candidates(
    candidates: list[Candidate],
    load: Callable[[str], Document],
    ignored: np.ndarray,
    settings: Settings,
    progress: Progress | None = None,
) -> list[PairResult]:
    """The candidates that share a passage (or, programs, resemble), aligned in order."""
    return [
        result
        for result in align_each(candidates, load, ignored, settings, progress)
        if result is not None and _reported(result, settings)
    ]


#: Candidates of a scan aligned together at most (engine/comparison ``compare_many``):
#: enough that numpy's overhead is paid once for many short pairs, few enough that
#: their documents' units stay within what a worker keeps (parallel).
ALIGN_BATCH = 32


def align_each(
    candidates: list[Candidate],
    load: Callable[[str], Document],
    ignored: np.ndarray,
    settings: Settings,
    progress: Progress | None = None,
) -> Iterator[PairResult | None]:
    """Each candidate aligned, in order, reported or not (a scan keeps every outcome:
    scan_store); None for one whose document the loader can no longer give."""
    # each document's fingerprints minus the ignored, as long as the loader holds it
    # (a worker's documents are let go of once aligned: parallel)
    usable: weakref.WeakKeyDictionary[Document, Fingerprints] = weakref.WeakKeyDictionary()

    def fingerprints_of(document: Document) -> Fingerprints:
        found = usable.get(document)
        if found is None:
            found = usable[document] = without(document.fingerprints, ignored)
        return found

    def loaded(candidate: Candidate) -> tuple[Document, Document] | None:
        try:
            return load(candidate.a), load(candidate.b)
        except Unavailable as exc:
            log.warning("left out of the comparison: %s", exc)
            return None

    def compared(batch: list[Candidate]) -> list[PairResult | None]:
        pairs = [loaded(candidate) for candidate in batch]
        if settings.paraphrase:  # what a loader gave uncut, cut up together
            prepare_together(list({id(d): d for p in pairs if p for d in p}.values()))
        asked = []
        for candidate, pair in zip(batch, pairs, strict=True):
            if pair is None:
                continue
            a, b = pair
            fingerprints = None  # the documents' own: all of them, or none when not needed
            if not candidate.identical and (candidate.fingerprint_seeds or ignored.shape[0]):
                fingerprints = (fingerprints_of(a), fingerprints_of(b))
            asked.append(_asked(a, b, fingerprints, candidate, settings))
        results = iter(compare_many(asked))
        return [None if pair is None else next(results) for pair in pairs]

    batch: list[Candidate] = []
    for candidate in progress(candidates) if progress else candidates:
        batch.append(candidate)
        if len(batch) == ALIGN_BATCH:
            yield from compared(batch)
            batch = []
    yield from compared(batch)


#: Candidates of one question read and cut up together at most: what they hold at
#: once stays bounded however many there are.
QUERY_BATCH = 64


def similar(
    index: Index,
    document: Document,
    role: Role,
    load: Callable[[str], Document],
    settings: Settings,
) -> list[PairResult]:
    """Every indexed document with passages shared with ``document`` (indexed or not),
    best first; A is ``document`` in every result."""
    if role.template:
        return []
    candidates, ignored = candidates_of(
        index, document.name, document.keys, document.mode, role, settings.max_docs
    )
    mine = without(document.fingerprints, ignored) if ignored.shape[0] and candidates else None
    results = []
    for at in range(0, len(candidates), QUERY_BATCH):
        batch = candidates[at : at + QUERY_BATCH]
        others = _loaded([candidate.b for candidate in batch], load)
        if settings.paraphrase:  # the candidates read for the first time, cut up together
            for copied in (True, False):  # those with no seeds of a copy need no fingerprints
                prepare_together(
                    [
                        others[c.b]
                        for c in batch
                        if others[c.b] is not None and (c.fingerprint_seeds > 0) == copied
                    ],
                    fingerprints=copied,
                )
        asked = []
        for candidate in batch:
            other = others[candidate.b]
            if other is None:
                continue
            fingerprints = None
            if candidate.fingerprint_seeds or ignored.shape[0]:
                own = mine if mine is not None else document.fingerprints
                fingerprints = (own, without(other.fingerprints, ignored))
            asked.append(_asked(document, other, fingerprints, candidate, settings))
        results += [r for r in compare_many(asked) if _reported(r, settings)]
    results.sort(key=lambda r: (-r.resemblance.score, -r.longest, r.b.name))
    return results


def _loaded(names: list[str], load: Callable[[str], Document]) -> dict[str, Document | None]:
    """The documents of ``names``; None for one the loader can no longer give (logged)."""
    documents: dict[str, Document | None] = {}
    for name in names:
        try:
            documents[name] = load(name)
        except Unavailable as exc:
            log.warning("left out of the comparison: %s", exc)
            documents[name] = None
    return documents


def _asked(
    a: Document,
    b: Document,
    fingerprints: tuple[Fingerprints, Fingerprints] | None,
    candidate: Candidate,
    settings: Settings,
) -> Asked:
    """``compare`` for a candidate, spared what its evidence rules out: without a dense
    cluster of shared fingerprints no copied passage can be found (engine/candidates
    applies the density test that alignment starts with), so fingerprints are not
    aligned — nor even computed when no key is ignored (``fingerprints`` None); two
    documents of the same text are aligned with all their fingerprints. The
    paraphrase stage runs as the mode says, unless it is turned off."""
    return Asked(
        a,
        b,
        fingerprints=fingerprints,
        paraphrase=None if settings.paraphrase else False,
        copied=candidate.fingerprint_seeds > 0 or candidate.identical,
    )


#: A pair of programs that shares no passage is still listed when its resemblance
#: (engine/resemblance) is at least this: about 40% of their literals in common.
#: A copier who restructured the whole program leaves no passage, only this.
LISTED_RESEMBLANCE = 0.1


def _reported(result: PairResult, settings: Settings) -> bool:
    return reported(
        result.similarity,
        bool(result.passages),
        result.resemblance.score if result.a.mode.lexical else None,
        settings,
    )


def reported(
    similarity: float, has_passages: bool, resemblance: float | None, settings: Settings
) -> bool:
    """Whether a pair is reported: similar enough, and with a passage; or, programs
    (``resemblance`` is None for others), resembling each other enough."""
    if similarity < settings.min_similarity:
        return False
    return has_passages or (resemblance is not None and resemblance >= LISTED_RESEMBLANCE)


def without(fingerprints: Fingerprints, keys: np.ndarray) -> Fingerprints:
    """The fingerprints minus those whose index key is among ``keys``."""
    if keys.shape[0] == 0 or len(fingerprints) == 0:
        return fingerprints
    keep = ~np.isin(keys_of(fingerprints.hashes), keys)
    return Fingerprints(fingerprints.hashes[keep], fingerprints.positions[keep], fingerprints.k)
