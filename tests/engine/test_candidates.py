"""Candidates: the pairs worth aligning, selected from the index alone.

Fingerprint evidence is checked against a brute force over pairs of documents;
sentence evidence (shared MinHash bands of sentences) on real reworded text.
"""

from __future__ import annotations

import itertools
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from prose_samples import UNRELATED_SENTENCES

from doublet.engine.candidates import (
    _SCREEN_FROM,
    MAX_REPEATS,
    _carrying,
    all_candidates,
    boilerplate_shares,
    candidates_of,
)
from doublet.engine.document import Document, DocumentKeys
from doublet.engine.fingerprints import Fingerprints
from doublet.engine.index import KINDS, Index, Role
from doublet.engine.matching import Settings, all_pairs, similar
from doublet.engine.modes import MODES, Mode
from doublet.engine.passages import clustered_groups
from doublet.engine.sentence_keys import BANDS, SEED_BANDS, SentenceKeys

PROSE = MODES["prose"]

Posting = tuple[int, int]  # (index key, position) of one fingerprint


def mode_with(min_seeds: int, reach: int) -> Mode:
    """A mode whose candidate test needs ``min_seeds`` seeds within ``reach`` units.

    With noise 1 and guarantee 1 (k = 1, window 1), reach = gap + 3.
    """
    return Mode("prose", "characters", 1, 1, 1, reach - 3, 1, min_seeds)


def keys_of(postings: list[Posting]) -> DocumentKeys:
    """Keys whose fingerprints have the given index keys (top 32 bits of the hash)."""
    hashes = np.array([(h << 32) | 0x5EED for h, _ in postings], dtype=np.uint64)
    positions = np.array([at for _, at in postings], dtype=np.int64)
    units = int(positions.max()) + 1 if positions.shape[0] else 0
    return DocumentKeys(Fingerprints(hashes, positions, k=1), SentenceKeys.empty(), units)


def candidates(
    documents: list[list[Posting]], max_docs: int, min_seeds: int, reach: int
) -> dict[tuple[int, int], int]:
    index = Index()
    mode = mode_with(min_seeds, reach)
    for number, postings in enumerate(documents):
        index.add(f"{number:03d}", keys_of(postings), mode)
    found, _ = all_candidates(index, max_docs)
    assert all(c.a < c.b and c.sentence_seeds == 0 for c in found)
    return {(int(c.a), int(c.b)): c.fingerprint_seeds for c in found}


def keys_in(postings: list[Posting]) -> set[int]:
    return {h for h, _ in postings}


