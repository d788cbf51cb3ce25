"""Passages between two prose documents: edges, scores, edits, repeats and pair figures."""

from __future__ import annotations

import random
import string
import textwrap
from collections import Counter
from pathlib import Path
from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from doublet.engine import passages
from doublet.engine.chars import fold_text
from doublet.engine.comparison import PairResult, compare
from doublet.engine.document import Document
from doublet.engine.fingerprints import Fingerprints
from doublet.engine.modes import MODES
from doublet.engine.passages import Passage, _exact_runs, chain_seeds, union_length

PROSE = MODES["prose"]
SEEDS = Path(__file__).resolve().parents[1] / "data" / "seeds"
EDGE_JUNK = string.punctuation + string.whitespace

PARAGRAPH = (
    "The lighthouse keeper climbed the spiral stairs every evening at dusk. "
    "He carried a tin of oil, a clean rag and a small notebook in which he recorded the weather. "
    "Storms came often in the autumn, and on those nights he did not sleep at all. "
    "Ships passing the headland signalled their thanks with three short blasts of the horn. "
    "Years later, when the light was automated, he kept the notebooks in a cedar chest by the "
    "window."
)
BREAD = (
    "Bread rises because yeast consumes sugars and releases carbon dioxide into the dough. "
    "A baker controls the temperature of the kitchen carefully, since warmth speeds "
    "fermentation and cold slows it down."
)
GLACIERS = (
    "Mountain glaciers retreat when summer melting outpaces the snowfall of winter. "
    "Geologists measure the retreat with stakes drilled into the ice and with aerial "
    "photographs taken every few years."
)
SCRIBES = (
    "Medieval scribes prepared parchment from calfskin, scraping it thin and rubbing it with "
    "chalk. Their inks were made from oak galls, iron salts and gum arabic."
)
OCTOPUS = (
    "Octopuses can change the colour and texture of their skin within a fraction of a second. "
    "They do so with chromatophores, small elastic sacs of pigment surrounded by muscles. "
    "Researchers still debate how an animal that is probably colour-blind matches its "
    "background so well."
)
SHORT_SENTENCE = (
    "Ships passing the headland signalled their thanks with three short blasts of the horn "
    "every night."
)
CHESS = (
    "A chess clock holds two timers, and pressing one button stops your own timer while it "
    "starts that of your opponent. Tournament rules decide what happens when a flag falls."
)


def prose(name: str, *paragraphs: str) -> Document:
    return Document(name, "\n\n".join(paragraphs), PROSE)


def tidy(text: str) -> str:
    """Whitespace collapsed and punctuation trimmed from both ends."""
    return " ".join(text.split()).strip(EDGE_JUNK)


def a_text(result: PairResult, passage: Passage) -> str:
    return result.a.text[passage.a.start : passage.a.end]


def b_text(result: PairResult, passage: Passage) -> str:
    return result.b.text[passage.b.start : passage.b.end]


def swap_middle_sentences(paragraph: str) -> str:
    first, second, third, *rest = paragraph.split(". ")
    return ". ".join([first, third, second, *rest])


def test_a_rewrapped_verbatim_paragraph_is_one_passage_with_exact_edges() -> None:
    a = prose("a", BREAD, PARAGRAPH, SCRIBES)
    b = prose("b", GLACIERS, textwrap.fill(PARAGRAPH, 50))
    result = compare(a, b)
    assert len(result.passages) == 1
    passage = result.passages[0]
    assert tidy(a_text(result, passage)) == tidy(PARAGRAPH)
    assert tidy(b_text(result, passage)) == tidy(PARAGRAPH)
    assert passage.score == 1.0
    assert passage.a.units == passage.b.units == len(fold_text(PARAGRAPH))


