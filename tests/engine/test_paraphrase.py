"""The paraphrase stage: reworded passages found, widened and named; unrelated text left alone."""

from __future__ import annotations

import csv
import itertools
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from doublet.engine import paraphrase
from doublet.engine.comparison import compare
from doublet.engine.document import Document
from doublet.engine.modes import MODES
from doublet.engine.paraphrase import SentenceAlignment, _order, align_sentences, alignments
from doublet.engine.sentences import split

PROSE = MODES["prose"]
CLOUGH = Path(__file__).parent.parent / "data" / "clough-stevenson"

ORIGINAL = (
    "The printing press spread across Europe within a few decades of its invention. "
    "Cheap books allowed ideas to travel faster than scholars could, and universities "
    "lost their monopoly on learning. Reformers used pamphlets to reach ordinary readers, "
    "while governments soon tried to license printers and censor what they published. "
    "By the end of the century, millions of volumes had been printed in dozens of languages."
)
REWORDED = (
    "Within a few decades of being invented, the printing press had spread over all of "
    "Europe. As books grew cheap, ideas moved faster than the scholars themselves, and "
    "universities no longer held a monopoly over learning. Reformers handed out pamphlets "
    "aimed at ordinary people; governments quickly tried licensing printers and censoring "
    "whatever they printed. When the century closed, millions of printed volumes existed in "
    "dozens of tongues."
)
UNRELATED = (
    "Honeybees communicate the location of flowers through a waggle dance performed on "
    "the comb. The angle of the dance encodes direction relative to the sun, and its "
    "length encodes distance. Foragers returning with rich nectar dance longer, recruiting "
    "more workers to the best patches, so the colony allocates effort without any leader."
)


def prose(name: str, text: str) -> Document:
    return Document(name, text, PROSE)


def clough(name: str) -> Document:
    return prose(name, (CLOUGH / name).read_text(encoding="utf-8", errors="replace"))


