"""Matching: every pair of a collection through the index, as ``compare`` finds it.

The candidate filter loses no pair that shares a copied passage; a pair that
shares only reworded text is found through sentence keys; boilerplate, order,
threshold and the paraphrase setting behave as documented.
"""

from __future__ import annotations

import itertools
import random
import string
from pathlib import Path
from unittest.mock import patch

from hypothesis import given, settings
from hypothesis import strategies as st

from doublet.engine import matching as matching_module
from doublet.engine.candidates import boilerplate_limit, pairing_limit
from doublet.engine.comparison import PairResult, compare
from doublet.engine.document import Document
from doublet.engine.index import Index, Role
from doublet.engine.matching import Settings, Unavailable, all_pairs, similar
from doublet.engine.modes import MODES

PROSE = MODES["prose"]
EVERYTHING = 1_000  # a boilerplate limit no test collection reaches


def random_sentence(rng: random.Random, words: int) -> str:
    letters = string.ascii_lowercase
    text = " ".join(
        "".join(rng.choice(letters) for _ in range(rng.randint(2, 9))) for _ in range(words)
    )
    return text.capitalize() + "."


_pool_rng = random.Random(20240611)
#: Random sentences, most longer than prose's minimum passage (80 letters), a few shorter.
POOL = [random_sentence(_pool_rng, _pool_rng.randint(8, 30)) for _ in range(14)]


def collection(compositions: list[list[int]]) -> list[Document]:
    """One prose document per list of sentence indices into POOL."""
    return [
        Document(f"doc{i:02d}", " ".join(POOL[j] for j in sentences), PROSE)
        for i, sentences in enumerate(compositions)
    ]


def scan(
    documents: list[Document],
    max_docs: int | None = None,
    threshold: float = 0.0,
    paraphrase: bool = True,
) -> list[PairResult]:
    """Every pair of ``documents`` through an index, as ``doublet scan`` does."""
    index = Index()
    by_name = {d.name: d for d in documents}
    for document in documents:
        index.add(document.name, document.keys, document.mode)
    limit = boilerplate_limit(len(documents)) if max_docs is None else max_docs
    return all_pairs(index, by_name.__getitem__, Settings(limit, threshold, paraphrase))


def brute_force(documents: list[Document], paraphrase: bool) -> dict[tuple[str, str], PairResult]:
    """Every pair compared in full, kept when it shares a passage."""
    results = {}
    for a, b in itertools.combinations(documents, 2):
        result = compare(a, b, paraphrase=paraphrase)
        if result.passages:
            results[(a.name, b.name)] = result
    return results


compositions = st.lists(
    st.lists(st.integers(0, len(POOL) - 1), max_size=6), min_size=6, max_size=10
)


@settings(max_examples=60, deadline=None)
@given(compositions=compositions)
def test_scan_finds_exactly_the_pairs_that_share_copied_passages(
    compositions: list[list[int]],
) -> None:
    documents = collection(compositions)
    expected = {pair: r.passages for pair, r in brute_force(documents, False).items()}
    found = scan(documents, max_docs=EVERYTHING, paraphrase=False)
    assert {(r.a.name, r.b.name): r.passages for r in found} == expected


@settings(max_examples=30, deadline=None)
@given(compositions=compositions)
def test_a_pair_gets_the_passages_compare_gives_it_whichever_way_it_is_found(
    compositions: list[list[int]],
) -> None:
    documents = collection(compositions)
    by_name = {d.name: d for d in documents}
    found = scan(documents, max_docs=EVERYTHING)
    expected = brute_force(documents, True)
    assert {(r.a.name, r.b.name) for r in found} >= {
        pair for pair, r in expected.items() if any(not p.paraphrase for p in r.passages)
    }
    for result in found:
        a, b = by_name[result.a.name], by_name[result.b.name]
        assert result.passages == compare(a, b).passages
        assert compare(b, a).swapped().passages == result.passages


def test_the_sentence_pool_makes_some_pairs_share_passages() -> None:
    # Guards the property above against passing vacuously: sentences 0, 2 and 5 are long
    # enough to be passages, sentences 1 and 3 are shorter than the minimum length.
    documents = collection([[0, 1], [1, 2], [2, 3], [5], [5, 0], [7, 8, 9]])
    assert set(brute_force(documents, False)) == {
        ("doc00", "doc04"),
        ("doc01", "doc02"),
        ("doc03", "doc04"),
    }


@settings(max_examples=60, deadline=None)
@given(compositions=compositions)
def test_scan_results_are_sorted_by_similarity_descending(
    compositions: list[list[int]],
) -> None:
    results = scan(collection(compositions), max_docs=EVERYTHING)
    similarities = [r.similarity for r in results]
    assert similarities == sorted(similarities, reverse=True)  # prose: the resemblance
    # Ties go to the longer passage, then to the names.
    keys = [(-r.similarity, -r.longest, r.a.name, r.b.name) for r in results]
    assert keys == sorted(keys)


