"""Modes: thresholds and their checks, automatic choice of mode, salts, lookup by name."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from doublet.engine.modes import MODE_NAMES, MODES, Mode, detect_mode_name, mode_by_name

PROSE = MODES["prose"]


# --- thresholds --------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(MODES))
def test_builtin_modes_derive_k_and_window_from_thresholds(name: str) -> None:
    mode = MODES[name]
    assert mode.k == mode.noise
    assert mode.window == mode.guarantee - mode.noise + 1
    assert mode.guarantee >= mode.noise


@given(noise=st.integers(1, 200), extra=st.integers(0, 200))
def test_window_is_guarantee_minus_noise_plus_one(noise: int, extra: int) -> None:
    mode = PROSE.with_thresholds(noise=noise, guarantee=noise + extra)
    assert mode.k == noise
    assert mode.window == extra + 1


def test_equal_noise_and_guarantee_give_window_one() -> None:
    assert PROSE.with_thresholds(noise=20, guarantee=20).window == 1


def test_raising_noise_above_guarantee_raises_the_guarantee() -> None:
    mode = PROSE.with_thresholds(noise=PROSE.guarantee + 10)
    assert mode.noise == PROSE.guarantee + 10
    assert mode.guarantee == mode.noise
    assert mode.window == 1


def test_lowering_noise_keeps_the_guarantee() -> None:
    mode = PROSE.with_thresholds(noise=5)
    assert mode.guarantee == PROSE.guarantee
    assert mode.window == PROSE.guarantee - 5 + 1


@given(noise=st.integers(1, 100), guarantee=st.one_of(st.none(), st.integers(1, 100)))
def test_with_thresholds_never_gives_guarantee_below_noise(
    noise: int, guarantee: int | None
) -> None:
    try:
        mode = PROSE.with_thresholds(noise=noise, guarantee=guarantee)
    except ValueError:
        assert guarantee is not None and guarantee < noise
    else:
        assert mode.guarantee >= mode.noise


def test_guarantee_below_noise_is_rejected_with_both_values() -> None:
    with pytest.raises(ValueError, match=r"guarantee threshold \(10\).*noise threshold \(12\)"):
        PROSE.with_thresholds(noise=12, guarantee=10)


def test_guarantee_below_the_current_noise_is_rejected() -> None:
    with pytest.raises(ValueError, match="guarantee"):
        PROSE.with_thresholds(guarantee=PROSE.noise - 1)


def test_zero_noise_is_rejected() -> None:
    with pytest.raises(ValueError, match="noise threshold must be at least 1 characters"):
        PROSE.with_thresholds(noise=0)


def test_zero_minimum_length_is_rejected() -> None:
    with pytest.raises(ValueError, match="minimum passage length"):
        PROSE.with_thresholds(min_length=0)


def test_invalid_mode_cannot_be_constructed() -> None:
    with pytest.raises(ValueError):
        Mode("x", "words", noise=5, guarantee=4, min_length=10, gap=1, anchor=1, min_seeds=1)


def test_with_thresholds_leaves_the_original_mode_unchanged() -> None:
    before = (PROSE.noise, PROSE.guarantee, PROSE.min_length, PROSE.gap)
    changed = PROSE.with_thresholds(noise=3, guarantee=9, min_length=20, gap=5)
    assert (changed.noise, changed.guarantee, changed.min_length, changed.gap) == (3, 9, 20, 5)
    assert (PROSE.noise, PROSE.guarantee, PROSE.min_length, PROSE.gap) == before
    assert changed.name == PROSE.name


def test_alignment_options_follow_the_mode() -> None:
    mode = PROSE.with_thresholds(noise=7, min_length=10)
    options = mode.alignment
    assert options.k == 7
    assert options.min_length == 10
    assert options.anchor == min(PROSE.anchor, 10)


# --- automatic choice ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "filename",
    ["main.py", "Main.java", "MAIN.JAVA", "prog.c", "lib.rs", "app.ts", "dir/sub/query.sql"],
)
def test_code_extensions_select_code_mode(filename: str) -> None:
    assert detect_mode_name(filename) == "code"


@pytest.mark.parametrize(
    "filename",
    ["essay.txt", "notes.md", "README", "report.py.txt", "code.py/essay", "论文.txt", "", None],
)
def test_other_names_select_prose_mode(filename: str | None) -> None:
    assert detect_mode_name(filename) == "prose"


def test_detected_mode_names_are_known_modes() -> None:
    for filename in ["a.py", "a.txt", None]:
        assert detect_mode_name(filename) in MODES


# --- salts -------------------------------------------------------------------------------


def test_mode_salts_differ() -> None:
    salts = [mode.salt for mode in MODES.values()]
    assert len(set(salts)) == len(salts)


def test_keeping_comments_changes_the_salt() -> None:
    code = MODES["code"]
    assert replace(code, keep_comments=True).salt != code.salt


def test_salt_does_not_depend_on_thresholds() -> None:
    assert PROSE.with_thresholds(noise=5, guarantee=50).salt == PROSE.salt


def test_salt_is_stable_across_calls() -> None:
    assert MODES["words"].salt == MODES["words"].salt
    assert 0 <= PROSE.salt < 2**64


# --- lookup by name ----------------------------------------------------------------------


@pytest.mark.parametrize("name", ["prose", "words", "code"])
def test_mode_by_name_returns_the_builtin_mode(name: str) -> None:
    assert mode_by_name(name) is MODES[name]
    assert mode_by_name(name).name == name


def test_unknown_mode_name_is_rejected_with_the_choices() -> None:
    with pytest.raises(ValueError, match="unknown mode 'poetry'") as caught:
        mode_by_name("poetry")
    message = str(caught.value)
    for name in ["prose", "words", "code"]:
        assert name in message


def test_mode_names_are_case_sensitive() -> None:
    with pytest.raises(ValueError, match="unknown mode"):
        mode_by_name("Prose")


def test_every_choice_named_in_the_error_is_accepted() -> None:
    with pytest.raises(ValueError) as caught:
        mode_by_name("poetry")
    choices = re.search(r"choose one of (.*)$", str(caught.value)).group(1).split(", ")
    for name in choices:
        mode_by_name(name)


def test_mode_names_are_the_builtin_modes() -> None:
    assert MODE_NAMES == tuple(MODES) == ("prose", "words", "code")


def test_a_mode_survives_being_saved_as_plain_values() -> None:
    for mode in MODES.values():
        assert Mode.from_data(mode.as_data()) == mode
    with pytest.raises(ValueError):
        Mode.from_data({"name": "prose"})


# --- units per mode ----------------------------------------------------------------------


def test_prose_mode_weighs_chinese_characters() -> None:
    assert len(MODES["prose"].units("学习")) == 6
    assert len(MODES["prose"].units("study")) == 5


def test_words_mode_gives_one_unit_per_word() -> None:
    assert len(MODES["words"].units("The cat, the hat.")) == 4


def test_code_mode_uses_the_file_name_for_the_lexer() -> None:
    units = MODES["code"].units("x = 1  # hi\n", "a.py")
    assert len(units) == 3
