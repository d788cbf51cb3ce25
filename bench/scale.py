"""The scale issue's folder: all 44 novels cut into 2,000-character documents.

Baseline and current ``doublet`` side by side, in the same run, one after the
other (never concurrently: both write their own, incompatible, index into
FOLDER/.doublet, which is deleted before each first scan).

The folder (made once, cached in ``bench/.cache/scale/novels-2000/``): every
novel cut by ``chunk_text(text, 2000)`` (at a newline, else a space) into
pieces of at most 2,000 characters, one file per piece, one subfolder per
novel, bytes written as decoded (CRLF kept). Then, with a fixed seed:

- ``planted/copy-NN.txt`` (50): a piece of one novel (the host) with a
  1,000-1,500-character passage pasted verbatim, at a line start near its
  middle, from a piece of a DIFFERENT novel (the source). Every source and
  host piece is used once.
- ``paraphrased/para-NN.txt`` (20): the same, but the passage is reworded:
  its sentences shuffled, then about 25% of its words replaced by words of a
  piece of a third novel.

The ground truth (planted file, source file, both character ranges) is
``novels-2000.truth.json`` beside the folder. Each executable then runs:

1. first scan: ``doublet scan FOLDER --format json --threshold 0 --no-progress``
   after deleting FOLDER/.doublet; second scan: the same again, index kept.
   Wall time and the child's own peak RSS (``os.wait4`` in a small launcher,
   bench/scan_quality.py's, so that this process's memory does not count);
   beside it the peak of the summed PSS of the scan and its worker processes,
   sampled every 50 ms (bench/measure.py): what the machine needs.
   Recall: a planted copy (or paraphrase) is found when the JSON lists the
   pair (planted file, source file) with a passage that overlaps the planted
   range on the planted side; also how much of the range the passages cover.
   Pairs listed: the length of ``pairs``.
2. ``doublet index FOLDER`` from nothing (FOLDER/.doublet deleted; time and
   peak memory: the scans' indexing alone), then the language server,
   ``doublet serve``, with a real LSP client (pygls, bench/lsp_latency.py's
   client) over stdio: time from starting the process to the first
   publishDiagnostics of an opened planted copy; then a piece is
   opened and a 1,500-character passage of a piece of another novel is pasted
   into it and taken out again (``--edits`` incremental didChanges, 30 by
   default), didChange -> publishDiagnostics minus the 50 ms debounce, p50 and
   p95; the server's VmHWM (peak resident set) and VmRSS after the edits.
   Every wait is bounded (``--lsp-timeout``).

Writes bench/results/scale.json and prints a Markdown table (baseline, current,
current / baseline). Run with nothing else heavy on the machine::

    .venv/bin/python -m bench.scale                       # about 3 minutes
    .venv/bin/python -m bench.scale --no-lsp              # scans only
    .venv/bin/python -m bench.scale --baseline PATH --current PATH
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import gzip
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from bench.datasets import CACHE_DIR, chunk_text, novel_files
from bench.measure import all_processes, git_commit, rounded_mb
from bench.scan_quality import Listing, measured_run

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"
SCALE = CACHE_DIR / "scale"
FOLDER = SCALE / "novels-2000"
TRUTH = SCALE / "novels-2000.truth.json"
DEFAULT_BASELINE = Path("/work/baseline/.venv/bin/doublet")
DEFAULT_CURRENT = REPO / ".venv" / "bin" / "doublet"

PIECE = 2000
SEED = 23282
COPIES = 50
PARAPHRASES = 20
PASSAGE = (1000, 1500)  # characters of a planted passage, before snapping to words
REPLACED = 0.25  # share of a paraphrase's words replaced
SCAN_TIMEOUT = 1800.0
EDITS = 30


# --- The folder -------------------------------------------------------------------------


def build_folder() -> dict:
    """The folder and its ground truth, made once (an interrupted build is redone)."""
    if TRUTH.exists() and FOLDER.is_dir():
        return json.loads(TRUTH.read_text("utf-8"))
    shutil.rmtree(FOLDER, ignore_errors=True)
    SCALE.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="novels-2000-", dir=SCALE))
    try:
        novels: dict[str, list[str]] = {}
        for path in novel_files():
            text = gzip.decompress(path.read_bytes()).decode("utf-8", errors="replace")
            stem = path.name.removesuffix(".txt.gz")
            novels[stem] = chunk_text(text, PIECE)
            (tmp / stem).mkdir()
            for i, piece in enumerate(novels[stem]):
                (tmp / piece_name(stem, i)).write_bytes(piece.encode("utf-8"))
        copies, paraphrases, files = plant(novels, random.Random(SEED))
        for rel, text in files.items():
            (tmp / rel).parent.mkdir(exist_ok=True)
            (tmp / rel).write_bytes(text.encode("utf-8"))
        texts = list(files.values()) + [p for pieces in novels.values() for p in pieces]
        truth = {
            "seed": SEED,
            "piece_chars": PIECE,
            "novels": len(novels),
            "pieces": sum(len(p) for p in novels.values()),
            "documents": len(texts),
            "megabytes": round(sum(len(t.encode("utf-8")) for t in texts) / 1e6, 1),
            "copies": copies,
            "paraphrases": paraphrases,
        }
        tmp.rename(FOLDER)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    partial = TRUTH.with_suffix(".tmp")
    partial.write_text(json.dumps(truth, indent=1) + "\n", encoding="utf-8")
    partial.rename(TRUTH)  # last: its presence says the folder is complete
    return truth


def piece_name(stem: str, i: int) -> str:
    return f"{stem}/{stem}-{i:05d}.txt"


def plant(
    novels: dict[str, list[str]], rng: random.Random
) -> tuple[list[dict], list[dict], dict[str, str]]:
    """The planted copies and paraphrases: their truth records and their files' text."""
    candidates = [
        (stem, i) for stem, pieces in novels.items() for i, p in enumerate(pieces) if len(p) > 1900
    ]
    used: set[tuple[str, int]] = set()

    def pick(*not_from: str) -> tuple[str, int]:
        while True:
            choice = rng.choice(candidates)
            if choice[0] not in not_from and choice not in used:
                used.add(choice)
                return choice

    copies, paraphrases, files = [], [], {}
    for kind, count in (("copy", COPIES), ("para", PARAPHRASES)):
        for n in range(count):
            source = pick()
            host = pick(source[0])
            text = novels[source[0]][source[1]]
            start, stop = word_span(text, rng, *PASSAGE)
            passage = text[start:stop]
            record: dict = {}
            if kind == "para":
                donor = pick(source[0], host[0])
                passage, replaced, sentences = reword(
                    passage, novels[donor[0]][donor[1]], rng, REPLACED
                )
                record |= {
                    "donor": piece_name(*donor),
                    "sentences": sentences,
                    "replaced_words": replaced,
                }
            host_text = novels[host[0]][host[1]]
            cut = line_start_near_middle(host_text)
            rel = f"{'planted' if kind == 'copy' else 'paraphrased'}/{kind}-{n:02d}.txt"
            files[rel] = host_text[:cut] + passage + "\r\n" + host_text[cut:]
            record = {
                "planted": rel,
                "source": piece_name(*source),
                "host": piece_name(*host),
                "planted_start": cut,
                "planted_end": cut + len(passage),
                "source_start": start,
                "source_end": stop,
                **record,
            }
            (copies if kind == "copy" else paraphrases).append(record)
    return copies, paraphrases, files


