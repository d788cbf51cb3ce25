"""Scanning a collection: the candidate filter loses nothing, boilerplate, order, threshold."""

from __future__ import annotations

import itertools
import random
import string
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from doublet.engine.comparison import PairResult, compare
from doublet.engine.document import Document
from doublet.engine.fingerprints import Fingerprints
from doublet.engine.modes import MODES
from doublet.engine.scan import MAX_REPEATS, Postings, candidate_pairs, default_max_docs, scan

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


def all_pairs(documents: list[Document]) -> dict[tuple[str, str], PairResult]:
    """Brute force: every pair compared, kept when it shares a passage.

    By default a scan runs the sentence stage only to widen copied passages
    (``reworded="widen"``), as each pair is compared here.
    """
    results = {}
    for a, b in itertools.combinations(documents, 2):
        result = compare(a, b, reworded="widen")
        if result.passages:
            results[(a.name, b.name)] = result
    return results


compositions = st.lists(
    st.lists(st.integers(0, len(POOL) - 1), max_size=6), min_size=6, max_size=10
)


@settings(max_examples=60, deadline=None)
@given(compositions=compositions)
def test_scan_finds_exactly_the_pairs_that_share_passages(
    compositions: list[list[int]],
) -> None:
    documents = collection(compositions)
    expected = {pair: result.passages for pair, result in all_pairs(documents).items()}
    found = {(r.a.name, r.b.name): r.passages for r in scan(documents, max_docs=EVERYTHING)}
    assert found == expected


