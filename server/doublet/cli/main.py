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
    compare_data,
    render_compare_text,
    render_matrix_csv,
    render_matrix_text,
    render_pairs_csv,
    render_pairs_text,
    render_summary,
    scan_data,
    similarity_matrix,
)
from doublet.engine.comparison import compare
from doublet.engine.measures import measure_all
from doublet.engine.modes import MODE_NAMES
from doublet.engine.scan import scan

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
        description="Scan files and folders; list every pair of documents that shares "
        "passages, most similar first.",
    )
    scan_parser.add_argument("paths", nargs="*", default=["."], metavar="PATH")
    _add_matching_options(scan_parser)
    scan_parser.add_argument(
        "--threshold",
        type=_fraction,
        default=0.0,
        metavar="F",
        help="only pairs whose similarity is at least F, between 0 and 1 (default: 0)",
    )
    scan_parser.add_argument(
        "--max-docs",
        type=_positive_int,
        metavar="N",
        help="ignore text found in more than N documents as boilerplate "
        "(default: a tenth of the documents, at least 10)",
    )
    scan_parser.add_argument(
        "--matrix", action="store_true", help="show a similarity matrix of all documents"
    )
    scan_parser.add_argument("--format", choices=("text", "json", "csv"), default="text")
    scan_parser.add_argument(
        "--no-progress", action="store_true", help="no progress bar on standard error"
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


def run_scan(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    show_progress = not args.no_progress
    loaded = load(args.paths, args.mode, _thresholds(args), _progress(show_progress, "reading"))
    for skipped in loaded.skipped:
        print(f"doublet: skipped {skipped.path}: {skipped.reason}", file=sys.stderr)
    if args.matrix and len(loaded.documents) > MATRIX_LIMIT:
        raise UsageError(
            f"--matrix shows at most {MATRIX_LIMIT} documents; found {len(loaded.documents)}"
        )
    results = scan(
        loaded.documents,
        max_docs=args.max_docs,
        threshold=args.threshold,
        progress=_progress(show_progress, "comparing"),
    )
    documents = loaded.documents
    data = scan_data(documents, results, loaded.skipped)
    if args.format == "json":
        if args.matrix:
            data["matrix"] = similarity_matrix(len(documents), data)
        json.dump(data, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    elif args.format == "csv":
        writer = render_matrix_csv if args.matrix else render_pairs_csv
        sys.stdout.write(writer(documents, data))
    else:
        if args.matrix:
            sys.stdout.write(render_matrix_text(documents, data, highlight=sys.stdout.isatty()))
        else:
            sys.stdout.write(render_pairs_text(documents, data))
        sys.stdout.write(render_summary(data, time.perf_counter() - started))
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
    handlers = {"scan": run_scan, "compare": run_compare}
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