def test_passage_sides_agree_with_the_units_they_span() -> None:
    result = compare(prose("a", BREAD, PARAGRAPH), prose("b", textwrap.fill(PARAGRAPH, 40)))
    for passage, units in [
        (result.passages[0].a, result.a.units),
        (result.passages[0].b, result.b.units),
    ]:
        assert (passage.start, passage.end) == units.span(passage.first, passage.stop)


def test_a_lightly_edited_copy_is_one_passage_scored_below_one() -> None:
    edited = (
        PARAGRAPH.replace("every evening", "each evening")
        .replace("a clean rag and ", "a rag and ")
        .replace("three short blasts", "three short and cheerful blasts")
        .replace("cedar chest", "wooden chest")
    )
    result = compare(prose("a", BREAD, PARAGRAPH), prose("b", GLACIERS, edited))
    assert len(result.passages) == 1
    passage = result.passages[0]
    assert PROSE.min_score <= passage.score < 1.0
    assert a_text(result, passage).startswith("The lighthouse keeper")
    assert b_text(result, passage).startswith("The lighthouse keeper")
    assert passage.a.units >= 0.9 * len(fold_text(PARAGRAPH))
    assert passage.b.units >= 0.9 * len(fold_text(edited))


def test_swapping_two_middle_sentences_leaves_one_passage() -> None:
    swapped = swap_middle_sentences(PARAGRAPH)
    assert swapped != PARAGRAPH
    result = compare(prose("a", BREAD, PARAGRAPH), prose("b", GLACIERS, swapped))
    assert len(result.passages) == 1
    passage = result.passages[0]
    assert tidy(a_text(result, passage)) == tidy(PARAGRAPH)
    assert tidy(b_text(result, passage)) == tidy(swapped)


def test_unrelated_texts_share_no_passage() -> None:
    result = compare(prose("a", PARAGRAPH, BREAD, SCRIBES), prose("b", GLACIERS, OCTOPUS, CHESS))
    assert result.passages == []
    assert result.similarity == 0.0
    assert result.longest == 0


def test_a_paragraph_twice_in_b_far_apart_is_matched_once() -> None:
    result = compare(
        prose("a", BREAD, PARAGRAPH),
        prose("b", PARAGRAPH, GLACIERS, OCTOPUS, CHESS, PARAGRAPH),
    )
    assert len(result.passages) == 1
    passage = result.passages[0]
    assert tidy(a_text(result, passage)) == tidy(PARAGRAPH)
    assert tidy(b_text(result, passage)) == tidy(PARAGRAPH)


@pytest.mark.parametrize(
    ("copied", "between"),
    [
        (PARAGRAPH, ()),
        (PARAGRAPH, (SCRIBES,)),
        (SHORT_SENTENCE, ("Medieval scribes prepared parchment from calfskin.",)),
    ],
    ids=["adjacent", "one-paragraph-apart", "short-sentence"],
)
def test_a_paragraph_twice_in_b_close_together_is_matched_once(
    copied: str, between: tuple[str, ...]
) -> None:
    result = compare(prose("a", copied), prose("b", copied, *between, copied))
    assert len(result.passages) == 1
    passage = result.passages[0]
    assert tidy(b_text(result, passage)) == tidy(copied)
    assert result.b_covered == len(fold_text(copied))


def test_a_paragraph_twice_in_a_is_matched_once_against_b_single_copy() -> None:
    result = compare(prose("a", PARAGRAPH, SCRIBES, PARAGRAPH), prose("b", PARAGRAPH))
    assert len(result.passages) == 1
    passage = result.passages[0]
    assert tidy(a_text(result, passage)) == tidy(PARAGRAPH)
    assert tidy(b_text(result, passage)) == tidy(PARAGRAPH)


def test_similarity_does_not_depend_on_which_document_is_a() -> None:
    once = prose("once", PARAGRAPH)
    twice = prose("twice", PARAGRAPH, SCRIBES, PARAGRAPH)
    assert compare(once, twice).similarity == pytest.approx(compare(twice, once).similarity)


