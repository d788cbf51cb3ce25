"""The scale issue's 100,000-document folder: novels, PAN 2013 and Song ci, measured.

The folder (made once, cached in ``bench/.cache/scale/mixed-100k/``, its ground
truth in ``mixed-100k.truth.json`` beside it) holds every distinct text of the
three shared corpora, cut into documents of varied sizes:

- the 44 novels (``novels/*.txt.gz``, 47 MB), one subfolder per novel;
- PAN 2013's source and suspicious documents (the ``src/`` and ``susp/`` .txt
  files of ``pan13-train.tar.xz``, read from the archive; 23 byte-identical
  duplicates dropped), 30 MB, one subfolder per 100 documents
  (``pan13-src-00`` ..); a document is never cut across pieces of two documents.
  The suspicious documents hold PAN's own plagiarism of the sources, so the scan
  also lists those pairs: reuse that was already in the corpus;
- the Song ci (``zh-songci/*.json``, 3,000 poems, 4 duplicates dropped), each
  poem its tune title and its lines, one a line, grouped by poet (one subfolder
  per poet with at least 8 poems; poets with fewer share ``songci-NNN`` groups
  in corpus order), each group's poems cut like the rest.

Pieces are cut at a newline (else a space) in the second half of a target length
drawn from a log-normal law (sigma 1, clipped to 200-20,000 characters; a tail
under 100 characters stays with the piece before). Nothing is repeated to fill
the folder, so its size is what the corpora hold: the full folder has 100,008
documents and 78.5 MB of text (UTF-8; novels 56,335 documents / 47.3 MB, PAN
43,306 / 30.3 MB, Song ci 367 / 0.7 MB), not the issue's 200 MB. To reach
100,000 documents with that text the law's median is fitted (521 characters):
documents are 466 characters at the median, 780 on average, 1,682 at p90 and
at most 19,996, shorter than the issue's 2,000 bytes on average, and one in ten
is under 175 characters (two or three lines). Then, with a fixed seed:

- ``planted/copy-NNN.txt`` (100): a piece (the host) with a 500-1,500-character
  passage pasted verbatim, at the line start nearest its middle, from a piece of
  a DIFFERENT work (the source); novels and PAN documents both serve as sources
  and hosts;
- ``paraphrased/para-NNN.txt`` (40): the same, reworded by bench/scale.py's
  ``reword`` (sentences shuffled, a quarter of the words replaced by words of a
  third work's piece);
- ``planted-zh/zh-NNN.txt`` (40): a piece of one poem group with 2-4 whole
  lines of a piece of ANOTHER poem group (another poet) pasted at a line start;
  at least 30 Chinese characters (the default shortest passage, 80 units, with a
  Chinese character counting 3), so in practice 3 or 4 lines.

The host piece is moved (its text is not also left in its work's folder), so no
text is in the folder twice beyond what was planted. Each piece is used once.
``--documents N`` makes a miniature in ``mixed-N/`` from the same cut: at
least one piece of each work, the rest shared in proportion to each work's
pieces (the first pieces of each work), fewer plants (at least 20 of each kind).

Each executable (``--current``, and ``--baseline`` when given) then runs, as in
bench/scale.py: the first scan (``doublet scan FOLDER --format json
--threshold 0 --no-progress`` after deleting FOLDER/.doublet), three more scans
of the unchanged folder (index kept; the target is read on their median: the
first of them follows the first scan's writing of the index), and one after a
sentence is added to one document (the file is put back after it): wall time,
the child's peak RSS, MB of text per second, peak RSS / text size, and
the same two for the peak summed PSS of the scan and its worker processes
(sampled, bench/measure.py: what the machine needs), pairs listed; recall of the planted
copies, paraphrases and Chinese reuse, each separately (found: the pair is
listed with a passage overlapping the planted range; scale.py's ``recall``).
Unless ``--no-lsp``: ``doublet index`` from nothing, then the language server
with that saved index (scale.py's ``lsp_figures``, pointed at this folder):
start to first diagnostics of an opened planted copy, edit -> diagnostics p50
and p95, VmHWM.

The issue's targets, at 100,000 documents on 2 cores: first scan >= 10 MB/s of
text; second scan of an unchanged folder < 3 s; peak memory <= 5x the text; LSP
first diagnostics < 1 s with a saved index; edit -> diagnostics p95 < 50 ms.

Writes bench/results/scale_100k.json (``scale_100k-N.json`` for ``--documents
N``) and prints a Markdown table. The full folder takes long: run it with
nothing else on the machine::

    .venv/bin/python -m bench.scale_100k --build-only          # the folder only
    .venv/bin/python -m bench.scale_100k                       # scans, index, LSP
    .venv/bin/python -m bench.scale_100k --documents 3000 --no-lsp   # a quick check
    .venv/bin/python -m bench.scale_100k --baseline /work/baseline/.venv/bin/doublet
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import gzip
import json
import math
import os
import random
import re
import shutil
import statistics
import tarfile
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from bench import scale
from bench.datasets import PAN13_ARCHIVE, data_dir, novel_files
from bench.measure import all_processes, git_commit, rounded_mb
from bench.scale import (
    RESULTS,
    SCALE,
    line_start_near_middle,
    load_average,
    recall,
    reword,
    version_of,
    word_span,
)
from bench.scan_quality import Listing, measured_run

DOCUMENTS = 100_000
SEED = 100_003
SIGMA = 1.0  # of the log-normal law of piece lengths
LOW, HIGH = 200, 20_000  # piece lengths are clipped to this range (characters)
TAIL = 100  # a last piece shorter than this stays with the piece before
PAN_GROUP = 100  # PAN documents per subfolder
POET_GROUP = 8  # poets with fewer poems share a group
COPIES, PARAPHRASES, CHINESE = 100, 40, 40
PASSAGE = (500, 1500)  # characters of a planted English passage, before snapping to words
SOURCE_MIN = PASSAGE[1] + 100  # a source piece holds a whole passage
REPLACED = 0.25
ZH_LINES = (2, 4)
ZH_MIN_HAN = 30
SCAN_TIMEOUT = 3600.0
EDITS = 30
DEFAULT_CURRENT = scale.DEFAULT_CURRENT
ISSUE_MEGABYTES = 200

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


# --- The corpora ------------------------------------------------------------------------


@dataclass
class Work:
    """A subfolder: its source corpus and its pieces (path in the folder, text)."""

    source: str  # "novels", "pan13" or "songci"
    texts: list[tuple[str, str]]  # (stem of the pieces' names, text) before cutting
    pieces: list[tuple[str, str]] = field(default_factory=list)
    members: list[str] = field(default_factory=list)  # PAN documents or poets


def read_works() -> dict[str, Work]:
    """Every distinct text of the three corpora, by subfolder name."""
    works: dict[str, Work] = {}
    for path in novel_files():
        text = gzip.decompress(path.read_bytes()).decode("utf-8", errors="replace")
        stem = path.name.removesuffix(".txt.gz")
        works[stem] = Work("novels", [(stem, text)])
    works |= pan_works()
    works |= songci_works()
    return works


def pan_works() -> dict[str, Work]:
    """PAN 2013's src and susp documents, read from the tarball, in groups of PAN_GROUP."""
    documents: dict[str, list[tuple[str, str]]] = {"src": [], "susp": []}
    seen: set[str] = set()
    with tarfile.open(data_dir() / PAN13_ARCHIVE, "r:xz") as tar:
        read: dict[str, bytes] = {}
        for member in tar:  # in the archive's order: an xz stream does not seek back
            parts = member.name.split("/")
            if len(parts) == 3 and parts[1] in documents and parts[2].endswith(".txt"):
                read[member.name] = tar.extractfile(member).read()  # type: ignore[union-attr]
    for name in sorted(read):
        _, kind, base = name.split("/")
        text = read[name].decode("utf-8")
        if text in seen:
            continue  # the same document twice
        seen.add(text)
        documents[kind].append((base.removesuffix(".txt"), text))
    works = {}
    for kind, docs in documents.items():
        for g in range(0, len(docs), PAN_GROUP):
            group = docs[g : g + PAN_GROUP]
            works[f"pan13-{kind}-{g // PAN_GROUP:02d}"] = Work(
                "pan13", group, members=[stem for stem, _ in group]
            )
    return works