def word_span(text: str, rng: random.Random, low: int, high: int) -> tuple[int, int]:
    """A random range of ``low``-``high`` characters of ``text``, shrunk to whole words."""
    length = min(rng.randint(low, high), len(text))
    start = rng.randint(0, len(text) - length)
    stop = start + length
    while 0 < start < stop and not (text[start - 1].isspace() and not text[start].isspace()):
        start += 1
    while start < stop < len(text) and not (text[stop].isspace() and not text[stop - 1].isspace()):
        stop -= 1
    return start, stop


def line_start_near_middle(text: str) -> int:
    """The start of the line nearest the middle of ``text`` (the middle if it has no lines)."""
    middle = len(text) // 2
    starts = [m.end() for m in re.finditer("\n", text) if m.end() < len(text)]
    return min(starts, key=lambda s: abs(s - middle)) if starts else middle


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def reword(passage: str, donor: str, rng: random.Random, share: float) -> tuple[str, int, int]:
    """Sentences shuffled, then ``share`` of the words replaced by words of ``donor``."""
    sentences = [s for s in _SENTENCE_END.split(passage) if s]
    rng.shuffle(sentences)
    shuffled = " ".join(sentences)
    words = re.findall(r"[A-Za-z]+", donor) or ["word"]
    replaced = 0

    def swap(match: re.Match) -> str:
        nonlocal replaced
        if rng.random() < share:
            replaced += 1
            return rng.choice(words)
        return match.group()

    return re.sub(r"[A-Za-z]+", swap, shuffled), replaced, len(sentences)


