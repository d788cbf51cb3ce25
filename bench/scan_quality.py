"""Quality through ``doublet scan`` of a folder, as a user runs it, beside ``compare``.

bench/quality.py and bench/ir_plag.py give Doublet each pair to ``compare``.
A user instead puts the files in a folder and runs ``doublet scan``: only the
pairs that the index finds and that share a passage are listed, and text
shared by too many documents of the folder is boilerplate. This benchmark
measures that path. For each corpus all its documents go into ONE folder
under ``bench/.cache/scan-folders/`` (hard links, file names kept, the
folder's ``.doublet/`` removed so the scan starts from nothing), and the real
command line runs as a child process::

    doublet scan FOLDER --format json --threshold 0 --no-progress [--paraphrase X] [--max-docs N]

with its wall time and its own peak memory (``os.wait4`` in a small launcher
process, so that this process's memory does not count). The listed pairs
are then scored:

- PAN 2013 training corpus (``pan``): the 3,230 source and 1,827 suspicious
  documents of the 5,185 given pairs (11 sources hold NUL bytes: scan skips
  them as binary, so their 28 pairs get no detection). Each given (suspicious, source) pair's
  passages are taken from the scan's listing (either document may be ``a``:
  passages are turned so that the suspicious side comes first; a pair not
  listed has no detection) and scored with bench/pan_measures.py exactly as
  bench/quality.py does: plagdet / precision / recall / granularity per
  obfuscation folder and overall, and the detections on 01-no-plagiarism
  pairs (also per 100 pairs). Beside it, ``compare`` in process on the given
  pairs (bench/quality.py's ``doublet_pairs``), and the difference.
- Clough & Stevenson (``clough``): 95 answers and the 5 originals. Each answer
  is scored by the similarity (and ``exact_coverage``) of the listed pair
  (answer, its task's original), 0 if not listed: ROC AUC of cut + light +
  heavy against non and of heavy against non, the mean per category, and the
  plagiarised answers left without a pair. Beside it, ``compare`` on the 95
  given pairs as bench/quality.py does.
- IR-Plag (``irplag``, Java): the 467 files of the 7 cases, one subfolder per
  case. Each submission is scored by the listed pair (original, submission)'s
  ranking score (``resemblance.score``, else ``similarity``; its rank in the
  listing is kept too), 0 if not listed; per level L1..L6 and all, AUC of that
  level's copies against the independent solutions pooled over the cases (as
  bench/ir_plag.py). And the average precision (AP) of the whole listing in
  scan order: for level L the documents are the originals, the independent
  solutions and the L copies; a pair is positive when both of its files belong
  to the same case and each is the original or a copy ("all": a copy at any
  level), every other pair of the folder negative. Positives that are not
  listed are misses (they add 0; ``ap_tail`` in the JSON instead ranks all
  unlisted pairs last, tied). Per case (the seven cases one at a time: the
  spread) the same AUC and AP, with mean, min and max. Beside the scan:
  Doublet ``compare`` (its resemblance, as bench/ir_plag.py) on the 460
  (original, submission) pairs and, for AP, on the pairs within each case
  (comparing all 108,811 pairs takes several minutes, so its AP is per case
  only); Dolos 3.5.1 (``language: "java"``, its defaults) and copydetect 0.5.0
  (Java filter, its defaults) on all pairs of the folder. Their runners in
  bench/anchors run all pairs only on text (and return counts), and their pair
  scorers take minutes on 108,811 pairs, so here Dolos analyses all files in
  one instance (``report.allPairs()``, as its users run it on a folder: the
  same similarity as a two-file run, Dolos filtering no fingerprint by
  default) and copydetect fingerprints each file once and compares every pair
  with ``compare_files`` (what ``copydetect_code_similarity`` does per pair).
  A pair they score 0 counts as not listed.

Writes bench/results/scan_quality.json (with the command line, date and git
commit; a run of some corpora keeps the others' figures) and prints Markdown
tables for docs/benchmarks.md.

    python -m bench.scan_quality                 # everything, about 5 minutes
    python -m bench.scan_quality --only pan      # one corpus (pan, clough, irplag; repeatable)
    python -m bench.scan_quality --no-anchors    # IR-Plag without Dolos and copydetect
    python -m bench.scan_quality --doublet PATH  # another doublet executable for the scans
    python -m bench.scan_quality --paraphrase off  # passed to doublet scan (so is --max-docs N)

``compare`` runs in this process, from the doublet package this interpreter
imports, whatever ``--doublet`` names.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import io
import itertools
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bench.anchors._child import run_child
from bench.datasets import (
    CACHE_DIR,
    IR_PLAG_DIR,
    IR_PLAG_INDEPENDENT,
    IR_PLAG_LEVELS,
    PAN13_FOLDERS,
    clough_stevenson,
    data_dir,
    ir_plag,
    pan13,
)
from bench.measure import all_processes, git_commit, rounded_mb
from bench.pan_measures import PanScores, evaluate_pair
from bench.roc import roc_auc

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"
SCAN_FOLDERS = CACHE_DIR / "scan-folders"
DEFAULT_DOUBLET = REPO / ".venv" / "bin" / "doublet"
SCAN_TIMEOUT = 3600.0
CORPORA = ("pan", "clough", "irplag")
ALL_LEVELS = "all"
ORIGINAL = "original"
CS_CATEGORIES = ("cut", "light", "heavy", "non")

Detection = tuple[int, int, int, int]  # susp offset, susp length, src offset, src length


# --- Pure helpers (tests/bench/test_scan_quality.py) -----------------------------------


def ranking_score(pair: dict) -> float:
    """The score ``scan`` orders pairs by: the resemblance for code, else the similarity."""
    resemblance = pair.get("resemblance")
    if resemblance is not None:
        return float(resemblance["score"])
    return float(pair["similarity"])


@dataclass(frozen=True)
class Listing:
    """A scan's JSON, indexed: documents by path relative to the folder, pairs by paths."""

    paths: list[str]  # by document id
    pairs: dict[frozenset[str], tuple[int, dict]]  # {path, path} -> (1-based rank, pair)

    @staticmethod
    def of(data: dict, root: str) -> Listing:
        """Index ``data``; ``root`` is the folder as given to ``scan`` (stripped from paths)."""
        paths = [_relative(d["path"], root) for d in data["documents"]]
        if len(set(paths)) != len(paths):
            raise ValueError("two documents of the scan have the same path")
        pairs: dict[frozenset[str], tuple[int, dict]] = {}
        for rank, pair in enumerate(data["pairs"], start=1):
            key = frozenset((paths[pair["a"]], paths[pair["b"]]))
            if len(key) != 2 or key in pairs:
                raise ValueError(f"pair {paths[pair['a']]}, {paths[pair['b']]} listed twice")
            pairs[key] = (rank, pair)
        return Listing(paths, pairs)

    def find(self, one: str, other: str) -> tuple[int, dict] | None:
        """(rank, pair) of the two documents, whichever is ``a``; None if not listed."""
        return self.pairs.get(frozenset((one, other)))

    def path_of(self, doc_id: int) -> str:
        return self.paths[doc_id]


