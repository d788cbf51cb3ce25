"""Document-level measures on the SimHash seed examples, and the properties of each measure."""

from __future__ import annotations

import random
import string
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from doublet.engine.chars import char_units
from doublet.engine.document import Document
from doublet.engine.hashing import kgram_hashes
from doublet.engine.measures import (
    MEASURE_NAMES,
    ctph,
    flyhash,
    measure_all,
    minhash,
    sets,
    simhash,
)
from doublet.engine.modes import MODES

PROSE = MODES["prose"]
SEEDS = Path(__file__).resolve().parents[1] / "data" / "seeds"

#: The most an unrelated pair may score on each measure (SimHash's is chance level, 0.5,
#: plus a margin: two unrelated texts still agree on about half of the 64 bits).
UNRELATED_AT_MOST = {
    "containment": 0.1,
    "jaccard": 0.1,
    "cosine": 0.2,
    "simhash": 0.75,
    "minhash": 0.1,
    "ctph": 0.2,
    "flyhash": 0.2,
}
SIMILARITIES = [name for name in MEASURE_NAMES if name != "simhash_distance"]

ENGLISH = (
    "The lighthouse keeper climbed the spiral stairs every evening at dusk. He carried a tin "
    "of oil, a clean rag and a small notebook in which he recorded the weather. Storms came "
    "often in the autumn, and on those nights he did not sleep at all."
)


def seed_text(name: str) -> str:
    return (SEEDS / f"simhash_{name}.txt").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def seeds() -> dict[str, Document]:
    return {
        name: Document(name, seed_text(name), PROSE) for name in ("original", "edited", "unrelated")
    }


@pytest.fixture(scope="module")
def measured(seeds: dict[str, Document]) -> dict[tuple[str, str], dict[str, float]]:
    pairs = [("original", "edited"), ("original", "unrelated"), ("edited", "unrelated")]
    return {(x, y): measure_all(seeds[x], seeds[y]) for x, y in pairs}


def test_simhash_of_the_lightly_edited_seed_is_close_to_the_original() -> None:
    distance = simhash.hamming(
        simhash.simhash(seed_text("original")), simhash.simhash(seed_text("edited"))
    )
    assert distance <= 10


@pytest.mark.parametrize("name", ["original", "edited"])
def test_simhash_of_the_unrelated_seed_is_far_from_the_others(name: str) -> None:
    distance = simhash.hamming(
        simhash.simhash(seed_text(name)), simhash.simhash(seed_text("unrelated"))
    )
    assert distance >= 16


def test_simhash_similarity_is_one_minus_the_distance_over_64() -> None:
    x, y = 0b1011, 0b0110
    assert simhash.hamming(x, y) == 3
    assert simhash.similarity(x, y) == 1 - 3 / 64


def test_measure_all_gives_every_named_measure(measured: dict) -> None:
    for values in measured.values():
        assert tuple(values) == MEASURE_NAMES
        for name in SIMILARITIES:
            assert 0.0 <= values[name] <= 1.0 + 1e-9


@pytest.mark.parametrize("text", [seed_text("original"), ENGLISH], ids=["chinese", "english"])
def test_identical_documents_score_one_on_every_measure(text: str) -> None:
    values = measure_all(Document("a", text, PROSE), Document("b", text, PROSE))
    assert values["simhash_distance"] == 0
    for name in SIMILARITIES:
        assert values[name] == pytest.approx(1.0), name


@pytest.mark.parametrize("first", ["original", "edited"])
@pytest.mark.parametrize("name", SIMILARITIES)
def test_unrelated_documents_score_low(measured: dict, first: str, name: str) -> None:
    assert measured[(first, "unrelated")][name] <= UNRELATED_AT_MOST[name]


@pytest.mark.parametrize("first", ["original", "edited"])
def test_unrelated_documents_are_far_apart_in_simhash_bits(measured: dict, first: str) -> None:
    assert measured[(first, "unrelated")]["simhash_distance"] >= 16


@pytest.mark.parametrize("name", SIMILARITIES)
def test_the_edited_pair_scores_above_the_unrelated_pairs(measured: dict, name: str) -> None:
    edited = measured[("original", "edited")][name]
    assert edited > measured[("original", "unrelated")][name]
    assert edited > measured[("edited", "unrelated")][name]


def test_the_edited_pair_is_closer_in_simhash_bits_than_the_unrelated_pairs(measured: dict) -> None:
    edited = measured[("original", "edited")]["simhash_distance"]
    assert edited < measured[("original", "unrelated")]["simhash_distance"]
    assert edited < measured[("edited", "unrelated")]["simhash_distance"]


def test_measures_of_a_pair_do_not_depend_on_its_order(seeds: dict[str, Document]) -> None:
    forward = measure_all(seeds["original"], seeds["edited"])
    backward = measure_all(seeds["edited"], seeds["original"])
    assert forward == pytest.approx(backward)


fingerprint_sets = st.lists(st.integers(0, 30), max_size=25).map(
    lambda values: np.array(values, dtype=np.uint64)
)


@given(a=fingerprint_sets, b=fingerprint_sets)
def test_containment_is_at_least_jaccard(a: np.ndarray, b: np.ndarray) -> None:
    assert sets.containment(a, b) >= sets.jaccard(a, b)


