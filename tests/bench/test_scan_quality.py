"""bench/scan_quality.py: the pure scoring helpers (no shared data, no scan run)."""

from __future__ import annotations

import itertools
import statistics

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench.pan_measures import evaluate_pair
from bench.scan_quality import (
    Listing,
    average_precision,
    cs_figures,
    level_auc,
    oriented_detections,
    pan_scores,
    ranking_score,
    spread,
)


def _pair(a: int, b: int, passages=(), **figures) -> dict:
    sides = [
        {"a": {"start": a0, "end": a1}, "b": {"start": b0, "end": b1}}
        for a0, a1, b0, b1 in passages
    ]
    return {"a": a, "b": b, "similarity": 0.5, "passages": sides} | figures


def _scan(paths: list[str], pairs: list[dict]) -> dict:
    return {"documents": [{"id": i, "path": p} for i, p in enumerate(paths)], "pairs": pairs}


# --- The listing -------------------------------------------------------------------------


def test_ranking_score_is_the_resemblance_for_code_else_the_similarity() -> None:
    assert ranking_score({"similarity": 0.4}) == 0.4
    assert ranking_score({"similarity": 0.4, "resemblance": {"score": 0.9}}) == 0.9


def test_listing_strips_the_folder_and_finds_pairs_either_way_round() -> None:
    data = _scan(
        ["/tmp/f/susp/x.txt", "/tmp/f/src/y.txt", "/tmp/f/src/z.txt"],
        [_pair(1, 0, similarity=0.9), _pair(0, 2)],
    )
    listing = Listing.of(data, "/tmp/f/")
    assert listing.paths == ["susp/x.txt", "src/y.txt", "src/z.txt"]
    rank, pair = listing.find("susp/x.txt", "src/y.txt")
    assert rank == 1 and pair["similarity"] == 0.9
    assert listing.find("src/y.txt", "susp/x.txt")[0] == 1
    assert listing.find("susp/x.txt", "src/z.txt")[0] == 2
    assert listing.find("src/y.txt", "src/z.txt") is None


def test_listing_of_a_scan_of_dot_keeps_relative_paths() -> None:
    listing = Listing.of(_scan(["a.txt", "./b.txt"], []), ".")
    assert listing.paths == ["a.txt", "b.txt"]


def test_listing_refuses_a_pair_listed_twice() -> None:
    with pytest.raises(ValueError, match="twice"):
        Listing.of(_scan(["a", "b"], [_pair(0, 1), _pair(1, 0)]), ".")


def test_detections_put_the_asked_document_first() -> None:
    pair = _pair(3, 7, [(10, 30, 100, 125)])
    assert oriented_detections(pair, 3) == [(10, 20, 100, 25)]
    assert oriented_detections(pair, 7) == [(100, 25, 10, 20)]
    with pytest.raises(ValueError):
        oriented_detections(pair, 5)


def test_turned_detections_score_as_given_ones() -> None:
    # The suspicious document listed as b: turned, its passage detects the case.
    case = (100, 50, 10, 40)
    pair = _pair(0, 1, [(10, 50, 100, 150)])  # a = source, b = suspicious
    assert evaluate_pair([case], oriented_detections(pair, 1)).recall_sum == 1
    assert evaluate_pair([case], oriented_detections(pair, 0)).detected_cases == 0


def test_pan_scores_add_pairs_per_folder() -> None:
    case = (0, 100, 0, 100)
    figures = pan_scores(
        ["02", "02", "01"],
        [[case], [case], []],
        [[case], [], [(0, 10, 0, 10)]],
    )
    assert figures["folders"]["02"]["recall"] == 0.5
    assert figures["folders"]["02"]["precision"] == 1
    assert figures["folders"]["01"]["detections"] == 1
    assert figures["folder_pairs"] == {"02": 2, "01": 1}
    assert figures["overall"]["cases"] == 2 and figures["overall"]["detections"] == 2


# --- Average precision -------------------------------------------------------------------


def test_average_precision_by_hand() -> None:
    # Ranked: +, -, +: (1/1 + 2/3) / 2.
    assert average_precision([3, 2, 1], [1, 0, 1]) == pytest.approx((1 + 2 / 3) / 2)
    assert average_precision([3, 2, 1], [1, 1, 0]) == 1
    assert average_precision([3, 2, 1], [0, 0, 0]) == 0


def test_unlisted_positives_are_misses() -> None:
    # Two of four positives retrieved, at ranks 1 and 2.
    assert average_precision([2, 1], [1, 1], positives=4) == pytest.approx(0.5)
    assert average_precision([], [], positives=3) == 0
    with pytest.raises(ValueError):
        average_precision([2, 1], [1, 1], positives=1)


def test_ties_give_the_mean_over_their_orders() -> None:
    # One positive tied with one negative at the top: 1 or 1/2, so 3/4.
    assert average_precision([1, 1], [1, 0]) == pytest.approx(0.75)
    assert average_precision([5, 5, 5], [1, 1, 1]) == pytest.approx(1)


def _brute_force_ap(scores: list[int], labels: list[bool], positives: int) -> float:
    """Mean AP over every order of the tied items (items distinguished by index)."""
    groups = [
        [i for i in range(len(scores)) if scores[i] == s] for s in sorted(set(scores), reverse=True)
    ]
    values = []
    for orders in itertools.product(*(itertools.permutations(g) for g in groups)):
        ranking = [i for order in orders for i in order]
        hits, total = 0, 0.0
        for rank, i in enumerate(ranking, start=1):
            if labels[i]:
                hits += 1
                total += hits / rank
        values.append(total / positives)
    return statistics.fmean(values)


@given(
    st.lists(st.tuples(st.integers(0, 3), st.booleans()), min_size=1, max_size=7),
    st.integers(0, 3),
)
def test_average_precision_matches_every_order_of_ties(items, extra) -> None:
    scores = [s for s, _ in items]
    labels = [y for _, y in items]
    positives = sum(labels) + extra
    if positives == 0:
        assert average_precision(scores, labels, positives) == 0
        return
    expected = _brute_force_ap(scores, labels, positives)
    assert average_precision(scores, labels, positives) == pytest.approx(expected)


def test_average_precision_takes_arrays() -> None:
    scores = np.array([0.9, 0.1, 0.5])
    labels = np.array([True, False, True])
    assert average_precision(scores, labels) == 1


# --- Summaries ---------------------------------------------------------------------------


def test_spread() -> None:
    assert spread([0.5, 1.0, 0.75]) == {
        "mean": 0.75,
        "min": 0.5,
        "max": 1.0,
        "per_case": [0.5, 1.0, 0.75],
    }


def test_level_auc_takes_that_level_or_all_against_the_independent_ones() -> None:
    labels = ["non-plagiarized", "non-plagiarized", "L1", "L6"]
    scores = [0.2, 0.4, 0.9, 0.3]
    assert level_auc(labels, scores, "L1") == 1
    assert level_auc(labels, scores, "L6") == 0.5
    assert level_auc(labels, scores, "all") == 0.75


def test_cs_figures() -> None:
    categories = ["cut", "light", "heavy", "non", "non"]
    figures = cs_figures([0.9, 0.8, 0.0, 0.0, 0.1], categories)
    # heavy (0.0) ties one non and loses to the other: 1/4.
    assert figures["auc_heavy"] == 0.25
    assert figures["auc"] == pytest.approx(round((2 + 2 + 0.5) / 6, 4))
    assert figures["mean_by_category"] == {"cut": 0.9, "light": 0.8, "heavy": 0.0, "non": 0.05}