def test_the_sentence_pool_makes_some_pairs_share_passages() -> None:
    # Guards the property above against passing vacuously: sentences 0, 2 and 5 are long
    # enough to be passages, sentences 1 and 3 are shorter than the minimum length.
    documents = collection([[0, 1], [1, 2], [2, 3], [5], [5, 0], [7, 8, 9]])
    assert set(all_pairs(documents)) == {
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
    assert similarities == sorted(similarities, reverse=True)
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


def test_default_boilerplate_limit_is_a_tenth_but_at_least_ten() -> None:
    assert default_max_docs(1) == 10
    assert default_max_docs(100) == 10
    assert default_max_docs(101) == 11
    assert default_max_docs(1000) == 100


CLOUGH = Path(__file__).parent.parent / "data" / "clough-stevenson"


def clough_task(task: str) -> list[Document]:
    """The answers of one Clough & Stevenson task and its original."""
    return [
        Document(p.name, p.read_text(encoding="utf-8", errors="replace"), PROSE)
        for p in sorted(CLOUGH.glob(f"*task{task}.txt"))
    ]


def test_paraphrase_all_examines_every_candidate_pair() -> None:
    documents = clough_task("c")

    def found(paraphrase: str) -> dict[tuple[str, str], PairResult]:
        results = scan(documents, max_docs=EVERYTHING, paraphrase=paraphrase)
        return {(r.a.name, r.b.name): r for r in results}

    every, widened, copied = found("all"), found("widen"), found("off")
    # two rewritings of one source share only paraphrase: only "all" finds them
    only_reworded = ("g0pA_taskc.txt", "g2pB_taskc.txt")
    assert only_reworded in every and only_reworded not in widened
    assert all(p.reworded for p in every[only_reworded].passages)
    # "widen" widens the pairs fingerprints find, and finds no others
    assert widened.keys() == copied.keys() < every.keys()
    assert not any(p.reworded for r in copied.values() for p in r.passages)
    assert any(p.reworded for r in widened.values() for p in r.passages)
    by_name = {d.name: d for d in documents}
    for (a, b), result in every.items():
        assert result.passages == compare(by_name[a], by_name[b]).passages
    for (a, b), result in widened.items():
        assert result.passages == compare(by_name[a], by_name[b], reworded="widen").passages


def test_an_unknown_paraphrase_choice_is_an_error() -> None:
    with pytest.raises(ValueError, match="widen, all, off"):
        scan(clough_task("a"), paraphrase="everything")


def test_scan_of_no_documents_is_empty() -> None:
    assert scan([]) == []


Posting = tuple[int, int]  # (index key, position) of one fingerprint


def fingerprints_of(postings: list[Posting]) -> Fingerprints:
    """Fingerprints whose index keys (top 32 bits of the hash) are the given keys."""
    hashes = [(h << 32) | 0x5EED for h, _ in postings]
    positions = [at for _, at in postings]
    return Fingerprints(np.array(hashes, dtype=np.uint64), np.array(positions, dtype=np.int64), k=5)


def candidates_of(
    documents: list[list[Posting]], max_docs: int, min_seeds: int, reach: int
) -> dict[tuple[int, int], int]:
    postings = Postings.of([fingerprints_of(d) for d in documents])
    found = candidate_pairs(postings, len(documents), max_docs, min_seeds, reach)
    assert all(c.a < c.b for c in found)
    return {(c.a, c.b): c.shared for c in found}


def reference_candidates(
    documents: list[list[Posting]], max_docs: int, min_seeds: int, reach: int
) -> dict[tuple[int, int], int]:
    """Brute force over pairs of documents.

    A hash is evidence if it is in 2 to ``max_docs`` documents; only its first
    ``MAX_REPEATS`` positions in each document are looked at. Every pair of those
    occurrences in A and B is a shared fingerprint; a pair is a candidate if, in
    A and in B alike, some run of its shared fingerprints' positions, no two
    consecutive ones more than ``reach`` apart, holds ``min_seeds`` distinct
    positions.
    """
    where: dict[int, list[tuple[int, int]]] = {}
    for doc, postings in enumerate(documents):
        for h, at in sorted(postings):
            places = where.setdefault(h, [])
            if sum(1 for d, _ in places if d == doc) < MAX_REPEATS:
                places.append((doc, at))
    evidence = {h for h, places in where.items() if 2 <= len({d for d, _ in places}) <= max_docs}

    def dense(positions: list[int]) -> bool:
        positions = sorted(positions)
        runs = [[p] for p in positions[:1]]
        for previous, at in itertools.pairwise(positions):
            if at - previous > reach:
                runs.append([])
            runs[-1].append(at)
        return any(len(set(run)) >= min_seeds for run in runs)

    result = {}
    for i, j in itertools.combinations(range(len(documents)), 2):
        seeds = [
            (at_a, at_b)
            for h in evidence
            for doc_a, at_a in where[h]
            if doc_a == i
            for doc_b, at_b in where[h]
            if doc_b == j
        ]
        if dense([a for a, _ in seeds]) and dense([b for _, b in seeds]):
            result[(i, j)] = len(seeds)
    return result


def placed(steps: list[tuple[int, int]]) -> list[Posting]:
    """(hash, step) pairs to (hash, position): positions are the running sums of the steps."""
    positions = itertools.accumulate(step for _, step in steps)
    return [(h, at) for (h, _), at in zip(steps, positions, strict=True)]


def fingerprint_lists(max_hash: int) -> st.SearchStrategy[list[list[Posting]]]:
    """Documents as (hash, position) lists, positions ascending with random steps."""
    steps = st.lists(st.tuples(st.integers(0, max_hash), st.integers(1, 30)), max_size=14)
    return st.lists(steps.map(placed), max_size=8)


@settings(max_examples=200, deadline=None)
@given(
    documents=st.integers(3, 20).flatmap(fingerprint_lists),
    max_docs=st.integers(1, 9),
    min_seeds=st.integers(1, 5),
    reach=st.integers(1, 60),
)
def test_candidate_pairs_match_a_brute_force_count(
    documents: list[list[Posting]], max_docs: int, min_seeds: int, reach: int
) -> None:
    expected = reference_candidates(documents, max_docs, min_seeds, reach)
    assert candidates_of(documents, max_docs, min_seeds, reach) == expected


def test_shared_fingerprints_close_together_make_a_candidate() -> None:
    a = [(h, 10 * h) for h in range(5)]  # five shared hashes, 10 units apart
    b = [(h, 100 + 10 * h) for h in range(5)]
    assert candidates_of([a, b], max_docs=10, min_seeds=5, reach=10) == {(0, 1): 5}


def test_shared_fingerprints_scattered_beyond_reach_make_no_candidate() -> None:
    a = [(h, 100 * h) for h in range(5)]  # five shared hashes, 100 units apart
    b = [(h, 10 * h) for h in range(5)]
    assert candidates_of([a, b], max_docs=10, min_seeds=5, reach=99) == {}
    assert candidates_of([a, b], max_docs=10, min_seeds=5, reach=100) == {(0, 1): 5}


@settings(max_examples=200, deadline=None)
@given(documents=fingerprint_lists(15), max_docs=st.integers(1, 9))
def test_boilerplate_is_the_hashes_in_more_than_max_docs_documents(
    documents: list[list[Posting]], max_docs: int
) -> None:
    sets = [{h for h, _ in d} for d in documents]
    expected = sorted(h for h in set().union(*sets) if sum(h in s for s in sets) > max_docs)
    postings = Postings.of([fingerprints_of(d) for d in documents])
    assert postings.boilerplate(max_docs).tolist() == expected


def test_candidate_pairs_handle_the_largest_keys() -> None:
    big = (1 << 32) - 1
    documents = [[(1, 0), (big, 4)], [(2, 0), (big, 4)], [(1, 0), (big, 4)]]
    assert candidates_of(documents, max_docs=10, min_seeds=1, reach=10) == {
        (0, 1): 1,
        (0, 2): 2,
        (1, 2): 1,
    }


def test_a_paragraph_repeated_in_a_third_document_does_not_hide_a_pair() -> None:
    shared = " ".join(POOL[0:3])
    documents = [
        Document("a", f"{POOL[5]} {shared}", PROSE),
        Document("b", f"{shared} {POOL[7]}", PROSE),
        Document("c", " ".join([shared] * 41), PROSE),
    ]
    assert compare(documents[0], documents[1]).passages
    assert ("a", "b") in {(r.a.name, r.b.name) for r in scan(documents)}