@given(a=fingerprint_sets, b=fingerprint_sets)
def test_set_measures_match_python_sets(a: np.ndarray, b: np.ndarray) -> None:
    x, y = set(a.tolist()), set(b.tolist())
    smaller = min(len(x), len(y))
    assert sets.containment(a, b) == (len(x & y) / smaller if smaller else 0.0)
    assert sets.jaccard(a, b) == (len(x & y) / len(x | y) if x | y else 0.0)


def test_containment_is_one_when_one_set_holds_the_other() -> None:
    small = np.array([3, 5], dtype=np.uint64)
    large = np.array([1, 3, 5, 7, 9], dtype=np.uint64)
    assert sets.containment(small, large) == 1.0
    assert sets.jaccard(small, large) == 2 / 5


def random_sentences(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    return [
        " ".join(
            "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(2, 9)))
            for _ in range(20)
        )
        + "."
        for _ in range(count)
    ]


SENTENCES = random_sentences(1, 8)
MINHASH_PAIRS = {
    "simhash-seeds": (seed_text("original"), seed_text("edited")),
    "winnowing-seeds": (
        (SEEDS / "winnowing_test_1.txt").read_text(encoding="utf-8"),
        (SEEDS / "winnowing_test_2.txt").read_text(encoding="utf-8"),
    ),
    "half-shared": (" ".join(SENTENCES[:4]), " ".join(SENTENCES[2:6])),
    "mostly-shared": (" ".join(SENTENCES[:7]), " ".join(SENTENCES[1:8])),
    "disjoint": (" ".join(SENTENCES[:4]), " ".join(SENTENCES[4:])),
}


@pytest.mark.parametrize(("x", "y"), MINHASH_PAIRS.values(), ids=MINHASH_PAIRS.keys())
def test_minhash_estimates_the_jaccard_of_the_kgram_sets(x: str, y: str) -> None:
    ka = kgram_hashes(PROSE.units(x).symbols, PROSE.k, PROSE.salt)
    kb = kgram_hashes(PROSE.units(y).symbols, PROSE.k, PROSE.salt)
    exact = len(set(ka.tolist()) & set(kb.tolist())) / len(set(ka.tolist()) | set(kb.tolist()))
    estimate = minhash.similarity(minhash.signature(ka), minhash.signature(kb))
    assert estimate == pytest.approx(exact, abs=0.15)


def test_minhash_of_nothing_is_similar_to_nothing() -> None:
    empty = minhash.signature(np.zeros(0, dtype=np.uint64))
    some = minhash.signature(np.arange(10, dtype=np.uint64))
    assert minhash.similarity(empty, some) == 0.0
    assert minhash.similarity(empty, empty) == 0.0


def unit_arrays(seed: int, length: int, edits: int) -> tuple[np.ndarray, np.ndarray]:
    """Random symbols and a copy with a few symbols replaced, inserted or deleted."""
    rng = np.random.default_rng(seed)
    original = rng.integers(97, 123, size=length).astype(np.uint64)
    copy = list(original.tolist())
    for _ in range(edits):
        at = int(rng.integers(0, len(copy) + 1))
        action = int(rng.integers(0, 3))
        if action == 0 and at < len(copy):
            copy[at] = int(rng.integers(97, 123))
        elif action == 1:
            copy.insert(at, int(rng.integers(97, 123)))
        elif copy and at < len(copy):
            del copy[at]
    return original, np.array(copy, dtype=np.uint64)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), length=st.integers(1, 3000), edits=st.integers(0, 40))
def test_ctph_compare_is_symmetric(seed: int, length: int, edits: int) -> None:
    x, y = (ctph.fuzzy_hash(s) for s in unit_arrays(seed, length, edits))
    assert ctph.compare(x, y) == ctph.compare(y, x)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), length=st.integers(1, 3000))
def test_ctph_of_identical_input_scores_100(seed: int, length: int) -> None:
    symbols, _ = unit_arrays(seed, length, 0)
    assert ctph.compare(ctph.fuzzy_hash(symbols), ctph.fuzzy_hash(symbols.copy())) == 100.0


def test_ctph_of_a_lightly_edited_copy_scores_well_above_unrelated_text() -> None:
    original, edited = unit_arrays(5, 2000, 4)
    unrelated, _ = unit_arrays(6, 2000, 0)
    similar = ctph.compare(ctph.fuzzy_hash(original), ctph.fuzzy_hash(edited))
    assert similar >= 50
    assert similar > ctph.compare(ctph.fuzzy_hash(original), ctph.fuzzy_hash(unrelated))


def test_ctph_of_block_sizes_far_apart_is_zero() -> None:
    short, _ = unit_arrays(1, 100, 0)
    long, _ = unit_arrays(1, 20_000, 0)
    x, y = ctph.fuzzy_hash(short), ctph.fuzzy_hash(long)
    assert y.block_size >= 4 * x.block_size
    assert ctph.compare(x, y) == 0.0


def test_flyhash_is_deterministic_across_calls() -> None:
    units = char_units(seed_text("original"))
    first = flyhash.tag(units)
    assert np.array_equal(first, flyhash.tag(char_units(seed_text("original"))))
    flyhash._projection.cache_clear()  # the random projection is rebuilt from its seed
    assert np.array_equal(first, flyhash.tag(units))


def test_flyhash_tag_is_a_sorted_set_of_winners() -> None:
    tag = flyhash.tag(char_units(ENGLISH))
    assert tag.shape == (flyhash.WINNERS,)
    assert np.array_equal(tag, np.unique(tag))
    assert tag.min() >= 0 and tag.max() < flyhash.OUTPUTS