def test_a_shared_sentence_shorter_than_the_minimum_length_is_not_a_passage() -> None:
    sentence = "Quartz clocks keep time with a crystal that vibrates when a voltage is applied."
    a_body = f"Trains left the northern station hourly all winter. {sentence} Nobody owned a car."
    b_body = f"Her grandmother grew tomatoes on a tiny balcony. {sentence} The recipe used eggs."
    assert len(fold_text(sentence)) < PROSE.min_length
    assert compare(Document("a", a_body, PROSE), Document("b", b_body, PROSE)).passages == []

    lenient = PROSE.with_thresholds(min_length=40)
    result = compare(Document("a", a_body, lenient), Document("b", b_body, lenient))
    assert [tidy(a_text(result, p)) for p in result.passages] == [tidy(sentence)]


def test_coverage_and_similarity_count_covered_units() -> None:
    a = prose("a", BREAD, PARAGRAPH, SCRIBES)
    b = prose("b", GLACIERS, textwrap.fill(PARAGRAPH, 60))
    result = compare(a, b)
    shared = len(fold_text(PARAGRAPH))
    assert result.a_covered == result.b_covered == shared
    assert result.a_coverage == shared / len(a.units)
    assert result.b_coverage == shared / len(b.units)
    assert result.similarity == (shared + shared) / (len(a.units) + len(b.units))


def test_covered_units_are_the_union_of_the_passages() -> None:
    result = compare(
        prose("a", PARAGRAPH, GLACIERS, OCTOPUS, CHESS, SCRIBES),
        prose("b", SCRIBES, BREAD, textwrap.fill(PARAGRAPH, 30)),
    )
    assert len(result.passages) == 2
    assert result.a_covered == union_length([(p.a.first, p.a.stop) for p in result.passages])
    assert result.b_covered == union_length([(p.b.first, p.b.stop) for p in result.passages])
    expected = (result.a_covered + result.b_covered) / (len(result.a.units) + len(result.b.units))
    assert result.similarity == expected


def test_passages_are_ordered_by_their_place_in_a() -> None:
    result = compare(
        prose("a", PARAGRAPH, GLACIERS, OCTOPUS, CHESS, SCRIBES),
        prose("b", SCRIBES, BREAD, PARAGRAPH),
    )
    assert len(result.passages) == 2
    assert [p.a.first for p in result.passages] == sorted(p.a.first for p in result.passages)
    assert [tidy(a_text(result, p)) for p in result.passages] == [tidy(PARAGRAPH), tidy(SCRIBES)]


def test_longest_is_the_character_length_of_the_longest_passage_in_a() -> None:
    result = compare(
        prose("a", SCRIBES, GLACIERS, OCTOPUS, CHESS, PARAGRAPH),
        prose("b", SCRIBES, BREAD, PARAGRAPH),
    )
    assert len(result.passages) == 2
    assert result.longest == len(PARAGRAPH.rstrip("."))
    assert result.longest == max(p.a.end - p.a.start for p in result.passages)


def test_documents_of_different_modes_cannot_be_compared() -> None:
    with pytest.raises(ValueError):
        compare(prose("a", PARAGRAPH), Document("b", PARAGRAPH, MODES["words"]))


def random_words(rng: random.Random, letters: str, min_letters: int) -> str:
    words: list[str] = []
    while sum(map(len, words)) < min_letters:
        words.append("".join(rng.choice(letters) for _ in range(rng.randint(1, 9))))
    return " ".join(words)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    planted_letters=st.integers(100, 300),
    filler=st.lists(st.integers(0, 200), min_size=4, max_size=4),
)
def test_a_planted_random_passage_is_found_exactly_on_both_sides(
    seed: int, planted_letters: int, filler: list[int]
) -> None:
    rng = random.Random(seed)
    planted = random_words(rng, string.ascii_lowercase, planted_letters)
    # Fillers of A and B use disjoint letters, so the exact match ends where the plant does.
    a_left, a_right = (random_words(rng, "abcdefghijklm", n) for n in filler[:2])
    b_left, b_right = (random_words(rng, "nopqrstuvwxyz", n) for n in filler[2:])
    a = Document("a", f"{a_left} {planted}. {a_right}", PROSE)
    b = Document("b", f"{b_left}\n{planted.upper()}\n{b_right}", PROSE)
    result = compare(a, b)
    assert len(result.passages) == 1
    passage = result.passages[0]
    assert a_text(result, passage) == planted
    assert b_text(result, passage) == planted.upper()
    assert passage.score == 1.0
    assert passage.longest_run == passage.units == len(planted.replace(" ", ""))