def _relative(path: str, root: str) -> str:
    """``path`` as ``scan`` printed it, relative to ``root`` (the folder as given)."""
    prefix = root.rstrip("/") + "/"
    if root in (".", "") or not path.startswith(prefix):
        return path.removeprefix("./")
    return path[len(prefix) :]


def oriented_detections(pair: dict, first_id: int) -> list[Detection]:
    """The pair's passages as (offset, length, offset, length), document ``first_id`` first.

    ``scan`` puts either document of a pair as ``a``; PAN's detections have the
    suspicious side first, so the sides are swapped when it is ``b``.
    """
    if first_id not in (pair["a"], pair["b"]):
        raise ValueError(f"document {first_id} is not in the pair ({pair['a']}, {pair['b']})")
    first, second = ("a", "b") if pair["a"] == first_id else ("b", "a")
    out = []
    for passage in pair["passages"]:
        one, two = passage[first], passage[second]
        out.append(
            (one["start"], one["end"] - one["start"], two["start"], two["end"] - two["start"])
        )
    return out


def average_precision(
    scores: Sequence[float] | np.ndarray,
    labels: Sequence[bool] | np.ndarray,
    positives: int | None = None,
) -> float:
    """Average precision of ranking the items by score, highest first.

    Items with equal scores are in no particular order: the result is the
    expectation over their orders (McSherry and Najork, 2008), so it does not
    depend on how a sort breaks ties. ``positives`` is the number of positives
    in the whole collection (default: those among the items); positives absent
    from the items are never retrieved and add 0. 0 when there is no positive.
    """
    s = np.asarray(scores, dtype=float).ravel()
    y = np.asarray(labels, dtype=bool).ravel()
    if s.shape != y.shape:
        raise ValueError(f"{s.size} scores but {y.size} labels")
    if np.isnan(s).any():
        raise ValueError("scores contain NaN")
    total_positives = int(y.sum()) if positives is None else positives
    if total_positives < y.sum():
        raise ValueError(f"positives={positives} but {int(y.sum())} among the items")
    if total_positives == 0 or s.size == 0:
        return 0.0
    order = np.argsort(-s, kind="stable")
    s, y = s[order], y[order]
    starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
    ends = np.r_[starts[1:], s.size]
    relevant = np.add.reduceat(y.astype(np.int64), starts)
    total, before, relevant_before = 0.0, 0, 0
    for start, end, r in zip(starts, ends, relevant, strict=True):
        n = int(end - start)
        if r:
            # A positive of this group is at its place j (1..n) with chance 1/n, and the
            # other r - 1 positives fill the j - 1 places before it with chance (r-1)/(n-1).
            j = np.arange(1, n + 1)
            above = (j - 1) * ((r - 1) / (n - 1)) if n > 1 else np.zeros(1)
            total += r / n * float(np.sum((relevant_before + 1 + above) / (before + j)))
        before += n
        relevant_before += int(r)
    return float(total / total_positives)


def spread(values: Iterable[float]) -> dict[str, float]:
    """Mean, min and max of per-case figures, rounded, with the figures themselves."""
    figures = [round(v, 4) for v in values]
    return {
        "mean": round(statistics.fmean(figures), 4),
        "min": min(figures),
        "max": max(figures),
        "per_case": figures,
    }


def pan_scores(folders: Sequence[str], cases: Sequence, detections: Sequence) -> dict:
    """PAN measures per folder and overall, micro-averaged as in bench/quality.py."""
    per_folder: dict[str, PanScores] = {}
    for folder, truth, found in zip(folders, cases, detections, strict=True):
        score = evaluate_pair(truth, found)
        per_folder[folder] = per_folder[folder] + score if folder in per_folder else score
    overall = sum(per_folder.values(), PanScores())
    return {
        "folders": {f: per_folder[f].as_dict() for f in per_folder},
        "folder_pairs": {f: sum(x == f for x in folders) for f in per_folder},
        "overall": overall.as_dict(),
    }


# --- Folders and the scan --------------------------------------------------------------


def build_folder(name: str, files: dict[str, Path]) -> Path:
    """A fresh folder holding exactly ``files`` (relative path -> source), hard-linked.

    Made anew each run, so nothing else is in it and no saved index is left
    (copies when the source is on another file system).
    """
    folder = SCAN_FOLDERS / name
    if folder.exists():
        shutil.rmtree(folder)
    for relative, source in files.items():
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(source, target)
        except OSError:
            shutil.copyfile(source, target)
    return folder