def songci_works() -> dict[str, Work]:
    """The Song ci grouped by poet (small poets pooled), each group one text."""
    poems: list[tuple[str, str]] = []  # (poet, text)
    seen: set[str] = set()
    for path in sorted((data_dir() / "zh-songci").glob("*.json")):
        for poem in json.loads(path.read_text("utf-8")):
            lines = "\n".join(poem["paragraphs"])
            if not lines.strip() or lines in seen:
                continue
            seen.add(lines)
            poems.append((poem["author"], f"{poem.get('rhythmic', '')}\n{lines}\n\n"))
    by_poet: dict[str, list[str]] = {}
    for poet, text in poems:
        by_poet.setdefault(poet, []).append(text)
    groups: list[tuple[list[str], list[str]]] = []  # (poets, poems)
    pool: tuple[list[str], list[str]] = ([], [])
    for poet, texts in by_poet.items():  # corpus order
        if len(texts) >= POET_GROUP:
            groups.append(([poet], texts))
            continue
        pool[0].append(poet)
        pool[1].extend(texts)
        if len(pool[1]) >= POET_GROUP:
            groups.append(pool)
            pool = ([], [])
    if pool[1]:
        groups.append(pool)
    works = {}
    for g, (poets, texts) in enumerate(groups):
        name = f"songci-{g:03d}"
        works[name] = Work("songci", [(name, "".join(texts))], members=poets)
    return works


