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

from doublet.config import Config

SOURCE = "editor settings"
DEFAULT_DEBOUNCE = 0.4  # seconds

#: client setting -> path of the doublet.toml key it overrides
KEYS: dict[str, tuple[str, ...]] = {
    "minLength": ("prose", "min_length"),
    "minSimilarity": ("min_similarity",),
    "severity": ("severity",),
    "include": ("include",),
    "exclude": ("exclude",),
    "maxFileSize": ("max_file_size",),
}
SERVER_ONLY = ("debounce", "trace", "python")


@dataclass
class Settings:
    overrides: dict[str, Any] = field(default_factory=dict)
    debounce: float = DEFAULT_DEBOUNCE
    pushed: bool = False  # came with didChangeConfiguration rather than on request

    @staticmethod
    def parse(values: Any, report: Callable[[str], None]) -> Settings:
        """Settings from the client's object; unknown or malformed entries are reported."""
        settings = Settings()
        if not isinstance(values, Mapping):
            return settings
        for key, value in values.items():
            if value is None:
                continue
            if key == "debounce":
                if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
                    settings.debounce = value / 1000
                else:
                    report(f"{SOURCE}: doublet.debounce: expected milliseconds >= 0, got {value!r}")
                continue
            if key in SERVER_ONLY:
                continue
            path = KEYS.get(key)
            if path is None:
                report(f"{SOURCE}: doublet.{key}: unknown setting (known: {', '.join(KEYS)})")
                continue
            target = settings.overrides
            for part in path[:-1]:
                target = target.setdefault(part, {})
            target[path[-1]] = value
        return settings

    def apply(self, config: Config) -> Config:
        """The configuration with these settings laid on top (ConfigError if one is bad)."""
        if not self.overrides:
            return config
        return config.with_overrides(self.overrides, SOURCE)