def reference_candidates(
    documents: list[list[Posting]], max_docs: int, min_seeds: int, reach: int
) -> dict[tuple[int, int], int]:
    """Brute force over pairs of documents.

    A key is evidence if it is in 2 to ``max_docs`` documents; only its first
    ``MAX_REPEATS`` positions in each document are looked at. Every pair of those
    occurrences in A and B is a shared fingerprint; a pair is a candidate if, in
    A and in B alike, some run of its shared fingerprints' positions, no two
    consecutive ones more than ``reach`` apart, holds ``min_seeds`` distinct
    positions. Two documents with the same set of keys (all keys counted) are a
    candidate too, unless more than ``max_docs`` documents have it.
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
        elif documents[i] and keys_in(documents[i]) == keys_in(documents[j]):
            same = sum(keys_in(d) == keys_in(documents[i]) for d in documents)
            if same <= max_docs:
                result[(i, j)] = 0
    return result


def placed(steps: list[tuple[int, int]]) -> list[Posting]:
    """(key, step) pairs to (key, position): positions are the running sums of the steps."""
    positions = itertools.accumulate(step for _, step in steps)
    return [(h, at) for (h, _), at in zip(steps, positions, strict=True)]


def fingerprint_lists(max_hash: int) -> st.SearchStrategy[list[list[Posting]]]:
    """Documents as (key, position) lists, positions ascending with random steps."""
    steps = st.lists(st.tuples(st.integers(0, max_hash), st.integers(1, 30)), max_size=14)
    return st.lists(steps.map(placed), max_size=8)


@settings(max_examples=200, deadline=None)
@given(
    documents=st.integers(3, 20).flatmap(fingerprint_lists),
    max_docs=st.integers(1, 9),
    min_seeds=st.integers(1, 5),
    reach=st.integers(3, 60),
)
def test_fingerprint_candidates_match_a_brute_force_count(
    documents: list[list[Posting]], max_docs: int, min_seeds: int, reach: int
) -> None:
    expected = reference_candidates(documents, max_docs, min_seeds, reach)
    assert candidates(documents, max_docs, min_seeds, reach) == expected


def test_shared_fingerprints_close_together_make_a_candidate() -> None:
    a = [(h, 10 * h) for h in range(5)]  # five shared keys, 10 units apart
    b = [(h, 100 + 10 * h) for h in range(5)]
    assert candidates([a, b], max_docs=10, min_seeds=5, reach=10) == {(0, 1): 5}


def test_shared_fingerprints_scattered_beyond_reach_make_no_candidate() -> None:
    a = [(h, 100 * h) for h in range(5)]  # five shared keys, 100 units apart
    b = [(h, 10 * h) for h in range(5)] + [(99, 60)]  # (not the same set of keys)
    assert candidates([a, b], max_docs=10, min_seeds=5, reach=99) == {}
    assert candidates([a, b], max_docs=10, min_seeds=5, reach=100) == {(0, 1): 5}


@settings(max_examples=100, deadline=None)
@given(documents=fingerprint_lists(15), max_docs=st.integers(1, 9))
def test_the_ignored_keys_are_those_in_more_than_max_docs_documents(
    documents: list[list[Posting]], max_docs: int
) -> None:
    index = Index()
    for number, postings in enumerate(documents):
        index.add(f"{number:03d}", keys_of(postings), mode_with(1, 10))
    sets = [{h for h, _ in d} for d in documents]
    expected = sorted(h for h in set().union(*sets) if sum(h in s for s in sets) > max_docs)
    ignored = all_candidates(index, max_docs)[1].tolist() if len(documents) >= 2 else expected
    assert ignored == expected


@settings(max_examples=100, deadline=None)
@given(
    documents=fingerprint_lists(15),
    max_docs=st.integers(1, 9),
    sample=st.integers(1, 40),
    mixed=st.booleans(),
)
def test_the_boilerplate_share_is_that_of_fingerprints_in_more_than_max_docs_documents(
    documents: list[list[Posting]], max_docs: int, sample: int, mixed: bool
) -> None:
    index = Index()
    modes = [mode_with(1, 10), replace(MODES["words"], noise=1, guarantee=1)]
    for number, postings in enumerate(documents):
        index.add(f"{number:03d}", keys_of(postings), modes[mixed and number % 2])
    held = [{h for h, _ in d} for d in documents]
    total = sum(len(d) for d in documents)
    one_in = max(1, total // sample)  # a larger index is estimated on keys divisible by it
    expected = {}
    for name in ("prose", "words"):
        of_mode = [d for n, d in enumerate(documents) if modes[mixed and n % 2].name == name]
        counted = [h for d in of_mode for h, _ in d if h % one_in == 0]
        common = [h for h in counted if sum(h in s for s in held) > max_docs]
        if counted:
            expected[name] = len(common) / len(counted)
    assert boilerplate_shares(index, max_docs, sample) == pytest.approx(expected)
    calls = []  # a language server's editor is let through between steps: same estimate
    between = lambda: calls.append(1)  # noqa: E731
    assert boilerplate_shares(index, max_docs, sample, between) == pytest.approx(expected)
    assert calls or not documents


def test_the_keys_of_a_template_are_ignored_and_it_is_never_a_candidate() -> None:
    index = Index()
    mode = mode_with(1, 10)
    index.add("template", keys_of([(1, 0), (2, 1)]), mode, Role(template=True))
    index.add("x", keys_of([(1, 0), (2, 1), (3, 2)]), mode)
    index.add("y", keys_of([(1, 0), (2, 1), (3, 2)]), mode)
    found, ignored = all_candidates(index, max_docs=10)
    assert ignored.tolist() == [1, 2]
    assert [(c.a, c.b, c.fingerprint_seeds) for c in found] == [("x", "y", 1)]


def test_candidates_handle_the_largest_keys() -> None:
    big = (1 << 32) - 1
    documents = [[(1, 0), (big, 4)], [(2, 0), (big, 4)], [(1, 0), (big, 4)]]
    assert candidates(documents, max_docs=10, min_seeds=1, reach=10) == {
        (0, 1): 1,
        (0, 2): 2,
        (1, 2): 1,
    }


ORIGINAL = (
    "The committee met on Tuesday to discuss the budget for the new library. "
    "Several members argued that the reading rooms needed better lighting and more seats. "
    "Others wanted the money spent on digital archives and faster internet access. "
    "After a long debate the chair proposed splitting the funds between both projects. "
)
REWORDED = (
    "On Tuesday the committee gathered to talk about the new library's budget. "
    "A number of members claimed the reading rooms required more seats and better lighting. "
    "Other members preferred spending the money on faster internet access and digital archives. "
    "Following lengthy debate, the chair suggested the funds be split across both projects. "
)
UNRELATED = (
    "Migrating geese crossed the valley in a long uneven line before the first snow. "
    "The old bridge was closed to carts after the spring flood cracked its pillars. "
    "Fresh bread cooled on the windowsill while the children waited in the orchard. "
    "A telescope on the hill revealed four moons circling the bright planet at night. "
)


def index_of(texts: dict[str, str]) -> Index:
    index = Index()
    for name, text in texts.items():
        index.add(name, Document(name, text, PROSE).keys, PROSE)
    return index


def test_reworded_sentences_make_a_candidate_that_shares_no_copied_text() -> None:
    index = index_of({"original": ORIGINAL, "reworded": REWORDED, "unrelated": UNRELATED})
    found, _ = all_candidates(index, max_docs=10)
    assert [(c.a, c.b) for c in found] == [("original", "reworded")]
    assert found[0].fingerprint_seeds == 0 and found[0].sentence_seeds >= 2


def test_a_text_asks_for_the_documents_its_sentences_were_reworded_from() -> None:
    index = index_of({"original": ORIGINAL, "unrelated": UNRELATED})
    draft = Document("draft", REWORDED, PROSE)
    found, _ = candidates_of(index, "draft", draft.keys, PROSE, Role(), max_docs=10)
    assert [(c.a, c.b) for c in found] == [("draft", "original")]
    assert found[0].sentence_seeds >= 2


def test_sentence_keys_in_more_than_max_docs_documents_are_ignored() -> None:
    texts = {f"copy{i}": REWORDED for i in range(4)} | {"original": ORIGINAL}
    index = index_of(texts)
    assert any(c.b == "original" for c in all_candidates(index, max_docs=10)[0])
    found, _ = all_candidates(index, max_docs=3)  # every key of REWORDED is in 4 documents
    assert not any(c.b == "original" or c.a == "original" for c in found)


def test_documents_of_different_modes_are_never_candidates() -> None:
    index = Index()
    words = MODES["words"]
    index.add("a", Document("a", ORIGINAL, PROSE).keys, PROSE)
    index.add("b", Document("b", ORIGINAL, words).keys, words)
    index.add("c", Document("c", ORIGINAL, PROSE).keys, PROSE)
    assert [(c.a, c.b) for c in all_candidates(index, max_docs=10)[0]] == [("a", "c")]


def keys_with_sentences(
    fingerprints: list[Posting], sentences: list[list[int]], apart: int = 100
) -> DocumentKeys:
    """Keys of a document whose i-th keyed sentence (at position ``apart`` * i) has the
    given band hashes (BANDS of them, top 32 bits)."""
    plain = keys_of(fingerprints).fingerprints
    hashes = np.array([h << 32 for bands in sentences for h in bands], dtype=np.uint64)
    positions = np.repeat(np.arange(len(sentences), dtype=np.int64) * apart, BANDS)
    units = max(apart * len(sentences), int(plain.positions.max(initial=0)) + 1)
    return DocumentKeys(plain, SentenceKeys(hashes, positions), units)


def sentence(own: int, shared_with: int) -> list[int]:
    """BANDS band hashes of a sentence: SEED_BANDS of them named by ``shared_with``
    (two sentences with the same one make a sentence seed), the rest by ``own``."""
    return [shared_with * 1000 + b for b in range(SEED_BANDS)] + [
        own * 1000 + b for b in range(SEED_BANDS, BANDS)
    ]


def test_one_sentence_seed_selects_a_pair_only_with_a_shared_fingerprint() -> None:
    held_by_both = [(7, 5000)]  # one fingerprint: no dense cluster, but evidence
    for shares_fingerprint in (False, True):
        keys_a = keys_with_sentences(held_by_both if shares_fingerprint else [], [sentence(1, 9)])
        index = Index()
        index.add("a", keys_a, PROSE)
        index.add("b", keys_with_sentences(held_by_both, [sentence(2, 9)]), PROSE)
        expected = [("a", "b")] if shares_fingerprint else []
        found, _ = all_candidates(index, max_docs=10)
        assert [(c.a, c.b) for c in found] == expected
        assert all(c.fingerprint_seeds == 0 and c.sentence_seeds == 1 for c in found)
        asked, _ = candidates_of(index, "a", keys_a, PROSE, Role(), max_docs=10)
        assert [(c.a, c.b) for c in asked] == expected


def test_two_sentence_seeds_select_a_pair_without_a_shared_fingerprint() -> None:
    keys_a = keys_with_sentences([], [sentence(1, 9), sentence(3, 8)])
    index = Index()
    index.add("a", keys_a, PROSE)
    index.add("b", keys_with_sentences([], [sentence(2, 9), sentence(4, 8)]), PROSE)
    found, _ = all_candidates(index, max_docs=10)
    assert [(c.a, c.b, c.sentence_seeds) for c in found] == [("a", "b", 2)]
    asked, _ = candidates_of(index, "a", keys_a, PROSE, Role(), max_docs=10)
    assert [(c.a, c.b, c.sentence_seeds) for c in asked] == [("a", "b", 2)]


SKELETON = (
    "Write a program that reads the marks of a class from a file, prints the mean and "
    "the median, and lists every student whose mark is below the pass mark of forty. "
    "Hand in one file, named after you, before the end of the week. "
)
TAILS = UNRELATED_SENTENCES[1:]


def skeleton_folder(template: bool) -> tuple[Index, dict[str, Document]]:
    """Two documents that are the skeleton alone, nine the skeleton and a line of their
    own (so the skeleton is boilerplate at max_docs=10), and maybe the skeleton as a
    template."""
    texts = {"same-1": SKELETON, "same-2": SKELETON}
    texts |= {f"own-{i}": SKELETON + tail for i, tail in enumerate(TAILS)}
    if template:
        texts["task"] = SKELETON
    documents = {name: Document(name, text, PROSE) for name, text in texts.items()}
    index = Index()
    for name, document in documents.items():
        index.add(name, document.keys, PROSE, Role(template=name == "task"))
    return index, documents


def test_two_documents_of_the_same_text_are_aligned_whole_though_it_is_boilerplate() -> None:
    index, documents = skeleton_folder(template=False)
    found, ignored = all_candidates(index, max_docs=10)
    assert ignored.shape[0] > 0  # the skeleton's keys are boilerplate ...
    same = [c for c in found if c.identical]
    assert [(c.a, c.b) for c in same] == [("same-1", "same-2")]
    results = all_pairs(index, documents.__getitem__, Settings(max_docs=10))
    assert [(r.a.name, r.b.name) for r in results] == [("same-1", "same-2")]  # ... not there
    assert results[0].similarity == 1.0


def test_a_text_that_a_template_is_selects_no_pair_however_many_hand_it_in() -> None:
    index, documents = skeleton_folder(template=True)
    assert not any(c.identical for c in all_candidates(index, max_docs=10)[0])
    assert all_pairs(index, documents.__getitem__, Settings(max_docs=10)) == []


def test_the_same_short_answer_on_a_template_is_not_a_pair_of_the_same_text() -> None:
    """Template text is subtracted from documents of the same text too: two that add
    the same line, too short to report, to the template are not a pair (as the
    editor, which has no same-text rule, would say)."""
    answer = "I used a list."
    texts = {"task": SKELETON, "s1": SKELETON + answer, "s2": SKELETON + answer}
    documents = {name: Document(name, text, PROSE) for name, text in texts.items()}
    index = Index()
    for name, document in documents.items():
        index.add(name, document.keys, PROSE, Role(template=name == "task"))
    assert not any(c.identical for c in all_candidates(index, max_docs=10)[0])
    assert all_pairs(index, documents.__getitem__, Settings(max_docs=10)) == []
    asked = similar(index, documents["s1"], Role(), documents.__getitem__, Settings(max_docs=10))
    assert asked == []


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 5), st.integers(0, 60), st.booleans()), max_size=60),
    st.integers(0, 30),
    st.integers(1, 4),
)
def test_clustered_groups_are_the_groups_with_enough_close_positions(
    seeds: list[tuple[int, int, bool]], reach: int, min_seeds: int
) -> None:
    """Packed (group, position) integers sorted at once give what a group-by-group count
    gives, positions near 2^32 included (where one group's bits meet the next's)."""
    groups = np.array([g for g, _, _ in seeds], dtype=np.int64)
    near_top = [2**32 - 61 + p if high else p for _, p, high in seeds]
    positions = np.array(near_top, dtype=np.uint64).astype(np.uint32)
    expected = []
    for group in sorted(set(groups.tolist())):
        distinct = sorted(set(positions[groups == group].tolist()))
        best = run = 1
        for before, after in itertools.pairwise(distinct):
            run = run + 1 if after - before <= reach else 1
            best = max(best, run)
        if best >= min_seeds:
            expected.append(group)
    assert clustered_groups(groups, positions, reach, min_seeds).tolist() == expected


def test_screened_lookup_finds_exactly_the_wanted_hashes() -> None:
    """Past _SCREEN_FROM values a bit table screens them first; the answer is the same."""
    rng = np.random.default_rng(3)
    values = rng.integers(0, 2**63, _SCREEN_FROM * 2 + 17, dtype=np.uint64)
    wanted = np.unique(
        np.concatenate(
            [
                values[rng.integers(0, values.shape[0], 50)],
                rng.integers(0, 2**63, 50, dtype=np.uint64),
            ]
        )
    )
    # a value sharing its low bits with a wanted one, but not wanted
    values[5] = wanted[0] ^ np.uint64(1 << 40)
    expected = np.flatnonzero(np.isin(values, wanted))
    assert _carrying(values, wanted).tolist() == expected.tolist()
    assert _carrying(values[:1000], wanted).tolist() == expected[expected < 1000].tolist()


def test_clustered_groups_of_pairs_of_a_folder_past_46_340_documents() -> None:
    """Pair ids a * n + b pass 2^31 there; packed beside a position they would overflow."""
    n = 100_000
    pairs = np.array([3 * n + 99_999] * 3 + [99_998 * n + 99_999] * 3 + [5 * n + 7] * 2)
    positions = np.array([10, 12, 14, 7, 500, 1_000, 1, 2], dtype=np.uint32)
    assert clustered_groups(pairs, positions, 5, 3).tolist() == [3 * n + 99_999]
    assert clustered_groups(pairs, positions, 500, 2).tolist() == sorted(
        [3 * n + 99_999, 99_998 * n + 99_999, 5 * n + 7]
    )


def test_a_folder_taken_a_part_of_the_pairs_at_a_time_gives_the_same_candidates(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Clough & Stevenson's answers (copies, revisions, rewordings and programs' worth of
    shared keys): selected in many parts, the same candidates and evidence as at once."""
    from pathlib import Path

    from doublet.engine import candidates as candidates_module
    from doublet.sources import read_document

    folder = Path(__file__).parents[1] / "data" / "clough-stevenson"
    index = Index()
    for path in sorted(folder.glob("*.txt")):
        text = read_document(path, path.read_bytes())
        index.add(path.name, Document(path.name, text, PROSE).keys, PROSE)
    whole, ignored = all_candidates(index, max_docs=50)
    monkeypatch.setattr(candidates_module, "PAIRS_PER_PART", 500)
    parted, ignored_parted = all_candidates(index, max_docs=50)
    assert len(whole) > 100
    assert parted == whole and np.array_equal(ignored_parted, ignored)
    # several parts at once, on threads, as a big scan makes them (parallel.threaded_parts)
    with ThreadPoolExecutor(3) as pool:
        threaded, ignored_threaded = all_candidates(
            index, max_docs=50, each=pool.map, parts_times=5
        )
    assert threaded == whole and np.array_equal(ignored_threaded, ignored)