SEED_PHRASES = [
    "An efficient implementation of winnowing",
    "show the matching substrings in a user",
    "global sequence of hashes of k-grams",
]


@pytest.fixture(scope="module")
def winnowing_seed_pair() -> PairResult:
    first = (SEEDS / "winnowing_test_1.txt").read_text(encoding="utf-8")
    second = (SEEDS / "winnowing_test_2.txt").read_text(encoding="utf-8")
    return compare(Document("1", first, PROSE), Document("2", second, PROSE))


def test_the_winnowing_seed_texts_are_similar(winnowing_seed_pair: PairResult) -> None:
    assert winnowing_seed_pair.passages
    assert winnowing_seed_pair.similarity >= 0.5


@pytest.mark.parametrize("phrase", SEED_PHRASES)
def test_the_winnowing_seed_sentences_lie_inside_passages_on_both_sides(
    winnowing_seed_pair: PairResult, phrase: str
) -> None:
    result = winnowing_seed_pair
    assert any(phrase in a_text(result, p) for p in result.passages)
    assert any(phrase in b_text(result, p) for p in result.passages)


def _exact_runs_one_segment_at_a_time(ua, ub, seeds_a, seeds_b, chains, k, reach):
    """The plain reading of ``_exact_runs``: each chain, each diagonal, one segment."""
    found = []
    for chain in chains:
        runs = []
        by_diagonal: dict[int, list[int]] = {}
        for i in chain:
            by_diagonal.setdefault(int(seeds_b[i]) - int(seeds_a[i]), []).append(int(seeds_a[i]))
        for d in sorted(by_diagonal):
            at = sorted(by_diagonal[d])
            lo = max(at[0] - reach, 0, -d)
            hi = min(at[-1] + k + reach, len(ua), len(ub) - d)
            start = None
            for x in range(lo, hi + 1):
                if x < hi and ua[x] == ub[x + d]:
                    start = x if start is None else start
                    continue
                if start is not None and x - start >= k and any(start <= s < x for s in at):
                    runs.append((start, x, d))
                start = None
        found.append(runs)
    return found


@settings(max_examples=300, deadline=None)
@given(
    a=st.lists(st.integers(0, 1), min_size=1, max_size=60),
    b=st.lists(st.integers(0, 1), min_size=1, max_size=60),
    seeds=st.lists(st.tuples(st.integers(0, 59), st.integers(0, 59)), max_size=12),
    cuts=st.lists(st.booleans(), min_size=12, max_size=12),
    k=st.integers(1, 4),
    reach=st.integers(0, 8),
    slice_units=st.integers(1, 30),
)
def test_exact_runs_of_all_chains_at_once_equal_one_segment_at_a_time(
    a: list[int],
    b: list[int],
    seeds: list[tuple[int, int]],
    cuts: list[bool],
    k: int,
    reach: int,
    slice_units: int,
) -> None:
    """All chains' segments are compared laid end to end: no run may cross from one
    segment into the next, and each chain gets its own runs, in the same order."""
    seeds = sorted({(x, y) for x, y in seeds if x + k <= len(a) and y + k <= len(b)})
    seeds_a = np.array([x for x, _ in seeds], dtype=np.int64)
    seeds_b = np.array([y for _, y in seeds], dtype=np.int64)
    chains: list[list[int]] = []
    for i in range(len(seeds)):
        if not chains or cuts[i]:
            chains.append([])
        chains[-1].append(i)
    ua, ub = np.array(a, dtype=np.uint32), np.array(b, dtype=np.uint32)
    expected = _exact_runs_one_segment_at_a_time(ua, ub, seeds_a, seeds_b, chains, k, reach)
    assert _exact_runs(ua, ub, seeds_a, seeds_b, chains, k, reach) == expected
    # compared a few units at a time, and longer segments alone (as long documents are)
    with patch.object(passages, "_RUNS_UNITS", slice_units):
        assert _exact_runs(ua, ub, seeds_a, seeds_b, chains, k, reach) == expected