def unread_documents(
    files: Iterable[str], listing: Listing, scan_run: dict, root: str
) -> dict[str, str]:
    """Documents of the folder that the scan passed over, with its reason.

    A file missing from the listing without being reported as skipped is an error.
    """
    reasons = {_relative(s["path"], root): s["reason"] for s in scan_run["skipped"]}
    missing = sorted(set(files) - set(listing.paths))
    unexplained = [m for m in missing if m not in reasons]
    if unexplained:
        raise RuntimeError(
            f"the scan did not list {len(unexplained)} documents, e.g. {unexplained[:3]}"
        )
    return {m: reasons[m] for m in missing}


def scan_command(doublet: str, folder: Path, options: Sequence[str]) -> list[str]:
    argv = [doublet, "scan", str(folder), "--format", "json", "--threshold", "0", "--no-progress"]
    return argv + list(options)


# Started by a small launcher, not by this process: on Linux a child's peak
# resident set (``ru_maxrss``) starts from the high-water mark of the process
# that spawned it (exec folds the old address space's peak in), so a scan
# spawned from here after PAN's texts were loaded would report this process's
# peak. The launcher's own peak (~10 MB) is below any scan's. It also samples
# the memory of the scan's whole process tree (its workers too), importing the
# sampler only once the child is started, so that the import's memory is not
# folded into the child's peak.
LAUNCHER = """
import json, os, select, signal, subprocess, sys, time
repo, timeout, argv = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
started = time.perf_counter()
child = subprocess.Popen(argv, stdin=subprocess.DEVNULL)
sys.path.insert(0, repo)
from bench.measure import TreeMemorySampler
sampler = TreeMemorySampler(child.pid)
sampler.start()
fd = os.pidfd_open(child.pid)
poller = select.poll()
poller.register(fd, select.POLLIN)
timed_out = not poller.poll(timeout * 1000)
if timed_out:
    os.kill(child.pid, signal.SIGKILL)
_, status, usage = os.wait4(child.pid, 0)
sampler.stop()
child.returncode = code = os.waitstatus_to_exitcode(status)
seconds = time.perf_counter() - started
figures = {"seconds": seconds, "peak_rss_mb": usage.ru_maxrss / 1024, "exit_code": code,
           "timed_out": timed_out, "tree_peak_mb": sampler.peak_mb}
print(json.dumps(figures), file=sys.stderr)
"""


@dataclass(frozen=True)
class MeasuredRun:
    stdout: str
    stderr: str
    seconds: float
    peak_rss_mb: float  # the child's own peak resident set (wait4)
    exit_code: int
    timed_out: bool
    tree_peak_mb: float | None  # peak summed PSS of the child and its descendants (sampled)


def measured_run(argv: list[str], timeout: float) -> MeasuredRun:
    """Run ``argv`` through the launcher: its output, wall time, own peak memory and the
    peak memory of its process tree."""
    launcher = [sys.executable, "-c", LAUNCHER, str(REPO), str(timeout), *argv]
    run = run_child(launcher, timeout + 60)
    *errors, last = run.stderr.rstrip("\n").split("\n")
    if run.exit_code != 0:
        raise RuntimeError(f"launcher failed ({run.exit_code}): {run.stderr[-2000:]}")
    figures = json.loads(last)
    return MeasuredRun(run.stdout, "\n".join(errors), **figures)


def run_scan(doublet: str, folder: Path, options: Sequence[str]) -> tuple[Listing, dict]:
    """Scan ``folder`` from nothing with the real command; its listing and the run's figures."""
    shutil.rmtree(folder / ".doublet", ignore_errors=True)
    argv = scan_command(doublet, folder, options)
    run = measured_run(argv, SCAN_TIMEOUT)
    if run.exit_code != 0:
        why = "timed out" if run.timed_out else f"exit code {run.exit_code}"
        raise RuntimeError(f"{' '.join(argv)}: {why}: {run.stderr.strip()[-2000:]}")
    data = json.loads(run.stdout)
    # kept beside the folder, to look into a figure without scanning again
    folder.with_name(folder.name + ".scan.json").write_text(run.stdout, encoding="utf-8")
    listing = Listing.of(data, str(folder))
    figures = {
        "command": " ".join(argv),
        "seconds": round(run.seconds, 2),
        "peak_rss_mb": round(run.peak_rss_mb, 1),
        "tree_peak_mb": rounded_mb(run.tree_peak_mb, 1),
        "documents": len(data["documents"]),
        "pairs_listed": len(data["pairs"]),
        "skipped": data.get("skipped", []),
    }
    print(
        f"  scan: {figures['documents']:,} documents, {figures['pairs_listed']:,} pairs listed"
        f" in {run.seconds:.1f} s, {run.peak_rss_mb:.0f} MB{all_processes(figures)}",
        flush=True,
    )
    return listing, figures


# --- PAN 2013 --------------------------------------------------------------------------


