"""The one configuration shared by the language server, the CLI and the index.

Values come in layers: defaults < the workspace file ``doublet.toml`` < overrides
from a client (editor settings, command-line options), each checked the same way
so a mistake is reported with its key and where it came from. A later layer
replaces a value, a list, the [modes] table or the [[ignore]] list as a whole;
only the per-mode tables ([prose], [words], [code]) merge key by key, so an
editor can change one threshold without repeating the others.

Paths given to the helpers are workspace-relative with ``/`` separators. Glob
patterns are gitignore-style (``pathspec``): a pattern that matches a folder
matches everything inside it, and a pattern without a slash matches at any depth.
"""

from __future__ import annotations

import difflib
import json
import re
import stat
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from pathlib import Path, PurePath, PurePosixPath, PureWindowsPath
from typing import Any

from pathspec import GitIgnoreSpec

from doublet import lms
from doublet.engine.modes import MODE_NAMES, MODES, Mode, detect_mode_name
from doublet.settings_table import (
    KINDS,
    SETTINGS,
    SEVERITIES,
    WORKSPACE,
    Setting,
    default,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

FILE_NAME = "doublet.toml"
DEFAULT_SOURCE = "default"
THRESHOLD_KEYS = ("noise", "guarantee", "min_length", "gap")


class ConfigError(Exception):
    """A bad value, always with the dotted key and where it came from."""

    def __init__(
        self,
        source: str,
        key: str,
        problem: str,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        self.source, self.key, self.problem = source, key, problem
        self.line, self.column = line, column  # 1-based, for malformed TOML only
        where = source if line is None else f"{source}:{line}:{column}"
        super().__init__(f"{where}: {key}: {problem}")


@dataclass(frozen=True)
class Thresholds:
    """One mode's thresholds, in that mode's units (see ``engine.modes.Mode``)."""

    noise: int
    guarantee: int
    min_length: int
    gap: int
    keep_comments: bool = False  # code only

    @classmethod
    def of(cls, mode: Mode) -> Thresholds:
        return cls(mode.noise, mode.guarantee, mode.min_length, mode.gap, mode.keep_comments)


_DEFAULT_THRESHOLDS = {name: Thresholds.of(mode) for name, mode in MODES.items()}


@dataclass(frozen=True)
class Ignore:
    """One match the user chose to ignore: its two files and the passage's digest."""

    a: str
    b: str
    digest: str


@dataclass(frozen=True)
class Config:
    """The effective configuration of a workspace. Build it with ``load``/``with_overrides``."""

    # each default and what it means: settings_table
    min_similarity: float = default("min_similarity")
    severity: str = default("severity")
    severity_by_kind: tuple[tuple[str, str], ...] = default("severity_by_kind")  # (kind, severity)
    paraphrase: bool = default("paraphrase")  # the paraphrase stage (engine/paraphrase)
    boilerplate: int | float = default("boilerplate")
    max_file_size: int = default("max_file_size")
    index_shards: int = default("index_shards")  # files of the saved index (index_store)
    include: tuple[str, ...] = default("include")
    exclude: tuple[str, ...] = default("exclude")
    templates: tuple[str, ...] = default("templates")
    references: tuple[str, ...] = default("references")
    groups: str | tuple[str, ...] = default("groups")
    respect_gitignore: bool = default("respect_gitignore")
    modes: tuple[tuple[str, str], ...] = default("modes")  # (pattern, mode name), first wins
    prose: Thresholds = _DEFAULT_THRESHOLDS["prose"]
    words: Thresholds = _DEFAULT_THRESHOLDS["words"]
    code: Thresholds = _DEFAULT_THRESHOLDS["code"]
    ignore: tuple[Ignore, ...] = ()
    #: dotted key -> where its value came from; keys not listed are defaults.
    sources: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)

    # --- layers ------------------------------------------------------------------------------

    def with_overrides(self, values: Mapping[str, Any], source: str) -> Config:
        """This configuration with ``values`` (nested like the file) laid on top.

        A None value leaves its key alone: editors send null for settings left unset.
        """
        layer = _parse_layer(values, source)
        merged = {k: (v, self.sources[k]) for k, v in _flatten(self).items() if k in self.sources}
        merged.update((key, (value, source)) for key, value in layer.items())
        return _build(merged, source)

    def source_of(self, key: str) -> str:
        """Where the value of a dotted key (``prose.noise``, ``modes``) came from."""
        return self.sources.get(key, DEFAULT_SOURCE)

    # --- questions about files ---------------------------------------------------------------

    def mode_for(self, relative_path: str | PurePath) -> Mode:
        """The engine mode of a file: first [modes] pattern that matches, else by extension."""
        path = _posix(relative_path)
        if self._mode_specs:
            names = (name for spec, name in self._mode_specs if _matches(spec, path))
            return self._modes[next(names, None) or detect_mode_name(path)]
        return self._modes[detect_mode_name(path)]

    def is_included(self, relative_path: str | PurePath) -> bool:
        """Whether a file is scanned at all (``.gitignore`` is the discovery's business);
        in a download of submissions, the system's own receipts are not."""
        path = _posix(relative_path)
        if self.groups == "lms" and lms.is_receipt(path):
            return False
        if self._includes_all:  # the default: no pattern to match a hundred thousand times
            return not _matches(self._exclude, path)
        return _matches(self._include, path) and not _matches(self._exclude, path)

    def is_template(self, relative_path: str | PurePath) -> bool:
        return _matches(self._templates, _posix(relative_path))

    def is_reference(self, relative_path: str | PurePath) -> bool:
        return _matches(self._references, _posix(relative_path))

    def group_of(self, relative_path: str | PurePath) -> str | None:
        """The folder of the author a file belongs to (files of one group are not paired).

        With patterns, the first pattern (in order) that names a folder holding the file
        wins, and for that pattern the outermost such folder.
        """
        parts = _posix(relative_path).split("/")
        folders = ["/".join(parts[:i]) for i in range(1, len(parts))]
        if self.groups == "lms":  # a flat download names the student in the file's name
            return lms.student_of(_posix(relative_path))
        if self.groups == "none" or not folders:
            return None
        if self.groups == "top-level":
            return folders[0]
        for spec in self._group_specs:
            for folder in folders:
                if spec.match_file(folder + "/"):
                    return folder
        return None

    def severity_of(self, kind: str) -> str:
        """How an editor shows a passage of this kind (verbatim, edited, paraphrased)."""
        return dict(self.severity_by_kind).get(kind, self.severity)

    def is_ignored(self, a: str, b: str, digest: str) -> bool:
        """Whether the user ignored this passage of this pair (in either order)."""
        return any(i.digest == digest and (i.a, i.b) in ((a, b), (b, a)) for i in self.ignore)

    # --- printing ----------------------------------------------------------------------------

    def as_dict(self) -> dict[str, Any]:
        """The configuration as the file would hold it (what ``tomllib`` gives back)."""
        flat = _flatten(self)
        top = {k: _plain(v) for k, v in flat.items() if "." not in k}
        top["modes"] = dict(self.modes)
        top["severity_by_kind"] = dict(self.severity_by_kind)
        for name in MODE_NAMES:
            top[name] = {k: flat[f"{name}.{k}"] for k in _table_keys(name)}
        top["ignore"] = [{"a": i.a, "b": i.b, "digest": i.digest} for i in self.ignore]
        return top

    def as_toml(self) -> str:
        """The effective configuration as TOML, each value followed by where it came from."""
        data = self.as_dict()
        lines = ["# Effective Doublet configuration; after each value, where it came from."]
        for key, value in data.items():
            if not isinstance(value, dict) and (key != "ignore" or not value):
                lines.append(f"{key} = {_toml(value)}  # {self._comment(key)}")
        for table in ("severity_by_kind", "modes"):
            lines += ["", f"[{table}]  # {self._comment(table)}"]
            lines += [f"{_toml(key)} = {_toml(value)}" for key, value in getattr(self, table)]
        for name in MODE_NAMES:
            lines += ["", f"[{name}]"]
            for key, value in data[name].items():
                lines.append(f"{key} = {_toml(value)}  # {self._comment(f'{name}.{key}')}")
        for entry in data["ignore"]:
            lines += ["", f"[[ignore]]  # {self._comment('ignore')}"]
            lines += [f"{key} = {_toml(value)}" for key, value in entry.items()]
        return "\n".join(lines) + "\n"

    def _comment(self, key: str) -> str:
        source = self.source_of(key)
        if key.endswith(".guarantee") and source == DEFAULT_SOURCE:
            mode = key.split(".")[0]
            if getattr(self, mode).guarantee != MODES[mode].guarantee:
                source = "default, raised to the noise threshold"
        return "".join(c if c.isprintable() else "?" for c in source)

    # --- compiled patterns (cached: the dataclass is frozen, its patterns never change) ------

    @cached_property
    def _include(self) -> GitIgnoreSpec:
        return GitIgnoreSpec.from_lines(self.include)

    @cached_property
    def _includes_all(self) -> bool:
        """Whether ``include`` takes every file (``**/*``, the default)."""
        return "**/*" in self.include and not any(p.startswith("!") for p in self.include)

    @cached_property
    def _exclude(self) -> GitIgnoreSpec:
        return GitIgnoreSpec.from_lines(self.exclude)

    @cached_property
    def _templates(self) -> GitIgnoreSpec:
        return GitIgnoreSpec.from_lines(self.templates)

    @cached_property
    def _references(self) -> GitIgnoreSpec:
        return GitIgnoreSpec.from_lines(self.references)

    @cached_property
    def _mode_specs(self) -> list[tuple[GitIgnoreSpec, str]]:
        return [(GitIgnoreSpec.from_lines([pattern]), name) for pattern, name in self.modes]

    @cached_property
    def _modes(self) -> dict[str, Mode]:
        """Each mode with this configuration's thresholds (one object each: a mode's salt
        is computed once)."""
        modes = {}
        for name, mode in MODES.items():
            thresholds: Thresholds = getattr(self, name)
            mode = mode.with_thresholds(
                thresholds.noise, thresholds.guarantee, thresholds.min_length, thresholds.gap
            )
            modes[name] = (
                replace(mode, keep_comments=thresholds.keep_comments) if name == "code" else mode
            )
        return modes

    @cached_property
    def _group_specs(self) -> list[GitIgnoreSpec]:
        patterns = () if isinstance(self.groups, str) else self.groups
        return [GitIgnoreSpec.from_lines([pattern]) for pattern in patterns]


DEFAULTS = Config()


def load(root: Path) -> Config:
    """The configuration of the workspace at ``root``: defaults < ``root/doublet.toml``."""
    path = Path(root) / FILE_NAME
    source = str(path)
    try:
        info = path.lstat()
    except FileNotFoundError:
        return DEFAULTS
    except OSError as exc:
        raise ConfigError(source, "(file)", f"cannot read it: {exc.strerror}") from None
    if stat.S_ISLNK(info.st_mode):  # read only what lies in the workspace itself
        raise ConfigError(source, "(file)", "a symbolic link (not followed): put the file here")
    if not stat.S_ISREG(info.st_mode):
        raise ConfigError(source, "(file)", "not a regular file")
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8")
    except OSError as exc:
        raise ConfigError(source, "(file)", f"cannot read it: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(source, "(file)", f"not UTF-8 text (byte {exc.start})") from None
    try:
        values = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise _syntax_error(source, text, str(exc)) from None
    except RecursionError:
        raise ConfigError(source, "(file)", "nested too deeply to be read") from None
    return DEFAULTS.with_overrides(values, source)


# --- checking one layer ----------------------------------------------------------------------


def _parse_layer(values: Mapping[str, Any], source: str) -> dict[str, Any]:
    """Check one layer and flatten it to dotted keys (tables of thresholds per key)."""
    if not isinstance(values, Mapping):
        raise ConfigError(
            source, "(top level)", f"expected a table of settings, got {_show(values)}"
        )
    flat: dict[str, Any] = {}
    for key, value in values.items():
        if value is None:
            continue
        if key in MODE_NAMES:
            table = _table(value, key, source, f"a table [{key}] of {', '.join(_table_keys(key))}")
            for sub, item in table.items():
                dotted = f"{key}.{sub}"
                if sub not in _table_keys(key):
                    hint = "; keep_comments belongs in [code]" if sub == "keep_comments" else ""
                    raise _unknown(source, dotted, str(sub), _table_keys(key), f"[{key}]", hint)
                if item is not None:
                    flat[dotted] = _check_threshold(item, dotted, source)
        elif key in _CHECKS:
            flat[key] = _CHECKS[key](value, key, source)
        else:
            hint = ""
            if key in (*THRESHOLD_KEYS, "keep_comments"):
                table = "code" if key == "keep_comments" else "prose"
                hint = f"; thresholds belong in a mode table, e.g. {key} under [{table}]"
            raise _unknown(source, str(key), str(key), (*_CHECKS, *MODE_NAMES), "settings", hint)
    return flat


def _unknown(
    source: str, dotted: str, key: str, known: Sequence[str], where: str, hint: str = ""
) -> ConfigError:
    close = [] if hint else difflib.get_close_matches(key, known, n=1)
    suggestion = f"; did you mean {close[0]!r}?" if close else ""
    return ConfigError(
        source, dotted, f"unknown key in {where}{suggestion}{hint} (known: {', '.join(known)})"
    )


def _table_keys(mode: str) -> tuple[str, ...]:
    return (*THRESHOLD_KEYS, "keep_comments") if mode == "code" else THRESHOLD_KEYS


def _show(value: Any) -> str:
    kinds = {bool: "a boolean", int: "an integer", float: "a number", str: "a string"}
    kind = kinds.get(type(value))
    if kind is None:
        kind = "a table" if isinstance(value, Mapping) else type(value).__name__
        if isinstance(value, (list, tuple)):
            kind = "an array"
    text = repr(value)
    return f"{text[:60]}… ({kind})" if len(text) > 60 else f"{text} ({kind})"


def _expected(source: str, key: str, what: str, value: Any) -> ConfigError:
    return ConfigError(source, key, f"expected {what}, got {_show(value)}")


def _table(value: Any, key: str, source: str, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise _expected(source, key, what, value)
    return value


def _integer(value: Any, key: str, source: str, least: int, most: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= most:
        raise _expected(source, key, f"a whole number from {least} to {most:,}", value)
    return value


def _string(value: Any, key: str, source: str, what: str = "a string") -> str:
    if not isinstance(value, str) or not value:
        raise _expected(source, key, what, value)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise _expected(source, key, f"{what} of valid Unicode", value) from None
    return value


def _choice(value: Any, key: str, source: str, choices: Sequence[str]) -> str:
    if isinstance(value, str) and value in choices:
        return value
    close = difflib.get_close_matches(value, choices, n=1) if isinstance(value, str) else []
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise _expected(source, key, f"one of {', '.join(map(repr, choices))}{hint}", value)


def _glob(value: Any, key: str, source: str) -> str:
    pattern = _string(value, key, source, "a glob pattern (a non-empty string)")
    try:
        spec = GitIgnoreSpec.from_lines([pattern])
    except (ValueError, re.error) as exc:
        problem = getattr(exc, "msg", None) or str(exc)
        raise ConfigError(source, key, f"bad glob pattern {pattern!r}: {problem}") from None
    if not spec.patterns or spec.patterns[0].include is None:
        if not pattern.strip():
            why = "it is blank"
        elif pattern.startswith("#"):
            why = r"a # starts a comment (\# for a name that starts with #)"
        else:  # git's rules read it as no pattern at all
            why = r"git's rules read no pattern in it (an unclosed [? \[ stands for a [ itself)"
        raise ConfigError(source, key, f"bad glob pattern {pattern!r}: it matches nothing: {why}")
    if ".." in pattern.lstrip("!").replace("\\", "/").split("/"):
        raise ConfigError(
            source,
            key,
            f"bad glob pattern {pattern!r}: patterns name files under the workspace folder, "
            "from its root; '..' would leave it (nothing outside is ever read)",
        )
    return pattern


def _globs(value: Any, key: str, source: str) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)):
        raise _expected(source, key, 'an array of glob patterns, e.g. ["**/*.py"]', value)
    return tuple(_glob(item, key, source) for item in value)


def _fraction(value: Any, key: str, source: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise _expected(source, key, "a number from 0 to 1", value)
    return float(value)


def _boilerplate(value: Any, key: str, source: str) -> int | float:
    ok = not isinstance(value, bool) and (
        (isinstance(value, int) and value >= 2) or (isinstance(value, float) and 0 < value < 1)
    )
    if not ok:
        what = "a number of documents (an integer >= 2) or a share of them (between 0 and 1)"
        raise _expected(source, key, what, value)
    return value


def _boolean(value: Any, key: str, source: str) -> bool:
    if not isinstance(value, bool):
        raise _expected(source, key, "true or false", value)
    return value


def _groups(value: Any, key: str, source: str) -> str | tuple[str, ...]:
    if isinstance(value, str) and any(c in value for c in "/*?["):
        raise _expected(
            source, key, f'"none", "top-level", "lms" or an array, e.g. ["{value}"]', value
        )
    if isinstance(value, str):
        return _choice(value, key, source, ("none", "top-level", "lms"))
    if isinstance(value, (list, tuple)):
        return _globs(value, key, source)
    raise _expected(source, key, '"none", "top-level", "lms" or an array of folder patterns', value)


def _modes(value: Any, key: str, source: str) -> tuple[tuple[str, str], ...]:
    table = _table(value, key, source, 'a table [modes] of pattern = "prose" | "words" | "code"')
    checked = []
    for pattern, name in table.items():
        dotted = f"{key}.{_toml(pattern) if isinstance(pattern, str) else repr(pattern)}"
        checked.append((_glob(pattern, dotted, source), _choice(name, dotted, source, MODE_NAMES)))
    return tuple(checked)


def _relative_path(value: Any, key: str, source: str) -> str:
    path = _string(value, key, source, "a workspace-relative path")
    if PurePosixPath(path).is_absolute() or PureWindowsPath(path).anchor:
        raise _expected(source, key, "a workspace-relative path (with / separators)", value)
    return path


def _ignores(value: Any, key: str, source: str) -> tuple[Ignore, ...]:
    if not isinstance(value, (list, tuple)):
        raise _expected(source, key, "an array of tables [[ignore]] with a, b and digest", value)
    entries = []
    for number, item in enumerate(value, 1):
        name = f"{key}[{number}]"  # 1-based: the first [[ignore]] is ignore[1]
        entry = _table(item, name, source, "a table with a, b and digest")
        for field_name in entry:
            if field_name not in ("a", "b", "digest"):
                raise _unknown(
                    source,
                    f"{name}.{field_name}",
                    field_name,
                    ("a", "b", "digest"),
                    "an [[ignore]] entry",
                )
        for field_name in ("a", "b", "digest"):
            if field_name not in entry:
                raise ConfigError(
                    source,
                    f"{name}.{field_name}",
                    "missing; every [[ignore]] entry needs a, b and digest",
                )
        entries.append(
            Ignore(
                _relative_path(entry["a"], f"{name}.a", source),
                _relative_path(entry["b"], f"{name}.b", source),
                _string(entry["digest"], f"{name}.digest", source, "a digest string"),
            )
        )
    return tuple(entries)


def _severity_by_kind(value: Any, key: str, source: str) -> tuple[tuple[str, str], ...]:
    what = f"a table [{key}] of {', '.join(KINDS)} = a severity"
    table = _table(value, key, source, what)
    checked = []
    for kind, severity in table.items():
        if kind not in KINDS:
            raise _unknown(source, f"{key}.{kind}", str(kind), KINDS, f"[{key}]")
        checked.append((kind, _choice(severity, f"{key}.{kind}", source, SEVERITIES)))
    return tuple(checked)


def _by_schema(row: Setting) -> Callable[[Any, str, str], Any]:
    """The check of a plain setting, from the values its row in settings_table takes."""
    schema = row.schema
    kind = schema["type"]
    if kind == "boolean":
        return _boolean
    if kind == "integer":
        least, most = schema["minimum"], schema["maximum"]
        return lambda v, k, s: _integer(v, k, s, least, most)
    if kind == "number" and (schema.get("minimum"), schema.get("maximum")) == (0, 1):
        return _fraction
    if kind == "string" and "enum" in schema:
        choices = tuple(schema["enum"])
        return lambda v, k, s: _choice(v, k, s, choices)
    raise TypeError(f"settings_table: no check for {row.name} ({schema})")


def check_editor_setting(row: Setting, value: Any, source: str) -> Any:
    """The value of a setting only the language server reads (``where == SERVER``: it is
    not in doublet.toml), checked against its row as doublet.toml's keys are."""
    return _by_schema(row)(value, f"doublet.{row.client}", source)


#: Settings whose values need more than their schema says.
_SPECIAL_CHECKS: dict[str, Callable[[Any, str, str], Any]] = {
    "boilerplate": _boilerplate,
    "include": _globs,
    "exclude": _globs,
    "templates": _globs,
    "references": _globs,
    "groups": _groups,
    "modes": _modes,
    "ignore": _ignores,
    "severity_by_kind": _severity_by_kind,
}

#: The check of every doublet.toml key, and of the keys of the modes' tables (dotted).
_ALL_CHECKS: dict[str, Callable[[Any, str, str], Any]] = {
    s.key: _SPECIAL_CHECKS.get(s.key) or _by_schema(s)
    for s in SETTINGS
    if s.key and s.where == WORKSPACE
}
_CHECKS = {key: check for key, check in _ALL_CHECKS.items() if "." not in key}


def _check_threshold(value: Any, key: str, source: str) -> int | bool:
    return _ALL_CHECKS[key](value, key, source)


# --- building a Config from layered values ----------------------------------------------------


def _flatten(config: Config) -> dict[str, Any]:
    """Every value of ``config`` under its dotted key, thresholds one key each."""
    flat: dict[str, Any] = {}
    for f in fields(Config):
        if f.name == "sources":
            continue
        value = getattr(config, f.name)
        if f.name in MODE_NAMES:
            flat.update((f"{f.name}.{k}", getattr(value, k)) for k in _table_keys(f.name))
        else:
            flat[f.name] = value
    return flat


def _build(values: Mapping[str, tuple[Any, str]], layer: str) -> Config:
    """A Config from explicit (value, source) pairs over the defaults, checked as a whole."""
    flat = {**_flatten(DEFAULTS), **{key: value for key, (value, _) in values.items()}}
    sources = {key: source for key, (_, source) in values.items()}
    tables: dict[str, Thresholds] = {}
    for name in MODE_NAMES:
        noise, guarantee = flat[f"{name}.noise"], flat[f"{name}.guarantee"]
        if f"{name}.guarantee" not in values:
            guarantee = max(guarantee, noise)  # as Mode.with_thresholds: it follows the noise
        elif guarantee < noise:
            noise_source = sources.get(f"{name}.noise", DEFAULT_SOURCE)
            raise ConfigError(
                layer,
                f"{name}.guarantee",
                f"expected at least {name}.noise ({noise}, from {noise_source}), "
                f"got {guarantee} (from {sources[f'{name}.guarantee']})",
            )
        tables[name] = Thresholds(
            noise,
            guarantee,
            flat[f"{name}.min_length"],
            flat[f"{name}.gap"],
            flat.get(f"{name}.keep_comments", False),
        )
    top = {k: v for k, v in flat.items() if "." not in k}
    return Config(**top, **tables, sources=sources)


# --- small helpers --------------------------------------------------------------------------


def _posix(path: str | PurePath) -> str:
    return path.as_posix() if isinstance(path, PurePath) else path


def matching_nothing(patterns: Sequence[str], paths: Sequence[str]) -> list[str]:
    """Those of ``patterns`` (negations left out) that match none of ``paths``."""
    return [
        pattern
        for pattern in patterns
        if not pattern.startswith("!")
        and not any(_matches(GitIgnoreSpec.from_lines([pattern]), _posix(p)) for p in paths)
    ]


def _matches(spec: GitIgnoreSpec, path: str) -> bool:
    """Whether ``spec`` matches the file or a folder holding it, as git decides ignores."""
    if not spec.patterns:
        return False
    parts = path.split("/")
    folders = ("/".join(parts[:i]) + "/" for i in range(1, len(parts)))
    return any(spec.match_file(folder) for folder in folders) or spec.match_file(path)


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def _toml(value: Any) -> str:
    """A TOML literal for the values a Config holds (strings, numbers, booleans, arrays)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):  # JSON escapes are TOML escapes, except DEL must be escaped too
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    return "[" + ", ".join(_toml(item) for item in value) + "]"


def _syntax_error(source: str, text: str, message: str) -> ConfigError:
    """Malformed TOML, with the line and column of the parser and the key on that line."""
    found = re.search(r"\(at line (\d+), column (\d+)\)$", message)
    problem = message[: found.start()].strip() if found else message
    if not found:
        return ConfigError(source, "(end of file)", f"malformed TOML: {problem}")
    line, column = int(found[1]), int(found[2])
    table, key = "", "(line)"
    for number, content in enumerate(text.splitlines(), 1):
        header = re.match(r"\s*\[\[?\s*([^\]]*?)\s*\]", content)
        if number < line and header:
            table = header[1] + "."
        if number == line:
            assignment = re.match(r"\s*([^=#\[]+?)\s*=", content)
            key = table + assignment[1].strip().strip("\"'") if assignment else content.strip()
    return ConfigError(source, key or "(line)", f"malformed TOML: {problem}", line, column)
