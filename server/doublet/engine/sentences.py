"""Sentences as bags of content words: the units that survive rewording.

A paraphrase keeps few runs of characters but many of its words' stems, in the
same sentences. So the second stage of alignment (engine/paraphrase.py) looks
at sentences: each is the set of stems of its words, minus the words every
text has ("the", "of", "is"). Chinese, Japanese and Korean have no spaces to
find words by, so each of their characters is a term of its own (as it is a
word of its own in engine/words).

Stems come from the Snowball stemmer (snowballstemmer, which uses the C
implementation PyStemmer when installed), computed once per distinct word.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from doublet.engine.words import words_and_chars

#: Frequent English function words: they say nothing about what a sentence is about.
STOP_WORDS = frozenset(
    "a about above after again against all also am an and any are as at be because been "
    "before being below between both but by can could did do does doing down during each "
    "few for from further had has have having he her here hers herself him himself his how "
    "i if in into is it its itself just may me might more most much must my myself no nor "
    "not now of off on once one only or other our ours ourselves out over own same shall she "
    "should so some such than that the their theirs them themselves then there these they "
    "this those through to too two under until up upon us very was we were what when where "
    "which while who whom why will with would you your yours yourself yourselves".split()
)

#: Sentences with fewer content words than this are joined to the next one.
MIN_TERMS = 4

_SENTENCE_END = re.compile(r"(?<=[.!?。！？])[\"'”’)\]]*\s+|(?<=[。！？])|\n[ \t]*\n")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+")


@lru_cache(maxsize=1)
def _stemmer():
    import snowballstemmer  # imported on first use: only the second stage needs it

    return snowballstemmer.stemmer("english")


@lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    return _stemmer().stemWord(word)


#: Word (by its 64-bit symbol from engine/words) -> term id, or -1 for a word that
#: says nothing (a stop word, a number, one letter). Shared by all documents.
_WORD_TERM: dict[int, int] = {}


def _term_of_word(word: str) -> int:
    if _CJK.search(word):
        return term_id(word)  # one CJK character: a term of its own
    if word in STOP_WORDS or word.isdigit() or len(word) < 2:
        return -1
    return term_id(stem(word))


def word_terms(text: str) -> tuple[np.ndarray, np.ndarray]:
    """(text offset, term id) of every content word of ``text``.

    Words come from the folded characters (engine/words), so a stem is looked
    up once per distinct word of the document, not once per occurrence.
    """
    words, chars, first_char = words_and_chars(text)
    if not len(words):
        nothing = np.zeros(0, dtype=np.int64)
        return nothing, nothing
    distinct, first, inverse = np.unique(words.symbols, return_index=True, return_inverse=True)
    table = np.empty(distinct.shape[0], dtype=np.int64)
    unknown = []
    for i, symbol in enumerate(distinct.tolist()):
        found = _WORD_TERM.get(symbol)
        if found is None:
            unknown.append(i)
        else:
            table[i] = found
    if unknown:
        ends = np.append(first_char[1:], len(chars))
        letters = chars.symbols.tolist()
        for i in unknown:
            w = int(first[i])
            word = "".join(map(chr, letters[first_char[w] : ends[w]]))
            found = _term_of_word(word)
            _WORD_TERM[int(distinct[i])] = found
            table[i] = found
    ids = table[inverse]
    keep = ids >= 0
    return words.starts[keep], ids[keep]


def terms(text: str) -> list[int]:
    """Content term ids of a stretch of text (for tests and for showing what is compared)."""
    return word_terms(text)[1].tolist()


#: Terms as integers, the same for every document (so pairs compare arrays, not strings).
_TERM_IDS: dict[str, int] = {}


def term_id(term: str) -> int:
    found = _TERM_IDS.get(term)
    if found is None:
        found = _TERM_IDS.setdefault(term, len(_TERM_IDS))
    return found


@dataclass(frozen=True)
class Sentences:
    """A text's sentences: their spans (code-point offsets) and content terms.

    Terms are flat arrays: ``term_ids[i]`` occurs in sentence ``owners[i]``.
    """

    starts: np.ndarray
    ends: np.ndarray
    term_ids: np.ndarray
    owners: np.ndarray

    def __len__(self) -> int:
        return int(self.starts.shape[0])

    def terms_of(self, sentence: int) -> np.ndarray:
        return self.term_ids[self.owners == sentence]

    def without(self, offsets: np.ndarray) -> Sentences:
        """The same sentences, those holding any of ``offsets`` emptied (boilerplate)."""
        if offsets.shape[0] == 0 or not len(self):
            return self
        hit = np.searchsorted(self.starts, offsets, side="right") - 1
        hit = np.unique(hit[(hit >= 0) & (offsets < self.ends[np.maximum(hit, 0)])])
        if not hit.shape[0]:
            return self
        keep = ~np.isin(self.owners, hit)
        return Sentences(self.starts, self.ends, self.term_ids[keep], self.owners[keep])


def split(text: str) -> Sentences:
    """Cut ``text`` into sentences; short ones (a heading, "Yes.") join the next."""
    bounds = [0]
    for match in _SENTENCE_END.finditer(text):
        bounds.extend((match.start(), match.end()))
    bounds.append(len(text))
    starts = np.array(bounds[0::2], dtype=np.int64)
    ends = np.array(bounds[1::2], dtype=np.int64)
    at, ids = word_terms(text)
    owners = np.searchsorted(starts, at, side="right") - 1
    per_sentence = np.bincount(owners, minlength=starts.shape[0])
    # join sentences with too few terms to the next one (the last to the one before)
    group = np.zeros(starts.shape[0], dtype=np.int64)
    current, size = 0, 0
    for i, n in enumerate(per_sentence.tolist()):
        group[i] = current
        size += n
        if size >= MIN_TERMS:
            current, size = current + 1, 0
    if size and current > 0:  # a short tail joins the group before it
        group[group == current] = current - 1
    count = int(group.max()) + 1 if group.shape[0] else 0
    first = np.full(count, np.iinfo(np.int64).max)
    last = np.zeros(count, dtype=np.int64)
    np.minimum.at(first, group, starts)
    np.maximum.at(last, group, ends)
    spans = [
        _trim(text, int(a), int(b)) for a, b in zip(first.tolist(), last.tolist(), strict=True)
    ]
    keep = [i for i, (a, b) in enumerate(spans) if b > a]
    remap = np.full(count, -1, dtype=np.int64)
    remap[keep] = np.arange(len(keep))
    owners = remap[group[owners]]
    valid = owners >= 0
    return Sentences(
        np.array([spans[i][0] for i in keep], dtype=np.int64),
        np.array([spans[i][1] for i in keep], dtype=np.int64),
        ids[valid],
        owners[valid],
    )


def split_spans(text: str, spans: list[tuple[int, int]]) -> Sentences:
    """The sentences of some stretches of ``text`` only (sorted, disjoint ``(start, end)``).

    Offsets stay offsets into the whole text. A stretch cut inside a sentence
    keeps the part of it that it holds.
    """
    parts = [split(text[start:end]) for start, end in spans]
    shifts = [start for start, _ in spans]
    counts = np.cumsum([0, *(len(p) for p in parts)])
    if not parts:
        nothing = np.zeros(0, dtype=np.int64)
        return Sentences(nothing, nothing, nothing, nothing)
    return Sentences(
        np.concatenate([p.starts + shift for p, shift in zip(parts, shifts, strict=True)]),
        np.concatenate([p.ends + shift for p, shift in zip(parts, shifts, strict=True)]),
        np.concatenate([p.term_ids for p in parts]),
        np.concatenate([p.owners + first for p, first in zip(parts, counts[:-1], strict=True)]),
    )


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """The span without surrounding whitespace."""
    segment = text[start:end]
    stripped = segment.strip()
    if not stripped:
        return (start, start)
    lead = len(segment) - len(segment.lstrip())
    return (start + lead, start + lead + len(stripped))
