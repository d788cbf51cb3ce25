"""Sentences as bags of content words: the units that survive rewording.

A paraphrase keeps few runs of characters but many of its words' stems, in the
same sentences. So the second stage of alignment (engine/paraphrase.py) looks
at sentences: each is the set of stems of its words, minus the words every
text has ("the", "of", "is"). Chinese, Japanese and Korean have no spaces to
find words by, so each of their characters is a term of its own (as it is a
word of its own in engine/words).

Stems come from the Snowball stemmer (snowballstemmer, which uses the C
implementation PyStemmer when installed), computed once per distinct word. A
term is named by a stable 64-bit hash of its stem, the same in every process
and every session, so sentence keys (engine/sentence_keys) can be saved in the
index and computed in worker processes.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from doublet.engine.chars import char_units, code_points
from doublet.engine.joined import Joined
from doublet.engine.point_runs import blank_lines, in_table, piece_ends_of, run_end, table_of
from doublet.engine.symbol_table import SymbolTable
from doublet.engine.units import Units
from doublet.engine.words import words_of

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

#: Where a sentence ends: the gap (group 1, or an empty group 2 after CJK punctuation)
#: after a full stop, or a blank line. The rule as written; ``sentence_gaps`` finds its
#: matches in all documents of a batch at once (tests hold the two to each other).
_SENTENCE_END = re.compile(r"[.!?。！？]([\"'”’)\]]*\s+)|[。！？]()|\n[ \t]*\n")


#: The characters of _SENTENCE_END as tables over code points, for ``sentence_gaps``.
_STOP = table_of(".!?。！？")
_CJK_STOP = table_of("。！？")
_CLOSER = table_of("\"'”’)]")
#: Whitespace: what ``\s`` matches and ``str.strip()`` removes (none lies above U+3000).
_WHITESPACE = table_of("".join(chr(c) for c in range(0x3001) if chr(c).isspace()))


_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+")


@lru_cache(maxsize=1)
def _stemmer():
    import snowballstemmer  # imported on first use: only the second stage needs it

    return snowballstemmer.stemmer("english")


NO_TERM = 0  # what a word that says nothing (a stop word, a number, one letter) maps to


class _WordTerms:
    """Word (by its 64-bit symbol from engine/words) -> term id, shared by all documents
    and threads (a language server keys files on its indexer thread while it answers
    an edit on another).

    A hash table (engine/symbol_table), so every word of a batch is looked up
    at once; words never seen are stemmed in Python and added. Emptied when it
    grows past ``limit`` words (a long-running server reads many).
    """

    def __init__(self, limit: int = 2_000_000) -> None:
        self.limit = limit
        self._table = SymbolTable()
        self._lock = threading.Lock()  # the table is changed in place

    def lookup(self, symbols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Term ids of ``symbols``, and a mask of those not known yet."""
        with self._lock:
            terms, known = self._table.lookup(symbols)
        return terms, ~known

    def learn(self, symbols: np.ndarray, terms: np.ndarray) -> None:
        """Keep the terms of distinct ``symbols`` (another thread may have learned some
        of them since they were looked up)."""
        with self._lock:
            if len(self._table) + symbols.shape[0] > self.limit:
                self._table = SymbolTable()
            _, known = self._table.lookup(symbols)
            self._table.add(symbols[~known], terms[~known])


_WORD_TERMS = _WordTerms()


def _terms_of_words(words: list[str]) -> list[int]:
    """Each word's term id: a CJK character is a term of its own; a stop word, a number
    or one letter says nothing (NO_TERM); any other word is its stem. Stems are made
    for all words at once (one call into the stemmer's C loop)."""
    found = [NO_TERM] * len(words)
    to_stem, at = [], []
    for i, word in enumerate(words):
        if _CJK.search(word):
            found[i] = term_id(word)
        elif not (word in STOP_WORDS or word.isdigit() or len(word) < 2):
            to_stem.append(word)
            at.append(i)
    ids: dict[str, int] = {}  # each stem hashed once
    for i, stemmed in zip(at, _stemmer().stemWords(to_stem), strict=True):
        found[i] = ids.get(stemmed) or ids.setdefault(stemmed, term_id(stemmed))
    return found


