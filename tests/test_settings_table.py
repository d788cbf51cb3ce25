"""The settings table: every place a setting is declared agrees with it."""

from __future__ import annotations

import json

import pytest

from doublet import settings_table
from doublet.config import DEFAULTS, ConfigError
from doublet.lsp.settings import KEYS, Settings
from doublet.settings_table import BY_KEY, SETTINGS, WORKSPACE, default


def test_package_json_and_the_docs_say_what_the_table_says(capsys) -> None:
    stale = settings_table.main(["--check"])
    assert stale == 0, f"{capsys.readouterr().out}run: python -m doublet.settings_table --write"


def test_package_json_declares_every_editor_setting_once() -> None:
    package = json.loads(settings_table.PACKAGE_JSON.read_text("utf-8"))
    declared = package["contributes"]["configuration"]["properties"]
    assert set(declared) == {f"doublet.{s.client}" for s in SETTINGS if s.client}
    assert "doublet.maxFileSize" in declared  # once missing, though the server took it


def test_the_configurations_defaults_are_the_tables() -> None:
    flat = {k: v for k, v in DEFAULTS.as_dict().items() if not isinstance(v, dict)}
    for name in ("prose", "words", "code"):
        flat.update((f"{name}.{k}", v) for k, v in DEFAULTS.as_dict()[name].items())
    flat.update(modes={}, severity_by_kind={})
    for s in SETTINGS:
        if s.key:
            assert flat[s.key] == s.default, s.key
            assert default(s.key) == getattr_dotted(DEFAULTS, s.key), s.key


def getattr_dotted(config, key: str):
    value = config
    for part in key.split("."):
        value = getattr(value, part)
    return value


@pytest.mark.parametrize("s", [s for s in SETTINGS if s.key], ids=lambda s: s.key)
def test_every_key_is_checked_by_what_its_row_says_it_takes(s: settings_table.Setting) -> None:
    nested = _nested(s.key, s.default)
    assert DEFAULTS.with_overrides(nested, "test") == DEFAULTS  # its default is valid
    schema = s.schema
    wrong = {"integer": "many", "number": "many", "boolean": "yes", "string": 3}
    bad = wrong.get(schema["type"], 3.5) if isinstance(schema["type"], str) else 3.5
    with pytest.raises(ConfigError, match=s.key.replace(".", r"\.")):
        DEFAULTS.with_overrides(_nested(s.key, bad), "test")
    if "maximum" in schema:
        with pytest.raises(ConfigError, match=f"from {schema.get('minimum')} to"):
            DEFAULTS.with_overrides(_nested(s.key, schema["maximum"] + 1), "test")


def _nested(key: str, value):
    head, _, rest = key.partition(".")
    return {head: _nested(rest, value)} if rest else {key: value}


def test_every_editor_setting_of_the_workspace_lies_over_its_key() -> None:
    editor = [s for s in SETTINGS if s.client and s.where == WORKSPACE]
    assert set(KEYS) == {s.client for s in editor}
    for s in editor:
        problems: list[str] = []
        parsed = Settings.parse({s.client: s.default}, problems.append)
        assert problems == []
        assert parsed.overrides == _nested(s.key, s.default)
        assert BY_KEY[s.key] is s


@pytest.mark.parametrize(
    "s", [s for s in SETTINGS if s.where == settings_table.SERVER], ids=lambda s: s.client
)
def test_every_server_setting_is_checked_by_what_its_row_says_it_takes(
    s: settings_table.Setting,
) -> None:
    """debounce and checkFrequency are in no doublet.toml: the server checks them
    against their rows all the same (debounce's maximum was once only package.json's)."""

    def problems_of(value) -> list[str]:
        problems: list[str] = []
        Settings.parse({s.client: value}, problems.append)
        return problems

    assert problems_of(s.default) == []
    assert problems_of(None) == []  # unset
    schema = s.schema
    wrong = {"integer": "many", "string": 3}[schema["type"]]
    assert [f"doublet.{s.client}:" in p for p in problems_of(wrong)] == [True]
    if "maximum" in schema:
        assert problems_of(schema["maximum"]) == []
        for outside in (schema["minimum"] - 1, schema["maximum"] + 1):
            (problem,) = problems_of(outside)
            assert f"from {schema['minimum']} to {schema['maximum']:,}" in problem
    for choice in schema.get("enum", []):
        assert problems_of(choice) == []