@pytest.mark.parametrize("slice_size", [1, 7, 300])
def test_postings_read_a_few_at_a_time_give_the_same_selection_and_notes(
    monkeypatch: pytest.MonkeyPatch, slice_size: int
) -> None:
    """Keys left out of pairing are decided as a kind's postings are read, a slice at a
    time: with slices of a few postings (a key's run cut across them), the same
    candidates, ignored keys and notes for selecting again as read at once; a template
    and a document repeating its text past MAX_REPEATS among them."""
    from pathlib import Path

    from doublet.engine import index as index_module
    from doublet.engine.candidates import Seen
    from doublet.sources import read_document

    folder = Path(__file__).parents[1] / "data" / "clough-stevenson"
    texts = {
        path.name: read_document(path, path.read_bytes()) for path in sorted(folder.glob("*.txt"))
    }
    texts["repeats.txt"] = " ".join([texts["orig_taska.txt"][:400]] * 8)
    index = Index()
    for name, text in texts.items():
        role = Role(template=True) if name == "orig_taskb.txt" else Role()
        index.add(name, Document(name, text, PROSE).keys, PROSE, role)

    def selected() -> tuple:
        seen = Seen({"fingerprints": 3, "sentences": 3, "lexicon": 3})
        found, ignored = all_candidates(index, max_docs=20, seen=seen)
        counted = {kind: [a.tolist() for a in arrays] for kind, arrays in seen.counted.items()}
        given = {kind: keys.tolist() for kind, keys in seen.given.items()}
        return found, ignored.tolist(), counted, given

    def paired() -> list:
        from doublet.engine.candidates import _paired

        held = [_paired(index, kind, np.zeros(0, np.uint32), 20, None) for kind in KINDS]
        fields = ("docs", "positions", "starts", "counts", "documents")
        return [[getattr(p, f).tolist() for f in fields] for p in held]

    whole, whole_paired = selected(), paired()
    monkeypatch.setattr(index_module, "_SLICE", slice_size)
    assert selected() == whole
    assert len(whole[0]) > 100 and whole[1] and whole[2]["sentences"][0]
    # each slice's runs of keys put end to end are the whole's
    assert paired() == whole_paired


