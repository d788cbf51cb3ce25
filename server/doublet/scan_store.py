"""The pairs of the last scan, kept in ``.doublet/`` so that the next scan aligns only
what changed.

Aligning candidate pairs is most of a scan (3 ms a pair; a folder of 100,000
documents has about 100,000 candidates), and a teacher scans the same folder
again and again as submissions come in. What a candidate's alignment gives
depends on nothing but:

- the text of its two documents and how they are cut up (their modes);
- which of their fingerprints are left out as boilerplate or template text;
- the evidence that selected it (shared fingerprints, or the same text) and
  whether the sentence stage runs.

So each outcome is kept under a *signature* of each document (its content
digest, its mode, the boilerplate and template keys it holds) and the evidence,
and is used again when they are all the same: a boilerplate limit that moves as
files are added changes only the signatures of the documents holding keys it
moves. When the index holds exactly what it held at the last scan (the same
saved copy, ``Workspace.index_state``), the settings and the limit are the same,
and the last scan kept every candidate's outcome, the kept outcomes are the
answer and no candidate is even selected. A pair found again is the pair
aligned again, to the byte (tests); a file that cannot be read, or is of
another version, is a scan from scratch.

The store keeps the last scan's candidate selection too, with what selecting again
after a few changes needs (engine/selection): a teacher adding a few submissions to
a folder pays for their pairs, not for selecting the whole folder's again.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import doublet
from doublet import index_store
from doublet.engine.candidates import Candidate
from doublet.engine.distinct import distinct
from doublet.engine.hashing import mix64
from doublet.engine.index import FINGERPRINTS, Index
from doublet.engine.matching import Settings
from doublet.engine.selection import Selection, as_data, from_data
from doublet.rows import Rows
from doublet.scanned import (
    BAD_VALUES,
    Packed,
    PackedPair,
    Reported,
    ScannedPair,
    pack,
    plain_values,
    reported_values,
    unpacked,
)

log = logging.getLogger(__name__)

FILE = "pairs.msgpack"
MAGIC = b"DOUBLET-PAIRS\n"
#: Changed whenever what aligning a pair gives changes for the same documents and
#: settings (engine/passages, paraphrase, resemblance, scanned): kept outcomes of
#: another version are not used. 1: the first; 2: code's structure is exact coverage;
#: 3: the candidate selection is kept too (engine/selection); 4: the files of
#: ``.doublet/`` hold their arrays after the msgpack head (index_store); 5: each outcome
#: packed on its own (``Packed``)
VERSION = 5

#: What a kept outcome was aligned from: (signature of A, of B, evidence).
Basis = tuple[bytes, bytes, int]


@dataclass
class ScanStore:
    """Outcomes of a scan's candidates by pair of names, and what they were aligned from."""

    settings: bytes = b""  # settings_signature of the scan: what outcomes depend on
    state: str | None = None  # the index's state (Workspace.index_state) at the scan
    limit: int = -1  # the boilerplate limit at the scan: which candidates there were
    #: By pair of names: the basis and the outcome (as read from the file, packed, until
    #: it is asked for: most of a scan's outcomes are only counted or passed on).
    outcomes: dict[tuple[str, str], tuple[Basis, ScannedPair | Packed]] = field(
        default_factory=dict
    )
    #: The last scan's candidates and what selecting them again needs (None: select all).
    selection: Selection | None = None

    def answer(
        self, settings: bytes, state: str | None, limit: int, reported: Reported
    ) -> list[ScannedPair] | None:
        """The outcomes that are ``reported``, if the index, settings and boilerplate
        limit are those of the last scan (nothing to select or align); else None."""
        if state is None or (state, settings, limit) != (self.state, self.settings, self.limit):
            return None
        try:
            found = []
            for (a, b), (_, outcome) in self.outcomes.items():
                plain = plain_values(outcome) if isinstance(outcome, bytes) else outcome  # once
                if reported_values(plain, reported):
                    found.append(unpacked(a, b, plain) if isinstance(plain, list) else plain)
            return found
        except BAD_VALUES as exc:
            log.warning("the last scan's pairs are not used: one is malformed (%s)", exc)
            self.outcomes = {}
            return None

    def settle(self, settings: bytes, state: str | None, limit: int) -> None:
        """From here on, outcomes of a scan with these settings, of this index state and
        boilerplate limit: those of other settings are dropped (a new limit changes
        only which keys each document has left out, which its signature holds)."""
        if settings != self.settings:
            self.outcomes = {}
        self.settings, self.state, self.limit = settings, state, limit

    def kept(self, candidate: Candidate, basis: Basis | None) -> ScannedPair | PackedPair | None:
        """The outcome kept for a candidate aligned from the same ``basis``, if any (one
        read from the file stays packed: made whole once here, to know it is sound)."""
        if basis is None:
            return None
        found = self.outcomes.get((candidate.a, candidate.b))
        if found is None or found[0] != basis:
            return None
        outcome = found[1]
        if not isinstance(outcome, bytes):
            return outcome
        try:
            unpacked(candidate.a, candidate.b, plain_values(outcome))
        except BAD_VALUES as exc:
            log.warning("a kept pair is malformed and aligned again (%s)", exc)
            return None
        return PackedPair(candidate.a, candidate.b, outcome)

    @staticmethod
    def path_of(root: Path) -> Path:
        return root / index_store.FOLDER / FILE

    @classmethod
    def load(cls, root: Path) -> ScanStore:
        """The kept pairs of ``root``; none (logged) if the file cannot be used."""
        path = cls.path_of(root)
        if not path.exists():
            return cls()
        try:
            data = index_store.read_checked(path, MAGIC, VERSION)
            if data.get("doublet") != doublet.__version__:
                return cls()
            names = [bytes(name).decode("utf-8", "surrogateescape") for name in data["names"]]
            outcomes = {}
            for a, b, sig_a, sig_b, evidence, pair in data["pairs"]:
                if not isinstance(pair, bytes):
                    raise ValueError("an outcome of another shape")
                basis = (bytes(sig_a), bytes(sig_b), int(evidence))
                outcomes[names[a], names[b]] = (basis, pair)
            limit = int(data["limit"])
            return cls(bytes(data["settings"]), data["state"], limit, outcomes, _selection(data))
        except index_store.IndexFileError as exc:
            log.warning("the last scan's pairs are not used: %s", exc)
        except Exception as exc:  # whatever a damaged file holds: a scan from scratch
            log.warning("the last scan's pairs are not used: %s: corrupt (%s)", path, exc)
        return cls()

    def save(self, root: Path) -> None:
        """Write the store beside the index (atomically); a failure is only logged: the
        next scan then aligns every pair again."""
        names: dict[str, int] = {}
        for a, b in self.outcomes:
            names.setdefault(a, len(names))
            names.setdefault(b, len(names))

        def rows() -> Iterator[list]:  # made as written: not all held at once
            for (a, b), (basis, pair) in self.outcomes.items():
                packed = pair if isinstance(pair, bytes) else pack(pair)
                yield [names[a], names[b], *basis, packed]

        data = {
            "doublet": doublet.__version__,
            "settings": self.settings,
            "state": self.state,
            "limit": self.limit,
            "names": [name.encode("utf-8", "surrogateescape") for name in names],
            "pairs": Rows(len(self.outcomes), rows),
            "selection": None if self.selection is None else as_data(self.selection),
        }
        try:
            index_store.write_checked(root, FILE, data, MAGIC, VERSION)
        except (OSError, ValueError, TypeError) as exc:
            log.warning("the scan's pairs were not kept: %s", getattr(exc, "strerror", None) or exc)