def _chains_as_specified(seeds_a: list[int], seeds_b: list[int], k: int, gap: int):
    """chain_seeds as its docstring says it, plainly: each seed, in A order, joins the
    open chain it is nearest to (the first of equals), else opens one."""
    chains: list[list[int]] = []
    open_chains: list[dict] = []
    for i, (a, b) in enumerate(zip(seeds_a, seeds_b, strict=True)):
        open_chains = [c for c in open_chains if a - c["a_end"] <= gap]
        near = [
            (max(0, a - c["a_end"]) + abs(b - (c["b_last"] + a - c["a_end"] + k)), c)
            for c in open_chains
            if a > c["a_end"] - k and c["b_last"] - k <= b <= c["b_end"] + gap
        ]
        near = [(cost, c) for cost, c in near if cost <= 3 * gap]
        if not near:
            open_chains.append({"a_end": a + k, "b_last": b, "b_end": b + k, "at": len(chains)})
            chains.append([i])
            continue
        best = min(near, key=lambda pair: pair[0])[1]  # the first of the nearest
        best.update(a_end=max(best["a_end"], a + k), b_last=b, b_end=max(best["b_end"], b + k))
        chains[best["at"]].append(i)
    return chains


@given(
    seeds=st.lists(
        st.tuples(st.integers(0, 120), st.sampled_from([0, 3, 40, -25]), st.integers(-6, 6)),
        max_size=120,
    ),
    k=st.integers(1, 12),
    gap=st.integers(0, 40),
)
def test_seeds_are_chained_as_specified(
    seeds: list[tuple[int, int, int]], k: int, gap: int
) -> None:
    """Seeds in A order (ties any way) on a few diagonals, each a little off: several
    chains open at once, close calls between them, text moved and repeated."""
    seeds = sorted(((a, a + shift + off) for a, shift, off in seeds), key=lambda s: s[0])
    seeds_a = np.array([a for a, _ in seeds], dtype=np.int64)
    seeds_b = np.array([b for _, b in seeds], dtype=np.int64)
    got = chain_seeds(seeds_a, seeds_b, k, gap)
    assert got == _chains_as_specified(seeds_a.tolist(), seeds_b.tolist(), k, gap)


def _shared_as_specified(fa: Fingerprints, fb: Fingerprints) -> list[tuple[int, int, int]]:
    """Every (position in A, position in B, hash) of equal hashes, unless the hash occurs
    more than MAX_SEED_PRODUCT times over (occurrences in A times in B)."""
    ha, hb = fa.hashes.tolist(), fb.hashes.tolist()
    return sorted(
        (x, y, h)
        for x, h in zip(fa.positions.tolist(), ha, strict=True)
        for y, g in zip(fb.positions.tolist(), hb, strict=True)
        if h == g and ha.count(h) * hb.count(h) <= passages.MAX_SEED_PRODUCT
    )