def test_postings_without_their_keys_values_refuse_what_needs_them() -> None:
    """Let go of, the keys' values are not silently taken for none."""
    from doublet.engine.candidates import _Postings

    keys = np.array([1, 1, 2, 2], dtype=np.uint32)
    docs = np.array([0, 1, 0, 1], dtype=np.int32)
    pairing = _Postings.of(keys, docs, np.arange(4, dtype=np.uint32)).without_key_values()
    assert pairing.pair_count() == 2
    with pytest.raises(ValueError):
        pairing.frequent(1)
    with pytest.raises(ValueError):
        pairing.without_keys(np.zeros(0, np.uint32))


def test_a_part_of_the_pairs_without_any_pair_is_no_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two documents make one pair of documents, so all but one part are empty."""
    from doublet.engine import candidates as candidates_module

    text = " ".join(UNRELATED_SENTENCES[:12])
    index = index_of({"a.txt": text, "b.txt": text})
    whole, _ = all_candidates(index, max_docs=10)
    monkeypatch.setattr(candidates_module, "PAIRS_PER_PART", 3)
    parted, _ = all_candidates(index, max_docs=10)
    assert [(c.a, c.b) for c in whole] == [("a.txt", "b.txt")] and parted == whole


def test_sentence_seeds_of_two_pairs_are_never_taken_for_one() -> None:
    """Group g at sentences (0, p) and group p + 1 at sentences (0, g - 1) were named
    alike, so one of the two pairs lost its seed, depending on the documents' ids."""
    from doublet.engine.candidates import _sentence_pairs, _sentence_seeds

    groups = np.repeat(np.array([57, 59], dtype=np.int64), SEED_BANDS)
    at_a = np.zeros(2 * SEED_BANDS, dtype=np.uint32)
    at_b = np.repeat(np.array([58, 56], dtype=np.uint32), SEED_BANDS)
    pairs, seeds = _sentence_seeds([_sentence_pairs(groups, at_a, at_b)])
    assert pairs.tolist() == [57, 59] and seeds.tolist() == [1, 1]


