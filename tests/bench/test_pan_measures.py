"""PAN measures: hand-computed examples, PAN's edge conventions, invariants.

Hypothesis also checks the interval arithmetic against a literal
per-character reading of the definitions (sets of characters).
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench.pan_measures import Alignment as A
from bench.pan_measures import PanScores, evaluate, evaluate_pair, plagdet

CASE = A(0, 100, 0, 100)


def scores(cases, detections) -> dict[str, float]:
    r = evaluate_pair(cases, detections)
    return {
        "p": r.precision,
        "r": r.recall,
        "g": r.granularity,
        "plagdet": r.plagdet,
    }


def approx(**expected: float) -> dict[str, float]:
    return pytest.approx(expected, rel=1e-12)


# --- hand-computed examples ------------------------------------------------------------


def test_perfect_detection() -> None:
    case = A(100, 50, 200, 60)
    assert scores([case], [case]) == approx(p=1, r=1, g=1, plagdet=1)


def test_case_detected_by_two_halves() -> None:
    halves = [A(0, 50, 0, 50), A(50, 50, 50, 50)]
    assert scores([CASE], halves) == approx(p=1, r=1, g=2, plagdet=1 / math.log2(3))


def test_overlap_on_one_side_only_is_no_detection() -> None:
    elsewhere_in_source = A(0, 100, 500, 100)
    elsewhere_in_susp = A(500, 100, 0, 100)
    r = evaluate_pair([CASE], [elsewhere_in_source, elsewhere_in_susp])
    assert (r.recall, r.precision, r.plagdet, r.granularity) == (0, 0, 0, 1)
    assert (r.detected_cases, r.false_detections) == (0, 2)


def test_touching_ranges_do_not_overlap() -> None:
    # Half-open ranges: [100, 200) and [0, 100) share no character.
    r = evaluate_pair([CASE], [A(100, 100, 50, 10)])
    assert r.detected_cases == 0


def test_shifted_detection_covers_half() -> None:
    # 50 of 100 chars on each side: 100/200 either way.
    assert scores([CASE], [A(50, 100, 50, 100)]) == approx(p=0.5, r=0.5, g=1, plagdet=0.5)


def test_partial_overlap_counts_both_sides_separately() -> None:
    # Case: 75 susp + 100 src chars covered of 200 -> 7/8.
    # Detection: 75 susp + 100 src chars inside the case of 75 + 200 -> 7/11.
    p, r = 7 / 11, 7 / 8
    f1 = 2 * p * r / (p + r)
    assert scores([CASE], [A(25, 75, 0, 200)]) == approx(p=p, r=r, g=1, plagdet=f1)


def test_overlapping_detections_are_merged_not_double_counted() -> None:
    # Case coverage is the union [25, 150) ∩ case on each side: 75 of 100.
    dets = [A(50, 100, 50, 100), A(25, 75, 25, 75)]
    r = evaluate_pair([CASE], dets)
    assert r.recall == pytest.approx(0.75)
    assert r.precision == pytest.approx((0.5 + 1.0) / 2)
    assert r.granularity == 2


def test_one_detection_spanning_two_cases() -> None:
    cases = [CASE, A(200, 100, 200, 100)]
    # 400 of the detection's 600 chars are plagiarised; each case found once.
    assert scores(cases, [A(0, 300, 0, 300)]) == approx(p=2 / 3, r=1, g=1, plagdet=0.8)


def test_micro_average_over_pairs() -> None:
    found = ([CASE], [CASE])
    missed = ([CASE], [])
    r = evaluate([found, missed])
    assert (r.recall, r.precision, r.granularity) == (0.5, 1, 1)
    # Not the mean of per-pair plagdet (1 and 0).
    assert r.plagdet == pytest.approx(2 / 3)
    assert (r.cases, r.detections, r.detected_cases) == (2, 1, 1)


def test_detection_only_counts_in_its_own_pair() -> None:
    r = evaluate([([CASE], []), ([], [CASE])])
    assert (r.recall, r.precision, r.false_detections) == (0, 0, 1)


def test_sum_of_pairs_equals_evaluate() -> None:
    pairs = [([CASE], [A(50, 100, 50, 100)]), ([CASE], [CASE, A(0, 10, 0, 10)]), ([], [CASE])]
    assert sum(evaluate_pair(c, d) for c, d in pairs) == evaluate(pairs)


def test_plagdet_formula() -> None:
    assert plagdet(1, 1, 1) == 1
    assert plagdet(1, 1, 2) == pytest.approx(0.63092975)
    assert plagdet(0.75, 0.25, 2) == pytest.approx(0.23659865)
    assert plagdet(0, 0, 1) == 0
    assert plagdet(0.5, 1, 1) == pytest.approx(2 / 3)


# --- PAN evaluator's conventions -------------------------------------------------------


def test_nothing_to_find_and_nothing_found_is_perfect() -> None:
    assert scores([], []) == approx(p=1, r=1, g=1, plagdet=1)
    assert evaluate([]).plagdet == 1


def test_no_detections_scores_zero() -> None:
    r = evaluate_pair([CASE], [])
    assert (r.precision, r.recall, r.granularity, r.plagdet) == (0, 0, 1, 0)


def test_detections_without_cases_score_zero_and_are_counted() -> None:
    # A negative folder such as 01-no-plagiarism.
    r = evaluate([([], [CASE]), ([], []), ([], [A(5, 5, 5, 5), A(9, 9, 9, 9)])])
    assert (r.precision, r.recall, r.granularity, r.plagdet) == (0, 0, 1, 0)
    assert (r.cases, r.detections, r.false_detections) == (0, 3, 3)


def test_identical_detections_count_once() -> None:
    assert scores([CASE], [CASE, CASE]) == approx(p=1, r=1, g=1, plagdet=1)
    assert evaluate_pair([CASE], [CASE, CASE]).detections == 1


def test_empty_side_never_overlaps() -> None:
    # An empty source range at 50 lies inside [0, 100) but holds no character.
    r = evaluate_pair([CASE], [A(10, 50, 50, 0)])
    assert (r.detected_cases, r.false_detections, r.precision) == (0, 1, 0)
    r = evaluate_pair([A(10, 50, 50, 0)], [CASE])
    assert (r.detected_cases, r.recall) == (0, 0)


@pytest.mark.parametrize("bad", [A(-1, 5, 0, 5), A(0, 5, 0, -5), A(3, 0, 7, 0)])
def test_invalid_passages_rejected(bad: A) -> None:
    with pytest.raises(ValueError):
        evaluate_pair([bad], [])
    with pytest.raises(ValueError):
        evaluate_pair([], [bad])


def test_plain_tuples_accepted() -> None:
    assert evaluate_pair([(0, 10, 0, 10)], [(0, 10, 0, 10)]).plagdet == 1


def test_as_dict_reports_measures_and_counts() -> None:
    d = PanScores().as_dict()
    assert d.keys() >= {"plagdet", "precision", "recall", "granularity", "cases", "detections"}


# --- properties ------------------------------------------------------------------------

COORD = st.integers(0, 60)
LENGTH = st.integers(0, 25)


@st.composite
def alignments(draw: st.DrawFn) -> A:
    susp_len = draw(LENGTH)
    src_len = draw(st.integers(0 if susp_len else 1, 25))
    return A(draw(COORD), susp_len, draw(COORD), src_len)


@st.composite
def disjoint_cases(draw: st.DrawFn) -> list[A]:
    """Truth-like cases: disjoint on the suspicious side, both sides non-empty."""
    cases, pos = [], 0
    for _ in range(draw(st.integers(0, 4))):
        pos += draw(st.integers(0, 10))
        length = draw(st.integers(1, 20))
        cases.append(A(pos, length, draw(COORD), draw(st.integers(1, 20))))
        pos += length
    return cases


PAIRS = st.lists(
    st.tuples(st.lists(alignments(), max_size=4), st.lists(alignments(), max_size=5)),
    max_size=4,
)
TRUTH = st.lists(disjoint_cases(), max_size=4)


@given(TRUTH)
def test_detecting_exactly_the_cases_is_perfect(truth: list[list[A]]) -> None:
    r = evaluate((cases, cases) for cases in truth)
    assert r.plagdet == pytest.approx(1)
    assert r.granularity == 1


@given(PAIRS, st.integers(0, 3), alignments())
def test_disjoint_false_detection_never_raises_precision(
    pairs: list[tuple[list[A], list[A]]], where: int, extra: A
) -> None:
    before = evaluate(pairs)
    far = A(extra.susp_offset + 1000, extra.susp_length or 1, extra.src_offset, extra.src_length)
    if pairs:
        cases, dets = pairs[where % len(pairs)]
        pairs[where % len(pairs)] = (cases, [*dets, far])
    else:
        pairs = [([], [far])]
    after = evaluate(pairs)
    assert after.precision <= before.precision
    assert after.false_detections == before.false_detections + 1
    assert after.granularity == before.granularity
    if before.cases:  # with no cases, recall drops from 1 (nothing to find) to 0
        assert after.recall == before.recall


@given(PAIRS)
def test_measures_are_bounded(pairs: list[tuple[list[A], list[A]]]) -> None:
    r = evaluate(pairs)
    assert 0 <= r.precision <= 1
    assert 0 <= r.recall <= 1
    assert 0 <= r.plagdet <= 1
    assert r.granularity >= 1
    assert r.detected_cases <= r.cases
    assert r.false_detections <= r.detections


@given(PAIRS)
def test_matches_per_character_definition(pairs: list[tuple[list[A], list[A]]]) -> None:
    r = evaluate(pairs)
    p, rec, g = _oracle(pairs)
    assert r.precision == pytest.approx(p)
    assert r.recall == pytest.approx(rec)
    assert r.granularity == pytest.approx(g)


def _chars(a: A) -> tuple[set[int], set[int]]:
    return (
        set(range(a.susp_offset, a.susp_offset + a.susp_length)),
        set(range(a.src_offset, a.src_offset + a.src_length)),
    )


def _oracle(pairs: list[tuple[list[A], list[A]]]) -> tuple[float, float, float]:
    """Precision, recall, granularity straight from the paper, with sets."""
    rec, prec, per_case = [], [], []
    for cases, dets in pairs:
        cases, dets = list(dict.fromkeys(cases)), list(dict.fromkeys(dets))

        def detects(s: A, r: A) -> bool:
            (s1, s2), (r1, r2) = _chars(s), _chars(r)
            return bool(s1 & r1) and bool(s2 & r2)

        def covered(a: A, others: list[A]) -> float:
            a1, a2 = _chars(a)
            o1 = set().union(*(_chars(o)[0] for o in others))
            o2 = set().union(*(_chars(o)[1] for o in others))
            return (len(a1 & o1) + len(a2 & o2)) / (len(a1) + len(a2))

        for s in cases:
            hits = [r for r in dets if detects(s, r)]
            rec.append(covered(s, hits))
            per_case.append(len(hits))
        for r in dets:
            prec.append(covered(r, [s for s in cases if detects(s, r)]))
    if not rec or not prec:
        both_empty = float(not rec and not prec)
        return both_empty, both_empty, 1.0
    detected = [n for n in per_case if n]
    gran = sum(detected) / len(detected) if detected else 1.0
    return sum(prec) / len(prec), sum(rec) / len(rec), gran