# --- Cutting ----------------------------------------------------------------------------


def cut_points(text: str, rng: random.Random, mu: float) -> list[int]:
    """Where the pieces of ``text`` end: lengths drawn from the log-normal law, snapped."""
    stops, start = [], 0
    while start < len(text):
        size = int(min(HIGH, max(LOW, rng.lognormvariate(mu, SIGMA))))
        stop = start + size
        stop = len(text) if stop >= len(text) - TAIL else snap(text, start, stop)
        stops.append(stop)
        start = stop
    return stops


def snap(text: str, start: int, stop: int) -> int:
    """The end of a piece at most ``stop``: after a newline, else a space, in its second
    half; else anywhere after ``start``; else ``stop`` itself."""
    half = start + (stop - start) // 2
    for low in (half, start + 1):
        for separator in ("\n", " "):
            cut = text.rfind(separator, low, stop)
            if cut >= low:
                return cut + 1
    return stop


def cut_works(works: dict[str, Work], mu: float) -> int:
    """Cut every work with the law of median ``exp(mu)``; the number of pieces."""
    rng = random.Random(SEED)
    total = 0
    for name in sorted(works):
        work = works[name]
        work.pieces = []
        for stem, text in work.texts:
            start = 0
            stops = cut_points(text, rng, mu)
            width = 5 if work.source == "novels" else 3
            for i, stop in enumerate(stops):
                work.pieces.append((f"{name}/{stem}-{i:0{width}d}.txt", text[start:stop]))
                start = stop
        total += len(work.pieces)
    return total


def fit_and_cut(works: dict[str, Work], documents: int) -> float:
    """Cut the works into at least ``documents`` pieces, as long as can be; the median."""
    characters = sum(len(t) for w in works.values() for _, t in w.texts)
    mu = math.log(characters / documents) - SIGMA**2 / 2  # a log-normal's mean: e^(mu+s²/2)
    best = None
    for _ in range(12):
        count = cut_works(works, mu)
        if count >= documents:
            best = mu if best is None else max(best, mu)
            if count <= documents * 1.002:
                return math.exp(mu)
        mu += math.log(count / documents) + (0.0 if count >= documents else -0.001)
    if best is None:
        raise RuntimeError(f"could not cut the corpora into {documents:,} pieces")
    cut_works(works, best)
    return math.exp(best)


def keep_share(works: dict[str, Work], documents: int) -> None:
    """Keep exactly ``documents`` pieces: one of each work, the rest in proportion."""
    total = sum(len(w.pieces) for w in works.values())
    if documents >= total:
        return
    if documents < len(works):
        raise SystemExit(f"--documents: at least {len(works)} (one piece of each work)")
    rest = documents - len(works)
    shares = {n: (len(w.pieces) - 1) * rest / (total - len(works)) for n, w in works.items()}
    keep = {n: 1 + int(s) for n, s in shares.items()}
    by_remainder = sorted(works, key=lambda n: (int(shares[n]) - shares[n], n))
    for name in by_remainder[: documents - sum(keep.values())]:
        keep[name] += 1
    for name, work in works.items():
        work.pieces = work.pieces[: keep[name]]


# --- Planting ---------------------------------------------------------------------------