# --- Scans ------------------------------------------------------------------------------


def scan_figures(doublet: str, truth: dict) -> dict:
    """First scan (no index), second scan (index kept), each with its recall."""
    shutil.rmtree(FOLDER / ".doublet", ignore_errors=True)
    argv = [doublet, "scan", str(FOLDER), "--format", "json", "--threshold", "0"]
    argv.append("--no-progress")
    out = {"command": " ".join(argv)}
    for name in ("first_scan", "second_scan"):
        run = measured_run(argv, SCAN_TIMEOUT)
        if run.exit_code != 0:
            why = "timed out" if run.timed_out else f"exit code {run.exit_code}"
            raise RuntimeError(f"{' '.join(argv)}: {why}: {run.stderr.strip()[-2000:]}")
        data = json.loads(run.stdout)
        listing = Listing.of(data, str(FOLDER))
        out[name] = {
            "seconds": round(run.seconds, 2),
            "peak_rss_mb": round(run.peak_rss_mb),
            "tree_peak_mb": rounded_mb(run.tree_peak_mb),
            "documents": len(data["documents"]),
            "pairs_listed": len(data["pairs"]),
            "skipped": len(data.get("skipped", [])),
            "copies": recall(listing, truth["copies"]),
            "paraphrases": recall(listing, truth["paraphrases"]),
        }
        figures = out[name]
        print(
            f"  {name.replace('_', ' ')}: {run.seconds:.1f} s, {run.peak_rss_mb:,.0f} MB"
            f"{all_processes(figures)}, "
            f"{figures['pairs_listed']:,} pairs, copies {figures['copies']['found']}/"
            f"{len(truth['copies'])}, paraphrases {figures['paraphrases']['found']}/"
            f"{len(truth['paraphrases'])}",
            flush=True,
        )
    return out


def recall(listing: Listing, records: list[dict]) -> dict:
    """How many planted passages the listing finds, and how much of them it covers."""
    found, listed, cases = 0, 0, []
    for record in records:
        planted, source = record["planted"], record["source"]
        start, end = record["planted_start"], record["planted_end"]
        hit = listing.find(planted, source)
        case = {"planted": planted, "listed": hit is not None, "found": False, "coverage": 0.0}
        if hit is not None:
            listed += 1
            pair = hit[1]
            side = "a" if listing.path_of(pair["a"]) == planted else "b"
            spans = [
                (max(p[side]["start"], start), min(p[side]["end"], end), p.get("kind"))
                for p in pair["passages"]
            ]
            spans = [s for s in spans if s[0] < s[1]]
            covered = union_length([(a, b) for a, b, _ in spans])
            case |= {
                "rank": hit[0],
                "similarity": pair.get("similarity"),
                "found": bool(spans),
                "coverage": round(covered / (end - start), 3),
                "kinds": sorted({str(kind) for _, _, kind in spans}),
            }
            found += bool(spans)
        cases.append(case)
    coverage = [c["coverage"] for c in cases if c["found"]]
    return {
        "found": found,
        "of": len(records),
        "pair_listed": listed,
        "mean_coverage_when_found": round(statistics.fmean(coverage), 3) if coverage else None,
        "missed": [c["planted"] for c in cases if not c["found"]],
        "cases": cases,
    }


def union_length(spans: list[tuple[int, int]]) -> int:
    total, reach = 0, None
    for start, end in sorted(spans):
        if reach is None or start >= reach:
            total += end - start
            reach = end
        elif end > reach:
            total += end - reach
            reach = end
    return total


