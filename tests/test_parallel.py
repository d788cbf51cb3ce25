"""Worker processes: a language server's background indexing leaves the cores to it."""

from __future__ import annotations

import os

from doublet import parallel


def test_background_workers_run_at_a_lower_priority_and_others_do_not() -> None:
    with parallel.process_pool(1) as pool:
        normal = pool.submit(os.nice, 0).result(timeout=60)
    with parallel.in_background(), parallel.process_pool(1) as pool:
        lowered = pool.submit(os.nice, 0).result(timeout=60)
    with parallel.process_pool(1) as pool:  # the context is over: full priority again
        again = pool.submit(os.nice, 0).result(timeout=60)
    assert normal == again == os.nice(0)
    assert lowered == min(normal + parallel.BACKGROUND_NICENESS, 19)


def test_the_values_a_scan_keeps_by_the_hundred_thousand_carry_no_dict_each() -> None:
    """A scan of 100,000 documents keeps 102,000 candidates and their outcomes: their
    passages, sides and resemblances in slots (48 bytes an object, not 350 with a
    dict), and they still travel between processes as they were."""
    import pickle

    from doublet.engine.candidates import Candidate
    from doublet.engine.passages import Passage, Side
    from doublet.engine.resemblance import Resemblance
    from doublet.scanned import ScannedPassage

    side = Side(0, 10, 0, 10)
    values = [
        Candidate("a.txt", "b.txt", 3, 1),
        side,
        Passage(side, side, 20, 1.0, 10, 3),
        ScannedPassage(Passage(side, side, 20, 1.0, 10, 3), (1, 2), (3, 4), "digest"),
        Resemblance(0.5, 0.0, 0.0, 0.5),
    ]
    for value in values:
        assert not hasattr(value, "__dict__")
        assert pickle.loads(pickle.dumps(value)) == value


def test_pairs_of_the_same_documents_are_dealt_to_a_worker_together() -> None:
    """Two groups of documents whose names alternate: in name order, each half of the
    pairs needs every document; in neighbourhood order, each half needs one group."""
    from itertools import combinations

    from doublet.engine.candidates import Candidate

    def pair(a: str, b: str) -> Candidate:
        return Candidate(a, b, fingerprint_seeds=3, sentence_seeds=0, lexicon_seeds=0)

    names = [f"d{i:02d}.txt" for i in range(12)]
    groups = (names[0::2], names[1::2])
    candidates = sorted(
        (pair(a, b) for group in groups for a, b in combinations(group, 2)),
        key=lambda c: (c.a, c.b),
    )
    order = parallel.neighbourhood_order(candidates)
    assert sorted(order) == list(range(len(candidates)))

    def documents_per_half(ordered: list[Candidate]) -> list[int]:
        half = len(ordered) // 2
        return [
            len({n for c in part for n in (c.a, c.b)}) for part in (ordered[:half], ordered[half:])
        ]

    assert documents_per_half(candidates)[0] == 12  # every document
    assert documents_per_half([candidates[i] for i in order]) == [6, 6]


def test_an_aligned_pair_comes_back_from_a_worker_as_it_went() -> None:
    """The pieces of a scanned pair pickle by their fields in order (their own way, not
    a slotted dataclass's): every field survives, of every class."""
    import pickle

    from doublet.engine.passages import Passage, Side
    from doublet.engine.resemblance import Resemblance
    from doublet.scanned import ScannedPair, ScannedPassage

    passage = Passage(Side(3, 90, 2, 70), Side(0, 88, 0, 69), 130, 0.93, 41, 7, True)
    pair = ScannedPair(
        "a.txt",
        "b.txt",
        (ScannedPassage(passage, (1, 3), (2, 4), "c0ffee"),),
        68,
        69,
        500,
        480,
        Resemblance(0.25, 0.5, 0.125, 0.375),
        True,
    )
    back = pickle.loads(pickle.dumps(pair, protocol=pickle.HIGHEST_PROTOCOL))
    assert back == pair and back.passages[0].passage.paraphrase
    assert type(back.passages[0].passage.a) is Side and back.resemblance == pair.resemblance


def test_packed_outcomes_are_ranked_and_reported_as_the_pairs_they_hold() -> None:
    """A scan's outcomes, some packed (from the aligners), some whole (kept or aligned
    here): the reported ones in the order ``ranked`` gives the pairs, the same pairs."""
    import random

    from doublet.engine.passages import Passage, Side
    from doublet.engine.resemblance import Resemblance
    from doublet.scanned import (
        PackedPair,
        ScannedPair,
        ScannedPassage,
        pack,
        ranked,
        ranked_outcomes,
    )

    rnd = random.Random(5)

    def pair(number: int) -> ScannedPair:
        passages = []
        for _ in range(rnd.randint(0, 3)):
            start, length = rnd.randint(0, 500), rnd.choice([40, 80, 80, 120])
            side = Side(start, start + length, start, start + length)
            passages.append(
                ScannedPassage(Passage(side, side, length, 1.0, length, 3), (1, 2), (1, 2), "d")
            )
        covered = sum(p.passage.a.units for p in passages)
        score = rnd.choice([0.1, 0.25, 0.5])
        return ScannedPair(
            f"d{number % 7}.txt",
            f"e{number}.txt",
            tuple(passages),
            covered,
            covered,
            1000,
            1000,
            Resemblance(score, 0.0, 0.0, score),
            False,
        )

    pairs = [pair(n) for n in range(60)]
    outcomes = [PackedPair(p.a, p.b, pack(p)) if n % 2 else p for n, p in enumerate(pairs)] + [None]

    def reported(similarity: float, passages: bool, score: float | None) -> bool:
        return passages and similarity >= 0.05

    found = ranked_outcomes(outcomes, reported)
    expected = ranked([p for p in pairs if reported(p.similarity, bool(p.passages), None)])
    assert len(found) == len(expected) > 10
    assert list(found) == expected and found == expected and found[3] == expected[3]