def pan(doublet: str, options: Sequence[str]) -> dict:
    from bench.quality import doublet_pairs

    corpus = pan13()
    pairs = corpus.pairs()
    files = {f"susp/{p.susp}": corpus.root / "susp" / p.susp for p in pairs}
    files |= {f"src/{p.src}": corpus.root / "src" / p.src for p in pairs}
    folder = build_folder("pan13", files)
    listing, scan_run = run_scan(doublet, folder, options)
    ids = {path: i for i, path in enumerate(listing.paths)}
    unread = unread_documents(files, listing, scan_run, str(folder))

    scan_detections, listed = [], []
    for p in pairs:
        susp, src = f"susp/{p.susp}", f"src/{p.src}"
        found = listing.find(susp, src)
        listed.append(found is not None)
        scan_detections.append(oriented_detections(found[1], ids[susp]) if found else [])
    folders = [p.folder for p in pairs]
    cases = [p.cases for p in pairs]
    scan_figures = pan_scores(folders, cases, scan_detections) | {"run": scan_run}

    started = time.perf_counter()
    texts = [(corpus.susp_text(p.susp), corpus.src_text(p.src)) for p in pairs]
    compare_detections = doublet_pairs(texts)[0]
    seconds = time.perf_counter() - started
    compare_figures = pan_scores(folders, cases, compare_detections) | {
        "seconds": round(seconds, 1)
    }
    print(
        f"  PAN plagdet: scan {scan_figures['overall']['plagdet']:.3f},"
        f" compare {compare_figures['overall']['plagdet']:.3f} ({seconds:.0f} s)",
        flush=True,
    )
    skipped_pairs = [p for p in pairs if f"susp/{p.susp}" in unread or f"src/{p.src}" in unread]
    return {
        "pairs": len(pairs),
        "documents": len(files),
        "not_scanned": unread,
        "pairs_with_a_document_not_scanned": {
            f: sum(p.folder == f for p in skipped_pairs) for f in PAN13_FOLDERS
        },
        "cases_in_them": sum(len(p.cases) for p in skipped_pairs),
        "listing": _pan_listing(pairs, listing, listed),
        "scan": scan_figures,
        "compare": compare_figures,
    }


def _pan_listing(pairs: Sequence, listing: Listing, listed: Sequence[bool]) -> dict:
    """What the scan listed beside the given pairs."""
    given = {frozenset((f"susp/{p.susp}", f"src/{p.src}")) for p in pairs}
    kinds = {"given": 0, "susp-src, not given": 0, "susp-susp": 0, "src-src": 0}
    for key in listing.pairs:
        sides = sorted(path.split("/", 1)[0] for path in key)
        if key in given:
            kinds["given"] += 1
        elif sides == ["src", "susp"]:
            kinds["susp-src, not given"] += 1
        else:
            kinds[f"{sides[0]}-{sides[1]}"] += 1
    per_folder = {
        f: {
            "pairs": sum(p.folder == f for p in pairs),
            "listed": sum(p.folder == f and hit for p, hit in zip(pairs, listed, strict=True)),
            "with_cases_not_listed": sum(
                p.folder == f and bool(p.cases) and not hit
                for p, hit in zip(pairs, listed, strict=True)
            ),
        }
        for f in PAN13_FOLDERS
    }
    return {"total": len(listing.pairs), "kinds": kinds, "given_pairs": per_folder}


# --- Clough & Stevenson ----------------------------------------------------------------


def clough(doublet: str, options: Sequence[str]) -> dict:
    from bench.quality import doublet_pairs

    corpus = clough_stevenson()
    root = data_dir() / "clough-stevenson"
    with (root / "file_information.csv").open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    original_file = {r["Task"]: r["File"] for r in rows if r["Category"] == "orig"}
    folder = build_folder("clough-stevenson", {r["File"]: root / r["File"] for r in rows})
    listing, scan_run = run_scan(doublet, folder, options)
    answers = corpus.answers

    found = [listing.find(a.name, original_file[a.task]) for a in answers]
    scan_similarity = [float(x[1]["similarity"]) if x else 0.0 for x in found]
    scan_exact = [float(x[1].get("exact_coverage", 0.0)) if x else 0.0 for x in found]
    unpaired = [a.name for a, x in zip(answers, found, strict=True) if x is None]
    started = time.perf_counter()
    texts = [(a.text, corpus.originals[a.task]) for a in answers]
    compare_similarity = doublet_pairs(texts)[1]
    compare_exact = doublet_pairs(texts, "exact_coverage")[1]
    seconds = time.perf_counter() - started

    categories = [a.category for a in answers]
    plagiarised = sum(c != "non" for c in categories)
    out = {
        "answers": len(answers),
        "plagiarised": plagiarised,
        "documents": len(rows),
        "pairs_listed": scan_run["pairs_listed"],
        "scan_run": scan_run,
        "compare_seconds": round(seconds, 2),
        "not_listed": {
            "plagiarised": [n for n in unpaired if _category(answers, n) != "non"],
            "non": [n for n in unpaired if _category(answers, n) == "non"],
        },
        "scores": {
            "scan similarity": cs_figures(scan_similarity, categories),
            "compare similarity": cs_figures(compare_similarity, categories),
            "scan exact coverage": cs_figures(scan_exact, categories),
            "compare exact coverage": cs_figures(compare_exact, categories),
        },
    }
    print(
        f"  Clough & Stevenson AUC: scan {out['scores']['scan similarity']['auc']:.3f},"
        f" compare {out['scores']['compare similarity']['auc']:.3f};"
        f" {len(out['not_listed']['plagiarised'])} of {plagiarised} plagiarised answers"
        " without a pair",
        flush=True,
    )
    return out


def _category(answers: Sequence, name: str) -> str:
    return next(a.category for a in answers if a.name == name)


def cs_figures(scores: Sequence[float], categories: Sequence[str]) -> dict:
    """AUCs and mean per category of one score of the answers (bench/quality.py's figures)."""
    heavy = [
        (s, c == "heavy") for s, c in zip(scores, categories, strict=True) if c in ("heavy", "non")
    ]
    return {
        "auc": round(roc_auc(scores, [c != "non" for c in categories]), 4),
        "auc_heavy": round(roc_auc([s for s, _ in heavy], [h for _, h in heavy]), 4),
        "mean_by_category": {
            c: round(
                statistics.fmean(s for s, k in zip(scores, categories, strict=True) if k == c), 4
            )
            for c in CS_CATEGORIES
        },
    }


# --- IR-Plag ---------------------------------------------------------------------------