def index_figures(doublet: str) -> dict:
    """``doublet index`` on the folder from nothing (FOLDER/.doublet deleted first)."""
    shutil.rmtree(FOLDER / ".doublet", ignore_errors=True)
    argv = [doublet, "index", str(FOLDER), "--no-progress"]
    run = measured_run(argv, SCAN_TIMEOUT)
    if run.exit_code != 0:
        raise RuntimeError(f"{' '.join(argv)}: exit code {run.exit_code}: {run.stderr[-2000:]}")
    figures = {
        "seconds": round(run.seconds, 2),
        "peak_rss_mb": round(run.peak_rss_mb),
        "tree_peak_mb": rounded_mb(run.tree_peak_mb),
    }
    print(
        f"  index: {run.seconds:.1f} s, {run.peak_rss_mb:,.0f} MB{all_processes(figures)}",
        flush=True,
    )
    return figures


# --- The language server ----------------------------------------------------------------


def _p95(values: list[float]) -> float | None:
    return round(statistics.quantiles(values, n=20)[-1], 1) if len(values) >= 2 else None


async def lsp_session(doublet: str, truth: dict, edits: int, timeout: float) -> dict:
    """Start-up to first diagnostics, edit latency and memory of ``doublet serve``."""
    from lsprotocol import types

    from bench.lsp_latency import DEBOUNCE_MS, make_client, memory_of, wait_for

    rng = random.Random(SEED + 1)
    records = truth["copies"] + truth["paraphrases"]
    taken = {r[k] for r in records for k in ("source", "host", "donor") if k in r}
    planted = truth["copies"][0]
    planted_uri = (FOLDER / planted["planted"]).as_uri()
    planted_text = (FOLDER / planted["planted"]).read_bytes().decode("utf-8")
    pieces = sorted(
        p.relative_to(FOLDER).as_posix()
        for p in FOLDER.glob("*/*.txt")
        if p.parent.name not in ("planted", "paraphrased") and p.stat().st_size > 1900
    )
    target = rng.choice([p for p in pieces if p not in taken])
    other = rng.choice([p for p in pieces if p.split("/")[0] != target.split("/")[0]])
    target_text = (FOLDER / target).read_bytes().decode("utf-8")
    other_text = (FOLDER / other).read_bytes().decode("utf-8")
    start, stop = word_span(other_text, rng, 1500, 1500)
    pasted = other_text[start:stop]
    target_uri = (FOLDER / target).as_uri()

    client = make_client()
    stderr_tail: list[bytes] = []

    async def drain(stream) -> None:  # the server's log must not fill its pipe
        while line := await stream.readline():
            stderr_tail.append(line)
            del stderr_tail[:-50]

    def open_document(uri: str, text: str) -> None:
        item = types.TextDocumentItem(uri=uri, language_id="plaintext", version=1, text=text)
        client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))

    started = time.perf_counter()
    await client.start_io(doublet, "serve")
    server = client._server
    drainer = asyncio.create_task(drain(server.stderr))
    try:
        await asyncio.wait_for(
            client.initialize_async(
                types.InitializeParams(
                    capabilities=types.ClientCapabilities(
                        workspace=types.WorkspaceClientCapabilities(configuration=True),
                        window=types.WindowClientCapabilities(work_done_progress=True),
                    ),
                    root_uri=FOLDER.as_uri(),
                )
            ),
            timeout,
        )
        client.initialized(types.InitializedParams())
        open_document(planted_uri, planted_text)
        first = await wait_for(client, planted_uri, 1, timeout)
        startup = first - started
        planted_flagged = next(n for _, v, n in client.published[planted_uri] if v == 1)

        open_document(target_uri, target_text)
        await wait_for(client, target_uri, 1, timeout)
        lines = target_text.split("\n")
        middle = len(lines) // 2
        added = pasted.count("\n") + 1
        latencies = []
        indexing = []  # whether each edit was sent while the server still refreshed its index
        for i in range(edits):
            version = i + 2
            if i % 2 == 0:  # paste the passage at the start of the middle line
                at = types.Range(
                    start=types.Position(line=middle, character=0),
                    end=types.Position(line=middle, character=0),
                )
                change = types.TextDocumentContentChangePartial(range=at, text=pasted + "\n")
            else:  # and take it out again
                at = types.Range(
                    start=types.Position(line=middle, character=0),
                    end=types.Position(line=middle + added, character=0),
                )
                change = types.TextDocumentContentChangePartial(range=at, text="")
            sent = time.perf_counter()
            client.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    text_document=types.VersionedTextDocumentIdentifier(
                        uri=target_uri, version=version
                    ),
                    content_changes=[change],
                )
            )
            arrived = await wait_for(client, target_uri, version, timeout)
            latencies.append(1000 * (arrived - sent) - DEBOUNCE_MS)
            indexing.append(client.ready_at is None or client.ready_at > sent)
        pastes_flagged = sum(
            1 for _, v, n in client.published[target_uri] if v and v % 2 == 0 and n
        )
        memory = memory_of(server.pid)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(client.shutdown_async(None), 30)
            client.exit(None)
            await asyncio.wait_for(client.stop(), 30)
    except BaseException:
        tail = b"".join(stderr_tail).decode("utf-8", "replace")[-2000:]
        print(f"  the server's last log lines:\n{tail}", flush=True)
        raise
    finally:
        if server.returncode is None:
            server.kill()
            await server.wait()
        drainer.cancel()
    return {
        "startup_to_first_diagnostics_s": round(startup, 2),
        "opened_planted": planted["planted"],
        "planted_diagnostics": planted_flagged,
        "edited": target,
        "pasted_from": other,
        "pasted_chars": len(pasted),
        "edits": edits,
        "debounce_ms": DEBOUNCE_MS,
        "latency_ms_p50": round(statistics.median(latencies), 1),
        "latency_ms_p95": round(statistics.quantiles(latencies, n=20)[-1], 1),
        "latency_ms_max": round(max(latencies), 1),
        # the edits made once the index was refreshed (the start-up refresh over)
        "edits_while_indexing": sum(indexing),
        "ready_latency_ms_p95": _p95(
            [x for x, early in zip(latencies, indexing, strict=True) if not early]
        ),
        "pastes_flagged": pastes_flagged,
        "pastes": (edits + 1) // 2,
        # each edit's latency in order, and whether it was sent during the start-up refresh
        "latencies_ms": [round(x, 1) for x in latencies],
        "sent_while_indexing": indexing,
        **memory,
    }


