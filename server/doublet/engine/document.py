"""A document as the engine sees it: decoded text, a mode, and what is derived from them.

Units, fingerprints, sentences and sentence keys are derived from the text on
first use and cached; they can be dropped (:meth:`Document.forget`) to save
memory and recomputed later, because they are a pure function of text and mode.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from doublet.engine.chars import char_units
from doublet.engine.code import Lexicon
from doublet.engine.fingerprints import Fingerprints, fingerprint, fingerprint_each
from doublet.engine.ignore_marks import without_ignored
from doublet.engine.joined import Joined
from doublet.engine.lexicon_keys import LexiconKeys, lexicon_keys
from doublet.engine.modes import Mode
from doublet.engine.quotes import quoted_mask
from doublet.engine.sentence_keys import SentenceKeys, sentence_keys
from doublet.engine.sentences import Sentences, give_cells_together, split_each, split_joined
from doublet.engine.sentences import split as split_sentences
from doublet.engine.units import Units


@dataclass(frozen=True)
class DocumentKeys:
    """What the index keeps of a document: hashes with unit positions, and no text."""

    fingerprints: Fingerprints
    sentence_keys: SentenceKeys
    units: int  # how many units the document has (positions lie below it)
    lexicon_keys: LexiconKeys = field(default_factory=LexiconKeys.empty)


@dataclass(eq=False)
class Document:
    """Text with the mode it is matched in; ``name`` is how reports refer to it."""

    name: str
    text: str
    mode: Mode
    _units: Units | None = field(default=None, repr=False)
    _chars: Units | None = field(default=None, repr=False)  # kept only until sentences are cut
    _fingerprints: Fingerprints | None = field(default=None, repr=False)
    _unit_count: int | None = field(default=None, repr=False)
    _sentences: Sentences | None = field(default=None, repr=False)
    _sentence_keys: SentenceKeys | None = field(default=None, repr=False)
    _fingerprint_offsets: np.ndarray | None = field(default=None, repr=False)
    _lexicon: Lexicon | None = field(default=None, repr=False)
    _lexicon_keys: LexiconKeys | None = field(default=None, repr=False)
    _matched: str | None = field(default=None, repr=False)

    @property
    def matched(self) -> str:
        """The text as matched: what ignore marks leave out blanked (engine/ignore_marks),
        so offsets into it are offsets into ``text``."""
        if self._matched is None:
            self._matched = without_ignored(self.text)
        return self._matched

    @property
    def units(self) -> Units:
        if self._units is None:
            if self.mode.paraphrase and self._sentences is None:
                # the paraphrase stage reads the same folded characters: fold once
                self._chars = char_units(self.matched)
            self._units = self.mode.units(self.matched, self.name, self._chars)
            self._unit_count = len(self._units)
        return self._units

    @property
    def unit_count(self) -> int:
        """Number of units, remembered after the units themselves are dropped."""
        if self._unit_count is None:
            return len(self.units)
        return self._unit_count

    @property
    def fingerprints(self) -> Fingerprints:
        if self._fingerprints is None:
            mode = self.mode
            skip = quoted_mask(self.matched, self.units.starts) if mode.skip_quotations else None
            self._fingerprints = fingerprint(self.units, mode.k, mode.window, mode.salt, skip)
        return self._fingerprints

    @property
    def fingerprint_offsets(self) -> np.ndarray:
        """The text offset where each fingerprint's k-gram starts (kept without the units)."""
        if self._fingerprint_offsets is None:
            self._fingerprint_offsets = self.units.starts[self.fingerprints.positions]
        return self._fingerprint_offsets

    @property
    def sentences(self) -> Sentences:
        """The text's sentences as content terms, for the paraphrase stage."""
        if self._sentences is None:
            self._sentences = split_sentences(self.matched, self._chars)
            self._chars = None
        return self._sentences

    @property
    def sentence_keys(self) -> SentenceKeys:
        """Keys of the sentences, for the index to find reworded text (none if the mode
        has no paraphrase stage)."""
        if self._sentence_keys is None:
            if self.mode.paraphrase:
                units = self.units
                self._sentence_keys = sentence_keys(self.sentences, units.starts, self.mode.salt)
            else:
                self._sentence_keys = SentenceKeys.empty()
        return self._sentence_keys

    @property
    def lexicon_keys(self) -> LexiconKeys:
        """Keys of the literals and names, for the index to find programs that say the
        same things (none if the mode keeps no lexicon)."""
        if self._lexicon_keys is None:
            if self.mode.lexical:
                self._lexicon_keys = lexicon_keys(self.lexicon, self.mode.salt)
            else:
                self._lexicon_keys = LexiconKeys.empty()
        return self._lexicon_keys

    @property
    def keys(self) -> DocumentKeys:
        """Everything the index needs of this document."""
        return DocumentKeys(
            self.fingerprints, self.sentence_keys, self.unit_count, self.lexicon_keys
        )

    def known_keys(self) -> DocumentKeys | None:
        """The keys if they were computed already, else None (nothing is computed)."""
        known = (self._fingerprints, self._sentence_keys, self._lexicon_keys)
        if any(k is None for k in known):
            return None
        return DocumentKeys(
            self._fingerprints, self._sentence_keys, self.unit_count, self._lexicon_keys
        )

    @property
    def lexicon(self) -> Lexicon:
        """Literals and names (code), for judging how alike two programs are as a whole."""
        if self._lexicon is None:
            self._lexicon = self.mode.lexicon(self.matched, self.name)
        return self._lexicon

    def assume_unit_count(self, count: int) -> None:
        """Take the number of units as known (from the index, for this same text), so
        that it is not cut up only to count them."""
        if self._units is None:
            self._unit_count = count

    def use_keys(self, keys: DocumentKeys) -> None:
        """Take keys computed earlier from this same text and mode."""
        self._fingerprints = keys.fingerprints
        self._sentence_keys = keys.sentence_keys
        self._lexicon_keys = keys.lexicon_keys
        self._unit_count = keys.units
        self._fingerprint_offsets = None

    def drop_units(self) -> None:
        """Drop the units (the largest part, and quick to make again)."""
        self._units = None
        self._chars = None

    def forget(self) -> None:
        """Drop the units, sentences and lexicon; the keys stay for the index."""
        self._units = None
        self._chars = None
        self._sentences = None
        self._lexicon = None
        self._fingerprint_offsets = None
        self._matched = None