@dataclass(frozen=True)
class CodeFiles:
    """IR-Plag's files in one order: pair (i, j) of the folder is cell [i, j] of a matrix."""

    paths: list[str]  # "case-01/original/T1.java"
    cases: np.ndarray  # case index per file
    labels: list[str]  # "original", "non-plagiarized", "L1" .. "L6"
    texts: list[str]

    @staticmethod
    def load() -> CodeFiles:
        paths, cases, labels, texts = [], [], [], []
        for k, case in enumerate(ir_plag()):
            rows = [(case.original_path, ORIGINAL, case.original)]
            rows += [(s.path, s.label, s.text) for s in case.submissions]
            for path, label, text in rows:
                paths.append(f"{case.name}/{path}")
                cases.append(k)
                labels.append(label)
                texts.append(text)
        return CodeFiles(paths, np.array(cases), labels, texts)

    def originals(self) -> dict[int, int]:
        """Case index -> the file index of its original."""
        return {int(self.cases[i]): i for i, lab in enumerate(self.labels) if lab == ORIGINAL}

    def submissions(self) -> list[int]:
        return [i for i, lab in enumerate(self.labels) if lab != ORIGINAL]


@dataclass
class PairScores:
    """One tool's view of all pairs: ``score`` for AUC, ``key`` for the ranking (0: not listed)."""

    score: np.ndarray  # n x n, symmetric
    key: np.ndarray  # n x n, symmetric; higher ranks first, 0 = not listed
    seconds: float
    scope: str  # "all pairs", "within each case", ...
    ranks: np.ndarray | None = None  # scan only: 1-based rank in the listing, 0 = not listed


def scan_matrix(files: CodeFiles, listing: Listing) -> PairScores:
    """The scan's listing as matrices: ranking score, and listing order as the key."""
    index = {p: i for i, p in enumerate(files.paths)}
    n = len(files.paths)
    score, key, ranks = np.zeros((n, n)), np.zeros((n, n)), np.zeros((n, n), dtype=int)
    listed = len(listing.pairs)
    for rank, pair in listing.pairs.values():
        i, j = index[listing.path_of(pair["a"])], index[listing.path_of(pair["b"])]
        score[i, j] = score[j, i] = ranking_score(pair)
        key[i, j] = key[j, i] = listed + 1 - rank
        ranks[i, j] = ranks[j, i] = rank
    return PairScores(score, key, 0.0, "pairs listed by scan", ranks)


def matrix_of(
    n: int, cells: Iterable[tuple[int, int, float]], seconds: float, scope: str
) -> PairScores:
    score = np.zeros((n, n))
    for i, j, value in cells:
        score[i, j] = score[j, i] = value
    return PairScores(score, score, seconds, scope)


def level_universe(files: CodeFiles, level: str) -> tuple[np.ndarray, np.ndarray]:
    """Files taken for ``level`` and those that count as copies (the original included)."""
    labels = np.array(files.labels)
    copies = np.isin(labels, [*IR_PLAG_LEVELS] if level == ALL_LEVELS else [level])
    members = copies | np.isin(labels, [ORIGINAL, IR_PLAG_INDEPENDENT])
    return members, copies | (labels == ORIGINAL)


def pair_ap(files: CodeFiles, tool: PairScores, level: str, case: int | None = None) -> dict:
    """AP of the tool's ranking of the pairs of ``level``'s files (of one case, or all)."""
    members, copies = level_universe(files, level)
    if case is not None:
        members = members & (files.cases == case)
    i, j = np.triu_indices(len(files.paths), k=1)
    keep = members[i] & members[j]
    i, j = i[keep], j[keep]
    positive = (files.cases[i] == files.cases[j]) & copies[i] & copies[j]
    keys = tool.key[i, j]
    listed = keys > 0
    return {
        "ap": average_precision(keys[listed], positive[listed], int(positive.sum())),
        "ap_tail": average_precision(keys, positive),
        "positives": int(positive.sum()),
        "pairs": int(keep.sum()),
        "positives_listed": int((positive & listed).sum()),
    }


def submission_scores(files: CodeFiles, tool: PairScores) -> tuple[list[int], list[float]]:
    originals = files.originals()
    subs = files.submissions()
    return subs, [float(tool.score[originals[int(files.cases[s])], s]) for s in subs]


def level_auc(labels: Sequence[str], scores: Sequence[float], level: str) -> float:
    """AUC of ``level``'s copies (or all) against the independent solutions."""
    kept = [
        (s, lab != IR_PLAG_INDEPENDENT)
        for s, lab in zip(scores, labels, strict=True)
        if lab in (IR_PLAG_INDEPENDENT, level) or (level == ALL_LEVELS and lab in IR_PLAG_LEVELS)
    ]
    return roc_auc([s for s, _ in kept], [p for _, p in kept])


def ir_figures(files: CodeFiles, tool: PairScores, with_pooled_ap: bool = True) -> dict:
    """AUC (per submission vs its original) and AP (all pairs), pooled and per case."""
    subs, scores = submission_scores(files, tool)
    labels = [files.labels[s] for s in subs]
    sub_cases = [int(files.cases[s]) for s in subs]
    cases = sorted(set(sub_cases))
    out: dict = {"seconds": round(tool.seconds, 2), "scope": tool.scope}
    out["auc_pooled"], out["auc_per_case"], out["ap_pooled"], out["ap_per_case"] = {}, {}, {}, {}
    for level in (*IR_PLAG_LEVELS, ALL_LEVELS):
        out["auc_pooled"][level] = round(level_auc(labels, scores, level), 4)
        out["auc_per_case"][level] = spread(
            level_auc(
                [lab for lab, c in zip(labels, sub_cases, strict=True) if c == case],
                [s for s, c in zip(scores, sub_cases, strict=True) if c == case],
                level,
            )
            for case in cases
        )
        if with_pooled_ap:
            out["ap_pooled"][level] = {
                k: round(v, 4) if isinstance(v, float) else v
                for k, v in pair_ap(files, tool, level).items()
            }
        per_case = [pair_ap(files, tool, level, case) for case in cases]
        out["ap_per_case"][level] = spread(x["ap"] for x in per_case)
        out["ap_per_case"][level]["tail"] = spread(x["ap_tail"] for x in per_case)
    out["mean_score"] = {
        lab: round(statistics.fmean(s for s, x in zip(scores, labels, strict=True) if x == lab), 4)
        for lab in (IR_PLAG_INDEPENDENT, *IR_PLAG_LEVELS)
    }
    out["not_listed"] = {
        lab: sum(s == 0 for s, x in zip(scores, labels, strict=True) if x == lab)
        for lab in (IR_PLAG_INDEPENDENT, *IR_PLAG_LEVELS)
    }
    return out