class Picker:
    """Random pieces, each at most once, among those a test accepts."""

    def __init__(self, works: dict[str, Work], rng: random.Random, sources: tuple[str, ...]):
        self.works, self.rng = works, rng
        self.all = [
            (name, i)
            for name in sorted(works)
            if works[name].source in sources
            for i in range(len(works[name].pieces))
        ]
        self.used: set[tuple[str, int]] = set()

    def text(self, choice: tuple[str, int]) -> str:
        return self.works[choice[0]].pieces[choice[1]][1]

    def name(self, choice: tuple[str, int]) -> str:
        return self.works[choice[0]].pieces[choice[1]][0]

    def pick(self, accept, *not_from: str) -> tuple[str, int]:
        for _ in range(200_000):
            choice = self.rng.choice(self.all)
            if choice[0] in not_from or choice in self.used or not accept(self.text(choice)):
                continue
            self.used.add(choice)
            return choice
        raise RuntimeError("not enough pieces to plant in: build a larger folder")


def has_inner_line(text: str) -> bool:
    return "\n" in text[: len(text) - 1] and len(text) >= 300


def newline_of(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def plant_english(
    picker: Picker, copies: int, paraphrases: int
) -> tuple[list[dict], list[dict], dict[str, str], set[tuple[str, int]]]:
    """Planted copies and paraphrases of novels' and PAN's text: records, files, hosts."""
    rng = picker.rng
    records: dict[str, list[dict]] = {"copy": [], "para": []}
    files, hosts = {}, set()
    for kind, count in (("copy", copies), ("para", paraphrases)):
        for n in range(count):
            source = picker.pick(lambda t: len(t) >= SOURCE_MIN)
            host = picker.pick(has_inner_line, source[0])
            text = picker.text(source)
            start, stop = word_span(text, rng, *PASSAGE)
            passage = text[start:stop]
            extra: dict = {}
            if kind == "para":
                donor = picker.pick(lambda t: len(t.split()) >= 100, source[0], host[0])
                passage, replaced, sentences = reword(passage, picker.text(donor), rng, REPLACED)
                extra = {
                    "donor": picker.name(donor),
                    "sentences": sentences,
                    "replaced_words": replaced,
                }
            host_text = picker.text(host)
            cut = line_start_near_middle(host_text)
            folder = "planted" if kind == "copy" else "paraphrased"
            rel = f"{folder}/{kind}-{n:03d}.txt"
            files[rel] = host_text[:cut] + passage + newline_of(host_text) + host_text[cut:]
            hosts.add(host)
            records[kind].append(
                {
                    "planted": rel,
                    "source": picker.name(source),
                    "host": picker.name(host),
                    "planted_start": cut,
                    "planted_end": cut + len(passage),
                    "source_start": start,
                    "source_end": stop,
                    **extra,
                }
            )
    return records["copy"], records["para"], files, hosts


def line_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each line of ``text``, the end before its newline."""
    spans, start = [], 0
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        spans.append((start, start + len(body)))
        start += len(line)
    return spans


def zh_passage(text: str, rng: random.Random) -> tuple[int, int, int] | None:
    """2-4 consecutive non-empty lines with at least ZH_MIN_HAN Chinese characters:
    (start, end, lines), or None when the piece has none."""
    spans = line_spans(text)
    options = []
    for count in range(ZH_LINES[0], ZH_LINES[1] + 1):
        for first in range(len(spans) - count + 1):
            run = spans[first : first + count]
            if any(a == b for a, b in run):
                continue
            start, end = run[0][0], run[-1][1]
            if len(_HAN.findall(text, start, end)) >= ZH_MIN_HAN:
                options.append((start, end, count))
    return rng.choice(options) if options else None


def plant_chinese(
    picker: Picker, count: int
) -> tuple[list[dict], dict[str, str], set[tuple[str, int]]]:
    """Lines of one poem group's piece pasted into a piece of another group."""
    rng = picker.rng
    records, files, hosts = [], {}, set()
    for n in range(count):
        source = picker.pick(lambda t: zh_passage(t, random.Random(0)) is not None)
        text = picker.text(source)
        start, stop, lines = zh_passage(text, rng)  # type: ignore[misc]
        host = picker.pick(lambda t: len(line_spans(t)) >= 3, source[0])
        host_text = picker.text(host)
        cut = line_start_near_middle(host_text)
        passage = text[start:stop]
        rel = f"planted-zh/zh-{n:03d}.txt"
        files[rel] = host_text[:cut] + passage + "\n" + host_text[cut:]
        hosts.add(host)
        records.append(
            {
                "planted": rel,
                "source": picker.name(source),
                "host": picker.name(host),
                "planted_start": cut,
                "planted_end": cut + len(passage),
                "source_start": start,
                "source_end": stop,
                "lines": lines,
                "han_characters": len(_HAN.findall(passage)),
            }
        )
    return records, files, hosts


def plant_counts(documents: int) -> tuple[int, int, int]:
    """The numbers of copies, paraphrases and Chinese reuses for a folder of this size."""
    scale_down = min(1.0, documents / 20_000)
    return tuple(  # type: ignore[return-value]
        min(full, max(20, round(full * scale_down))) for full in (COPIES, PARAPHRASES, CHINESE)
    )


# --- The folder -------------------------------------------------------------------------


def label_of(documents: int) -> str:
    return "100k" if documents == DOCUMENTS else str(documents)


def paths_of(documents: int) -> tuple[Path, Path]:
    """The folder and its truth file."""
    name = f"mixed-{label_of(documents)}"
    return SCALE / name, SCALE / f"{name}.truth.json"


def build_folder(documents: int = DOCUMENTS) -> dict:
    """The folder and its ground truth, made once (an interrupted build is redone)."""
    folder, truth_path = paths_of(documents)
    if truth_path.exists() and folder.is_dir():
        return json.loads(truth_path.read_text("utf-8"))
    started = time.perf_counter()
    shutil.rmtree(folder, ignore_errors=True)
    SCALE.mkdir(parents=True, exist_ok=True)
    works = read_works()
    median = fit_and_cut(works, max(documents, DOCUMENTS))
    if documents < DOCUMENTS:  # a miniature; else every piece of the fitted cut
        keep_share(works, documents)
    rng = random.Random(SEED)
    copies_n, paraphrases_n, chinese_n = plant_counts(documents)
    english = Picker(works, rng, ("novels", "pan13"))
    copies, paraphrases, files, hosts = plant_english(english, copies_n, paraphrases_n)
    chinese, zh_files, zh_hosts = plant_chinese(Picker(works, rng, ("songci",)), chinese_n)
    files |= zh_files
    moved = {works[name].pieces[i][0] for name, i in hosts | zh_hosts}
    tmp = Path(tempfile.mkdtemp(prefix=f"{folder.name}-", dir=SCALE))
    lengths, written_bytes = [], 0
    sources: dict[str, dict] = {}
    try:
        for name in sorted(works):
            work = works[name]
            (tmp / name).mkdir()
            figures = sources.setdefault(
                work.source, {"works": 0, "documents": 0, "characters": 0, "bytes": 0}
            )
            figures["works"] += 1
            for rel, text in work.pieces:
                data = text.encode("utf-8")
                figures["documents"] += 1
                figures["characters"] += len(text)
                figures["bytes"] += len(data)
                if rel in moved:
                    continue  # its planted copy stands in for it
                (tmp / rel).write_bytes(data)
                lengths.append(len(text))
                written_bytes += len(data)
        for rel, text in files.items():
            (tmp / rel).parent.mkdir(exist_ok=True)
            data = text.encode("utf-8")
            (tmp / rel).write_bytes(data)
            lengths.append(len(text))
            written_bytes += len(data)
        for figures in sources.values():
            figures["megabytes"] = round(figures.pop("bytes") / 1e6, 2)
        lengths.sort()
        truth = {
            "seed": SEED,
            "documents": len(lengths),
            "megabytes": round(written_bytes / 1e6, 2),
            "bytes": written_bytes,
            "characters": sum(lengths),
            "issue_megabytes": ISSUE_MEGABYTES,
            "sources": sources,
            "pan13_groups": {n: w.members for n, w in works.items() if w.source == "pan13"},
            "songci_groups": {n: w.members for n, w in works.items() if w.source == "songci"},
            "piece_law": {
                "law": "log-normal, clipped, then snapped to a newline or space",
                "median_chars": round(median),
                "sigma": SIGMA,
                "clip_chars": [LOW, HIGH],
                "fitted_for_documents": max(documents, DOCUMENTS),
            },
            "document_chars": {
                "min": lengths[0],
                "p10": lengths[len(lengths) // 10],
                "median": round(statistics.median(lengths)),
                "mean": round(statistics.fmean(lengths)),
                "p90": lengths[len(lengths) * 9 // 10],
                "p99": lengths[len(lengths) * 99 // 100],
                "max": lengths[-1],
            },
            "copies": copies,
            "paraphrases": paraphrases,
            "chinese": chinese,
        }
        tmp.rename(folder)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    partial = truth_path.with_suffix(".tmp")
    partial.write_text(json.dumps(truth, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    partial.rename(truth_path)  # last: its presence says the folder is complete
    print(f"  built in {time.perf_counter() - started:.0f} s", flush=True)
    return truth


# --- Measuring --------------------------------------------------------------------------

KINDS = (("copies", "copies"), ("paraphrases", "paraphrases"), ("chinese", "Chinese"))


def scan_figures(doublet: str, folder: Path, truth: dict) -> dict:
    """First scan (no index) and second scan (index kept), each with its recall."""
    shutil.rmtree(folder / ".doublet", ignore_errors=True)
    argv = [doublet, "scan", str(folder), "--format", "json", "--threshold", "0"]
    argv.append("--no-progress")
    out: dict = {"command": " ".join(argv)}
    edited = folder / truth["copies"][0]["planted"]  # a planted copy
    original = edited.read_bytes()
    for name in ("first_scan", "second_scan", "third_scan", "fourth_scan", "one_changed"):
        if name == "one_changed":  # a sentence added to one document, as a student would
            edited.write_bytes(original + b"\nOne more sentence, added later.\n")
        try:
            run = measured_run(argv, SCAN_TIMEOUT)
        finally:
            if name == "one_changed":
                edited.write_bytes(original)
        if run.exit_code != 0:
            why = "timed out" if run.timed_out else f"exit code {run.exit_code}"
            raise RuntimeError(f"{' '.join(argv)}: {why}: {run.stderr.strip()[-2000:]}")
        data = json.loads(run.stdout)
        listing = Listing.of(data, str(folder))
        figures = {
            "seconds": round(run.seconds, 2),
            "text_mb_per_s": round(truth["megabytes"] / run.seconds, 2),
            "peak_rss_mb": round(run.peak_rss_mb),
            "peak_rss_per_text": round(run.peak_rss_mb * 2**20 / truth["bytes"], 2),
            "tree_peak_mb": rounded_mb(run.tree_peak_mb),
            "tree_peak_per_text": per_text(run.tree_peak_mb, truth["bytes"]),
            "documents": len(data["documents"]),
            "pairs_listed": len(data["pairs"]),
            "skipped": len(data.get("skipped", [])),
        }
        for key, _ in KINDS:
            figures[key] = recall(listing, truth[key])
        out[name] = figures
        found = ", ".join(
            f"{label} {figures[key]['found']}/{len(truth[key])}" for key, label in KINDS
        )
        print(
            f"  {name.replace('_', ' ')}: {run.seconds:.1f} s "
            f"({figures['text_mb_per_s']} MB/s), {run.peak_rss_mb:,.0f} MB "
            f"({figures['peak_rss_per_text']}x the text){all_processes(figures)}, "
            f"{figures['pairs_listed']:,} pairs, "
            f"{found}",
            flush=True,
        )
    again = sorted(out[name]["seconds"] for name in ("second_scan", "third_scan", "fourth_scan"))
    out["second_scan"]["median_of_three"] = again[1]  # the unchanged folder, three times
    return without_repeated_cases(out)


def per_text(megabytes: float | None, text_bytes: int) -> float | None:
    """A peak as a multiple of the folder's text (the issue's target is at most 5)."""
    return None if megabytes is None else round(megabytes * 2**20 / text_bytes, 2)


def without_repeated_cases(out: dict) -> dict:
    """The scans after the first, their planted cases written out only where they differ
    from the first scan's (the same folder gives the same 180 cases)."""
    first = out["first_scan"]
    for name in ("second_scan", "third_scan", "fourth_scan", "one_changed"):
        for key, _ in KINDS:
            found = out.get(name, {}).get(key)
            if found and found.get("cases") == first[key].get("cases"):
                found["cases"] = "as first_scan"
    return out


@contextlib.contextmanager
def pointed_at(folder: Path) -> Iterator[None]:
    """bench/scale.py's runs (``doublet index``, the language server) on ``folder``."""
    saved = scale.FOLDER
    scale.FOLDER = folder
    try:
        yield
    finally:
        scale.FOLDER = saved


def index_figures(doublet: str, folder: Path) -> dict:
    with pointed_at(folder):
        return scale.index_figures(doublet)


def lsp_figures(doublet: str, folder: Path, truth: dict, edits: int, timeout: float) -> dict:
    with pointed_at(folder):
        return scale.lsp_figures(doublet, truth, edits, timeout)


def results_path(documents: int) -> Path:
    name = "scale_100k" if documents == DOCUMENTS else f"scale_100k-{documents}"
    return RESULTS / f"{name}.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--current", default=str(DEFAULT_CURRENT), help="current doublet")
    parser.add_argument("--baseline", default=None, help="baseline doublet (default: none)")
    parser.add_argument("--documents", type=int, default=DOCUMENTS, help="documents wanted")
    parser.add_argument("--build-only", action="store_true", help="make the folder, no runs")
    parser.add_argument("--no-lsp", action="store_true", help="scans only")
    parser.add_argument("--edits", type=int, default=EDITS, help="didChanges (pastes + removals)")
    parser.add_argument("--lsp-timeout", type=float, default=180, help="seconds per LSP wait")
    args = parser.parse_args()
    # each executable imports its own tree: an inherited PYTHONPATH would run this
    # tree's code under the baseline's name
    os.environ.pop("PYTHONPATH", None)

    started = time.perf_counter()
    folder, _ = paths_of(args.documents)
    print("folder ...", flush=True)
    truth = build_folder(args.documents)
    print(f"  {folder}: {describe(truth)}", flush=True)
    if args.build_only:
        return
    results: dict = {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "commit": git_commit(),
        "note": "current: the working tree of this commit",
        "cpus": os.cpu_count(),
        "folder": folder_summary(truth),
        "load_average_before": load_average(),
    }
    runs = [("baseline", args.baseline)] if args.baseline else []
    for name, doublet in [*runs, ("current", args.current)]:
        print(f"{name}: {doublet} ({version_of(doublet)})", flush=True)
        scale.compile_bytecode(doublet)
        figures = {"executable": doublet, "version": version_of(doublet)}
        figures |= scan_figures(doublet, folder, truth)
        if not args.no_lsp:
            figures["index"] = index_figures(doublet, folder)
            figures["serve"] = lsp_figures(doublet, folder, truth, args.edits, args.lsp_timeout)
        results[name] = figures
    results["load_average_after"] = load_average()
    results["seconds"] = round(time.perf_counter() - started)
    RESULTS.mkdir(exist_ok=True)
    out = results_path(args.documents)
    out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(render(results))
    print(f"\n{results['seconds']} s in all; {out.relative_to(scale.REPO)}")


def folder_summary(truth: dict) -> dict:
    keys = ("documents", "megabytes", "bytes", "issue_megabytes", "sources", "document_chars")
    return {k: truth[k] for k in keys} | {
        "seed": truth["seed"],
        "planted": {key: len(truth[key]) for key, _ in KINDS},
    }


def describe(truth: dict) -> str:
    parts = ", ".join(
        f"{name} {s['documents']:,} documents of {s['works']} works, {s['megabytes']} MB"
        for name, s in truth["sources"].items()
    )
    planted = ", ".join(f"{len(truth[key])} {label}" for key, label in KINDS)
    chars = truth["document_chars"]
    return (
        f"{truth['documents']:,} documents, {truth['megabytes']} MB ({parts}); planted: "
        f"{planted}; document length median {chars['median']:,}, mean {chars['mean']:,}, "
        f"p90 {chars['p90']:,}, max {chars['max']:,} characters"
    )


# --- The table --------------------------------------------------------------------------

ROWS = (  # label, path in a run's figures, format
    ("first scan", "first_scan.seconds", "{:.1f} s"),
    ("first scan, MB of text / s", "first_scan.text_mb_per_s", "{:.2f}"),
    ("second scan (unchanged, index kept)", "second_scan.seconds", "{:.2f} s"),
    ("… median of three such scans", "second_scan.median_of_three", "{:.2f} s"),
    ("scan after one document changed (a sentence added)", "one_changed.seconds", "{:.1f} s"),
    ("peak memory, first scan", "first_scan.peak_rss_mb", "{:,} MB"),
    ("peak memory / text, first scan", "first_scan.peak_rss_per_text", "{:.2f}×"),
    ("peak memory, first scan, all processes (summed PSS)", "first_scan.tree_peak_mb", "{:,} MB"),
    (
        "peak memory / text, first scan, all processes (summed PSS)",
        "first_scan.tree_peak_per_text",
        "{:.2f}×",
    ),
    ("peak memory, second scan", "second_scan.peak_rss_mb", "{:,} MB"),
    ("peak memory / text, second scan", "second_scan.peak_rss_per_text", "{:.2f}×"),
    (
        "peak memory, second scan, all processes (summed PSS)",
        "second_scan.tree_peak_mb",
        "{:,} MB",
    ),
    (
        "peak memory / text, second scan, all processes (summed PSS)",
        "second_scan.tree_peak_per_text",
        "{:.2f}×",
    ),
    ("recall, planted copies", "first_scan.copies", "recall"),
    ("recall, planted paraphrases", "first_scan.paraphrases", "recall"),
    ("recall, planted Chinese reuse", "first_scan.chinese", "recall"),
    ("pairs listed", "first_scan.pairs_listed", "{:,}"),
    ("`doublet index` from nothing", "index.seconds", "{:.1f} s"),
    ("peak memory, `doublet index`", "index.peak_rss_mb", "{:,} MB"),
    ("peak memory, `doublet index`, all processes (summed PSS)", "index.tree_peak_mb", "{:,} MB"),
    (
        "LSP start → first diagnostics (saved index)",
        "serve.startup_to_first_diagnostics_s",
        "{:.2f} s",
    ),
    ("edit → diagnostics p50 (minus debounce)", "serve.latency_ms_p50", "{:.1f} ms"),
    ("edit → diagnostics p95 (minus debounce)", "serve.latency_ms_p95", "{:.1f} ms"),
    ("… of edits after the start-up refresh", "serve.ready_latency_ms_p95", "{:.1f} ms"),
    ("edits sent during the start-up refresh", "serve.edits_while_indexing", "{}"),
    ("peak memory, language server (VmHWM)", "serve.peak_rss_mb", "{:,} MB"),
)

TARGETS = {  # the issue's targets: path -> (as text, met?)
    "first_scan.text_mb_per_s": ("≥ 10", lambda v: v >= 10),
    "second_scan.median_of_three": ("< 3 s", lambda v: v < 3),
    "first_scan.peak_rss_per_text": ("≤ 5×", lambda v: v <= 5),
    "second_scan.peak_rss_per_text": ("≤ 5×", lambda v: v <= 5),
    # the same target on what the machine needs: the scan's workers counted too
    "first_scan.tree_peak_per_text": ("≤ 5×", lambda v: v <= 5),
    "second_scan.tree_peak_per_text": ("≤ 5×", lambda v: v <= 5),
    "serve.startup_to_first_diagnostics_s": ("< 1 s", lambda v: v < 1),
    "serve.latency_ms_p95": ("< 50 ms", lambda v: v < 50),
}


def _get(figures: dict, path: str):
    for key in path.split("."):
        if not isinstance(figures, dict) or key not in figures:
            return None
        figures = figures[key]
    return figures


def _cell(value, form: str) -> str:
    if value is None:
        return "—"
    if form == "recall":
        return f"{value['found']} / {value['of']}"
    return form.format(value)


def render(results: dict) -> str:
    folder = results["folder"]
    full = folder["documents"] >= DOCUMENTS
    names = [n for n in ("baseline", "current") if n in results]
    sources = ", ".join(
        f"{name} {s['documents']:,} / {s['megabytes']} MB" for name, s in folder["sources"].items()
    )
    head = ["measure", "target", *names]
    if len(names) == 2:
        head.append("current / baseline")
    if full:
        head.append("current meets target")
    lines = [
        f"{folder['documents']:,} documents, {folder['megabytes']} MB of text ({sources}; "
        f"the issue asks for {folder['issue_megabytes']} MB), {results.get('cpus')} CPUs",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ]
    for label, path, form in ROWS:
        target, test = TARGETS.get(path, ("", None))
        values = [_get(results[n], path) for n in names]
        row = [label, target, *(_cell(v, form) for v in values)]
        if len(names) == 2:
            old, new = values
            if form == "recall":
                old, new = (v["found"] if v else None for v in values)
            row.append(f"{new / old:.2f}" if old and new is not None else "—")
        if full:
            new = values[-1]
            row.append("—" if test is None or new is None else ("yes" if test(new) else "no"))
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
