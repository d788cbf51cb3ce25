"""ROC AUC: hand-computed values, errors, and agreement with pairwise counting."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from bench.roc import roc_auc


def test_perfect_and_reversed_ranking() -> None:
    assert roc_auc([0.1, 0.2, 0.8, 0.9], [0, 0, 1, 1]) == 1
    assert roc_auc([0.9, 0.8, 0.2, 0.1], [0, 0, 1, 1]) == 0


def test_all_tied_is_chance() -> None:
    assert roc_auc([3, 3, 3, 3, 3], [0, 1, 1, 0, 1]) == 0.5


def test_hand_computed() -> None:
    # Positive 0.35 beats 0.1, loses to 0.4; positive 0.8 beats both: 3 of 4.
    assert roc_auc([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1]) == 0.75


def test_ties_count_half() -> None:
    # Positive 1 ties negative 1 (½), loses to 2; positive 3 beats both: 2.5 of 4.
    assert roc_auc([1, 1, 2, 3], [0, 1, 0, 1]) == 0.625


def test_boolean_labels_and_arrays() -> None:
    assert roc_auc(np.array([0.2, 0.9]), np.array([False, True])) == 1


@pytest.mark.parametrize(
    ("scores", "labels"),
    [
        ([1, 2], [1, 1]),  # no negative
        ([1, 2], [0, 0]),  # no positive
        ([], []),
        ([1, float("nan")], [0, 1]),
        ([1, 2, 3], [0, 1]),
        ([1, 2], [0, 2]),
    ],
)
def test_invalid_input(scores: list[float], labels: list[int]) -> None:
    with pytest.raises(ValueError):
        roc_auc(scores, labels)


SAMPLES = st.lists(st.tuples(st.integers(-5, 5), st.booleans()), min_size=2, max_size=40)


def _pairwise(samples: list[tuple[int, bool]]) -> float:
    pos = [s for s, y in samples if y]
    neg = [s for s, y in samples if not y]
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def _split(samples: list[tuple[int, bool]]) -> tuple[list[int], list[bool]]:
    assume(any(y for _, y in samples) and not all(y for _, y in samples))
    return [s for s, _ in samples], [y for _, y in samples]


@given(SAMPLES)
def test_matches_pairwise_definition(samples: list[tuple[int, bool]]) -> None:
    scores, labels = _split(samples)
    assert roc_auc(scores, labels) == pytest.approx(_pairwise(samples))


@given(SAMPLES)
def test_negating_scores_mirrors_auc(samples: list[tuple[int, bool]]) -> None:
    scores, labels = _split(samples)
    negated = [-s for s in scores]
    assert roc_auc(negated, labels) == pytest.approx(1 - roc_auc(scores, labels))


@given(SAMPLES)
def test_only_the_order_of_scores_matters(samples: list[tuple[int, bool]]) -> None:
    scores, labels = _split(samples)
    squashed = [s**3 + 7 for s in scores]  # strictly increasing on integers
    assert roc_auc(squashed, labels) == roc_auc(scores, labels)