def keys_of(documents: Sequence[Document]) -> list[DocumentKeys]:
    """The keys of many documents, the same as each one's :attr:`Document.keys`.

    Documents whose mode cuts characters and has a paraphrase stage are joined
    per mode (engine/joined) and cut into units and sentences together; a
    refresh of many small files spends its time there.
    """
    together: dict[Mode, list[Document]] = {}
    for document in documents:
        if document.mode.paraphrase and document.mode.units_from_chars:
            together.setdefault(document.mode, []).append(document)
    for mode, group in together.items():
        for part in _parts(group):
            if len(part) > 1:
                _cut_together(mode, part)
    return [document.keys for document in documents]


#: Documents are joined up to about this many characters at a time. The joined
#: arrays are passed over many times; beyond a few hundred kilobytes they fall out
#: of the processor's cache, and keying a megabyte at once took 15-20% longer
#: (0-10% with numpy's blocks kept in the heap: heap.keep_freed_arrays).
JOIN_CHARS = 1 << 18


def _parts(documents: list[Document]) -> list[list[Document]]:
    """Consecutive runs of ``documents`` of at most JOIN_CHARS characters each (a
    longer document alone)."""
    parts: list[list[Document]] = []
    size = 0
    for document in documents:
        length = len(document.matched)
        if not parts or size + length > JOIN_CHARS:
            parts.append([])
            size = 0
        parts[-1].append(document)
        size += length
    return parts


def prepare_together(documents: Sequence[Document], fingerprints: bool = True) -> None:
    """Make at once, for many documents, what aligning them asks of each: sentences (for
    the paraphrase stage) and, where the mode cuts characters, fingerprints with their
    text offsets (unless not ``fingerprints``: documents only compared sentence by
    sentence); and the sentences' term counts. A scan aligns thousands of short
    documents, and one at a time these cost more in numpy calls than in work
    (engine/joined). Units are not kept: they are the largest part, and only documents
    with a passage need them."""
    wanting = [d for d in documents if d.mode.paraphrase and d._sentences is None]
    together: dict[Mode, list[Document]] = {}
    alone = []
    for document in wanting:
        if fingerprints and document.mode.units_from_chars and document._fingerprints is None:
            together.setdefault(document.mode, []).append(document)
        else:
            alone.append(document)
    for group in (part for mode_group in together.values() for part in _parts(mode_group)):
        joined, chars, units, unit_cuts, prints = _fingerprints_together(group[0].mode, group)
        sentences = split_joined(joined, chars)
        for i, document in enumerate(group):
            first = int(unit_cuts[i])
            document._unit_count = int(unit_cuts[i + 1]) - first
            document._fingerprints = prints[i]
            document._fingerprint_offsets = (
                units.starts[prints[i].positions + first] - joined.starts[i]
            )
            document._sentences = sentences[i]
    for part in _parts(alone):
        for document, sentences in zip(part, split_each([d.matched for d in part]), strict=True):
            document._sentences = sentences
    give_cells_together([d._sentences for d in wanting])


def _fingerprints_together(
    mode: Mode, documents: list[Document]
) -> tuple[Joined, Units, Units, np.ndarray, list[Fingerprints]]:
    """The documents joined, their characters and units, where each one's units start
    (and the end), and each one's fingerprints."""
    joined = Joined.of([d.matched for d in documents])
    chars = char_units(joined.text)
    units = mode.units(joined.text, None, chars)
    unit_cuts = joined.cuts(units.starts)
    skip = quoted_mask(joined.text, units.starts, joined.pieces) if mode.skip_quotations else None
    prints = fingerprint_each(units, unit_cuts, mode.k, mode.window, mode.salt, skip)
    return joined, chars, units, unit_cuts, prints


def _cut_together(mode: Mode, documents: list[Document]) -> None:
    """Give each document its units, fingerprints and sentence keys, computed for all
    at once."""
    joined, chars, units, unit_cuts, prints = _fingerprints_together(mode, documents)
    sentences = split_sentences(joined.text, chars, joined.pieces)
    keys = sentence_keys(sentences, units.starts, mode.salt)
    key_cuts = np.searchsorted(keys.positions, unit_cuts)
    for i, document in enumerate(documents):
        lo, hi = int(unit_cuts[i]), int(unit_cuts[i + 1])
        document._unit_count = hi - lo
        document._fingerprints = prints[i]
        first, last = int(key_cuts[i]), int(key_cuts[i + 1])
        document._sentence_keys = SentenceKeys(
            keys.hashes[first:last], keys.positions[first:last] - lo
        )