def _dense_as_specified(seeds: list[tuple[int, int]], reach: int, least: int) -> list[bool]:
    """A seed stays while, in A and in B alike, its cluster (positions no more than
    ``reach`` apart, one after the next) holds ``least`` distinct positions."""

    def clustered(values: list[int]) -> list[bool]:
        ordered = sorted(set(values))
        cluster, number = {}, 0
        for before, value in zip([None, *ordered], ordered, strict=False):
            number += before is not None and value - before > reach
            cluster[value] = number
        sizes = Counter(cluster.values())
        return [sizes[cluster[v]] >= least for v in values]

    keep = [True] * len(seeds)
    while True:
        alive = [i for i in range(len(seeds)) if keep[i]]
        ok_a = clustered([seeds[i][0] for i in alive])
        ok_b = clustered([seeds[i][1] for i in alive])
        failed = [i for i, a, b in zip(alive, ok_a, ok_b, strict=True) if not (a and b)]
        if not failed:
            return keep
        for i in failed:
            keep[i] = False


def _fingerprints(values: list[tuple[int, int]]) -> Fingerprints:
    """Fingerprints of (position, hash) pairs (positions made distinct, ascending)."""
    chosen = dict(values)
    at = sorted(chosen)
    return Fingerprints(
        np.array([chosen[x] for x in at], dtype=np.uint64), np.array(at, dtype=np.int64), 3
    )


FINGERPRINT_LISTS = st.lists(
    st.tuples(st.integers(0, 200), st.sampled_from([1, 2, 3, 5, 2**63 + 7, 2**64 - 1])),
    max_size=40,
)


@settings(max_examples=150, deadline=None)
@given(
    documents=st.lists(FINGERPRINT_LISTS, min_size=1, max_size=5),
    pairs=st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=1, max_size=8),
    reach=st.integers(0, 30),
    least=st.integers(1, 4),
    small_pair=st.sampled_from([0, 30, 4096]),
)
def test_seeds_of_many_pairs_at_once_are_each_pairs_as_specified(
    documents: list[list[tuple[int, int]]],
    pairs: list[tuple[int, int]],
    reach: int,
    least: int,
    small_pair: int,
) -> None:
    """A batch of pairs (documents in several pairs, a document against itself, hashes
    above 2^63 and repeated; short pairs searched together, long ones alone, or a mix)
    gives each pair the seeds it has alone."""
    prints = [_fingerprints(d) for d in documents]
    asked = [(prints[a % len(prints)], prints[b % len(prints)]) for a, b in pairs]
    with patch.object(passages, "SMALL_PAIR", small_pair):
        pair, at_a, at_b, hashes = passages.shared_seeds_each(asked)
    assert (np.diff(pair) >= 0).all()  # sorted by pair: find_seeds_each cuts them so
    keep = passages.dense_seeds(at_a, at_b, reach, least, pair)
    for p, (fa, fb) in enumerate(asked):
        mine = pair == p
        got = list(
            zip(at_a[mine].tolist(), at_b[mine].tolist(), hashes[mine].tolist(), strict=True)
        )
        expected = _shared_as_specified(fa, fb)
        assert got == expected
        wanted = _dense_as_specified([(x, y) for x, y, _ in expected], reach, least)
        assert keep[mine].tolist() == wanted


