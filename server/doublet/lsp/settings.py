"""The client's settings (the ``doublet`` section) as a configuration layer.

Editors speak camelCase and send null for settings left unset; the workspace
configuration speaks doublet.toml's keys. This is the translation, nothing
more: validation is the configuration model's, so a bad value gets the same
kind of message as a bad line in doublet.toml.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from doublet.config import Config, ConfigError, check_editor_setting
from doublet.settings_table import BY_CLIENT, CLIENT, SERVER, SETTINGS, WORKSPACE

SOURCE = "editor settings"
DEFAULT_DEBOUNCE = BY_CLIENT["debounce"].default / 1000  # seconds
DEFAULT_CHECK_FREQUENCY = BY_CLIENT["checkFrequency"].default

#: client setting -> path of the doublet.toml key it overrides
KEYS: dict[str, tuple[str, ...]] = {
    s.client: tuple(s.key.split("."))
    for s in SETTINGS
    if s.client and s.where == WORKSPACE and s.key
}
#: the settings only the server reads (not doublet.toml's): debounce, checkFrequency
SERVER_ONLY = {s.client: s for s in SETTINGS if s.client and s.where == SERVER}
assert set(SERVER_ONLY) == {"debounce", "checkFrequency"}, "Settings has a field for each"
#: the extension's own settings, and the top of their dotted names (``python.path``)
CLIENT_ONLY = {s.client.split(".")[0] for s in SETTINGS if s.client and s.where == CLIENT}


@dataclass
class Settings:
    overrides: dict[str, Any] = field(default_factory=dict)
    debounce: float | None = None  # seconds; None: not set here
    check_frequency: str | None = None  # "edit", "save" or "manual"; None: not set here

    @property
    def wait(self) -> float:
        return DEFAULT_DEBOUNCE if self.debounce is None else self.debounce

    @property
    def checks_on(self) -> str:
        """When an open document is checked (settings_table: checkFrequency)."""
        return self.check_frequency or DEFAULT_CHECK_FREQUENCY

    def merged(self, later: Settings) -> Settings:
        """These settings with ``later``'s laid on top (a client may give some at start-up
        and others when asked, or send nothing when asked). A setting ``later`` gives as
        null is unset: the user reset it to its default."""
        overrides = _deep_merge(self.overrides, later.overrides)
        debounce = self.debounce if later.debounce is None else later.debounce
        frequency = later.check_frequency or self.check_frequency
        return Settings(overrides, debounce, frequency)

    @staticmethod
    def parse(values: Any, report: Callable[[str], None]) -> Settings:
        """Settings from the client's object; unknown or malformed entries are reported."""
        settings = Settings()
        if not isinstance(values, Mapping):
            return settings
        for key, value in values.items():
            if key in SERVER_ONLY:
                if value is None:
                    continue
                try:
                    checked = check_editor_setting(SERVER_ONLY[key], value, SOURCE)
                except ConfigError as exc:
                    report(str(exc))
                    continue
                if key == "debounce":
                    settings.debounce = checked / 1000
                else:
                    settings.check_frequency = checked
                continue
            if key in CLIENT_ONLY:
                continue
            path = KEYS.get(key)
            if path is None and value is None:
                continue
            if path is None:
                known = ", ".join([*KEYS, *SERVER_ONLY])
                report(f"{SOURCE}: doublet.{key}: unknown setting (known: {known})")
                continue
            target = settings.overrides
            for part in path[:-1]:
                target = target.setdefault(part, {})
            target[path[-1]] = value
        return settings

    def apply(self, config: Config, report: Callable[[str], None]) -> Config:
        """The configuration with these settings laid on top; a bad one is reported and skipped."""
        if not _deep_merge({}, self.overrides):  # nothing but unset settings
            return config
        try:
            return config.with_overrides(self.overrides, SOURCE)
        except ConfigError:
            pass
        for layer in _single_settings(self.overrides):
            try:
                config = config.with_overrides(layer, SOURCE)
            except ConfigError as exc:
                report(str(exc))
        return config


def _deep_merge(base: dict, top: dict) -> dict:
    merged = dict(base)
    for key, value in top.items():
        if value is None:
            merged.pop(key, None)
        elif isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _single_settings(overrides: dict) -> list[dict]:
    """One layer per setting, nested as in doublet.toml (unset ones left out)."""
    layers = []
    for key, value in overrides.items():
        if isinstance(value, dict):
            layers.extend({key: inner} for inner in _single_settings(value))
        elif value is not None:
            layers.append({key: value})
    return layers