def test_threshold_keeps_exactly_the_pairs_at_least_that_similar() -> None:
    documents = collection(
        [[0, 1, 2], [0, 1, 2, 3], [2, 5, 6, 7, 8], [0, 9, 10, 11], [3, 12], [13, 6, 7]]
    )
    everything = scan(documents, max_docs=EVERYTHING)
    similarities = sorted({r.similarity for r in everything})
    assert len(similarities) >= 4
    midpoints = [(x + y) / 2 for x, y in itertools.pairwise(similarities)]
    for threshold in [0.0, *similarities, *midpoints, 1.0]:
        kept = scan(documents, max_docs=EVERYTHING, threshold=threshold)
        assert [(r.a.name, r.b.name) for r in kept] == [
            (r.a.name, r.b.name) for r in everything if r.similarity >= threshold
        ]


BOILERPLATE = (
    "This submission is my own work and all sources that I used are acknowledged in the "
    "references at the end of the report, as the course handbook requires."
)


def with_boilerplate(count: int, holding: int) -> list[Document]:
    """``count`` unrelated documents, the first ``holding`` of which contain BOILERPLATE."""
    rng = random.Random(7)
    documents = []
    for i in range(count):
        body = " ".join(random_sentence(rng, 25) for _ in range(3))
        # The numbers around the boilerplate differ between documents, so its copies
        # match exactly and no further.
        boilerplate_part = f"\n\n[{i}] {BOILERPLATE} [{i}]\n\n{random_sentence(rng, 20)}"
        text = body + boilerplate_part if i < holding else body
        documents.append(Document(f"doc{i:02d}", text, PROSE))
    return documents


def test_a_sentence_in_more_than_max_docs_documents_creates_no_pair() -> None:
    assert scan(with_boilerplate(6, holding=6), max_docs=5) == []


def test_a_sentence_in_exactly_max_docs_documents_still_pairs_them() -> None:
    results = scan(with_boilerplate(6, holding=3), max_docs=3)
    assert {(r.a.name, r.b.name) for r in results} == {
        ("doc00", "doc01"),
        ("doc00", "doc02"),
        ("doc01", "doc02"),
    }


def test_the_shared_boilerplate_is_a_passage_when_the_limit_allows() -> None:
    results = scan(with_boilerplate(6, holding=6), max_docs=EVERYTHING)
    assert len(results) == 15
    for result in results:
        assert [result.a.text[p.a.start : p.a.end] for p in result.passages] == [
            BOILERPLATE.rstrip(".")
        ]


def test_default_boilerplate_limit_is_half_but_at_least_ten() -> None:
    assert boilerplate_limit(1) == 10
    assert boilerplate_limit(19) == 10
    assert boilerplate_limit(100) == 50
    assert boilerplate_limit(101) == 51
    assert boilerplate_limit(1000, 0.1) == 100
    assert boilerplate_limit(1000, 7) == 7


def test_the_pairing_limit_is_a_tenth_but_at_least_a_hundred_and_at_most_the_boilerplate() -> None:
    assert pairing_limit(50, boilerplate_limit(50)) == 25
    assert pairing_limit(1000, boilerplate_limit(1000)) == 100
    assert pairing_limit(5000, boilerplate_limit(5000)) == 500
    assert pairing_limit(5000, 7) == 7


def test_a_source_copied_by_many_is_reuse_and_what_everyone_was_given_is_not() -> None:
    """Thirty essays: all repeat the assignment's instructions; twelve copy a different
    part of one source that is in the folder, beside their own text."""
    rng = random.Random(11)
    source_sentences = [random_sentence(rng, 22) for _ in range(12)]
    instructions = " ".join(random_sentence(rng, 20) for _ in range(3))
    documents = [Document("source", " ".join(source_sentences), PROSE)]
    for i in range(30):
        own = " ".join(random_sentence(rng, 18) for _ in range(4))
        copied = f" {source_sentences[i]} {source_sentences[(i + 1) % 12]}" if i < 12 else ""
        documents.append(Document(f"essay{i:02d}", f"{instructions}\n\n{own}{copied}", PROSE))
    found = {(r.a.name, r.b.name) for r in scan(documents)}
    # every copier with the source, whatever the share of the folder that copied it
    assert {(f"essay{i:02d}", "source") for i in range(12)} <= found
    # the instructions, in every essay, are ignored: no other essays pair
    assert all("source" in pair or int(pair[0][5:]) < 12 for pair in found)
    with_low_limit = {(r.a.name, r.b.name) for r in scan(documents, max_docs=2)}
    assert not any("source" in pair for pair in with_low_limit)  # a low limit erases it


