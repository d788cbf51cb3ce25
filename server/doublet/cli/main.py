"""The ``doublet`` command: scan a folder, compare two files.

An adapter over the engine: it turns arguments into documents and settings,
calls the engine, and prints what came back. Mistakes in the call get one line
of explanation and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import BinaryIO, TextIO, TypeVar

import numpy as np

from doublet import __version__, heap, kept_report, lms, unzip
from doublet.cli.report import (
    json_pieces,
    one_line,
    render_compare_text,
    render_matrix_csv,
    render_matrix_text,
    render_pairs_csv,
    render_pairs_text,
    render_students_csv,
    render_summary,
    similarity_matrix,
    summary_of,
)
from doublet.cluster import ClusterError, dask_cluster
from doublet.config import DEFAULT_SOURCE, DEFAULTS, ConfigError
from doublet.discovery import walk_tree
from doublet.engine.comparison import PairResult
from doublet.engine.document import Document
from doublet.engine.measures import measure_all
from doublet.engine.modes import MODE_NAMES, MODES
from doublet.index_store import FOLDER, IndexFileError
from doublet.kept_report import KeptReport
from doublet.report_html import render_html
from doublet.results import (
    compare_data,
    listing_of,
    quotable,
    scan_data,
    texts_of,
    with_given,
)
from doublet.scanned import scanned
from doublet.settings_table import BY_KEY
from doublet.skipped import Skipped
from doublet.workspace import Changes, Workspace

T = TypeVar("T")

#: The matrix view is for folders small enough to read as a table.
MATRIX_LIMIT = 60


class UsageError(Exception):
    """A mistake in how the command was called; the message is shown as is."""


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        message = f"expected a number between 0 and 1, got {text!r}"
        raise argparse.ArgumentTypeError(message) from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {value}")
    return value


def _default_of(key: str) -> str:
    """A setting's default as the help shows it (settings_table)."""
    return str(BY_KEY[key].default)


def _add_matching_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--mode",
        choices=(*MODE_NAMES, "auto"),
        default="auto",
        help="how text is cut into units: prose (characters; Chinese too), words, code "
        "(tokens); auto picks code by file extension, else prose (default: auto)",
    )
    parser.add_argument(
        "--min-length",
        type=_positive_int,
        metavar="N",
        help="shortest passage reported, in units: characters without spaces and "
        f"punctuation in prose, tokens in code (default: {_default_of('prose.min_length')} "
        f"characters, {_default_of('code.min_length')} tokens)",
    )
    parser.add_argument(
        "--noise",
        type=_positive_int,
        metavar="N",
        help="shared runs shorter than this are coincidence "
        f"(default: {_default_of('prose.noise')} characters)",
    )
    parser.add_argument(
        "--guarantee",
        type=_positive_int,
        metavar="N",
        help="shared runs at least this long are always found "
        f"(default: {_default_of('prose.guarantee')} characters)",
    )


def _add_workspace_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--threshold",
        type=_fraction,
        metavar="F",
        help="only pairs whose similarity is at least F, between 0 and 1 "
        f"(default: min_similarity of doublet.toml, else {_default_of('min_similarity')})",
    )
    parser.add_argument(
        "--max-docs",
        type=_positive_int,
        metavar="N",
        help="ignore text found in more than N documents as boilerplate, what everyone "
        "was given (default: half of the documents, at least 10)",
    )
    parser.add_argument(
        "--groups",
        choices=("none", "top-level", "lms"),
        help="whose files never flag each other: top-level (each top-level folder is one "
        "author), lms (the student named in a Moodle, Canvas, Blackboard or Brightspace "
        "download; found by itself in a recognised download), none; overrides groups of "
        "doublet.toml",
    )
    parser.add_argument(
        "--paraphrase",
        choices=("on", "off"),
        help="on: also compare documents sentence by sentence, to find reworded "
        "(paraphrased, summarised) passages in prose (the default); off: copied text "
        "only; overrides paraphrase of doublet.toml",
    )


def _add_scan_arguments(parser: argparse.ArgumentParser) -> None:
    """What `scan` and `report` share: the paths, every option of a scan but its format."""
    parser.add_argument(
        "paths", nargs="*", default=["."], metavar="PATH", help="folders, files or .zip files"
    )
    _add_matching_options(parser)
    _add_workspace_options(parser)
    parser.add_argument(
        "--archive",
        action="append",
        default=[],
        metavar="PATH",
        help="earlier years' submissions (a folder, a file or a .zip; repeatable): "
        "matched against, never reported among themselves",
    )
    parser.add_argument(
        "--no-index", action="store_true", help="neither read nor write the saved index"
    )
    _add_cluster_options(parser)
    _add_progress_option(parser)