def clough_answers() -> list[tuple[str, str, str]]:
    """(answer file, its original, category) for every answer of the corpus."""
    with open(CLOUGH / "file_information.csv", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    return [(r["File"], f"orig_task{r['Task']}.txt", r["Category"]) for r in rows]


def test_a_paraphrase_with_no_copied_run_is_found_and_named() -> None:
    copied = compare(prose("a", REWORDED), prose("b", ORIGINAL), paraphrase=False)
    assert copied.passages == []
    result = compare(prose("a", REWORDED), prose("b", ORIGINAL))
    assert len(result.passages) == 1
    passage = result.passages[0]
    assert passage.paraphrase and passage.kind == "paraphrased"
    assert result.a_coverage > 0.9 and result.b_coverage > 0.9


def test_unrelated_text_on_another_topic_is_not_reported() -> None:
    assert compare(prose("a", UNRELATED), prose("b", ORIGINAL)).passages == []


def test_code_is_not_compared_sentence_by_sentence() -> None:
    code = MODES["code"]
    a = Document("a.py", "# " + REWORDED + "\nx = 1\n", code)
    b = Document("b.py", "# " + ORIGINAL + "\ny = 2\n", code)
    assert not code.paraphrase
    assert all(not p.paraphrase for p in compare(a, b, paraphrase=None).passages)


def test_a_heavy_revision_is_widened_over_its_reworded_sentences() -> None:
    answer, original = clough("g0pB_taske.txt"), clough("orig_taske.txt")
    copied = compare(answer, original, paraphrase=False)
    full = compare(answer, original)
    assert copied.a_coverage < 0.75
    assert full.a_coverage > 0.95
    assert [p.kind for p in full.passages] == ["paraphrased"]


def test_a_verbatim_copy_stays_verbatim() -> None:
    answer, original = clough("g0pE_taska.txt"), clough("orig_taska.txt")  # a light revision
    full = compare(answer, original)
    assert [p.kind for p in full.passages] == ["verbatim"]
    assert full.passages == compare(answer, original, paraphrase=False).passages


@pytest.fixture(scope="module")
def clough_results() -> list[tuple[str, float, float, list[str]]]:
    """(category, coverage by fingerprints, coverage with sentences, kinds) per answer."""
    results = []
    for answer, original, category in clough_answers():
        a, b = clough(answer), clough(original)
        copied, full = compare(a, b, paraphrase=False), compare(a, b)
        results.append(
            (category, copied.a_coverage, full.a_coverage, [p.kind for p in full.passages])
        )
    return results


def test_the_sentence_stage_never_loses_what_fingerprints_found(clough_results) -> None:
    for category, copied, full, _ in clough_results:
        assert full >= copied - 1e-9, category


def test_coverage_ranks_heavy_revisions_above_independent_answers(clough_results) -> None:
    def mean(category: str, column: int) -> float:
        return float(np.mean([r[column] for r in clough_results if r[0] == category]))

    assert mean("light", 2) > mean("heavy", 2) > 0.5 > 0.05 > mean("non", 2)
    assert mean("heavy", 2) > mean("heavy", 1) + 0.1  # what the sentence stage adds
    reported = [r for r in clough_results if r[0] == "non" and r[2] > 0]
    assert len(reported) <= 2  # of 38 answers written on the same topics


def test_revisions_are_named_by_how_much_was_reworded(clough_results) -> None:
    kinds = {c: [k for r in clough_results if r[0] == c for k in r[3]] for c in ("cut", "heavy")}
    share = {c: kinds[c].count("paraphrased") / len(kinds[c]) for c in kinds}
    assert share["heavy"] > 0.5 > share["cut"]


def test_order_of_seeds() -> None:
    in_step = np.array([[0, 0], [1, 3], [2, 5], [4, 9]])
    assert _order(in_step) == 1.0
    assert _order(in_step[:, ::-1] * np.array([1, -1])) == -1.0
    assert _order(np.array([[0, 5], [1, 9]])) == 1.0  # too few to tell


def test_fragments_lie_inside_sentences_and_do_not_overlap_in_a() -> None:
    fragments = align_sentences(split(REWORDED + " " + UNRELATED), split(ORIGINAL))
    assert fragments
    text = REWORDED + " " + UNRELATED
    for f in fragments:
        assert 0 <= f.a_start < f.a_end <= len(REWORDED) < len(text)
        assert 0 <= f.b_start < f.b_end <= len(ORIGINAL)
    for x, y in itertools.pairwise(fragments):
        assert x.a_end <= y.a_start


SENTENCES = [s.strip() + "." for s in (ORIGINAL + " " + UNRELATED).split(".") if s.strip()]


def _outcome(alignment: SentenceAlignment) -> tuple:
    """Everything a pair's alignment tells, as plain values: its fragments, its seeds,
    and the similarity of its two documents whole (which reads every weight)."""
    seeds = alignment._seeds
    whole = alignment.similarity(0, 10**9, 0, 10**9)
    return alignment.fragments(), None if seeds is None else seeds.tolist(), whole


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.lists(st.integers(0, len(SENTENCES) - 1), max_size=10),
            st.lists(st.integers(0, len(SENTENCES) - 1), max_size=10),
        ),
        min_size=1,
        max_size=6,
    ),
    st.integers(0, 2**32 - 1),
    st.sampled_from([paraphrase.MAX_JOIN, 40]),
    st.sampled_from([paraphrase._DENSE_GRID, -(10**9)]),
    st.sampled_from([paraphrase.JOIN_AT_ONCE, 1, 60]),
)
def test_pairs_aligned_together_are_aligned_as_each_alone(
    picked: list[tuple[list[int], list[int]]],
    salt: int,
    max_join: int,
    dense: int,
    at_once: int,
) -> None:
    """Weighing and seeding many pairs at once changes nothing, bit for bit: whatever
    the pairs (empty ones too), a pair's join cut to its rarest terms, the sentence
    pairs counted by sorting instead of on the whole grid, or the pairs joined a few
    at a time."""
    rng = random.Random(salt)

    def text(picks: list[int]) -> str:
        said = []
        for i in picks:
            words = SENTENCES[i].rstrip(".").split()
            if rng.random() < 0.5:
                rng.shuffle(words)
            said.append(" ".join(words) + ".")
        return " ".join(said)

    pairs = [(split(text(a)), split(text(b))) for a, b in picked]
    pairs.append(pairs[0])  # one document in two pairs, as a text against its candidates
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(paraphrase, "MAX_JOIN", max_join)
        patch.setattr(paraphrase, "_DENSE_GRID", dense)
        patch.setattr(paraphrase, "JOIN_AT_ONCE", at_once)
        together = [_outcome(a) for a in alignments(pairs)]
        alone = [_outcome(SentenceAlignment(sa, sb)) for sa, sb in pairs]
    assert together == alone


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, len(SENTENCES) - 1), min_size=1, max_size=12),
    st.lists(st.integers(0, len(SENTENCES) - 1), min_size=1, max_size=12),
    st.integers(0, 2**32 - 1),
)
def test_full_comparison_keeps_passages_in_bounds_and_coverage(
    picks_a: list[int], picks_b: list[int], salt: int
) -> None:
    """Documents of shuffled, partly reworded sentences: passages valid, coverage kept."""
    rng = random.Random(salt)

    def reword(sentence: str) -> str:
        words = sentence.rstrip(".").split()
        rng.shuffle(words)
        return " ".join(words) + "."

    a = prose("a", " ".join(SENTENCES[i] for i in picks_a))
    b = prose("b", " ".join(reword(SENTENCES[i]) for i in picks_b))
    copied, full = compare(a, b, paraphrase=False), compare(a, b)
    assert full.a_coverage >= copied.a_coverage - 1e-9
    assert full.b_coverage >= copied.b_coverage - 1e-9
    for p in full.passages:
        assert 0 <= p.a.start < p.a.end <= len(a.text)
        assert 0 <= p.b.start < p.b.end <= len(b.text)
        assert 0.0 <= p.score <= 1.0
        assert p.kind in ("verbatim", "edited", "paraphrased")