CLOUGH = Path(__file__).parent.parent / "data" / "clough-stevenson"


def clough_task(task: str) -> list[Document]:
    """The answers of one Clough & Stevenson task and its original."""
    return [
        Document(p.name, p.read_text(encoding="utf-8", errors="replace"), PROSE)
        for p in sorted(CLOUGH.glob(f"*task{task}.txt"))
    ]


def test_a_pair_sharing_only_reworded_text_is_found_through_sentence_keys() -> None:
    documents = clough_task("c")
    with_stage = {(r.a.name, r.b.name): r for r in scan(documents, max_docs=EVERYTHING)}
    copied = {
        (r.a.name, r.b.name): r for r in scan(documents, max_docs=EVERYTHING, paraphrase=False)
    }
    # two rewritings of one source share no copied passage, only paraphrase
    only_reworded = ("g1pB_taskc.txt", "g2pB_taskc.txt")
    assert only_reworded in with_stage and only_reworded not in copied
    assert all(p.paraphrase for p in with_stage[only_reworded].passages)
    assert copied.keys() < with_stage.keys()
    assert not any(p.paraphrase for r in copied.values() for p in r.passages)
    by_name = {d.name: d for d in documents}
    for (a, b), result in with_stage.items():
        assert result.passages == compare(by_name[a], by_name[b]).passages


def test_similar_finds_what_a_scan_finds_for_one_document() -> None:
    documents = clough_task("c")
    index = Index()
    for document in documents:
        index.add(document.name, document.keys, document.mode)
    by_name = {d.name: d for d in documents}
    settings_ = Settings(EVERYTHING)
    pairs = all_pairs(index, by_name.__getitem__, settings_)
    for name in ("g0pA_taskc.txt", "orig_taskc.txt"):
        asked = similar(index, by_name[name], Role(), by_name.__getitem__, settings_)
        expected = {
            oriented.b.name: oriented.passages
            for oriented in (r if r.a.name == name else r.swapped() for r in pairs)
            if oriented.a.name == name
        }
        assert {r.b.name: r.passages for r in asked} == expected


def test_scan_of_no_documents_is_empty() -> None:
    assert scan([]) == []
    assert scan(collection([[0, 1, 2]])) == []


def test_a_paragraph_repeated_in_a_third_document_does_not_hide_a_pair() -> None:
    shared = " ".join(POOL[0:3])
    documents = [
        Document("a", f"{POOL[5]} {shared}", PROSE),
        Document("b", f"{shared} {POOL[7]}", PROSE),
        Document("c", " ".join([shared] * 41), PROSE),
    ]
    assert compare(documents[0], documents[1]).passages
    assert ("a", "b") in {(r.a.name, r.b.name) for r in scan(documents)}


def test_a_document_the_loader_can_no_longer_give_is_left_out_of_similar(caplog) -> None:
    """The other candidates are still aligned (read and cut up together first)."""
    documents = collection([[0, 1, 2], [0, 1, 2, 3], [1, 2, 4], [5, 6]])
    index = Index()
    for document in documents:
        index.add(document.name, document.keys, document.mode)
    by_name = {d.name: d for d in documents}

    def load(name: str) -> Document:
        if name == "doc01":
            raise Unavailable(f"{name}: gone for a moment")
        return Document(name, by_name[name].text, PROSE)  # read again, as a workspace does

    found = similar(index, by_name["doc00"], Role(), load, Settings(EVERYTHING))
    assert [r.b.name for r in found] == ["doc02"]
    assert "doc01: gone for a moment" in caplog.text
    everything = similar(index, by_name["doc00"], Role(), by_name.__getitem__, Settings(EVERYTHING))
    assert sorted(r.b.name for r in everything) == ["doc01", "doc02"]


@settings(max_examples=15, deadline=None)
@given(compositions, st.integers(1, 3))
def test_similar_gives_the_same_answer_whatever_number_of_candidates_it_reads_at_once(
    compositions, batch
) -> None:
    documents = collection(compositions)
    index = Index()
    for document in documents:
        index.add(document.name, document.keys, document.mode)

    def asked(query_batch: int) -> list[tuple]:
        fresh = {d.name: Document(d.name, d.text, PROSE) for d in documents}  # none cut up yet
        with patch.object(matching_module, "QUERY_BATCH", query_batch):
            found = similar(index, fresh["doc00"], Role(), fresh.__getitem__, Settings(EVERYTHING))
        return [(r.b.name, r.a_covered, r.b_covered, r.passages) for r in found]

    assert asked(batch) == asked(1_000)