def lsp_figures(doublet: str, truth: dict, edits: int, timeout: float) -> dict:
    result = asyncio.run(lsp_session(doublet, truth, edits, timeout))
    print(
        f"  serve: first diagnostics after {result['startup_to_first_diagnostics_s']} s, "
        f"edits p50 {result['latency_ms_p50']} ms, p95 {result['latency_ms_p95']} ms "
        f"({result['edits_while_indexing']} during the start-up refresh; p95 of the rest "
        f"{result['ready_latency_ms_p95']} ms), "
        f"VmHWM {result['peak_rss_mb']} MB",
        flush=True,
    )
    return result


# --- The run ----------------------------------------------------------------------------


def compile_bytecode(doublet: str) -> None:
    """Compile the package of ``doublet`` to bytecode, as installing it with pip does.

    This machine sets PYTHONDONTWRITEBYTECODE=1, so an editable install is compiled
    anew at every start of a process: 0.15 s of the language server's start at
    100,000 documents, which no installed copy pays."""
    python = Path(doublet).parent / "python"
    script = (
        "import compileall, doublet, os\n"
        "compileall.compile_dir(os.path.dirname(doublet.__file__), quiet=1)"
    )
    subprocess.run([str(python), "-c", script], check=True, env={**os.environ, "PYTHONPATH": ""})