@settings(max_examples=300, deadline=None)
@given(
    shared=st.lists(
        st.tuples(st.integers(0, 40), st.integers(0, 6), st.integers(0, 6)), max_size=120
    ),
    chunk=st.integers(1, 50),
    n=st.sampled_from([7, 100_000, 3_000_000_000]),
)
def test_sentence_seeds_packed_exactly_are_those_named_by_a_hash(
    shared: list[tuple[int, int, int]], chunk: int, n: int
) -> None:
    """A batch scan names a shared key's two sentences by packing (pair, position in A,
    position in B) into 64 bits where they fit, instead of hashing them: the same seeds,
    each counted once per pair of sentences met SEED_BANDS times or more."""
    from doublet.engine.candidates import (
        _packed_sentence_seeds,
        _sentence_pairs,
        _sentence_seeds,
        sentence_bits,
    )

    groups = np.array([g * 7919 % max(n * n - 1, 1) for g, _, _ in shared], dtype=np.int64)
    at_a = np.array([a * 1_000 for _, a, _ in shared], dtype=np.uint32)
    at_b = np.array([b * 999 for _, _, b in shared], dtype=np.uint32)
    bits = sentence_bits(n, 6_000)
    if n == 3_000_000_000:
        assert bits is None  # too many documents to pack their pairs beside two positions
        return
    assert bits is not None
    cut = range(0, len(shared), chunk)
    packed = _packed_sentence_seeds(
        ((groups[i : i + chunk], at_a[i : i + chunk], at_b[i : i + chunk]) for i in cut), bits
    )
    hashed = _sentence_seeds(
        _sentence_pairs(groups[i : i + chunk], at_a[i : i + chunk], at_b[i : i + chunk])
        for i in cut
    )
    met: dict[tuple[int, int, int], int] = {}
    for key in zip(groups.tolist(), at_a.tolist(), at_b.tolist(), strict=True):
        met[key] = met.get(key, 0) + 1
    plain: dict[int, int] = {}
    for (group, _, _), times in met.items():
        if times >= SEED_BANDS:
            plain[group] = plain.get(group, 0) + 1
    expected = sorted(plain.items())
    for pairs, seeds in (packed, hashed):
        assert pairs.dtype == np.int64
        assert list(zip(pairs.tolist(), seeds.tolist(), strict=True)) == expected


