"""A document as the engine sees it: decoded text, a mode, units and fingerprints.

Units and fingerprints are derived from the text on first use and cached; they
can be dropped (:meth:`Document.forget`) to save memory and recomputed later,
because they are a pure function of text and mode.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from doublet.engine.code import Lexicon
from doublet.engine.fingerprints import Fingerprints, fingerprint
from doublet.engine.modes import Mode
from doublet.engine.quotes import quoted_mask
from doublet.engine.sentences import Sentences
from doublet.engine.sentences import split as split_sentences
from doublet.engine.units import Units


@dataclass(eq=False)
class Document:
    """Text with the mode it is matched in; ``name`` is how reports refer to it."""

    name: str
    text: str
    mode: Mode
    _units: Units | None = field(default=None, repr=False)
    _fingerprints: Fingerprints | None = field(default=None, repr=False)
    _unit_count: int | None = field(default=None, repr=False)
    _sentences: Sentences | None = field(default=None, repr=False)
    _lexicon: Lexicon | None = field(default=None, repr=False)

    @property
    def units(self) -> Units:
        if self._units is None:
            self._units = self.mode.units(self.text, self.name)
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
            skip = quoted_mask(self.text, self.units.starts) if self.mode.skip_quotations else None
            self._fingerprints = fingerprint(self.units, self.mode, skip)
        return self._fingerprints

    @property
    def sentences(self) -> Sentences:
        """The text's sentences as content terms, for the paraphrase stage."""
        if self._sentences is None:
            self._sentences = split_sentences(self.text)
        return self._sentences

    @property
    def lexicon(self) -> Lexicon:
        """Literals and names (code), for judging how alike two programs are as a whole."""
        if self._lexicon is None:
            self._lexicon = self.mode.lexicon(self.text, self.name)
        return self._lexicon

    def use_fingerprints(self, fingerprints: Fingerprints) -> None:
        """Take fingerprints computed earlier from this same text and mode."""
        self._fingerprints = fingerprints

    def forget(self) -> None:
        """Drop the units, sentences and lexicon; fingerprints stay for the index."""
        self._units = None
        self._sentences = None
        self._lexicon = None

    def line_of(self, offset: int) -> int:
        """1-based line number of a code-point offset."""
        return self.text.count("\n", 0, offset) + 1
