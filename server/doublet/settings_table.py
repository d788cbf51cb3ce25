"""Every setting of Doublet, declared once.

A setting lives in up to three places: ``doublet.toml`` (its key), an editor's
``doublet`` section (its client name) and the command line (its option). Each row
here names them with the default, the values it takes (as JSON schema, which is
also what VS Code's package.json declares) and one line of documentation, and
everything else is derived from the rows: the checks of the configuration model
(config), the language server's translation of editor settings (lsp/settings),
``doublet config``, the command line's help, and the settings of
client-vscode/package.json and the tables in docs/ (``python -m
doublet.settings_table --write`` rewrites them; a test fails while they differ).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from doublet.engine.candidates import BOILERPLATE_SHARE
from doublet.engine.modes import MODE_NAMES, MODES

#: Where a setting takes effect: the workspace's configuration (doublet.toml, with the
#: editor's and the command line's values over it), the language server alone, or the
#: editor's extension alone (the server passes over it).
WORKSPACE, SERVER, CLIENT = "workspace", "server", "client"

SEVERITIES = ("error", "warning", "information", "hint")
#: How a passage matches (engine/passages: Passage.kind).
KINDS = ("verbatim", "edited", "paraphrased")
CHECK_FREQUENCIES = ("edit", "save", "manual")
#: The largest threshold in units (a passage of a million characters is a book), and
#: the largest file size: numbers beyond are typing mistakes, not settings.
MAX_THRESHOLD = 1_000_000
MAX_FILE_SIZE = 1 << 40


@dataclass(frozen=True)
class Setting:
    """One setting: where it is given, what it takes, and what it does."""

    key: str | None  # doublet.toml key, dotted inside a mode's table; None: editor only
    client: str | None  # name in the editor's ``doublet`` section; None: not there
    default: Any
    schema: Mapping[str, Any]  # JSON schema of its values (without null)
    doc: str  # what it does, one sentence
    option: str | None = None  # command-line option that overrides it
    where: str = WORKSPACE

    @property
    def name(self) -> str:
        return self.key or self.client or ""


def _integer(least: int, most: int) -> dict:
    return {"type": "integer", "minimum": least, "maximum": most}


_GLOBS = {"type": "array", "items": {"type": "string"}}
_UNITS = {"prose": "characters (letters and digits)", "words": "words", "code": "tokens"}


def _thresholds(mode: str) -> list[Setting]:
    defaults, unit = MODES[mode], _UNITS[mode]
    rows = [
        Setting(
            f"{mode}.noise",
            None,
            defaults.noise,
            _integer(1, MAX_THRESHOLD),
            f"shared runs shorter than this many {unit} are coincidence (the k of winnowing)",
            "--noise" if mode == "prose" else None,
        ),
        Setting(
            f"{mode}.guarantee",
            None,
            defaults.guarantee,
            _integer(1, MAX_THRESHOLD),
            f"shared runs this many {unit} long are always found (at least the noise)",
            "--guarantee" if mode == "prose" else None,
        ),
        Setting(
            f"{mode}.min_length",
            "minLength" if mode == "prose" else None,
            defaults.min_length,
            _integer(1, MAX_THRESHOLD),
            f"shortest passage reported, in {unit}",
            "--min-length" if mode == "prose" else None,
        ),
        Setting(
            f"{mode}.gap",
            None,
            defaults.gap,
            _integer(0, MAX_THRESHOLD),
            f"largest gap bridged inside one passage, in {unit}",
        ),
    ]
    if mode == "code":
        rows.append(
            Setting(
                "code.keep_comments",
                None,
                False,
                {"type": "boolean"},
                "whether comments count (their words), for courses where copied comments "
                "are evidence",
            )
        )
    return rows


SETTINGS: tuple[Setting, ...] = (
    Setting(
        "min_similarity",
        "minSimilarity",
        0.0,
        {"type": "number", "minimum": 0, "maximum": 1},
        "pairs of documents less similar than this (0 to 1) are not reported",
        "--threshold",
    ),
    Setting(
        "severity",
        "severity",
        "warning",
        {"type": "string", "enum": list(SEVERITIES)},
        "how an editor shows a match",
    ),
    Setting(
        "severity_by_kind",
        "severityByKind",
        {},
        {
            "type": "object",
            "properties": {kind: {"type": "string", "enum": list(SEVERITIES)} for kind in KINDS},
            "additionalProperties": False,
        },
        "how an editor shows a match of each kind (verbatim, edited, paraphrased), over severity",
    ),
    Setting(
        "paraphrase",
        "paraphrase",
        True,
        {"type": "boolean"},
        "also compare prose sentence by sentence, to find reworded (paraphrased, "
        "summarised) passages; false finds copied text only",
        "--paraphrase",
    ),
    Setting(
        "boilerplate",
        None,
        BOILERPLATE_SHARE,
        {"type": "number", "exclusiveMinimum": 0},
        "text in more documents than this is what everyone was given and is ignored: a "
        "number of documents (an integer of at least 2) or a share of them (below 1)",
        "--max-docs",
    ),
    Setting(
        "max_file_size",
        "maxFileSize",
        20_000_000,
        _integer(1, MAX_FILE_SIZE),
        "files larger than this many bytes are skipped",
    ),
    Setting(
        "index_shards",
        None,
        1,
        _integer(1, 1024),
        "files the saved index is cut into, by hash range of its keys, so that several "
        "machines can each write theirs (1: one file)",
        "--index-shards",
    ),
    Setting(
        "include",
        "include",
        ["**/*"],
        _GLOBS,
        "gitignore-style glob patterns of the files that are documents",
    ),
    Setting("exclude", "exclude", [], _GLOBS, "glob patterns of files that are not documents"),
    Setting(
        "templates",
        None,
        [],
        _GLOBS,
        "files everyone was given (an assignment, starter code): their text is never reported",
    ),
    Setting(
        "references",
        None,
        [],
        _GLOBS,
        "sources and earlier years: matched against documents, never with each other",
    ),
    Setting(
        "groups",
        None,
        "none",
        {"type": ["string", "array"]},
        'whose files never flag each other: "none", "top-level" (each top-level folder is '
        'one author), "lms" (the student of a Moodle, Canvas, Blackboard or Brightspace '
        "download) or a list of globs naming group folders",
        "--groups",
    ),
    Setting(
        "respect_gitignore",
        None,
        True,
        {"type": "boolean"},
        "leave out what the folder's .gitignore files ignore",
    ),
    Setting(
        "modes",
        None,
        {},
        {"type": "object", "additionalProperties": {"type": "string", "enum": list(MODE_NAMES)}},
        'glob -> "prose", "words" or "code"; the first match wins; other files are code by '
        "extension, else prose",
        "--mode",
    ),
    *(row for mode in MODE_NAMES for row in _thresholds(mode)),
    Setting(
        "ignore",
        None,
        [],
        {"type": "array"},
        "matches the user chose to ignore (a, b and the passage's digest), written by the "
        "editor's quick fix",
    ),
    Setting(
        None,
        "checkFrequency",
        "edit",
        {"type": "string", "enum": list(CHECK_FREQUENCIES)},
        "when an open document is checked: as it is edited, when it is saved, or only by "
        "the command Doublet: Check Document",
        where=SERVER,
    ),
    Setting(
        None,
        "debounce",
        400,
        _integer(0, 600_000),
        "milliseconds after the last keystroke before a document is checked again",
        where=SERVER,
    ),
    Setting(
        None,
        "python.path",
        "",
        {"type": "string"},
        "Python (3.10 or newer) to run the server with; empty: the Python extension's "
        "interpreter if it is installed, else python3",
        where=CLIENT,
    ),
    Setting(
        None,
        "trace.server",
        "off",
        {"type": "string", "enum": ["off", "messages", "verbose"]},
        "log the messages between the editor and the server",
        where=CLIENT,
    ),
)

BY_KEY: dict[str, Setting] = {s.key: s for s in SETTINGS if s.key}
BY_CLIENT: dict[str, Setting] = {s.client: s for s in SETTINGS if s.client}


def default(key: str) -> Any:
    """The default of a doublet.toml key, as the configuration model holds it."""
    value = BY_KEY[key].default
    if isinstance(value, list):
        return tuple(value)
    if isinstance(value, dict):
        return tuple(value.items())
    return value


# --- what is derived for the editor and the docs ------------------------------------------

#: VS Code scopes: a workspace setting may differ per folder of a multi-root workspace.
_SCOPES = {WORKSPACE: "resource", SERVER: "resource", CLIENT: "window"}


def package_json_properties() -> dict[str, dict]:
    """The ``contributes.configuration.properties`` of client-vscode/package.json."""
    properties = {}
    for s in SETTINGS:
        if not s.client:
            continue
        schema = dict(s.schema)
        if s.where == WORKSPACE:  # null: not set in the editor, doublet.toml decides
            kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
            schema["type"] = [*kinds, "null"]
            if "enum" in schema:
                schema["enum"] = [*schema["enum"], None]
            schema["default"] = None
            overrides = f"Overrides `{s.key}` of `doublet.toml` (default {_shown(s.default)})."
            described = f"{_sentence(s.doc)} {overrides}"
        else:
            schema["default"] = s.default
            described = f"{_sentence(s.doc)} Default {_shown(s.default)}."
        schema["scope"] = "machine-overridable" if s.client == "python.path" else _SCOPES[s.where]
        schema["markdownDescription"] = described
        properties[f"doublet.{s.client}"] = schema
    return properties


def editor_table() -> str:
    """The settings table of docs/editors.md."""
    lines = [
        "| key | overrides in `doublet.toml` | value | default |",
        "|---|---|---|---|",
    ]
    for s in SETTINGS:
        if s.client and s.where != CLIENT:
            where = f"`{s.key}`" if s.key else "(server only)"
            lines.append(f"| `{s.client}` | {where} | {_values(s)} | {_shown(s.default)} |")
    return "\n".join(lines)


def configuration_table() -> str:
    """The table of every doublet.toml key in docs/configuration.md."""
    lines = [
        "| key | default | editor setting | option | what it does |",
        "|---|---|---|---|---|",
    ]
    for s in SETTINGS:
        if s.key:
            client = f"`{s.client}`" if s.client else ""
            option = f"`{s.option}`" if s.option else ""
            lines.append(
                f"| `{s.key}` | {_shown(s.default)} | {client} | {option} | {_values(s)} |"
            )
    return "\n".join(lines)


def _values(s: Setting) -> str:
    """The doc, with the values it takes when they are a few names."""
    choices = s.schema.get("enum")
    return f"{s.doc}: {', '.join(_shown(c) for c in choices)}" if choices else s.doc


def _shown(value: Any) -> str:
    return f"`{json.dumps(value)}`"


def _sentence(doc: str) -> str:
    return doc[0].upper() + doc[1:] + "."


# --- writing them where they are declared for others -------------------------------------

ROOT = Path(__file__).resolve().parents[2]
PACKAGE_JSON = ROOT / "client-vscode" / "package.json"
DOCS = {
    ROOT / "docs" / "editors.md": editor_table,
    ROOT / "docs" / "configuration.md": configuration_table,
}
_GENERATED = re.compile(
    r"(<!-- settings table: generated by python -m doublet\.settings_table --write -->\n)"
    r".*?(\n<!-- end of settings table -->)",
    re.DOTALL,
)


def with_properties(package: str) -> str:
    """package.json's text with its settings as the table says (the rest as it was)."""
    data = json.loads(package)
    data["contributes"]["configuration"]["properties"] = package_json_properties()
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def with_table(doc: str, table: str) -> str:
    """A doc's text with its generated table replaced."""
    if not _GENERATED.search(doc):
        raise ValueError("no generated settings table in it")
    return _GENERATED.sub(lambda m: m.group(1) + table + m.group(2), doc)


def main(argv: list[str]) -> int:
    """``--write`` rewrites package.json and the docs' tables; ``--check`` says which differ."""
    stale = []
    targets = {PACKAGE_JSON: with_properties, **{p: _doc_writer(f) for p, f in DOCS.items()}}
    for path, rewrite in targets.items():
        text = path.read_text("utf-8")
        wanted = rewrite(text)
        if wanted != text:
            stale.append(path)
            if "--write" in argv:
                path.write_text(wanted, "utf-8")
    for path in stale:
        print(f"{'rewrote' if '--write' in argv else 'differs'}: {path.relative_to(ROOT)}")
    return 1 if stale and "--write" not in argv else 0


def _doc_writer(table):
    return lambda text: with_table(text, table())


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