def _selection(data: dict) -> Selection | None:
    """The kept selection; None (logged) if there is none or it cannot be used: the
    next scan then selects the whole folder's candidates."""
    kept = data.get("selection")
    if kept is None:
        return None
    try:
        return from_data(kept)
    except (*BAD_VALUES, AttributeError) as exc:
        log.warning("the last scan's candidates are selected again: malformed (%s)", exc)
        return None


def settings_signature(settings: Settings) -> bytes:
    """What of the settings decides a candidate's outcome, besides its documents (the
    boilerplate limit only which keys a document has left out, which its signature
    holds; the least similarity only which outcomes are reported)."""
    text = f"{doublet.__version__}|{VERSION}|{settings.paraphrase}"
    return hashlib.blake2b(text.encode(), digest_size=16).digest()


def evidence_of(candidate: Candidate) -> int:
    """The evidence that changes how a candidate is aligned: copied passages are looked
    for (shared fingerprints) and all keys kept (the same text)."""
    return (candidate.fingerprint_seeds > 0) | (candidate.identical << 1)


def document_signatures(
    index: Index,
    names: Iterable[str],
    ignored: np.ndarray,
    digest_of: Callable[[bytes], str | None],
) -> dict[str, bytes | None]:
    """Each document's signature: its content digest (``digest_of`` its stamp), its
    mode, and the ignored fingerprint keys it holds; None for one without a digest."""
    left_out = _ignored_per_document(index, ignored)
    modes: dict[int, bytes] = {}
    signatures: dict[str, bytes | None] = {}
    for name in set(names):
        entry = index.entry(name)
        content = digest_of(entry.stamp)
        if content is None:
            signatures[name] = None
            continue
        mode = modes.get(id(entry.mode))
        if mode is None:
            mode = modes[id(entry.mode)] = repr(sorted(entry.mode.as_data().items())).encode()
        digest = hashlib.blake2b(digest_size=16)
        digest.update(content.encode())
        digest.update(mode)
        digest.update(left_out.get(entry.id, 0).to_bytes(8, "little"))
        signatures[name] = digest.digest()
    return signatures


def _ignored_per_document(index: Index, ignored: np.ndarray) -> dict[int, int]:
    """For each document holding any ignored fingerprint key, a 64-bit sum of the mixed
    distinct keys it holds (the same set, the same sum)."""
    if ignored.shape[0] == 0:
        return {}
    keys = distinct(ignored)
    which, doc, _ = index.postings_of(FINGERPRINTS, keys)
    if which.shape[0] == 0:
        return {}
    pairs = distinct(doc.astype(np.int64) << 32 | which.astype(np.int64))
    docs = pairs >> 32
    mixed = mix64(keys[pairs & 0xFFFFFFFF].astype(np.uint64))
    starts = np.flatnonzero(np.r_[True, docs[1:] != docs[:-1]])
    with np.errstate(over="ignore"):
        sums = np.add.reduceat(mixed, starts)
    return dict(zip(docs[starts].tolist(), sums.tolist(), strict=True))


def basis_of(candidate: Candidate, signatures: dict[str, bytes | None]) -> Basis | None:
    sig_a, sig_b = signatures[candidate.a], signatures[candidate.b]
    if sig_a is None or sig_b is None:
        return None
    return (sig_a, sig_b, evidence_of(candidate))