@settings(max_examples=200, deadline=None)
@given(
    texts=st.lists(st.lists(st.integers(0, 1), min_size=1, max_size=40), min_size=1, max_size=4),
    pairs=st.lists(
        st.tuples(
            st.integers(0, 3),
            st.integers(0, 3),
            st.lists(st.tuples(st.integers(0, 39), st.integers(0, 39)), max_size=8),
            st.lists(st.booleans(), min_size=8, max_size=8),
        ),
        min_size=1,
        max_size=5,
    ),
    k=st.integers(1, 4),
    reach=st.integers(0, 8),
    slice_units=st.integers(1, 40),
)
def test_exact_runs_of_many_pairs_at_once_are_each_pairs_alone(
    texts: list[list[int]],
    pairs: list[tuple[int, int, list[tuple[int, int]], list[bool]]],
    k: int,
    reach: int,
    slice_units: int,
) -> None:
    """Pairs' documents laid end to end (each once, some in several pairs): no run
    crosses from one document into the next, and each chain keeps its pair's runs, in
    the pair's own positions."""
    symbols = [np.array(t, dtype=np.uint64) for t in texts]
    starts = np.cumsum([0] + [len(t) for t in texts])
    every = np.concatenate(symbols)
    chains, chain_pair, expected = [], [], []
    seeds_a, seeds_b = [], []
    bases = ([], [])
    lengths = ([], [])
    for p, (a, b, seeds, cuts) in enumerate(pairs):
        ua, ub = symbols[a % len(texts)], symbols[b % len(texts)]
        seeds = sorted({(x, y) for x, y in seeds if x + k <= len(ua) and y + k <= len(ub)})
        mine: list[list[int]] = []
        for i in range(len(seeds)):
            if not mine or cuts[i]:
                mine.append([])
            mine[-1].append(i)
        first = len(seeds_a)
        seeds_a += [x for x, _ in seeds]
        seeds_b += [y for _, y in seeds]
        chains += [[first + i for i in chain] for chain in mine]
        chain_pair += [p] * len(mine)
        a_at, b_at = np.array([x for x, _ in seeds], int), np.array([y for _, y in seeds], int)
        expected += _exact_runs_one_segment_at_a_time(ua, ub, a_at, b_at, mine, k, reach)
        for side, t in enumerate((a, b)):
            bases[side].append(starts[t % len(texts)])
            lengths[side].append(len(texts[t % len(texts)]))
    with patch.object(passages, "_RUNS_UNITS", slice_units):
        got = passages._exact_runs_each(
            (every, every),
            (np.array(bases[0], dtype=np.int64), np.array(bases[1], dtype=np.int64)),
            (np.array(lengths[0], dtype=np.int64), np.array(lengths[1], dtype=np.int64)),
            np.array(seeds_a, dtype=np.int64),
            np.array(seeds_b, dtype=np.int64),
            chains,
            np.array(chain_pair, dtype=np.int64),
            k,
            reach,
        )
    assert got == expected


def test_passages_of_many_pairs_at_once_are_each_pairs_alone() -> None:
    """A question's batch: one text against several (some sharing nothing, one twice,
    one the text itself), passages the same as each pair compared alone."""
    rng = random.Random(11)
    pool = [PARAGRAPH, BREAD, GLACIERS, SCRIBES, OCTOPUS, CHESS]
    texts = [" ".join(rng.sample(pool, 3)) for _ in range(6)] + [PARAGRAPH + " " + BREAD]
    documents = [prose(f"d{i}", text) for i, text in enumerate(texts)]
    asked = [(documents[0], d) for d in documents] + [(documents[3], documents[0])]
    options = PROSE.alignment
    seeds = passages.find_seeds_each([(a.fingerprints, b.fingerprints) for a, b in asked], options)
    alone = [passages.find_seeds(a.fingerprints, b.fingerprints, options) for a, b in asked]
    assert [(s.a.tolist(), s.b.tolist(), s.hashes.tolist()) for s in seeds] == [
        (s.a.tolist(), s.b.tolist(), s.hashes.tolist()) for s in alone
    ]
    asked_seeds = [(s, a.units, b.units) for s, (a, b) in zip(seeds, asked, strict=True)]
    together = passages.align_seeds_each(asked_seeds, options)
    each = [
        passages.align_seeds(s, a.units, b.units, options)
        for s, (a, b) in zip(seeds, asked, strict=True)
    ]
    assert together == each
    assert sum(map(bool, together)) >= 5  # most pairs share passages
    # in batches of a few documents' units, or a pair at a time (each on its own documents)
    for most in (1, 600, 2_000):
        with patch.object(passages, "_BATCH_UNITS", most):
            assert passages.align_seeds_each(asked_seeds, options) == each
