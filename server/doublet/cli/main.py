"""The ``doublet`` command: scan a folder, compare two files.

An adapter over the engine: it turns arguments into documents and settings,
calls the engine, and prints what came back. Mistakes in the call get one line
of explanation and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Iterable, Sequence
from typing import TypeVar

from doublet import __version__
from doublet.cli.loading import Thresholds, UsageError, load
from doublet.cli.report import (
    Listing,
    compare_data,
    render_compare_text,
    render_matrix_csv,
    render_matrix_text,
    render_pairs_csv,
    render_pairs_text,
    render_summary,
    scan_data,
    similarity_matrix,
    texts_of,
)
from doublet.config import ConfigError
from doublet.engine.comparison import compare
from doublet.engine.measures import measure_all
from doublet.engine.modes import MODE_NAMES, MODES
from doublet.engine.scan import PARAPHRASE_CHOICES, scan
from doublet.sources import Skipped
from doublet.workspace import Workspace

T = TypeVar("T")

#: The matrix view is for folders small enough to read as a table.
MATRIX_LIMIT = 60


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


def _add_matching_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--mode",
        choices=MODE_NAMES,
        default="auto",
        help="how text is cut into units: prose (characters; Chinese too), words, code "
        "(tokens); auto picks code by file extension, else prose (default: auto)",
    )
    parser.add_argument(
        "--min-length",
        type=_positive_int,
        metavar="N",
        help="shortest passage reported, in units: characters without spaces and "
        "punctuation in prose, tokens in code (default: 80 characters, 40 tokens)",
    )
    parser.add_argument(
        "--noise",
        type=_positive_int,
        metavar="N",
        help="shared runs shorter than this are coincidence (default: 12 characters)",
    )
    parser.add_argument(
        "--guarantee",
        type=_positive_int,
        metavar="N",
        help="shared runs at least this long are always found (default: 24 characters)",
    )


def _add_workspace_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--threshold",
        type=_fraction,
        metavar="F",
        help="only pairs whose similarity is at least F, between 0 and 1 "
        "(default: min_similarity of doublet.toml, else 0)",
    )
    parser.add_argument(
        "--max-docs",
        type=_positive_int,
        metavar="N",
        help="ignore text found in more than N documents as boilerplate "
        "(default: a tenth of the documents, at least 10)",
    )
    parser.add_argument(
        "--paraphrase",
        choices=PARAPHRASE_CHOICES,
        help="which pairs are searched sentence by sentence for reworded passages: "
        "widen (pairs that share a copied passage; the default), all (every candidate "
        "pair: also finds pairs that share only paraphrase, two to three times slower), "
        "off (copied text only); overrides paraphrase of doublet.toml",
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
    scan_parser.add_argument("paths", nargs="*", default=["."], metavar="PATH")
    _add_matching_options(scan_parser)
    _add_workspace_options(scan_parser)
    scan_parser.add_argument(
        "--matrix", action="store_true", help="show a similarity matrix of all documents"
    )
    scan_parser.add_argument("--format", choices=("text", "json", "csv"), default="text")
    scan_parser.add_argument(
        "--no-index", action="store_true", help="neither read nor write the saved index"
    )
    _add_progress_option(scan_parser)

    index_parser = commands.add_parser(
        "index",
        help="build or update a workspace's saved index",
        description="Build or update the index of a workspace in DIR/.doublet/, reading "
        "only files that changed since the last time.",
    )
    index_parser.add_argument("root", nargs="?", default=".", metavar="DIR")
    _add_matching_options(index_parser)
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


def _thresholds(args: argparse.Namespace) -> Thresholds:
    return Thresholds(noise=args.noise, guarantee=args.guarantee, min_length=args.min_length)


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
        values["paraphrase"] = args.paraphrase
    if getattr(args, "max_docs", None) is not None:
        values["boilerplate"] = max(args.max_docs, 2)
    return values


def _open_workspace(root: str, args: argparse.Namespace, saved: bool = True) -> Workspace:
    if not os.path.isdir(root):
        raise UsageError(f"no such folder: {root}")
    try:
        return Workspace.open(root, _overrides(args), "command line", saved=saved)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None


def _prefix(shown_root: str) -> str:
    """What to put before a workspace-relative path to show it as the user named the root."""
    return "" if shown_root in (".", "") else shown_root.rstrip("/") + "/"


def _refresh(workspace: Workspace, show_progress: bool, shown_root: str) -> list[Skipped]:
    """Refresh the index; files passed over are reported on stderr and returned."""
    changes = workspace.refresh(_progress(show_progress, "reading"))
    prefix = _prefix(shown_root)
    skipped = [Skipped(prefix + s.path, s.reason) for s in changes.skipped]
    for item in skipped:
        print(f"doublet: skipped {item.path}: {item.reason}", file=sys.stderr)
    return skipped


def _workspace_listing(workspace: Workspace, shown_root: str) -> Listing:
    rows = workspace.listing()
    prefix = _prefix(shown_root)
    return Listing(
        [name for name, _, _ in rows],
        {name: chars for name, chars, _ in rows},
        {name: mode for name, _, mode in rows},
        {name: prefix + name for name, _, _ in rows},
    )


def _write(data: dict, args: argparse.Namespace, texts: dict, started: float) -> None:
    """Print a scan-shaped report in the format asked for."""
    count = len(data["documents"])
    if args.format == "json":
        if getattr(args, "matrix", False):
            data["matrix"] = similarity_matrix(count, data)
        json.dump(data, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    elif args.format == "csv":
        sys.stdout.write(render_matrix_csv(data) if args.matrix else render_pairs_csv(data))
    else:
        if getattr(args, "matrix", False):
            sys.stdout.write(render_matrix_text(data, highlight=sys.stdout.isatty()))
        else:
            sys.stdout.write(render_pairs_text(data, texts))
        sys.stdout.write(render_summary(data, time.perf_counter() - started))


def run_scan(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    show_progress = not args.no_progress
    if len(args.paths) == 1 and os.path.isdir(args.paths[0]):
        workspace = _open_workspace(args.paths[0], args, saved=not args.no_index)
        skipped = _refresh(workspace, show_progress, args.paths[0])
        if not args.no_index:
            workspace.save()
        listing = _workspace_listing(workspace, args.paths[0])
        results = workspace.pairs(_progress(show_progress, "comparing"))
    else:
        loaded = load(args.paths, args.mode, _thresholds(args), _progress(show_progress, "reading"))
        for item in loaded.skipped:
            print(f"doublet: skipped {item.path}: {item.reason}", file=sys.stderr)
        listing = Listing.of_documents(loaded.documents)
        skipped = loaded.skipped
        results = scan(
            loaded.documents,
            max_docs=args.max_docs,
            threshold=args.threshold or 0.0,
            progress=_progress(show_progress, "comparing"),
            paraphrase=args.paraphrase or "widen",
        )
    if args.matrix and len(listing.names) > MATRIX_LIMIT:
        raise UsageError(
            f"--matrix shows at most {MATRIX_LIMIT} documents; found {len(listing.names)}"
        )
    data = scan_data(listing, results, skipped)
    _write(data, args, texts_of(results, listing), started)
    return 0


def run_index(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    workspace = _open_workspace(args.root, args)
    changes = workspace.refresh(_progress(not args.no_progress, "indexing"))
    for skipped in changes.skipped:
        print(
            f"doublet: skipped {_prefix(args.root)}{skipped.path}: {skipped.reason}",
            file=sys.stderr,
        )
    path = workspace.save()
    size = path.stat().st_size / 1e6
    print(
        f"Indexed {len(workspace.index)} documents in {time.perf_counter() - started:.2f} s: "
        f"{len(changes.added)} added, {len(changes.updated)} updated, "
        f"{len(changes.removed)} removed, {len(changes.renamed)} moved, "
        f"{changes.unchanged} unchanged, {len(changes.skipped)} skipped. "
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
        raise UsageError(f"no such file: {args.file}")
    root = args.root or find_root(args.file)
    workspace = _open_workspace(root, args)
    skipped = _refresh(workspace, not args.no_progress, os.path.relpath(root))
    workspace.save()
    try:
        rel = workspace.relative(args.file)
    except ValueError:
        raise UsageError(f"{args.file} is not inside the workspace {root}") from None
    if rel not in workspace.index:
        reason = next((s.reason for s in workspace.skipped if s.path == rel), "not included")
        raise UsageError(f"{args.file} is not a document of the workspace: {reason}")
    results = workspace.similar(rel)
    names = [rel] + [r.b.name for r in results]
    everything = {name: (chars, mode) for name, chars, mode in workspace.listing()}
    shown = os.path.relpath(root)
    prefix = "" if shown == "." else shown + "/"
    listing = Listing(
        names,
        {n: everything[n][0] for n in names},
        {n: everything[n][1] for n in names},
        {n: prefix + n for n in names},
    )
    data = scan_data(listing, results, skipped)
    args.matrix = False
    _write(data, args, texts_of(results, listing), started)
    return 0


def run_serve(args: argparse.Namespace) -> int:
    from doublet.lsp.server import serve  # imported here: the CLI does not need pygls

    serve(args.tcp)
    return 0


def run_config(args: argparse.Namespace) -> int:
    workspace = _open_workspace(args.root, args, saved=False)
    sys.stdout.write(workspace.config.as_toml())
    return 0


def run_compare(args: argparse.Namespace) -> int:
    loaded = load([args.a, args.b], args.mode, _thresholds(args))
    for path in (args.a, args.b):
        if os.path.isdir(path):
            raise UsageError(f"compare takes two files; {path} is a folder")
    a, b = loaded.documents
    if a.mode != b.mode:
        raise UsageError(
            f"{a.name} is {a.mode.name} and {b.name} is {b.mode.name}; "
            "pass --mode to compare them the same way"
        )
    result = compare(a, b)
    data = compare_data(result, measure_all(a, b))
    if args.format == "json":
        json.dump(data, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render_compare_text(data, [a, b]))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handlers = {
        "scan": run_scan,
        "index": run_index,
        "similar": run_similar,
        "config": run_config,
        "serve": run_serve,
        "compare": run_compare,
    }
    try:
        return handlers[args.command](args)
    except UsageError as exc:
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