def compare_within_cases(files: CodeFiles) -> PairScores:
    """Doublet ``compare`` (resemblance, code mode) on every pair of files of the same case."""
    from bench.ir_plag import doublet_similarity

    started = time.perf_counter()
    n = len(files.paths)
    cells = [
        (i, j, doublet_similarity(files.texts[i], files.texts[j]))
        for i in range(n)
        for j in range(i + 1, n)
        if files.cases[i] == files.cases[j]
    ]
    return matrix_of(n, cells, time.perf_counter() - started, "pairs within each case")


def copydetect_all(files: CodeFiles) -> PairScores:
    """copydetect on all pairs: ``copydetect_code_similarity``, each file fingerprinted once."""
    from copydetect import CodeFingerprint, compare_files, defaults

    window = defaults.GUARANTEE_THRESHOLD - defaults.NOISE_THRESHOLD + 1
    started = time.perf_counter()
    prints = [
        CodeFingerprint(p, defaults.NOISE_THRESHOLD, window, language="java", fp=io.StringIO(t))
        for p, t in zip(files.paths, files.texts, strict=True)
    ]
    n = len(prints)
    cells = []
    for i in range(n):
        for j in range(i + 1, n):
            _, (sim_i, sim_j), _ = compare_files(prints[i], prints[j])
            cells.append((i, j, float(sim_i + sim_j) / 2))
    return matrix_of(n, cells, time.perf_counter() - started, "all pairs")


DOLOS_ALL_PAIRS = """
import { readFileSync } from "node:fs";
import { Dolos, File } from "@dodona/dolos-lib";
const { language, texts } = JSON.parse(readFileSync(0, "utf8"));
const files = texts.map((text, i) => new File(String(i), text));
const report = await new Dolos({ language }).analyze(files);
const pairs = report.allPairs().map(
  (p) => [Number(p.leftFile.path), Number(p.rightFile.path), p.similarity]);
process.stdout.write(JSON.stringify(pairs));
"""


def dolos_all(files: CodeFiles, language: str) -> PairScores:
    """Dolos on all pairs: one instance analyses every file (its defaults), ``allPairs()``."""
    from bench.anchors._dolos import DOLOS_DIR

    started = time.perf_counter()
    done = subprocess.run(
        ["node", "--input-type=module", "-e", DOLOS_ALL_PAIRS],
        input=json.dumps({"language": language, "texts": files.texts}),
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=DOLOS_DIR,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"Dolos failed ({done.returncode}): {done.stderr[-2000:]}")
    cells = [(int(i), int(j), float(s)) for i, j, s in json.loads(done.stdout)]
    return matrix_of(len(files.paths), cells, time.perf_counter() - started, "all pairs")


def irplag(doublet: str, options: Sequence[str], with_anchors: bool) -> dict:
    from bench.ir_plag import dolos_java_works, doublet_scores

    files = CodeFiles.load()
    root = CACHE_DIR / IR_PLAG_DIR
    folder = build_folder("ir-plag", {p: root / p for p in files.paths})
    listing, scan_run = run_scan(doublet, folder, options)
    unread = unread_documents(files.paths, listing, scan_run, str(folder))
    scanned = scan_matrix(files, listing)
    scanned.seconds = scan_run["seconds"]
    tools: dict[str, dict] = {"Doublet scan": ir_figures(files, scanned)}

    # compare on the 460 (original, submission) pairs, exactly as bench/ir_plag.py
    originals = files.originals()
    subs = files.submissions()
    started = time.perf_counter()
    given = doublet_scores(
        [(files.texts[originals[int(files.cases[s])]], files.texts[s]) for s in subs]
    )
    seconds = time.perf_counter() - started
    print(f"  compare on the {len(subs)} given pairs: {seconds:.1f} s", flush=True)
    within = compare_within_cases(files)
    print(f"  compare within cases: {within.seconds:.1f} s", flush=True)
    for s, value in zip(subs, given, strict=True):
        o = originals[int(files.cases[s])]
        within.score[o, s] = within.score[s, o] = value
    tools["Doublet compare"] = ir_figures(files, within, with_pooled_ap=False)
    tools["Doublet compare"]["seconds_given_pairs"] = round(seconds, 2)
    notes = [
        "Doublet compare: AP per case only (pairs within each case; comparing all pairs of "
        "the folder takes several minutes)"
    ]
    if with_anchors:
        notes += _anchor_figures(files, tools, dolos_java_works)
    else:
        notes.append("anchors not run (--no-anchors)")
    for name, figures in tools.items():
        ap = figures["ap_pooled"].get(ALL_LEVELS)
        print(
            f"  {name}: AUC all {figures['auc_pooled'][ALL_LEVELS]:.3f}"
            + (f", AP all {ap['ap']:.3f}" if ap else ""),
            flush=True,
        )
    return {
        "files": len(files.paths),
        "all_pairs": len(files.paths) * (len(files.paths) - 1) // 2,
        "counts": {
            lab: files.labels.count(lab) for lab in (ORIGINAL, IR_PLAG_INDEPENDENT, *IR_PLAG_LEVELS)
        },
        "scan_run": scan_run,
        "not_scanned": unread,
        "scan_order_is_by_score": _ordered_by_score(listing),
        "notes": notes,
        "tools": tools,
        "submissions": [
            {
                "path": files.paths[s],
                "label": files.labels[s],
                "scan_score": round(float(scanned.score[originals[int(files.cases[s])], s]), 4),
                "scan_rank": int(scanned.ranks[originals[int(files.cases[s])], s]),
                "compare_score": round(g, 4),
            }
            for s, g in zip(subs, given, strict=True)
        ],
    }