def version_of(doublet: str) -> str:
    run = subprocess.run([doublet, "--version"], capture_output=True, text=True, check=False)
    return (run.stdout or run.stderr).strip()


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default=str(DEFAULT_BASELINE), help="baseline doublet")
    parser.add_argument("--current", default=str(DEFAULT_CURRENT), help="current doublet")
    parser.add_argument("--no-lsp", action="store_true", help="scans only")
    parser.add_argument("--edits", type=int, default=EDITS, help="didChanges (pastes + removals)")
    parser.add_argument("--lsp-timeout", type=float, default=180, help="seconds per LSP wait")
    args = parser.parse_args()
    # each executable imports its own tree: an inherited PYTHONPATH would run this
    # tree's code under the baseline's name
    os.environ.pop("PYTHONPATH", None)

    started = time.perf_counter()
    print("folder ...", flush=True)
    truth = build_folder()
    print(
        f"  {FOLDER}: {truth['documents']:,} documents ({truth['pieces']:,} pieces of "
        f"{truth['novels']} novels, {len(truth['copies'])} planted copies, "
        f"{len(truth['paraphrases'])} planted paraphrases), {truth['megabytes']} MB",
        flush=True,
    )
    results: dict = {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "commit": git_commit(),
        "note": "current: the working tree of this commit",
        "folder": {k: truth[k] for k in ("documents", "pieces", "novels", "megabytes", "seed")},
        "load_average_before": load_average(),
    }
    for name, doublet in (("baseline", args.baseline), ("current", args.current)):
        print(f"{name}: {doublet} ({version_of(doublet)})", flush=True)
        compile_bytecode(doublet)
        figures = {"executable": doublet, "version": version_of(doublet)}
        figures |= scan_figures(doublet, truth)
        if not args.no_lsp:
            figures["index"] = index_figures(doublet)
            figures["serve"] = lsp_figures(doublet, truth, args.edits, args.lsp_timeout)
        results[name] = figures
    results["load_average_after"] = load_average()
    results["seconds"] = round(time.perf_counter() - started)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "scale.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(render(results))
    print(f"\n{results['seconds']} s in all; bench/results/scale.json")


# --- The table --------------------------------------------------------------------------


def _get(figures: dict, path: str):
    for key in path.split("."):
        if not isinstance(figures, dict) or key not in figures:
            return None
        figures = figures[key]
    return figures


ROWS = (
    ("first scan", "first_scan.seconds", "{:.1f} s"),
    ("second scan (index kept)", "second_scan.seconds", "{:.1f} s"),
    ("`doublet index` from nothing", "index.seconds", "{:.1f} s"),
    ("LSP start → first diagnostics", "serve.startup_to_first_diagnostics_s", "{:.2f} s"),
    ("edit → diagnostics p50 (minus 50 ms debounce)", "serve.latency_ms_p50", "{:.1f} ms"),
    ("edit → diagnostics p95 (minus 50 ms debounce)", "serve.latency_ms_p95", "{:.1f} ms"),
    ("… of edits after the start-up refresh", "serve.ready_latency_ms_p95", "{:.1f} ms"),
    ("edits sent during the start-up refresh", "serve.edits_while_indexing", "{}"),
    ("recall, planted copies", "first_scan.copies.found", "{} / 50"),
    ("recall, planted paraphrases", "first_scan.paraphrases.found", "{} / 20"),
    ("pairs listed", "first_scan.pairs_listed", "{:,}"),
    ("peak memory, first scan", "first_scan.peak_rss_mb", "{:,} MB"),
    ("peak memory, first scan, all processes (summed PSS)", "first_scan.tree_peak_mb", "{:,} MB"),
    ("peak memory, second scan", "second_scan.peak_rss_mb", "{:,} MB"),
    (
        "peak memory, second scan, all processes (summed PSS)",
        "second_scan.tree_peak_mb",
        "{:,} MB",
    ),
    ("peak memory, `doublet index` (from nothing)", "index.peak_rss_mb", "{:,} MB"),
    (
        "peak memory, `doublet index`, all processes (summed PSS)",
        "index.tree_peak_mb",
        "{:,} MB",
    ),
    ("peak memory, language server (VmHWM)", "serve.peak_rss_mb", "{:,} MB"),
)


def render(results: dict) -> str:
    folder = results["folder"]
    lines = [
        f"{folder['documents']:,} documents, {folder['megabytes']} MB "
        f"({folder['pieces']:,} pieces of {folder['novels']} novels + 50 copies + 20 paraphrases)",
        "",
        "| measure | baseline | current | current / baseline |",
        "|---|---|---|---|",
    ]
    for label, path, form in ROWS:
        old, new = _get(results.get("baseline", {}), path), _get(results.get("current", {}), path)
        cells = [form.format(v) if v is not None else "—" for v in (old, new)]
        ratio = f"{new / old:.2f}" if old and new is not None else "—"
        lines.append(f"| {label} | {cells[0]} | {cells[1]} | {ratio} |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
