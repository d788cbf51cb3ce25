"""Configuration: defaults < doublet.toml < client overrides, errors, file questions, printing."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from doublet.config import (
    DEFAULTS,
    ConfigError,
    Ignore,
    Thresholds,
    load,
)
from doublet.engine.candidates import boilerplate_limit
from doublet.engine.modes import MODES

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

FILE = """\
min_similarity = 0.25
severity = "hint"
templates = ["assignment.md"]
groups = "top-level"

[modes]
"notes/**/*.txt" = "words"

[prose]
noise = 10
guarantee = 30
min_length = 60

[code]
keep_comments = true

[[ignore]]
a = "essays/amira.txt"
b = "sources/hives.md"
digest = "0f3a"
"""


def workspace(tmp_path: Path, text: str) -> Path:
    (tmp_path / "doublet.toml").write_text(text, encoding="utf-8")
    return tmp_path


def error_of(values: dict[str, Any], source: str = "editor settings") -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        DEFAULTS.with_overrides(values, source)
    return caught.value


# --- layers ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(MODES))
def test_defaults_are_the_engines_modes(name: str) -> None:
    mode = MODES[name]
    assert getattr(DEFAULTS, name) == Thresholds(
        mode.noise, mode.guarantee, mode.min_length, mode.gap, mode.keep_comments
    )


def test_no_file_gives_the_defaults(tmp_path: Path) -> None:
    assert load(tmp_path) is DEFAULTS
    assert DEFAULTS.source_of("prose.noise") == "default"


def test_file_values_override_defaults(tmp_path: Path) -> None:
    config = load(workspace(tmp_path, FILE))
    source = str(tmp_path / "doublet.toml")
    assert config.min_similarity == 0.25
    assert config.severity == "hint"
    assert config.prose == Thresholds(10, 30, 60, MODES["prose"].gap)
    assert config.code.keep_comments is True
    assert config.words == DEFAULTS.words
    assert config.ignore == (Ignore("essays/amira.txt", "sources/hives.md", "0f3a"),)
    assert config.source_of("prose.noise") == source
    assert config.source_of("prose.gap") == "default"


def test_overrides_override_the_file_and_partial_tables_merge(tmp_path: Path) -> None:
    config = load(workspace(tmp_path, FILE))
    changed = config.with_overrides(
        {"min_similarity": 0.5, "prose": {"min_length": 100}, "severity": None}, "editor settings"
    )
    assert changed.min_similarity == 0.5
    assert changed.prose == Thresholds(10, 30, 100, MODES["prose"].gap)  # file's noise kept
    assert changed.severity == "hint"  # None leaves the file's value
    assert changed.source_of("prose.min_length") == "editor settings"
    assert changed.source_of("prose.noise") == str(tmp_path / "doublet.toml")
    assert config.prose.min_length == 60  # the original is untouched


def test_lists_and_the_modes_table_are_replaced_whole(tmp_path: Path) -> None:
    config = load(workspace(tmp_path, FILE))
    changed = config.with_overrides(
        {"templates": ["starter/**"], "modes": {"*.md": "words"}}, "cli"
    )
    assert changed.templates == ("starter/**",)
    assert changed.modes == (("*.md", "words"),)


def test_an_unset_guarantee_follows_a_raised_noise_as_the_engine_does() -> None:
    config = DEFAULTS.with_overrides({"prose": {"noise": 40}}, "cli")
    assert (config.prose.noise, config.prose.guarantee) == (40, 40)
    assert config.mode_for("a.txt") == MODES["prose"].with_thresholds(noise=40)
    lowered = config.with_overrides({"prose": {"noise": 5}}, "cli")
    assert lowered.prose.guarantee == MODES["prose"].guarantee


# --- errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("values", "key", "expected"),
    [
        ({"min_similarty": 0.1}, "min_similarty", "did you mean 'min_similarity'"),
        ({"noise": 3}, "noise", "[prose]"),
        ({"prose": {"nois": 3}}, "prose.nois", "did you mean 'noise'"),
        ({"words": {"keep_comments": True}}, "words.keep_comments", "[code]"),
        ({"max_file_size": True}, "max_file_size", "whole number"),
        ({"prose": {"noise": True}}, "prose.noise", "whole number"),
        ({"prose": {"noise": 2.5}}, "prose.noise", "whole number"),
        ({"prose": {"min_length": 0}}, "prose.min_length", "from 1 to 1,000,000"),
        ({"prose": {"gap": -1}}, "prose.gap", "from 0 to 1,000,000"),
        ({"prose": {"noise": 2**64}}, "prose.noise", "from 1 to 1,000,000"),
        ({"max_file_size": 10**20}, "max_file_size", "from 1 to"),
        ({"code": {"keep_comments": 1}}, "code.keep_comments", "true or false"),
        ({"min_similarity": 1.5}, "min_similarity", "from 0 to 1"),
        ({"min_similarity": "high"}, "min_similarity", "from 0 to 1"),
        ({"respect_gitignore": "yes"}, "respect_gitignore", "true or false"),
        ({"prose": {"guarantee": 10}}, "prose.guarantee", "at least prose.noise"),
        ({"include": ["a\\"]}, "include", "bad glob pattern"),
        ({"exclude": ["[z-a]"]}, "exclude", "bad glob pattern"),
        ({"templates": [""]}, "templates", "glob pattern"),
        ({"references": ["# note"]}, "references", "matches nothing: a # starts a comment"),
        ({"include": ["["]}, "include", "an unclosed ["),
        ({"exclude": ["  "]}, "exclude", "it is blank"),
        ({"include": "*.py"}, "include", "array of glob patterns"),
        ({"modes": {"*.md": "pros"}}, 'modes."*.md"', "did you mean 'prose'"),
        ({"modes": {"*.md": "auto"}}, 'modes."*.md"', "'prose', 'words', 'code'"),
        ({"modes": ["*.md"]}, "modes", "table"),
        ({"severity": "warn"}, "severity", "did you mean 'warning'"),
        ({"paraphrase": "widen"}, "paraphrase", "true or false"),
        ({"paraphrase": 1}, "paraphrase", "true or false"),
        ({"groups": "toplevel"}, "groups", "did you mean 'top-level'"),
        ({"groups": "submissions/*"}, "groups", '["submissions/*"]'),
        ({"groups": ["["]}, "groups", "bad glob pattern"),
        ({"boilerplate": 1}, "boilerplate", "integer >= 2"),
        ({"boilerplate": 1.5}, "boilerplate", "between 0 and 1"),
        ({"boilerplate": False}, "boilerplate", "integer >= 2"),
        ({"prose": 3}, "prose", "table [prose]"),
        ({"ignore": [{"a": "x", "b": "y"}]}, "ignore[1].digest", "missing"),
        ({"ignore": [{"a": "x", "b": "y", "digest": "d", "c": 1}]}, "ignore[1].c", "unknown"),
        ({"ignore": [{"a": "/etc/x", "b": "y", "digest": "d"}]}, "ignore[1].a", "relative"),
        ({"ignore": {"a": "x"}}, "ignore", "[[ignore]]"),
        ({"severity_by_kind": {"copied": "error"}}, "severity_by_kind.copied", "unknown key"),
        ({"severity_by_kind": {"edited": "loud"}}, "severity_by_kind.edited", "'error'"),
        ({"severity_by_kind": "error"}, "severity_by_kind", "a table [severity_by_kind]"),
    ],
)
def test_errors_name_the_key_the_source_and_what_was_expected(
    values: dict[str, Any], key: str, expected: str
) -> None:
    error = error_of(values, "editor settings")
    assert (error.key, error.source) == (key, "editor settings")
    assert str(error).startswith(f"editor settings: {key}: ")
    assert expected in str(error)


def test_file_errors_name_the_file(tmp_path: Path) -> None:
    workspace(tmp_path, "[prose]\nnoise = 20\nguarantee = 15\n")
    with pytest.raises(ConfigError) as caught:
        load(tmp_path)
    assert caught.value.source == str(tmp_path / "doublet.toml")
    assert caught.value.key == "prose.guarantee"
    assert str(tmp_path / "doublet.toml") in str(caught.value)


def test_guarantee_conflict_across_layers_names_both_sources(tmp_path: Path) -> None:
    config = load(workspace(tmp_path, "[prose]\nguarantee = 24\n"))
    with pytest.raises(ConfigError) as caught:
        config.with_overrides({"prose": {"noise": 30}}, "--noise")
    message = str(caught.value)
    assert message.startswith("--noise: prose.guarantee: ")
    assert "30, from --noise" in message
    assert f"24 (from {tmp_path / 'doublet.toml'})" in message


@pytest.mark.parametrize(
    ("text", "key", "line"),
    [
        ("min_similarity = 0.1\nseverity = \n", "severity", 2),
        ("[prose]\nnoise = 12\nguarantee = = 3\n", "prose.guarantee", 3),
        ("[prose\nnoise = 1\n", "[prose", 1),
    ],
)
def test_malformed_toml_gives_line_column_and_key(
    tmp_path: Path, text: str, key: str, line: int
) -> None:
    workspace(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load(tmp_path)
    error = caught.value
    assert (error.key, error.line) == (key, line)
    assert error.column is not None
    assert str(error).startswith(f"{tmp_path / 'doublet.toml'}:{line}:{error.column}: {key}: ")
    assert "malformed TOML" in str(error)


def test_a_file_that_is_not_utf8_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "doublet.toml").write_bytes(b'severity = "\xff"\n')
    with pytest.raises(ConfigError, match="UTF-8"):
        load(tmp_path)


# --- questions about files ------------------------------------------------------------------


def test_mode_for_uses_patterns_in_order_then_the_extension() -> None:
    config = DEFAULTS.with_overrides(
        {
            "modes": {"notes/**/*.txt": "words", "notes/": "code", "*.py": "prose"},
            "words": {"min_length": 20},
            "code": {"keep_comments": True, "noise": 8},
        },
        "cli",
    )
    assert config.mode_for("notes/a/b.txt") == MODES["words"].with_thresholds(min_length=20)
    assert config.mode_for("notes/readme.md").name == "code"  # a folder pattern holds its files
    assert config.mode_for("notes/readme.md").keep_comments is True
    assert config.mode_for("notes/readme.md").noise == 8
    assert config.mode_for("src/x.py").name == "prose"
    assert config.mode_for("src/x.js").name == "code"  # no pattern: by extension
    assert config.mode_for("essay.txt") == MODES["prose"]
    assert DEFAULTS.mode_for("main.c") == MODES["code"]


def test_groups() -> None:
    assert DEFAULTS.group_of("alice/essay.txt") is None
    top = DEFAULTS.with_overrides({"groups": "top-level"}, "cli")
    assert top.group_of("alice/drafts/essay.txt") == "alice"
    assert top.group_of("readme.md") is None
    listed = DEFAULTS.with_overrides({"groups": ["submissions/late/*", "submissions/*"]}, "cli")
    assert listed.group_of("submissions/bob/src/main.py") == "submissions/bob"
    assert listed.group_of("submissions/late/carol/a.txt") == "submissions/late/carol"
    assert listed.group_of("submissions/notes.txt") is None
    assert listed.group_of("other/dave/a.txt") is None


def test_templates_and_references() -> None:
    config = DEFAULTS.with_overrides(
        {"templates": ["assignment.md", "starter/"], "references": ["sources/**/*.md"]}, "cli"
    )
    assert config.is_template("assignment.md")
    assert config.is_template("week2/assignment.md")  # no slash: any depth, as in gitignore
    assert config.is_template("starter/src/main.py")
    assert not config.is_template("essays/amira.txt")
    assert config.is_reference("sources/hives.md")
    assert config.is_reference("sources/bees/hives.md")
    assert not config.is_reference("sources/hives.txt")
    assert config.is_template(Path("starter") / "x.py")


def test_include_and_exclude() -> None:
    assert DEFAULTS.is_included("a/b/c.txt")
    config = DEFAULTS.with_overrides(
        {"include": ["src/", "*.md"], "exclude": ["build/", "*.min.md", "!keep.min.md"]}, "cli"
    )
    assert config.is_included("src/a/main.py")
    assert config.is_included("docs/readme.md")
    assert not config.is_included("docs/readme.txt")
    assert not config.is_included("src/build/out.py")
    assert not config.is_included("docs/x.min.md")
    assert config.is_included("keep.min.md")


def test_boilerplate_limit_count_or_share() -> None:
    def limit(config, n: int) -> int:
        return boilerplate_limit(n, config.boilerplate)

    assert all(limit(DEFAULTS, n) == boilerplate_limit(n) for n in range(0, 500, 7))
    assert limit(DEFAULTS.with_overrides({"boilerplate": 3}, "cli"), 1000) == 3
    share = DEFAULTS.with_overrides({"boilerplate": 0.25}, "cli")
    assert limit(share, 1000) == 250
    assert limit(share, 8) == 10  # a share never gives fewer than ten


def test_ignored_matches_either_order(tmp_path: Path) -> None:
    config = load(workspace(tmp_path, FILE))
    assert config.is_ignored("essays/amira.txt", "sources/hives.md", "0f3a")
    assert config.is_ignored("sources/hives.md", "essays/amira.txt", "0f3a")
    assert not config.is_ignored("essays/amira.txt", "sources/hives.md", "beef")


# --- printing -------------------------------------------------------------------------------


def test_as_toml_round_trips_and_names_sources(tmp_path: Path) -> None:
    config = load(workspace(tmp_path, FILE)).with_overrides(
        {"prose": {"gap": 150}, "exclude": ["build/"]}, "editor settings"
    )
    text = config.as_toml()
    assert tomllib.loads(text) == config.as_dict()
    assert DEFAULTS.with_overrides(tomllib.loads(text), "printed") == config
    assert load(workspace(tmp_path, text)) == config
    lines = text.splitlines()
    assert f"min_similarity = 0.25  # {tmp_path / 'doublet.toml'}" in lines
    assert "gap = 150  # editor settings" in lines
    assert 'exclude = ["build/"]  # editor settings' in lines
    assert "max_file_size = 20000000  # default" in lines


def test_as_toml_of_the_defaults() -> None:
    assert tomllib.loads(DEFAULTS.as_toml()) == DEFAULTS.as_dict()
    assert tomllib.loads(DEFAULTS.as_toml())["ignore"] == []


def test_severity_by_kind_lies_over_severity() -> None:
    config = DEFAULTS.with_overrides(
        {"severity": "information", "severity_by_kind": {"verbatim": "error"}}, "test"
    )
    assert config.severity_of("verbatim") == "error"
    assert config.severity_of("edited") == config.severity_of("paraphrased") == "information"
    assert DEFAULTS.severity_of("edited") == "warning"


# --- property: any valid override prints as TOML that reads back the same ------------------

texts = st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=12)
segments = st.one_of(st.just("**"), st.text("ab*?.-_ éé\"'", min_size=1, max_size=5))
globs = (
    st.lists(segments, min_size=1, max_size=3)
    .map("/".join)
    .filter(str.strip)  # a blank pattern matches nothing and is refused
    .filter(lambda p: ".." not in p.lstrip("!").replace("\\", "/").split("/"))  # leaves the root
)
relative = texts.filter(lambda p: not p.startswith(("/", "\\")) and ":" not in p[:3])


@st.composite
def thresholds(draw: st.DrawFn, mode: str) -> dict[str, Any]:
    table: dict[str, Any] = {}
    noise = draw(st.integers(1, 500))
    if draw(st.booleans()):
        table["noise"] = noise
        if draw(st.booleans()):
            table["guarantee"] = noise + draw(st.integers(0, 500))
    for key, least in (("min_length", 1), ("gap", 0)):
        if draw(st.booleans()):
            table[key] = draw(st.integers(least, 10_000))
    if mode == "code" and draw(st.booleans()):
        table["keep_comments"] = draw(st.booleans())
    return table


overrides = st.fixed_dictionaries(
    {},
    optional={
        "min_similarity": st.floats(0, 1),
        "severity": st.sampled_from(["error", "warning", "information", "hint"]),
        "boilerplate": st.one_of(
            st.integers(2, 2**40), st.floats(0, 1, exclude_min=True, exclude_max=True)
        ),
        "max_file_size": st.integers(1, 2**40),
        "include": st.lists(globs, max_size=3),
        "exclude": st.lists(globs, max_size=3),
        "templates": st.lists(globs, max_size=3),
        "references": st.lists(globs, max_size=3),
        "groups": st.one_of(
            st.sampled_from(["none", "top-level", "lms"]), st.lists(globs, max_size=3)
        ),
        "respect_gitignore": st.booleans(),
        "severity_by_kind": st.dictionaries(
            st.sampled_from(["verbatim", "edited", "paraphrased"]),
            st.sampled_from(["error", "warning", "information", "hint"]),
        ),
        "modes": st.dictionaries(globs, st.sampled_from(sorted(MODES)), max_size=3),
        "prose": thresholds("prose"),
        "words": thresholds("words"),
        "code": thresholds("code"),
        "ignore": st.lists(
            st.fixed_dictionaries({"a": relative, "b": relative, "digest": texts}), max_size=3
        ),
    },
)


@settings(max_examples=150, deadline=None)
@given(values=overrides, source=texts)
def test_any_valid_override_prints_as_toml_that_reads_back(
    values: dict[str, Any], source: str
) -> None:
    config = DEFAULTS.with_overrides(values, source)
    parsed = tomllib.loads(config.as_toml())
    assert parsed == config.as_dict()
    assert DEFAULTS.with_overrides(parsed, "printed") == config