def _add_cluster_options(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run the work on the Dask cluster of this scheduler (tcp://host:8786); its "
        "workers must see the files at the same paths (docs/scale.md)",
    )
    where.add_argument(
        "--workers",
        type=_positive_int,
        metavar="N",
        help="run the work on a Dask cluster of N local worker processes",
    )
    parser.add_argument(
        "--index-shards",
        type=_positive_int,
        metavar="N",
        help="save the index in N files, each a range of its hashed keys, that several "
        "machines can write (default: index_shards of doublet.toml, else "
        f"{_default_of('index_shards')}; docs/scale.md)",
    )


def _add_progress_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-progress", action="store_true", help="no progress bar on standard error"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="doublet",
        description="Find passages that documents share, verbatim or lightly disguised.",
    )
    parser.add_argument("--version", action="version", version=f"doublet {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True

    scan_parser = commands.add_parser(
        "scan",
        help="every pair of documents that shares passages, ranked",
        description="List every pair of documents that shares passages, most similar "
        "first. With one folder, that folder is a workspace: its doublet.toml applies and "
        "its index is kept in .doublet/, so a second scan reads only what changed. With "
        "files or several paths, they are compared as given.",
    )
    _add_scan_arguments(scan_parser)
    scan_parser.add_argument(
        "--matrix", action="store_true", help="show a similarity matrix of all documents"
    )
    scan_parser.add_argument(
        "--format",
        choices=("text", "json", "csv", "html", "students"),
        default="text",
        help="html: the page of `doublet report`, on standard output; students: one CSV "
        "row per student (group) or document, with its highest similarity and partners",
    )

    report_parser = commands.add_parser(
        "report",
        help="the scan as one HTML page: ranked pairs, clusters, pairs side by side",
        description="Scan as `doublet scan` does and write the result as ONE self-contained "
        "HTML file (no network, no server): the similarity histogram, ranked pairs to sort "
        "and filter, clusters, a heatmap for small folders, each pair side by side with "
        "its passages linked, and each document's partners. Open it in any browser.",
    )
    _add_scan_arguments(report_parser)
    report_parser.add_argument(
        "-o",
        "--output",
        default="doublet-report.html",
        metavar="FILE",
        help="where to write the page, - for standard output (default: doublet-report.html)",
    )
    report_parser.add_argument(
        "--anonymize",
        action="store_true",
        help="replace folder and file names by numbered aliases (the same name, the same "
        "alias) and leave out the title and skipped files' names",
    )

    index_parser = commands.add_parser(
        "index",
        help="build or update a workspace's saved index",
        description="Build or update the index of a workspace in DIR/.doublet/, reading "
        "only files that changed since the last time.",
    )
    index_parser.add_argument("root", nargs="?", default=".", metavar="DIR")
    _add_matching_options(index_parser)
    _add_cluster_options(index_parser)
    _add_progress_option(index_parser)

    similar_parser = commands.add_parser(
        "similar",
        help="everything in the workspace similar to one file",
        description="List the documents of the workspace that share passages with FILE. "
        "The workspace is --root, else the nearest folder above FILE holding doublet.toml "
        "or .doublet/, else the current folder (or FILE's folder when FILE is outside it).",
    )
    similar_parser.add_argument("file", metavar="FILE")
    similar_parser.add_argument("--root", metavar="DIR", help="the workspace folder")
    _add_matching_options(similar_parser)
    _add_workspace_options(similar_parser)
    similar_parser.add_argument("--format", choices=("text", "json"), default="text")
    _add_progress_option(similar_parser)

    config_parser = commands.add_parser(
        "config",
        help="print a workspace's effective configuration",
        description="Print the configuration in effect for DIR (defaults, DIR/doublet.toml "
        "and these options), as TOML with where each value came from.",
    )
    config_parser.add_argument("root", nargs="?", default=".", metavar="DIR")
    _add_matching_options(config_parser)
    _add_workspace_options(config_parser)

    serve_parser = commands.add_parser(
        "serve",
        help="run the language server (for editors)",
        description="Run the language server on standard input and output, as editors "
        "start it; --tcp HOST:PORT listens on a socket instead, for debugging.",
    )
    serve_parser.add_argument("--tcp", metavar="[HOST:]PORT", help="listen on a TCP port")
    serve_parser.add_argument(
        "--stdio", action="store_true", help="use standard input and output (the default)"
    )

    compare_parser = commands.add_parser(
        "compare",
        help="passages and every document measure for two files",
        description="Compare two files: their shared passages and every document-level "
        "measure (containment, Jaccard, cosine, SimHash, MinHash, CTPH, FlyHash).",
    )
    compare_parser.add_argument("a", metavar="A")
    compare_parser.add_argument("b", metavar="B")
    _add_matching_options(compare_parser)
    compare_parser.add_argument("--format", choices=("text", "json"), default="text")
    return parser


def _progress(enabled: bool, description: str):
    """A tqdm wrapper on stderr that appears only for runs longer than a second."""

    def wrap(items: Iterable[T]) -> Iterable[T]:
        if not enabled:
            return items
        from tqdm import tqdm

        return tqdm(
            items, desc=description, unit="", delay=1.0, leave=False, file=sys.stderr, disable=None
        )

    return wrap


def _overrides(args: argparse.Namespace) -> dict:
    """Command-line options as a configuration layer (same keys as doublet.toml)."""
    values: dict = {}
    per_mode = {
        "noise": args.noise,
        "guarantee": args.guarantee,
        "min_length": args.min_length,
    }
    per_mode = {k: v for k, v in per_mode.items() if v is not None}
    if per_mode:
        for mode in MODES:
            values[mode] = dict(per_mode)
    if args.mode != "auto":
        values["modes"] = {"*": args.mode}
    if getattr(args, "threshold", None) is not None:
        values["min_similarity"] = args.threshold
    if getattr(args, "paraphrase", None) is not None:
        values["paraphrase"] = args.paraphrase == "on"
    if getattr(args, "max_docs", None) is not None:
        if args.max_docs < 2:  # as doublet.toml's boilerplate: text of one document is its own
            raise UsageError(f"--max-docs must be at least 2, not {args.max_docs}")
        values["boilerplate"] = args.max_docs
    if getattr(args, "groups", None) is not None:
        values["groups"] = args.groups
    if getattr(args, "index_shards", None) is not None:
        values["index_shards"] = args.index_shards
    return values


def _open_workspace(
    root: str, args: argparse.Namespace, saved: bool = True, postings_on_disk: bool = False
) -> Workspace:
    if not os.path.isdir(root):
        what = "not a folder" if os.path.lexists(root) else "no such folder"
        raise UsageError(f"{what}: {root}")
    try:
        return Workspace.open(
            root, _overrides(args), "command line", saved=saved, postings_on_disk=postings_on_disk
        )
    except ConfigError as exc:
        raise UsageError(str(exc)) from None


def _paths_workspace(paths: Sequence[str], args: argparse.Namespace) -> Workspace:
    """Files and folders named one by one, as a workspace in memory with default settings."""
    for given in paths:
        if not os.path.lexists(given):
            raise UsageError(f"no such file or directory: {given}")
    try:
        config = DEFAULTS.with_overrides(_overrides(args), "command line")
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    return Workspace.of_paths(paths, config)


def _namer(workspace: Workspace, given: Sequence[str]) -> Callable[[str], str]:
    """How to print a workspace-relative path: under the file or folder the user named
    (``given``: the root as typed, or each path of :meth:`Workspace.of_paths` as typed)."""
    tops = workspace.selected if workspace.selected is not None else ("",)
    spelled = dict(zip(tops, given, strict=True))

    def shown(name: str) -> str:
        top = max((t for t in tops if not t or name == t or name.startswith(t + "/")), key=len)
        rest, base = name[len(top) :].lstrip("/"), spelled[top]
        if not rest:
            return printable(base)
        return printable(rest if base in (".", "") else base.rstrip("/") + "/" + rest)

    return shown


def printable(path: str) -> str:
    """A file name as valid UTF-8 text: bytes that are not UTF-8 (a name from an old
    system, kept by Python as surrogate escapes) are shown as ``\\xe9``."""
    if path.isascii():
        return path
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _refresh(
    workspace: Workspace, show_progress: bool, shown: Callable[[str], str], named: bool = False
) -> tuple[Changes, list[Skipped]]:
    """Refresh the index; files passed over are reported on stderr and returned, named as
    shown.

    With ``named``, a file named on the command line that cannot be read is an error.
    """
    changes = workspace.refresh(_progress(show_progress, "reading"))
    skipped = []
    for item in changes.skipped:
        if named and workspace.selected is not None and item.path in workspace.selected:
            raise UsageError(f"cannot read {shown(item.path)}: {item.reason}")
        skipped.append(Skipped(shown(item.path), item.reason))
        print(f"doublet: skipped {one_line(shown(item.path))}: {item.reason}", file=sys.stderr)
    return changes, skipped


def _warn(workspace: Workspace) -> list[str]:
    """The workspace's warnings (Workspace.warnings), printed on stderr and returned."""
    return _say_warnings(workspace.warnings())


def _say_warnings(found: list[str]) -> list[str]:
    for warning in found:
        print(f"doublet: warning: {warning}", file=sys.stderr)
    return found


#: The documents of a report's pairs by id, read when a rendering quotes them.
Texts = Callable[[], dict[int, Document]]


def _write(data: dict, args: argparse.Namespace, texts: Texts, started: float) -> None:
    """Print a scan-shaped report in the format asked for."""
    _write_text(sys.stdout, _rendered(data, args, texts))
    sys.stdout.write(_summary(summary_of(data), args, started))


#: Characters of a report written at a time: written whole, a report's text (30 MB for
#: 100,000 documents' pairs) is first encoded into a copy of all of it.
_WRITE_SLICE = 1 << 20


def _write_text(out: TextIO, text: str) -> int:
    """Write ``text`` to ``out`` a slice at a time; the bytes it takes in UTF-8."""
    size = 0
    for at in range(0, len(text), _WRITE_SLICE):
        piece = text[at : at + _WRITE_SLICE]
        out.write(piece)
        size += len(piece.encode("utf-8", "surrogatepass"))
    return size


def _rendered_pieces(data: dict, args: argparse.Namespace, texts: Texts) -> Iterator[str]:
    """:func:`_rendered`'s text in pieces: JSON a document or a pair at a time (their
    rows are made as they are written), the other formats whole."""
    if args.format == "json":
        if getattr(args, "matrix", False):
            data["matrix"] = similarity_matrix(len(data["documents"]), data)
        yield from json_pieces(data)
    else:
        yield _rendered(data, args, texts)


def _joined(pieces: Iterable[str]) -> Iterator[str]:
    """``pieces`` joined into texts of about _WRITE_SLICE characters (a big piece alone)."""
    batch: list[str] = []
    size = 0
    for piece in pieces:
        batch.append(piece)
        size += len(piece)
        if size >= _WRITE_SLICE:
            yield "".join(batch)
            batch, size = [], 0
    if batch:
        yield "".join(batch)


def _rendered(data: dict, args: argparse.Namespace, texts: Texts) -> str:
    """A scan-shaped report in the format asked for, but for the text form's last line
    (:func:`_summary`); only the text and HTML renderings read the documents."""
    if args.format == "html":
        return _html(data, args, texts)
    if args.format == "students":
        return render_students_csv(data)
    if args.format == "json":
        return "".join(_rendered_pieces(data, args, texts))
    if args.format == "csv":
        return render_matrix_csv(data) if args.matrix else render_pairs_csv(data)
    if getattr(args, "matrix", False):
        return render_matrix_text(data, highlight=_highlight())
    return render_pairs_text(data, texts())


def _highlight() -> bool:
    """Whether the text matrix shows high values in colour: on a terminal."""
    return sys.stdout.isatty()


def _summary(summary: dict, args: argparse.Namespace, started: float) -> str:
    """The text form's last line: what was scanned, and in how long."""
    if args.format != "text":
        return ""
    return render_summary(summary, time.perf_counter() - started)


def _html(data: dict, args: argparse.Namespace, texts: Texts) -> str:
    """The report page of a scan (report_html), titled with what was scanned."""
    title = "Doublet report: " + ", ".join(args.paths)
    threshold = args.configured_threshold  # --threshold, else doublet.toml's min_similarity
    return render_html(
        data,
        {i: d.text for i, d in texts().items()},
        title=title,
        threshold=threshold,
        anonymize=getattr(args, "anonymize", False),
    )


def run_report(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    scan = _scan(args)
    with heap.freed_arrays_given_back():  # the page is tens of megabytes (doublet/heap)
        if scan.kept is not None:  # the page of this very index and these settings
            page, summary = scan.kept.text, scan.kept.summary
        else:
            page, summary = _html(scan.data, args, scan.texts), summary_of(scan.data)
        warnings, keeping = scan.data.get("warnings", []), scan.keeping
        del scan  # the pairs as data: tens of megabytes of objects at 100,000 documents
        size, where = _write_page(args, page)
        print(
            f"{render_summary(summary, time.perf_counter() - started).rstrip()}\n"
            f"Report written to {where} ({size / 1e6:.1f} MB).",
            file=sys.stderr,
        )
        if keeping is not None:
            keeping.keep(page, warnings, summary)
    return 0


def _write_page(args: argparse.Namespace, page: str) -> tuple[int, str]:
    """Write the report's page where ``--output`` says: its size in bytes, and where."""
    if args.output == "-":  # standard output, as the other formats are written
        return _write_text(sys.stdout, page), "standard output"
    try:
        with open(args.output, "w", encoding="utf-8") as out:
            return _write_text(out, page), args.output
    except OSError as exc:
        raise UsageError(f"cannot write {args.output}: {exc.strerror or exc}") from None


def run_scan(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    scan = _scan(args)
    if scan.kept is not None:  # the report of this very index and these settings
        _write_text(sys.stdout, scan.kept.text)
        sys.stdout.write(_summary(scan.kept.summary, args, started))
        return 0
    with heap.freed_arrays_given_back():  # the report's big texts (doublet/heap)
        summary, warnings, keeping = summary_of(scan.data), scan.data["warnings"], scan.keeping
        pieces = _rendered_pieces(scan.data, args, scan.texts)
        del scan  # the pairs: tens of megabytes of objects at 100,000 documents
        spool = _Spool(keeping.root) if keeping is not None else None
        for text in _joined(pieces):  # written as it is made: never all of it as JSON
            for at in range(0, len(text), _WRITE_SLICE):
                piece = text[at : at + _WRITE_SLICE]
                sys.stdout.write(piece)
                if spool is not None:
                    spool.write(piece)
        del pieces  # and the pairs they were made from
        sys.stdout.write(_summary(summary, args, started))
        if keeping is not None and spool is not None:
            keeping.keep_spooled(spool, warnings, summary)
    return 0


class _Spool:
    """A report's UTF-8, written to a temporary file in ``.doublet/`` as the report is
    written out, to be kept from there (held in memory meanwhile, a 100,000-document
    scan's report was 33 MB more beside the pairs it was made from). A file that cannot
    be written only means the report is not kept."""

    def __init__(self, root: Path) -> None:
        self.error: OSError | None = None
        self._file: BinaryIO | None = None
        folder = root / FOLDER
        try:
            # closed by written(), or with the process: it lives as long as the writing
            self._file = tempfile.TemporaryFile(dir=folder if folder.is_dir() else None)  # noqa: SIM115
        except OSError as exc:
            self.error = exc

    def write(self, text: str) -> None:
        if self._file is None:
            return
        try:
            self._file.write(text.encode("utf-8", "surrogatepass"))
        except OSError as exc:
            self.error = exc
            self._file.close()
            self._file = None

    def written(self) -> np.ndarray | None:
        """The bytes written, None if they could not all be (the file is closed)."""
        spooled, self._file = self._file, None
        if spooled is None:
            return None
        with spooled:
            try:
                spooled.seek(0)
                return np.fromfile(spooled, np.uint8)
            except OSError as exc:
                self.error = exc
                return None


@dataclass
class _Keeping:
    """Where a folder's report is kept (kept_report), and under which key."""

    root: Path
    key: bytes

    def found(self) -> KeptReport | None:
        return kept_report.load(self.root, self.key)

    def keep_spooled(self, spool: _Spool, warnings: list[str], summary: dict) -> None:
        """Keep the report written into ``spool``."""
        written = spool.written()
        if written is None:
            print(f"doublet: the report was not kept: {spool.error}", file=sys.stderr)
            return
        self.keep(written, warnings, summary)

    def keep(self, text: str | np.ndarray, warnings: list[str], summary: dict) -> None:
        """Keep the report whose text is ``text`` (or, as bytes, its UTF-8)."""
        encoded = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
        try:
            kept_report.save(self.root, self.key, encoded, warnings, summary)
        except IndexFileError as exc:
            print(f"doublet: the report was not kept: {exc}", file=sys.stderr)


@dataclass
class _Scan:
    """What a scan found: its data and documents, or the report kept from the last one."""

    data: dict
    texts: Texts
    kept: KeptReport | None = None  # the answer, when the last report is (data is empty)
    keeping: _Keeping | None = None  # where to keep this scan's report


def _scan(args: argparse.Namespace) -> _Scan:
    """Scan the paths as the arguments say: the scan's data and its documents by id.

    A .zip is unpacked into a scratch folder first (removed at the end: its index is
    not kept); earlier years (``--archive``) become references. A folder's report is
    kept (kept_report), and the last one kept is the answer when it was made of the
    same index, settings and options.
    """
    show_progress = not args.no_progress
    with tempfile.TemporaryDirectory(prefix="doublet-") as scratch:
        inputs = _Inputs.of(args.paths, args.archive, Path(scratch))
        workspace, given = _scan_workspace(inputs, args)
        _recognise_download(workspace, inputs)
        shown = _namer(workspace, given)
        named = workspace.selected is not None
        keep = not named and not args.no_index and not inputs.unpacked  # the folder's index
        _, skipped = _refresh(workspace, show_progress, shown, named=named)
        if keep:
            _save_quietly(workspace, batch=True)  # the scan reads its postings back
        args.configured_threshold = workspace.config.min_similarity
        key = kept_report.report_key(
            workspace.index_state(), workspace.config, args, skipped, _highlight()
        )
        where = _Keeping(workspace.root, key) if keep and key is not None else None
        found = where.found() if where is not None else None
        if found is not None:
            _say_warnings(found.warnings)
            return _Scan({}, dict, kept=found)
        if getattr(args, "matrix", False) and len(workspace.index) > MATRIX_LIMIT:
            raise UsageError(
                f"--matrix shows at most {MATRIX_LIMIT} documents; found {len(workspace.index)}"
            )
        warnings = _warn(workspace)
        pairs = workspace.scan(_progress(show_progress, "comparing"), parallel=True, keep=keep)
        with heap.freed_arrays_given_back():  # nothing is keyed or aligned from here on
            # made after selecting and aligning, which it would only weigh on (22 MB of
            # names and counts at 100,000 documents)
            listing = with_given(listing_of(workspace, shown), workspace, pairs)
            data = scan_data(listing, pairs, inputs.skipped + skipped, warnings)
            # read now, in the scratch folder's lifetime, and only for renderings that quote
            quoted = getattr(args, "format", "html") in ("html", "text")
            texts = texts_of(pairs, listing, workspace.document) if quoted else {}
        return _Scan(quotable(data, texts) if quoted else data, lambda: texts, keeping=where)


@dataclass
class _Inputs:
    """The paths to scan as folders and files on disk, each with how the user named it."""

    paths: list[str]  # a .zip replaced by the folder it was unpacked into
    given: list[str]
    archive: list[bool]  # earlier years (--archive)
    unpacked: bool  # whether any was unpacked into the scratch folder (no index kept)
    skipped: list[Skipped]  # members of a .zip passed over

    @staticmethod
    def of(paths: Sequence[str], archives: Sequence[str], scratch: Path) -> _Inputs:
        inputs = _Inputs([], [], [], False, [])
        seen: dict[str, bool] = {}  # each path named, by where it really is: an archive?
        for number, (given, archive) in enumerate(
            [(p, False) for p in paths] + [(p, True) for p in archives]
        ):
            if not os.path.lexists(given):
                raise UsageError(f"no such file or directory: {given}")
            same = os.path.realpath(given)
            if same in seen:
                if seen[same] != archive:
                    raise UsageError(f"{given} is named both as a path and as --archive")
                continue  # named twice: scanned once
            seen[same] = archive
            path = given
            scratch_path = str(scratch / str(number) / os.path.basename(os.path.abspath(given)))
            if given.lower().endswith(".zip") and os.path.isfile(given):
                try:
                    inputs.passed(given, unzip.unpack(given, scratch_path))
                except unzip.UnzipError as exc:
                    raise UsageError(str(exc)) from None
                path = scratch_path
            elif not archive and _unpacked_download(given):  # its students' zips to open
                shutil.copytree(given, scratch_path, symlinks=True)
                inputs.passed(given, unzip.unpack_nested(scratch_path))
                path = scratch_path
            inputs.paths.append(path)
            inputs.given.append(given)
            inputs.archive.append(archive)
        return inputs

    def passed(self, given: str, skipped: list[Skipped]) -> None:
        """``given`` was unpacked into a scratch folder, ``skipped`` passed over."""
        self.unpacked = True
        for item in skipped:
            shown = f"{given.rstrip('/')}/{item.path}"
            self.skipped.append(Skipped(shown, item.reason))
            print(f"doublet: skipped {one_line(shown)}: {item.reason}", file=sys.stderr)


def _unpacked_download(folder: str) -> bool:
    """Whether ``folder`` is an LMS download unpacked by hand that still holds zips."""
    if not os.path.isdir(folder) or lms.recognise(_top_entries(folder)) is None:
        return False
    return _holds_zips(folder)  # a walk of the whole tree: only for a download


def _scan_workspace(inputs: _Inputs, args: argparse.Namespace) -> tuple[Workspace, list[str]]:
    """The workspace to scan, and how the user named each of its tops.

    One folder is a workspace (its doublet.toml, its index); earlier years inside it
    are references there. Anything else is a workspace in memory of the paths.
    """
    folder = inputs.paths[0]
    if len(inputs.paths) - sum(inputs.archive) == 1 and os.path.isdir(folder):
        inside = [_inside(p, folder) for p in inputs.paths[1:]]
        if all(rel is not None for rel in inside):
            workspace = _open_workspace(  # a scan answered by its kept report needs none
                folder, args, saved=not args.no_index and not inputs.unpacked, postings_on_disk=True
            )
            _add_references(workspace, [p for p in inside if p is not None])
            return workspace, [inputs.given[0]]
    workspace = _paths_workspace(inputs.paths, args)
    assert workspace.selected is not None
    tops = dict(zip(inputs.paths, workspace.selected, strict=True))
    _add_references(
        workspace, [tops[p] for p, old in zip(inputs.paths, inputs.archive, strict=True) if old]
    )
    if workspace.config.groups == "top-level":  # the folders at the top of each path named
        named = [f"/{_literal(tops[p])}/*/" for p in inputs.paths if os.path.isdir(p) and tops[p]]
        workspace.config = workspace.config.with_overrides(
            {"groups": named or "top-level"}, workspace.config.source_of("groups")
        )
    return workspace, inputs.given


def _literal(path: str) -> str:
    """A workspace-relative path as a gitignore-style pattern that matches it alone."""
    literal = re.sub(r"([\\*?\[\]])", r"\\\1", path)
    return "\\" + literal if literal.startswith(("!", "#")) else literal


def _inside(path: str, folder: str) -> str | None:
    """``path`` relative to ``folder`` (posix) if it lies inside it, else None."""
    full, root = os.path.realpath(path), os.path.realpath(folder)
    if full == root or not full.startswith(root.rstrip(os.sep) + os.sep):
        return None
    return PurePosixPath(Path(os.path.relpath(full, root))).as_posix()


def _add_references(workspace: Workspace, tops: Sequence[str]) -> None:
    """Earlier years: every file under each of ``tops`` (workspace-relative) is a
    reference, matched against but never reported with another reference."""
    if not tops:
        return
    patterns = [*workspace.config.references]
    for top in tops:
        patterns += [f"/{_literal(top)}", f"/{_literal(top)}/**"]
    workspace.config = workspace.config.with_overrides({"references": patterns}, "--archive")


def _recognise_download(workspace: Workspace, inputs: _Inputs) -> None:
    """Group files per student when a path is an LMS download and groups are not set;
    and in a download (or anything unpacked), a .gitignore a student handed in does
    not hide their work."""
    recognised = False
    if workspace.config.source_of("groups") == DEFAULT_SOURCE:
        for path, given, old in zip(inputs.paths, inputs.given, inputs.archive, strict=True):
            layout = None if old or not os.path.isdir(path) else lms.recognise(_top_entries(path))
            if layout is not None:
                workspace.config = workspace.config.with_overrides(
                    {"groups": "lms"}, f"a {layout.name} download"
                )
                print(
                    f"doublet: {given} is a {layout.name} download: one submission per "
                    "student (their own files never flag each other; --groups none if not)",
                    file=sys.stderr,
                )
                recognised = True
                break
    if (recognised or inputs.unpacked) and (
        workspace.config.source_of("respect_gitignore") == DEFAULT_SOURCE
    ):
        workspace.config = workspace.config.with_overrides(
            {"respect_gitignore": False}, "a download: students' .gitignore files hide nothing"
        )


def _holds_zips(folder: str) -> bool:
    """Whether a .zip lies anywhere under ``folder`` (hidden folders aside)."""
    for _, folders, names in walk_tree(folder, [], Path(folder)):
        folders[:] = [f for f in folders if not f.startswith(".")]
        if any(n.lower().endswith(".zip") for n in names):
            return True
    return False


def _top_entries(folder: str) -> list[str]:
    """The names at the top of a download, below any folders that only wrap it."""
    for _ in range(3):
        names = [n for n in os.listdir(folder) if not n.startswith(".")]
        if len(names) != 1 or not os.path.isdir(os.path.join(folder, names[0])):
            return names
        if lms.recognise(names) is not None:
            return names
        folder = os.path.join(folder, names[0])
    return names


def _save_quietly(workspace: Workspace, batch: bool = False) -> None:
    """Save the index for next time; if it cannot be, say why and go on (the answer
    does not need it). ``batch``: see Workspace.save."""
    try:
        workspace.save(batch=batch)
    except IndexFileError as exc:
        print(f"doublet: the index was not saved: {exc}", file=sys.stderr)


def run_index(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    workspace = _open_workspace(args.root, args)
    changes, skipped = _refresh(workspace, not args.no_progress, _namer(workspace, [args.root]))
    try:
        path = workspace.save(batch=True)
    except IndexFileError as exc:
        raise UsageError(str(exc)) from None
    size = path.stat().st_size / 1e6
    _warn(workspace)
    print(
        f"Indexed {len(workspace.index)} documents in {time.perf_counter() - started:.2f} s: "
        f"{len(changes.added)} added, {len(changes.updated)} updated, "
        f"{len(changes.removed)} removed, {len(changes.renamed)} moved, "
        f"{changes.unchanged} unchanged, {len(skipped)} skipped. "
        f"Index: {path} ({size:.1f} MB)."
    )
    return 0


def find_root(file: str) -> str:
    """The workspace of a file: nearest folder above it with doublet.toml or .doublet/."""
    here = os.path.dirname(os.path.abspath(file))
    folder = here
    while True:
        if os.path.exists(os.path.join(folder, "doublet.toml")) or os.path.isdir(
            os.path.join(folder, ".doublet")
        ):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    cwd = os.getcwd()
    return cwd if here == cwd or here.startswith(cwd + os.sep) else here


def run_similar(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    if not os.path.isfile(args.file):
        what = "not a file" if os.path.lexists(args.file) else "no such file"
        raise UsageError(f"{what}: {args.file}")
    root = args.root or find_root(args.file)
    workspace = _open_workspace(root, args)
    shown = _namer(workspace, [os.path.relpath(root)])
    _, skipped = _refresh(workspace, not args.no_progress, shown)
    _save_quietly(workspace)
    try:
        rel = workspace.relative(args.file)
    except ValueError:
        raise UsageError(f"{args.file} is not inside the workspace {root}") from None
    if rel not in workspace.index:
        reason = next((s.reason for s in workspace.skipped if s.path == rel), "not included")
        raise UsageError(f"{args.file} is not a document of the workspace: {reason}")
    warnings = _warn(workspace)
    results = workspace.similar(rel)
    listing = listing_of(workspace, shown, [rel] + [r.b.name for r in results])
    pairs = [scanned(r) for r in results]
    data = scan_data(listing, pairs, skipped, warnings)
    args.matrix = False
    documents = {r.b.name: r.b for r in results} | {rel: workspace.document(rel)}
    _write(data, args, lambda: texts_of(pairs, listing, documents.__getitem__), started)
    return 0


def run_serve(args: argparse.Namespace) -> int:
    stdin = None
    if not args.tcp:  # the first message read, and its folder's index, while pygls imports
        from doublet.lsp.first_message import read_ahead_of

        stdin = read_ahead_of(sys.stdin.buffer)
    from doublet.lsp.generated_code import kept_generated_code

    with kept_generated_code():  # a fifth of the start: attrs's methods, compiled once
        from doublet.lsp.handlers import serve  # imported here: the CLI does not need pygls
    serve(args.tcp, stdin)
    return 0


def run_config(args: argparse.Namespace) -> int:
    workspace = _open_workspace(args.root, args, saved=False)
    sys.stdout.write(workspace.config.as_toml())
    return 0


def run_compare(args: argparse.Namespace) -> int:
    for path in (args.a, args.b):
        if os.path.isdir(path):
            raise UsageError(f"compare takes two files; {path} is a folder")
    workspace = _paths_workspace([args.a, args.b], args)
    if _same_file(args.a, args.b):  # however spelled: one document, no pair
        raise UsageError(f"compare takes two different files; {args.a} and {args.b} are one")
    shown = _namer(workspace, [args.a, args.b])
    _refresh(workspace, False, shown, named=True)
    names = [workspace.relative(p) for p in (args.a, args.b)]
    a, b = (workspace.document(name) for name in names)
    if a.mode != b.mode:
        raise UsageError(
            f"{shown(a.name)} is {a.mode.name} and {shown(b.name)} is {b.mode.name}; "
            "pass --mode to compare them the same way"
        )
    found = [r for r in workspace.pairs() if {r.a.name, r.b.name} == {a.name, b.name}]
    result = found[0] if found else PairResult.nothing(a, b)
    if result.a is not a:  # a pair found in a scan is ordered by name; keep A first
        result = result.swapped()
    data = compare_data(listing_of(workspace, shown, names), scanned(result), measure_all(a, b))
    if args.format == "json":
        json.dump(data, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render_compare_text(data, [a, b]))
    return 0


def _same_file(a: str, b: str) -> bool:
    """Whether two paths name one file: spelled alike, or the same file on disk."""
    if os.path.normcase(os.path.abspath(a)) == os.path.normcase(os.path.abspath(b)):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # a link that leads nowhere: the workspace says why it is not read
        return False


def _cluster_of(args: argparse.Namespace) -> contextlib.AbstractContextManager:
    """The Dask cluster the work runs on, if the arguments name one (doublet/cluster)."""
    scheduler, workers = getattr(args, "scheduler", None), getattr(args, "workers", None)
    if scheduler is None and workers is None:
        return contextlib.nullcontext()
    return dask_cluster(scheduler, workers)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command != "serve":  # an editor's server stays small instead (doublet/heap)
        heap.keep_freed_arrays()
    handlers = {
        "scan": run_scan,
        "report": run_report,
        "index": run_index,
        "similar": run_similar,
        "config": run_config,
        "serve": run_serve,
        "compare": run_compare,
    }
    try:
        with _cluster_of(args):
            return handlers[args.command](args)
    except (UsageError, ClusterError) as exc:
        print(f"doublet: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("doublet: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a bug of ours: say so in one line, unless debugging
        if os.environ.get("DOUBLET_DEBUG"):
            raise
        print(
            f"doublet: internal error: {type(exc).__name__}: {exc} "
            "(set DOUBLET_DEBUG=1 for the traceback, and please report it)",
            file=sys.stderr,
        )
        return 1