def test_sentence_bits_fit_a_pair_and_two_positions_in_64_bits() -> None:
    from doublet.engine.candidates import sentence_bits

    assert sentence_bits(100_000, 16_131) == 14  # 34 bits of pairs and two of 14
    assert sentence_bits(100_000, 0) == 1
    assert sentence_bits(1_000_000, 16_131) is None  # 40 + 28 bits
    assert sentence_bits(2, 2**31 - 1) == 31


def _plain_postings(keys: np.ndarray, docs: np.ndarray, ignored: np.ndarray) -> tuple:
    """The rule ``_Postings.without_keys`` and ``of`` follow, one posting at a time: keys
    not ignored, the first MAX_REPEATS of each (key, document); per distinct key, where
    its run starts, its postings and its documents."""
    from doublet.engine.candidates import MAX_REPEATS

    kept, seen = [], {}
    for i, (key, doc) in enumerate(zip(keys.tolist(), docs.tolist(), strict=True)):
        if key in set(ignored.tolist()):
            continue
        seen[key, doc] = seen.get((key, doc), 0) + 1
        if seen[key, doc] <= MAX_REPEATS:
            kept.append(i)
    runs: dict[int, list[int]] = {}
    for at, i in enumerate(kept):
        runs.setdefault(int(keys[i]), []).append(at)
    starts = [run[0] for run in runs.values()]
    counts = [len(run) for run in runs.values()]
    documents = [len({int(docs[kept[at]]) for at in run}) for run in runs.values()]
    return kept, starts, counts, documents


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 5), st.integers(0, 2), st.integers(0, 50)), max_size=80),
    st.sets(st.integers(0, 6), max_size=3),
    st.sampled_from([1, 2, 3, 7, 1 << 20]),
    st.booleans(),
)
def test_postings_without_keys_follow_the_plain_rule(
    postings: list[tuple[int, int, int]], ignored: set[int], slice_size: int, own: bool
) -> None:
    """Counted a slice at a time (any slice size), the same runs, counts, documents and
    kept postings as the rule taken one posting at a time; and the same when the kept
    are moved in place (``own``), a slice at a time."""
    from doublet.engine import candidates as candidates_module
    from doublet.engine.candidates import _Postings

    rows = sorted(postings)
    keys = np.array([r[0] for r in rows], dtype=np.uint32)
    docs = np.array([r[1] for r in rows], dtype=np.int32)
    positions = np.array([r[2] for r in rows], dtype=np.uint32)
    ignoring = np.array(sorted(ignored), dtype=np.uint32)
    original = candidates_module._SLICE
    candidates_module._SLICE = slice_size
    given = (keys.copy(), docs.copy(), positions.copy()) if own else (keys, docs, positions)
    try:
        found = _Postings.of(*given).without_keys(ignoring, own=own)
    finally:
        candidates_module._SLICE = original
    assert [r[0] for r in rows] == keys.tolist()  # what was given, unless own, as it was
    assert [r[2] for r in rows] == positions.tolist()
    kept, starts, counts, documents = _plain_postings(keys, docs, ignoring)
    assert found.keys.tolist() == keys[kept].tolist()
    assert found.docs.tolist() == docs[kept].tolist()
    assert found.positions.tolist() == positions[kept].tolist()
    assert found.starts.tolist() == starts and found.counts.tolist() == counts
    assert found.documents.tolist() == documents
    if kept:
        assert found.starts.dtype == found.counts.dtype == found.documents.dtype == np.int32


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), max_size=60),
    st.sampled_from([1, 2, 5, 1 << 20]),
)
def test_set_sums_counted_a_slice_at_a_time_are_the_sets(
    postings: list[tuple[int, int]], slice_size: int
) -> None:
    """Each document's sum names its set of keys (repeats counted once) and counts them,
    wherever the slices cut a run of one key in one document."""
    from doublet.engine import candidates as candidates_module
    from doublet.engine.candidates import set_sums
    from doublet.engine.hashing import mix64

    rows = sorted(postings)
    keys = np.array([r[0] for r in rows], dtype=np.uint32)
    owners = np.array([r[1] for r in rows], dtype=np.int32)
    original = candidates_module._SLICE
    candidates_module._SLICE = slice_size
    try:
        summed, held = set_sums(keys, owners, 6)
    finally:
        candidates_module._SLICE = original
    for doc in range(6):
        own = sorted({k for k, d in rows if d == doc})
        mixed = mix64(np.array(own, dtype=np.uint64), 2)
        assert int(held[doc]) == len(own)
        assert int(summed[doc]) == int(mixed.sum(dtype=np.uint64)) if own else summed[doc] == 0


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 5),
            # ids whose parts sum past a byte, when there are more than 127 parts
            st.integers(0, 300) | st.sampled_from([126, 127, 128, 129, 255, 256, 257, 258]),
            st.integers(0, 50),
        ),
        max_size=60,
    ),
    st.sampled_from([1, 2, 3, 7, 127, 128, 130]),
    st.sampled_from([1, 2, 5, 1 << 20]),
)
@example([(1, 128, 0), (1, 258, 0)], 130, 1 << 20)  # parts 128 + 128: past a byte
def test_pairs_of_postings_in_parts_follow_the_plain_rule(
    postings: list[tuple[int, int, int]], parts: int, per_chunk: int
) -> None:
    """Each part gives the pairs of postings of one key in two documents whose ids sum to
    it modulo ``parts`` (any number of parts, a byte's worth or more; any chunk size),
    doc a < doc b; together the parts give every pair once. With each pair's part made
    once (``plan``; a byte each up to 127 parts), the same pairs in the same order."""
    from doublet.engine import candidates as candidates_module
    from doublet.engine.candidates import _Postings

    rows = sorted(set(postings))
    keys = np.array([r[0] for r in rows], dtype=np.uint32)
    docs = np.array([r[1] for r in rows], dtype=np.int32)
    positions = np.array([r[2] for r in rows], dtype=np.uint32)
    found = _Postings.of(keys, docs, positions)
    expected: dict[int, list[tuple[int, int, int, int]]] = {}
    for i, (key, doc, at) in enumerate(rows):
        for other, other_doc, other_at in rows[i + 1 :]:
            if other == key and other_doc != doc:
                expected.setdefault((doc + other_doc) % parts, []).append(
                    (doc, other_doc, at, other_at)
                )
    original = candidates_module.PAIRS_PER_CHUNK
    candidates_module.PAIRS_PER_CHUNK = per_chunk
    try:
        plan = found.plan(parts)
        assert (plan.codes is None) == (parts >= 128)
        for part in sorted({0, parts - 1, *expected}):
            got = [
                row
                for chunk in found.pairs(part, parts)
                for row in zip(*(column.tolist() for column in chunk), strict=True)
            ]
            assert sorted(got) == sorted(expected.get(part, []))
            planned = [  # the keys' values are not needed to pair them
                row
                for chunk in found.without_key_values().pairs(part, parts, plan)
                for row in zip(*(column.tolist() for column in chunk), strict=True)
            ]
            assert planned == got
    finally:
        candidates_module.PAIRS_PER_CHUNK = original