def word_terms(text: str, chars: Units | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(text offset, term id) of every content word of ``text``.

    Words come from the folded characters (engine/words; ``chars`` if the
    caller has them already), and each is looked up by its symbol: a word is
    stemmed the first time a process meets it, not at every occurrence.
    """
    chars = char_units(text) if chars is None else chars
    words, first_char = words_of(chars)
    if not len(words):
        nothing = np.zeros(0, dtype=np.int64)
        return nothing, nothing
    ids, unknown = _WORD_TERMS.lookup(words.symbols)
    if unknown.any():
        # each new word once, its folded letters sliced from the folded text made at
        # once (not the whole text as a list of numbers for each batch with a new word)
        missing = np.flatnonzero(unknown)
        new, first, inverse = np.unique(
            words.symbols[missing], return_index=True, return_inverse=True
        )
        letters = chars.symbols.astype("<u4").tobytes().decode("utf-32-le", "surrogatepass")
        word = missing[first]
        starts = first_char[word].tolist()
        ends = np.append(first_char[1:], len(chars))[word].tolist()
        learned = np.array(
            _terms_of_words([letters[a:b] for a, b in zip(starts, ends, strict=True)]),
            dtype=np.int64,
        )
        _WORD_TERMS.learn(new, learned)
        ids[missing] = learned[inverse]
    keep = ids != NO_TERM
    return words.starts[keep], ids[keep]


def terms(text: str) -> list[int]:
    """Content term ids of a stretch of text (for tests and for showing what is compared)."""
    return word_terms(text)[1].tolist()


def term_id(term: str) -> int:
    """A term's stable name: a 64-bit hash of its text (never NO_TERM)."""
    digest = hashlib.blake2b(term.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "little", signed=True) or 1


@dataclass(frozen=True)
class TermCells:
    """A document's sentences as a sparse matrix of term counts, made once per document.

    ``vocabulary`` is the sorted distinct term ids; each cell is a (sentence,
    term) with its count, sorted by sentence then term (``terms`` index the
    vocabulary); ``frequency`` counts the sentences holding each term.
    """

    vocabulary: np.ndarray
    rows: np.ndarray
    terms: np.ndarray
    counts: np.ndarray
    frequency: np.ndarray


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

    @cached_property
    def cells(self) -> TermCells:
        """The term counts of every sentence (for the paraphrase stage's weights)."""
        vocabulary, terms = np.unique(self.term_ids, return_inverse=True)
        width = max(vocabulary.shape[0], 1)
        cells, counts = np.unique(self.owners * width + terms, return_counts=True)
        rows, cell_terms = cells // width, cells % width
        frequency = np.bincount(cell_terms, minlength=vocabulary.shape[0])
        return TermCells(vocabulary, rows, cell_terms, counts, frequency)

    def terms_of(self, sentence: int) -> np.ndarray:
        return self.term_ids[self.owners == sentence]

    def without(self, dropped: np.ndarray, kept: np.ndarray) -> Sentences:
        """The same sentences, those where most fingerprints were dropped emptied.

        ``dropped`` and ``kept`` are the text offsets of the fingerprints left
        out (boilerplate, templates) and of the others: a sentence of a template
        loses all its fingerprints and is emptied; a sentence holding one stock
        phrase keeps the rest and stays.
        """
        if dropped.shape[0] == 0 or not len(self):
            return self
        dropped_in = self._count_in(dropped)
        empty = np.flatnonzero(dropped_in > self._count_in(kept))
        if not empty.shape[0]:
            return self
        keep = ~np.isin(self.owners, empty)
        return Sentences(self.starts, self.ends, self.term_ids[keep], self.owners[keep])

    def _count_in(self, offsets: np.ndarray) -> np.ndarray:
        """How many of ``offsets`` fall inside each sentence."""
        hit = np.searchsorted(self.starts, offsets, side="right") - 1
        inside = (hit >= 0) & (offsets < self.ends[np.maximum(hit, 0)])
        return np.bincount(hit[inside], minlength=len(self))


def give_cells_together(each: Sequence[Sentences]) -> None:
    """Make the :attr:`Sentences.cells` of many documents' sentences at once, the same
    as each alone: a few sorts over all of them instead of two ``np.unique`` per
    document (a scan aligns thousands of short documents; engine/joined).

    Each sort is of one integer key (the term's number, then document and term, then
    sentence and term numbered across the documents): a ``lexsort`` of two keys took
    twice as long, a quarter of cutting an editor's candidates into sentences."""
    lengths = np.array([s.term_ids.shape[0] for s in each], dtype=np.int64)
    if not each or not lengths.sum():
        return
    document = np.repeat(np.arange(len(each)), lengths)
    # sentences numbered across the documents, in document order
    sentences = np.array([int(s.owners.max(initial=-1)) + 1 for s in each], dtype=np.int64)
    first_sentence = np.cumsum(sentences) - sentences
    owners = np.concatenate([s.owners for s in each]) + np.repeat(first_sentence, lengths)
    # each document's vocabulary: its distinct term ids, ascending, documents in order
    every_term, term = np.unique(np.concatenate([s.term_ids for s in each]), return_inverse=True)
    width = every_term.shape[0]
    vocabulary_keys, global_term = np.unique(document * width + term, return_inverse=True)
    vocabulary = every_term[vocabulary_keys % width]
    term_document = vocabulary_keys // width
    widths = np.bincount(term_document, minlength=len(each))
    first_term = np.cumsum(widths) - widths  # where each document's vocabulary begins
    # each document's cells: distinct (sentence, term), by sentence then term
    count = vocabulary_keys.shape[0]
    cells, counts = np.unique(owners * count + global_term, return_counts=True)
    terms = cells % count
    cell_document = term_document[terms]
    rows = cells // count - first_sentence[cell_document]
    frequency = np.bincount(terms, minlength=count)
    cells_of = np.bincount(cell_document, minlength=len(each))
    first_cell = np.cumsum(cells_of) - cells_of
    for i, sentences_of in enumerate(each):
        if not lengths[i]:
            continue  # made alone when asked for: an empty vocabulary is no work
        lo, hi = int(first_term[i]), int(first_term[i] + widths[i])
        c0, c1 = int(first_cell[i]), int(first_cell[i] + cells_of[i])
        sentences_of.__dict__["cells"] = TermCells(  # the cached_property's own place
            # copies: a view would keep the whole batch's arrays while one document is kept
            vocabulary[lo:hi].copy(),
            rows[c0:c1].copy(),
            terms[c0:c1] - lo,
            counts[c0:c1].copy(),
            frequency[lo:hi].copy(),
        )


def split(
    text: str, chars: Units | None = None, pieces: Sequence[tuple[int, int]] | None = None
) -> Sentences:
    """Cut ``text`` into sentences; short ones (a heading, "Yes.") join the next.

    ``chars`` are the text's character units (engine/chars), if already made.
    ``text`` may be several documents joined (engine/joined), ``pieces`` the
    ``[start, end)`` of each (ascending, never overlapping): each is cut as it
    would be alone, and a short sentence joins only sentences of its own document.
    """
    pieces = pieces or [(0, len(text))]
    piece_starts = np.array([start for start, _ in pieces], dtype=np.int64)
    piece_ends = np.array([end for _, end in pieces], dtype=np.int64)
    points = code_points(text)
    gap_starts, gap_ends = sentence_gaps(points, piece_starts, piece_ends)
    # each piece's sentences run from its start to the first gap, between gaps, and
    # from the last gap to its end
    sentence_starts = np.sort(np.concatenate([piece_starts, gap_ends]))
    sentence_ends = np.sort(np.concatenate([gap_starts, piece_ends]))
    # a piece's first sentence comes after the earlier pieces' sentences: each piece has
    # one more than its gaps; an empty gap where a piece starts ends the piece before
    # it (a CJK stop ending an adjacent piece), any other gap there is the piece's own
    empty_gaps = gap_starts[gap_starts == gap_ends]
    earlier = (
        np.searchsorted(gap_starts, piece_starts, side="left")
        + np.searchsorted(empty_gaps, piece_starts, side="right")
        - np.searchsorted(empty_gaps, piece_starts, side="left")
    )
    firsts = (np.arange(len(pieces)) + earlier).tolist()
    at, ids = word_terms(text, chars)
    owners = np.searchsorted(sentence_starts, at, side="right") - 1
    per_sentence = np.bincount(owners, minlength=sentence_starts.shape[0])
    group = _groups(per_sentence.tolist(), firsts)
    count = int(group[-1]) + 1 if group.shape[0] else 0
    # groups are runs of consecutive sentences: each spans its first start to its last end
    bounds = np.flatnonzero(np.diff(group, prepend=-1))
    first = sentence_starts[bounds]
    last = sentence_ends[np.append(bounds[1:], group.shape[0]) - 1]
    first, last = _trimmed(points, first, last)
    keep = last > first
    remap = np.full(count, -1, dtype=np.int64)
    remap[keep] = np.arange(int(keep.sum()))
    owners = remap[group[owners]]
    valid = owners >= 0
    return Sentences(first[keep], last[keep], ids[valid], owners[valid])


def sentence_gaps(
    points: np.ndarray, piece_starts: np.ndarray, piece_ends: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``[start, end)`` of every gap between two sentences of the pieces of a text (its
    code points), ascending: what ``_SENTENCE_END.finditer`` over each piece would
    give, found for all pieces at once with array operations (one match at a time
    cost a third of cutting prose into sentences).

    A gap begins right after a full stop and holds the closing quotes or brackets
    and the whitespace after them; after a CJK stop with no whitespace after its
    closers, it is empty (right after the stop). A blank line is a gap too, unless
    the whitespace after a full stop holds it; blank lines in a row pair their
    newlines from the first. ``piece_starts`` and ``piece_ends`` are ascending, the
    pieces apart or adjacent, never overlapping.
    """

    # after a full stop: its closers, then whitespace up to the next character that is not
    stops = np.flatnonzero(in_table(_STOP, points))
    stop_piece_ends, inside = piece_ends_of(stops, piece_starts, piece_ends)
    stops, stop_piece_ends = stops[inside], stop_piece_ends[inside]
    after_closers = run_end(points, _CLOSER, stops + 1, stop_piece_ends)
    spaced = after_closers < stop_piece_ends
    spaced[spaced] = in_table(_WHITESPACE, points[after_closers[spaced]])
    stop_ends = np.where(
        spaced, run_end(points, _WHITESPACE, after_closers, stop_piece_ends), stops + 1
    )
    matched = spaced | in_table(_CJK_STOP, points[stops])
    stop_starts, stop_ends = stops[matched] + 1, stop_ends[matched]
    # blank lines: newlines with only spaces or tabs between, outside the gaps above
    lines = np.flatnonzero(points == 0x0A)
    line_piece_ends, inside = piece_ends_of(lines, piece_starts, piece_ends)
    gap = np.searchsorted(stop_starts, lines, side="right") - 1
    in_gap = lines < np.append(stop_ends, 0)[gap]  # the gap at or before each, if any
    lines, line_piece_ends = lines[inside & ~in_gap], line_piece_ends[inside & ~in_gap]
    pairs = blank_lines(points, lines, line_piece_ends)
    starts = np.concatenate([stop_starts, lines[pairs]])
    ends = np.concatenate([stop_ends, lines[pairs + 1] + 1])
    order = np.argsort(starts, kind="stable")
    return starts[order], ends[order]


def split_each(texts: Sequence[str]) -> list[Sentences]:
    """The sentences of each of ``texts``, the same as :func:`split` of each, cut
    together (engine/joined) at a fraction of the cost for short texts."""
    if not texts:
        return []
    return split_joined(Joined.of(texts), None)


def split_joined(joined: Joined, chars: Units | None) -> list[Sentences]:
    """The sentences of each text of ``joined`` (``chars``: its character units, if
    made), cut together."""
    together = split(joined.text, chars, joined.pieces)
    sentence_cuts = joined.cuts(together.starts).tolist()
    term_cuts = np.searchsorted(together.owners, sentence_cuts).tolist()
    starts, ends = together.starts, together.ends
    each = []
    for i, base in enumerate(joined.starts.tolist()):
        lo, hi = sentence_cuts[i], sentence_cuts[i + 1]
        first, last = term_cuts[i], term_cuts[i + 1]
        each.append(
            Sentences(
                starts[lo:hi] - base,
                ends[lo:hi] - base,
                together.term_ids[first:last],
                together.owners[first:last] - lo,
            )
        )
    return each


def _groups(sizes: list[int], firsts: list[int]) -> np.ndarray:
    """The group of each sentence: runs of sentences with MIN_TERMS terms or more,
    in each document (``firsts``: its first sentence); a short tail joins the group
    before it."""
    group = [0] * len(sizes)
    current = 0
    for first, stop in zip(firsts, [*firsts[1:], len(sizes)], strict=True):
        opened, began, size = current, first, 0
        for i in range(first, stop):
            group[i] = current
            size += sizes[i]
            if size >= MIN_TERMS:
                current, began, size = current + 1, i + 1, 0
        if began < stop:  # the document's last group is still open
            if size and current > opened:  # a short tail: it joins the group before it
                group[began:stop] = [current - 1] * (stop - began)
            else:
                current += 1
    return np.array(group, dtype=np.int64)


def _trimmed(
    points: np.ndarray, starts: np.ndarray, ends: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The spans ``[starts, ends)`` of a text (its code points) without surrounding
    whitespace (empty ones: start == end)."""
    if not starts.shape[0]:
        return starts, ends
    solid = np.flatnonzero(~in_table(_WHITESPACE, points))
    if not solid.shape[0]:
        return starts, starts
    first = np.searchsorted(solid, starts, side="left")  # first solid character at or after
    last = np.searchsorted(solid, ends, side="left") - 1  # last solid character before the end
    has = (first < solid.shape[0]) & (last >= first)
    new_starts = np.where(has, solid[np.minimum(first, solid.shape[0] - 1)], starts)
    new_ends = np.where(has, solid[np.maximum(last, 0)] + 1, starts)
    return new_starts, new_ends