def test_the_paraphrase_stage_is_the_same_whichever_document_comes_first() -> None:
    far = " ".join([UNRELATED] * 12)
    kept = "Cheap books allowed ideas to travel faster than scholars could, and universities"
    a = prose("a", REWORDED + " " + far + " " + kept + " lost their monopoly on learning.")
    b = prose("b", ORIGINAL)
    forward, backward = compare(a, b), compare(b, a)
    assert forward.passages == [p.swapped() for p in backward.passages]
    assert any(p.a.start < len(REWORDED) and p.kind == "paraphrased" for p in forward.passages)


def test_two_quotations_side_by_side_are_not_a_summary_of_what_lies_between() -> None:
    first, last = ORIGINAL, UNRELATED
    filler = " ".join(
        f"Paragraph {i} of the source talks about something else entirely, at length."
        for i in range(80)
    )
    source = prose("b", first + "\n\n" + filler + "\n\n" + last)
    essay = prose("a", "My essay quotes two parts. " + first + " " + last + " That is all.")
    for a, b in ((essay, source), (source, essay)):
        result = compare(a, b)
        assert [p.kind for p in result.passages] == ["verbatim", "verbatim"]
        assert result.b_coverage < 0.5 or result.a_coverage < 0.5


def test_a_passage_two_fragments_overlap_is_widened_once() -> None:
    from doublet.engine.paraphrase import Fragment, with_paraphrase
    from doublet.engine.passages import Passage, Side

    a, b = prose("a", ORIGINAL * 3), prose("b", ORIGINAL * 3)
    ua, ub = a.units, b.units
    loose = Passage(Side(0, 1000, 0, 800), Side(0, 1000, 0, 800), 500, 0.3125, 40, 20)
    fragments = [Fragment(0, 400, 0, 400, 0.6, 3), Fragment(600, 1100, 600, 1100, 0.5, 3)]
    alignment = SentenceAlignment(a.sentences, b.sentences)
    result = with_paraphrase([loose], fragments, alignment.similarity, ua, ub)
    assert len(result) == 1
    assert result[0].a.start == 0 and result[0].a.end > 1000  # both fragments and the passage
    assert result[0].matched == loose.matched  # its exact runs counted once