def _anchor_figures(
    files: CodeFiles, tools: dict, dolos_java_works: Callable[[], bool]
) -> list[str]:
    from bench.anchors._setup import copydetect_installed, dolos_installed

    notes = []
    if not dolos_installed():
        notes.append("Dolos not installed: python -m bench.anchors setup")
    else:
        language = "java" if dolos_java_works() else "char"
        if language == "char":
            notes.append("Dolos' Java parser failed to load: Dolos ran on characters")
        dolos = dolos_all(files, language)
        tools["Dolos" if language == "java" else "Dolos (char)"] = ir_figures(files, dolos)
    if copydetect_installed():
        tools["copydetect"] = ir_figures(files, copydetect_all(files))
    else:
        notes.append("copydetect not installed: python -m bench.anchors setup")
    return notes


def _ordered_by_score(listing: Listing) -> bool:
    ranked = sorted(listing.pairs.values(), key=lambda x: x[0])
    scores = [ranking_score(pair) for _, pair in ranked]
    return all(a >= b for a, b in itertools.pairwise(scores))


# --- Output ----------------------------------------------------------------------------


def render(results: dict) -> str:
    parts = []
    if "pan13" in results:
        parts.append(render_pan(results["pan13"]))
    if "clough_stevenson" in results:
        parts.append(render_clough(results["clough_stevenson"]))
    if "ir_plag" in results:
        parts.append(render_irplag(results["ir_plag"]))
    return "\n\n".join(parts)


def _pdpg(s: dict) -> str:
    return " / ".join(f"{s[k]:.3f}" for k in ("plagdet", "precision", "recall")) + (
        f" / {s['granularity']:.2f}"
    )


def render_pan(r: dict) -> str:
    scan, comp = r["scan"], r["compare"]
    run = scan["run"]
    lines = [
        f"PAN 2013 training corpus through `scan` of one folder ({r['documents']:,} documents)"
        f" beside `compare` of the {r['pairs']:,} given pairs:"
        " plagdet / precision / recall / granularity",
        "",
        "| folder | scan | compare | plagdet scan − compare | given pairs not listed by scan |",
        "|---|---|---|---:|---:|",
    ]
    for folder in PAN13_FOLDERS:
        s, c = scan["folders"][folder], comp["folders"][folder]
        given = r["listing"]["given_pairs"][folder]
        not_listed = f"{given['pairs'] - given['listed']:,} of {given['pairs']:,}"
        if folder.startswith("01"):
            n = scan["folder_pairs"][folder]
            cells = (
                f"{s['detections']} detections ({100 * s['detections'] / n:.1f} per 100 pairs)",
                f"{c['detections']} ({100 * c['detections'] / n:.1f} per 100 pairs)",
                f"{s['detections'] - c['detections']:+d} detections",
            )
        else:
            cells = (_pdpg(s), _pdpg(c), f"{s['plagdet'] - c['plagdet']:+.3f}")
        lines.append(f"| {folder} | " + " | ".join(cells) + f" | {not_listed} |")
    so, co = scan["overall"], comp["overall"]
    lines.append(
        f"| overall | **{so['plagdet']:.3f}** / {so['precision']:.3f} / {so['recall']:.3f}"
        f" / {so['granularity']:.2f} | **{co['plagdet']:.3f}** / {co['precision']:.3f}"
        f" / {co['recall']:.3f} / {co['granularity']:.2f}"
        f" | {so['plagdet'] - co['plagdet']:+.3f} | |"
    )
    lines.append(
        f"| time | {run['seconds']:.1f} s, {run['peak_rss_mb']:,.0f} MB peak"
        f"{all_processes(run)} (first scan)"
        f" | {comp['seconds']:.0f} s (in process) | | |"
    )
    kinds = r["listing"]["kinds"]
    lines += [
        "",
        f"The scan listed {r['listing']['total']:,} pairs: "
        + ", ".join(f"{v:,} {k}" for k, v in kinds.items())
        + ".",
    ]
    if r["not_scanned"]:
        reasons = sorted(set(r["not_scanned"].values()))
        in_pairs = r["pairs_with_a_document_not_scanned"]
        lines.append(
            f"The scan passed over {len(r['not_scanned'])} documents ({'; '.join(reasons)}),"
            f" which are in {sum(in_pairs.values())} given pairs"
            f" ({r['cases_in_them']} plagiarism cases): "
            + ", ".join(f"{n} in {f[:2]}" for f, n in in_pairs.items() if n)
            + "."
        )
    return "\n".join(lines)


def render_clough(r: dict) -> str:
    missing = r["not_listed"]["plagiarised"]
    lines = [
        f"Clough & Stevenson through `scan` of one folder ({r['documents']} files,"
        f" {r['pairs_listed']} pairs listed) beside `compare` of each answer with its original",
        "",
        "| score | AUC cut + light + heavy vs non | AUC heavy vs non"
        " | mean cut / light / heavy / non |",
        "|---|---:|---:|---|",
    ]
    for name, f in r["scores"].items():
        m = f["mean_by_category"]
        lines.append(
            f"| {name} | {f['auc']:.3f} | {f['auc_heavy']:.3f} | "
            + " / ".join(f"{m[c]:.3f}" for c in CS_CATEGORIES)
            + " |"
        )
    lines += [
        "",
        f"Plagiarised answers with no pair with their original in the scan: {len(missing)}"
        f" of {r['plagiarised']}"
        + (f" ({', '.join(missing)})" if missing else "")
        + f"; non-plagiarised answers with none: {len(r['not_listed']['non'])}."
        f" Scan: {r['scan_run']['seconds']:.1f} s, {r['scan_run']['peak_rss_mb']:.0f} MB"
        f"{all_processes(r['scan_run'])};"
        f" compare: {r['compare_seconds']:.1f} s.",
    ]
    return "\n".join(lines)


