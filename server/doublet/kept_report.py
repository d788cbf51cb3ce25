"""The last report of a scan, kept in ``.doublet/`` so that scanning an unchanged
folder again costs little more than finding that nothing changed.

The kept pairs (scan_store) already spare a second scan any alignment; what was
left on a folder of 100,000 documents was making 64,000 pairs into objects and
data and rendering them again: 6 of the 9 seconds. A report is made of nothing
but the index's documents, the scan's pairs and the settings, so its text is
kept under a *key* that names everything it was made from:

- the saved index it was made from (``Workspace.index_state``: a name per save,
  None while the index differs from the saved one, so nothing is kept then);
- the whole configuration (doublet.toml and the command line's overrides);
- the command and its options, and how the folder was named (reports print
  paths as the user typed them), and whether the output is a terminal;
- the files passed over, with their reasons;
- the versions of Doublet, of the kept pairs and of this file.

When the key is the same the kept text is printed again, with its warnings;
anything else (an edit, a setting, another format) renders anew and replaces
it. The one line made anew each time is the text form's last, which says how
long the scan took (from the kept counts). A file that cannot be read, or is of
another version, is a scan as if there were none.
"""

from __future__ import annotations

import argparse
import hashlib
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import doublet
from doublet import index_store, scan_store
from doublet.config import Config
from doublet.skipped import Skipped

log = logging.getLogger(__name__)

FILE = "report.msgpack"
MAGIC = b"DOUBLET-REPORT\n"
#: Changed whenever what the key names no longer decides the rendering (or the files of
#: ``.doublet/`` change their layout: 2, arrays after the msgpack head, index_store).
VERSION = 2

#: Options that change how a scan runs, or where its report goes, not what it says.
_NOT_IN_KEY = frozenset({"no_progress", "output"})


@dataclass(frozen=True)
class KeptReport:
    """A report's text, the warnings printed with it, and the counts of its summary
    line (cli/report ``summary_of``: the text form's last line says how long the scan
    took, so it is written anew)."""

    text: str
    warnings: list[str]
    summary: dict


def report_key(
    state: str | None,
    config: Config,
    args: argparse.Namespace,
    skipped: Sequence[Skipped],
    terminal: bool,
) -> bytes | None:
    """The key of the report a scan with these inputs prints (``terminal``: whether it
    is shown on one, in colour), or None when the index is not a saved one (nothing is
    kept then)."""
    if state is None:
        return None
    options = sorted(
        (name, value)
        for name, value in vars(args).items()
        if name not in _NOT_IN_KEY and not callable(value)
    )
    named = (
        doublet.__version__,
        scan_store.VERSION,
        VERSION,
        state,
        config,
        options,
        [(item.path, item.reason) for item in skipped],
        terminal,
    )
    text = repr(named).encode("utf-8", "surrogateescape")
    return hashlib.blake2b(text, digest_size=16).digest()


def _path(root: Path) -> Path:
    return root / index_store.FOLDER / FILE


def load(root: Path, key: bytes) -> KeptReport | None:
    """The report kept under ``key``, if the last one kept was."""
    path = _path(root)
    if not os.path.lexists(path):
        return None
    try:
        data = index_store.read_checked(path, MAGIC, VERSION)
        if data["key"] != key:
            return None
        text = bytes(data["text"]).decode("utf-8", "surrogatepass")
        summary = data["summary"]
        if not (
            isinstance(summary, dict)
            and isinstance(summary.get("modes"), dict)
            and isinstance(summary.get("skipped"), int)
            and isinstance(summary.get("pairs"), int)
        ):
            raise TypeError("the summary's counts are missing")
        return KeptReport(text, [str(w) for w in data["warnings"]], summary)
    except index_store.IndexFileError as exc:
        log.info("the last report is not used: %s", exc)
    except (KeyError, TypeError, ValueError) as exc:
        log.info("the last report is not used: it is malformed (%s)", exc)
    return None


def save(
    root: Path, key: bytes, encoded: bytes | np.ndarray, warnings: list[str], summary: dict
) -> None:
    """Keep a report, its text in UTF-8 (as it was written out), under ``key`` in place
    of the last one; IndexFileError if it cannot be written."""
    data = {
        "key": key,
        # as an array, the text goes to the file as it is (bytes would be copied into
        # the file's head first: 30 MB more at the end of a 100,000-document scan)
        "text": np.frombuffer(encoded, np.uint8),
        "warnings": warnings,
        "summary": summary,
    }
    try:
        index_store.write_checked(root, FILE, data, MAGIC, VERSION)
    except OSError as exc:
        raise index_store.IndexFileError(
            _path(root), f"cannot be written ({exc.strerror or exc})"
        ) from None