def render_irplag(r: dict) -> str:
    tools = list(r["tools"])
    counts = r["counts"]
    n_plag = sum(counts[lv] for lv in IR_PLAG_LEVELS)
    head = "| level | n | " + " | ".join(tools) + " |\n|---|---:|" + "---:|" * len(tools)
    lines = [
        f"IR-Plag (Java) through `scan` of one folder ({r['files']} files,"
        f" {r['all_pairs']:,} pairs,"
        f" {r['scan_run']['pairs_listed']:,} listed by scan in {r['scan_run']['seconds']:.1f} s,"
        f" {r['scan_run']['peak_rss_mb']:.0f} MB{all_processes(r['scan_run'])})",
        "",
        "**AUC of each level's copies against the independent solutions, pooled over cases**"
        " (each submission scored by its pair with the original; 0 if not listed)",
        "",
        head,
    ]
    for level in (*IR_PLAG_LEVELS, ALL_LEVELS):
        n = counts.get(level, n_plag)
        cells = [f"{r['tools'][t]['auc_pooled'][level]:.3f}" for t in tools]
        lines.append(f"| {level} | {n} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "**Average precision of the ranked list of pairs** (positives: pairs of the original"
        " and copies of one case; unlisted positives are misses)",
        "",
        head.replace("| n |", "| positives |"),
    ]
    for level in (*IR_PLAG_LEVELS, ALL_LEVELS):
        ap = [r["tools"][t]["ap_pooled"].get(level) for t in tools]
        positives = next(x["positives"] for x in ap if x)
        cells = [f"{x['ap']:.3f}" if x else "—" for x in ap]
        lines.append(f"| {level} | {positives:,} | " + " | ".join(cells) + " |")
    for key, title in (("auc_per_case", "AUC"), ("ap_per_case", "AP")):
        lines += [
            "",
            f"**{title} per case: mean (min–max) over the 7 cases**",
            "",
            head.replace("| n |", "| |").replace("---:|---:|", "---|---:|", 1),
        ]
        for level in (*IR_PLAG_LEVELS, ALL_LEVELS):
            cells = [
                f"{x['mean']:.3f} ({x['min']:.2f}–{x['max']:.2f})"
                for x in (r["tools"][t][key][level] for t in tools)
            ]
            lines.append(f"| {level} | | " + " | ".join(cells) + " |")
    lines += [
        "",
        "| | " + " | ".join(tools) + " |",
        "|---|" + "---:|" * len(tools),
        "| copies (L1–L6) with no pair with their original | "
        + " | ".join(
            str(sum(r["tools"][t]["not_listed"][lv] for lv in IR_PLAG_LEVELS)) for t in tools
        )
        + " |",
        "| seconds | " + " | ".join(f"{r['tools'][t]['seconds']:.1f}" for t in tools) + " |",
        "| pairs scored | " + " | ".join(r["tools"][t]["scope"] for t in tools) + " |",
    ]
    if not r["scan_order_is_by_score"]:
        lines.append("\nNote: the scan's listing is not in order of its ranking score.")
    if r["not_scanned"]:
        lines.append(f"\nNote: the scan passed over {', '.join(r['not_scanned'])}.")
    lines += [f"\nNote: {note}" for note in r["notes"]]
    return "\n".join(lines)


# --- Main ------------------------------------------------------------------------------


def _doublet_package() -> str:
    """Where the doublet package that ``compare`` runs in this process comes from."""
    import doublet

    return str(Path(doublet.__file__).parent)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", choices=CORPORA, help="run this corpus only")
    parser.add_argument("--doublet", default=str(DEFAULT_DOUBLET), help="doublet executable")
    parser.add_argument(
        "--no-anchors", action="store_true", help="IR-Plag without Dolos, copydetect"
    )
    parser.add_argument("--paraphrase", choices=("on", "off"), help="passed to scan")
    parser.add_argument("--max-docs", type=int, help="passed to scan")
    args = parser.parse_args(argv)
    if not os.access(args.doublet, os.X_OK):
        parser.error(f"{args.doublet} is not an executable (make .venv/.installed?)")
    chosen = args.only or list(CORPORA)
    started = time.perf_counter()
    output = RESULTS / "scan_quality.json"
    results = json.loads(output.read_text()) if output.exists() else {}
    run = {
        "command": " ".join(["python -m bench.scan_quality", *(argv or sys.argv[1:])]),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "commit": git_commit(),
        "doublet": args.doublet,
        "compare_from": _doublet_package(),
        "paraphrase": args.paraphrase,
        "max_docs": args.max_docs,
    }
    options = [] if args.paraphrase is None else ["--paraphrase", args.paraphrase]
    options += [] if args.max_docs is None else ["--max-docs", str(args.max_docs)]
    fresh = {}
    if "pan" in chosen:
        print("PAN 2013 training corpus ...", flush=True)
        fresh["pan13"] = pan(args.doublet, options) | {"run": run}
    if "clough" in chosen:
        print("Clough & Stevenson ...", flush=True)
        fresh["clough_stevenson"] = clough(args.doublet, options) | {"run": run}
    if "irplag" in chosen:
        print("IR-Plag ...", flush=True)
        fresh["ir_plag"] = irplag(args.doublet, options, not args.no_anchors) | {"run": run}
    results.update(fresh)
    RESULTS.mkdir(exist_ok=True)
    output.write_text(json.dumps(results, indent=2) + "\n")
    print(render(fresh))
    print(f"\n(run in {time.perf_counter() - started:.0f} s; figures in {output})")


if __name__ == "__main__":
    main()
