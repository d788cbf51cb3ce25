"""How to rank pairs of programs: rules chosen by leave-one-out over tasks and corpora.

For code, Doublet ranks pairs by a resemblance score (engine/resemblance.py)
made of three kinds of evidence: *structure* ``s`` (the pair's similarity:
units covered by passages), *literals* ``l`` (cosine of the string and number
literals) and *names* ``n`` (Jaccard of the identifier multisets), today
``(max(s, l, n) + 0.1 * mean(s, l, n)) / 1.1``, a rule chosen on IR-Plag alone.
This benchmark chooses the rule's parameters on some tasks and scores it on
others, so that the figures say how a rule generalises, not how well it fits:

- Corpora (bench/code_corpora.py): IR-Plag (Java, 7 cases) and Ljubović &
  Pajić 2020 (C and C++ homework, 61 assignments, teachers' labels; only the
  50 assignments with at least one labelled plagiarised pair are used: a task
  without positives has no average precision).
- Pairs. IR-Plag: every pair of files within a case; positive when both are
  the original or a plagiarised copy (a copy against another copy of the same
  original counts, as in bench/scan_quality.py: ``doublet scan`` lists it and
  the two are not independent work), negative when either is an independent
  solution. Ljubović: within an assignment, every labelled positive; of the
  negatives (about 4,500 per positive), the ``HARD`` most alike by each of six
  cheap whole-folder scores (shared fingerprints, names and literals, plain
  and tf-idf) and ``RANDOM`` drawn uniformly from the rest, each standing for
  the rest's count (average precision is computed with these weights; on an
  assignment compared in full the estimate is within 0.005 of the exact AP).
- Features of a pair (``folder_table``): from ``compare`` in the code mode,
  the similarity ``structure``, the smaller and larger coverage, the exact
  coverage, the longest passage over the shorter file, the number of
  passages; the pair as ``doublet scan`` aligns it (``scan_structure``,
  ``scan_passages``): the folder goes into an index, its candidates and
  boilerplate keys come from engine/candidates ``all_candidates`` and a
  candidate is compared without the boilerplate as engine/matching does (a
  pair that is not a candidate is not aligned: no passage); the engine's
  ``literals`` and ``names``; their distinct values' containment (shared /
  fewer), tf-idf cosine (idf over the folder) and counts of shared values
  found in at most R files of the folder (``*_rare{R}``); the Dice of the
  winnowed fingerprints (``prints_dice``: what Dolos measures, on Doublet's
  tokens and k; ``prints_dice_scan`` without boilerplate) and the size
  ratio. A *folder* is what a user would scan: one Ljubović assignment; all
  of IR-Plag at once (as bench/scan_quality.py). The scan features follow
  the engine's boilerplate and pairing limits as they are when the features
  are computed.
- Rules, each with at most two parameters (``RULES``), and a logistic
  regression on all the features; ``s`` is the scan's structure unless named
  "(compare s)".
- Leave-one-out, three ways: *within* a corpus (choose on the other tasks of
  that corpus, score the held-out task), *across* corpora (choose on one
  corpus, score every task of the other) and *pooled* (choose on every other
  task of both corpora). Parameters maximise the mean per-task AP of the
  tasks they are chosen on; pooled, the geometric mean of the two corpora's
  means (their APs differ threefold in scale, so an arithmetic mean would let
  IR-Plag's large swings decide alone). The logistic regression is refitted
  in every fold, each task's positives and negatives weighing alike.
- Measures: average precision (AP) of the ranked list of each held-out task's
  pairs; the mean and the spread (min, quartiles, max) over held-out tasks,
  never the best one. "Scan order" AP ranks only the pairs the scan lists
  (with a passage once boilerplate is left out), the other positives being
  misses. IR-Plag also gets, as bench/ir_plag.py, the AUC of each level's
  copies against the independent solutions, both paired with the original,
  per held-out case.
- Pairs without a passage (never listed by ``doublet scan``): how many per
  corpus and level, how well the lexical evidence alone separates them, and
  what a rule "share at least K rare literals or names" would add.

Features are cached per folder in bench/.cache/code_ranking/ (keyed by the
files, the settings and the engine's source: an engine change recomputes
them; the whole run takes about 15 minutes on two cores, a cached one about
five). Writes bench/results/code_ranking.json and prints Markdown tables.

    python -m bench.code_ranking               # features (cached), rules, tables
    python -m bench.code_ranking --workers 1   # processes computing features
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing import Pool
from pathlib import Path

import numpy as np

from bench.code_corpora import CodeTask, ir_plag_tasks, ljubovic_homework
from bench.datasets import CACHE_DIR
from bench.measure import git_commit
from doublet.engine.candidates import all_candidates, boilerplate_limit
from doublet.engine.comparison import PairResult, compare
from doublet.engine.document import Document
from doublet.engine.index import Index, keys_of
from doublet.engine.matching import without
from doublet.engine.modes import MODES

REPO = Path(__file__).resolve().parent.parent
CACHE = CACHE_DIR / "code_ranking"
RESULTS = REPO / "bench" / "results"
ENGINE = REPO / "server" / "doublet" / "engine"

#: Ljubović negatives kept per assignment: the HARD most alike by each cheap score,
#: and RANDOM drawn uniformly from the rest (weighted to stand for all of them).
HARD = 500
RANDOM = 1000
SEED = 20240601
#: Shared literals or names found in at most R files of the folder are "rare".
RARE_DOCS = (2, 5, 10, 25, 50)
FEATURE_VERSION = "3"

CORPORA = ("ir-plag", "ljubovic")
LEVELS = ("L1", "L2", "L3", "L4", "L5", "L6")
SCHEMES = ("within", "across", "pooled")

Table = dict[str, np.ndarray]
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


# --- cheap figures of every pair of a folder ---------------------------------------------


def _occurrences(bag: np.ndarray) -> np.ndarray:
    """A multiset as a set: the k-th copy of a value becomes a value of its own."""
    if not bag.shape[0]:
        return bag
    s = np.sort(bag, kind="stable")
    start = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
    k = np.arange(s.shape[0]) - np.repeat(start, np.diff(np.r_[start, s.shape[0]]))
    with np.errstate(over="ignore"):
        return s ^ (k.astype(np.uint64) * _GOLDEN)


class _Bags:
    """Hash bags (one per file of a folder) and each value's document frequency."""

    def __init__(self, bags: Sequence[np.ndarray]):
        self.counts = [np.unique(b, return_counts=True) for b in bags]
        self.n = len(self.counts)
        every = [v for v, _ in self.counts]
        self.values, self.df = np.unique(np.concatenate(every), return_counts=True)

    def idf(self, v: np.ndarray) -> np.ndarray:
        return np.log(self.n / self.df[np.searchsorted(self.values, v)])

    def gram(self, max_df: int | None = None, counts: bool = False, idf: bool = False):
        """(i, j) = dot product of files i and j over values in 2..max_df files:
        of 0/1 (distinct values), counts, or counts x idf."""
        keep = self.df >= 2
        if max_df is not None:
            keep &= self.df <= max_df
        vocabulary = self.values[keep]
        m = np.zeros((self.n, vocabulary.shape[0]), dtype=np.float32)
        for i, (v, c) in enumerate(self.counts):
            col = np.searchsorted(vocabulary, v)
            hit = col < vocabulary.shape[0]
            hit[hit] = vocabulary[col[hit]] == v[hit]
            x = c[hit].astype(np.float64) if counts else np.ones(int(hit.sum()))
            m[i, col[hit]] = x * self.idf(v[hit]) if idf else x
        return (m @ m.T).astype(np.float64)

    def sizes(self) -> np.ndarray:
        """Distinct values per file."""
        return np.array([v.shape[0] for v, _ in self.counts], dtype=np.float64)

    def norms(self, idf: bool = False) -> np.ndarray:
        """Euclidean norm of each file's counts (or counts x idf)."""
        return np.array(
            [np.sqrt(((c * (self.idf(v) if idf else 1.0)) ** 2).sum()) for v, c in self.counts]
        )


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    safe = np.where(den > 0, den, 1.0)
    return np.where(den > 0, num / safe, 0.0)


def _outer(x: np.ndarray, op: Callable) -> np.ndarray:
    return op(x[:, None], x[None, :])


def folder_figures(docs: Sequence[Document], ignored: np.ndarray) -> Table:
    """Cheap n x n figures of every pair of a folder's documents (lexicon, fingerprints).

    ``ignored``: the fingerprint keys the scan leaves out as boilerplate.
    """
    lexicons = [d.lexicon for d in docs]
    out: Table = {}
    # the engine's own: Jaccard of the names as multisets, cosine of literal counts
    names_ms = _Bags([_occurrences(lx.names) for lx in lexicons])
    inter = names_ms.gram()
    total = np.array([lx.names.shape[0] for lx in lexicons], dtype=np.float64)
    out["names"] = _ratio(inter, _outer(total, np.add) - inter)
    for key, bags in (
        ("names", _Bags([lx.names for lx in lexicons])),
        ("literals", _Bags([lx.literals for lx in lexicons])),
    ):
        if key == "literals":
            out["literals"] = _ratio(bags.gram(counts=True), _outer(bags.norms(), np.multiply))
        shared = bags.gram()
        out[f"{key}_shared"] = shared  # distinct values in both
        out[f"{key}_contain"] = _ratio(shared, _outer(bags.sizes(), np.minimum))
        norm = _outer(bags.norms(idf=True), np.multiply)
        out[f"{key}_idf"] = _ratio(bags.gram(counts=True, idf=True), norm)
        for rare in RARE_DOCS:
            out[f"{key}_rare{rare}"] = bags.gram(max_df=rare)
    # winnowed fingerprints: the Dolos-like overlap, with and without boilerplate
    for suffix, prints in (
        ("", [d.fingerprints.hashes for d in docs]),
        (
            "_scan",
            [h[~np.isin(keys_of(h), ignored)] for h in (d.fingerprints.hashes for d in docs)],
        ),
    ):
        bags = _Bags(prints)
        shared, size = bags.gram(), bags.sizes()
        out[f"prints_dice{suffix}"] = _ratio(2 * shared, _outer(size, np.add))
        out[f"prints_contain{suffix}"] = _ratio(shared, _outer(size, np.minimum))
    return out


def pair_figures(a: Document, b: Document, scan: tuple | None) -> dict[str, float]:
    """What ``compare`` says of a pair: plainly, and as ``doublet scan`` aligns it.

    ``scan``: None when the scan's index does not select the pair (it is not
    aligned, so not listed), else (the two documents' fingerprints without the
    folder's boilerplate, whether shared fingerprints selected it), as
    engine/matching aligns a candidate.
    """
    r = compare(a, b)
    shorter = min(r.a_units, r.b_units)
    if scan is None:
        scanned = PairResult.nothing(a, b)
    else:
        scanned = compare(a, b, fingerprints=scan[0], copied=scan[1])
    candidate = 0.0 if scan is None else 1.0 + scan[1]  # 2: selected by shared fingerprints
    return {
        "structure": r.similarity,
        "cov_min": min(r.a_coverage, r.b_coverage),
        "cov_max": max(r.a_coverage, r.b_coverage),
        "exact": r.exact_coverage,
        "longest": max((p.units for p in r.passages), default=0) / max(shorter, 1),
        "passages": float(len(r.passages)),
        "size_ratio": shorter / max(r.a_units, r.b_units, 1),
        "scan_structure": scanned.similarity,
        "scan_exact": scanned.exact_coverage,
        "scan_passages": float(len(scanned.passages)),
        "scan_candidate": candidate,
        "engine_literals": r.resemblance.literals,
        "engine_names": r.resemblance.names,
        "engine_score": r.resemblance.score,
    }


# --- the feature table ------------------------------------------------------------------


@dataclass(frozen=True)
class Folder:
    """What ``doublet scan`` would see as one folder: the files of one or more tasks."""

    corpus: str
    name: str
    tasks: tuple[CodeTask, ...]


def _ir_plag_kind(name: str) -> str:
    """ "original", "independent", or the level L1..L6 of an IR-Plag file."""
    if name.startswith("original/"):
        return "original"
    if name.startswith("non-plagiarized/"):
        return "independent"
    return name.split("/")[1]


def _labelled(folder: Folder, index: dict[tuple[str, str], int]) -> list[tuple]:
    """Every labelled pair of the folder: (i, j, plagiarised, level, task).

    Level: IR-Plag, the copy's level for a pair with the original, "copies"
    for two copies, "independent" for a negative; Ljubović, plagiarised or
    independent."""
    rows = []
    for task in folder.tasks:
        if task.corpus != "ir-plag":
            for p in task.pairs():
                level = "plagiarised" if p.plagiarised else "independent"
                i, j = index[task.name, p.a], index[task.name, p.b]
                rows.append((i, j, p.plagiarised, level, task.name))
            continue
        kinds = {f.name: _ir_plag_kind(f.name) for f in task.files}
        names = sorted(kinds)
        for x, a in enumerate(names):
            for b in names[x + 1 :]:
                ka, kb = kinds[a], kinds[b]
                positive = "independent" not in (ka, kb)
                if not positive:
                    level = "independent"
                elif "original" in (ka, kb):
                    level = kb if ka == "original" else ka
                else:
                    level = "copies"
                i, j = index[task.name, a], index[task.name, b]
                rows.append((i, j, positive, level, task.name))
    return rows


def _select(rows: list[tuple], figures: Table, rng: np.random.Generator, sample: bool):
    """Positives, the HARD most alike negatives by each cheap score, RANDOM of the rest.

    Returns the kept rows, their weights (1, or how many negatives each
    sampled one stands for) and their strata."""
    y = np.array([r[2] for r in rows], dtype=bool)
    negatives = np.flatnonzero(~y)
    if not sample or negatives.shape[0] <= 6 * HARD + RANDOM:
        return rows, np.ones(len(rows)), ["all"] * len(rows)
    i = np.array([r[0] for r in rows])[negatives]
    j = np.array([r[1] for r in rows])[negatives]
    hard: set[int] = set()
    for key in (
        "prints_contain",
        "names",
        "literals",
        "names_idf",
        "literals_idf",
        "names_contain",
    ):
        top = np.argsort(-figures[key][i, j], kind="stable")[:HARD]
        hard.update(negatives[top].tolist())
    rest = np.setdiff1d(negatives, np.fromiter(hard, dtype=np.int64))
    drawn = np.sort(rng.choice(rest, size=min(RANDOM, rest.shape[0]), replace=False))
    keep = [(k, 1.0, "positive") for k in np.flatnonzero(y).tolist()]
    keep += [(k, 1.0, "hard") for k in sorted(hard)]
    keep += [(k, rest.shape[0] / drawn.shape[0], "random") for k in drawn.tolist()]
    return [rows[k] for k, _, _ in keep], np.array([w for _, w, _ in keep]), [s for *_, s in keep]


def folder_table(folder: Folder) -> Table:
    """The feature table of a folder's labelled pairs (sampled for Ljubović)."""
    started = time.perf_counter()
    index: dict[tuple[str, str], int] = {}
    docs: list[Document] = []
    for task in folder.tasks:
        for f in task.files:
            index[task.name, f.name] = len(docs)
            # the code mode picks its lexer from the name: .java, .c, .cpp
            docs.append(Document(f.name, f.text, MODES["code"]))
    # what doublet scan would align: the index's candidates, boilerplate left out
    scan_index = Index()
    for k, d in enumerate(docs):
        scan_index.add(str(k), d.keys, d.mode)
    candidates, ignored = all_candidates(scan_index, boilerplate_limit(len(docs)))
    selected = {(int(c.a), int(c.b)): c.fingerprint_seeds > 0 for c in candidates}
    usable = [without(d.fingerprints, ignored) for d in docs]
    figures = folder_figures(docs, ignored)
    every = _labelled(folder, index)
    rng = np.random.default_rng([SEED, int(hashlib.sha1(folder.name.encode()).hexdigest()[:8], 16)])
    rows, weights, strata = _select(every, figures, rng, folder.corpus == "ljubovic")
    columns: dict[str, list[float]] = {}
    for i, j, *_ in rows:
        copied = selected.get((i, j), selected.get((j, i)))
        scan = None if copied is None else ((usable[i], usable[j]), copied)
        for key, value in pair_figures(docs[i], docs[j], scan).items():
            columns.setdefault(key, []).append(value)
    out = {key: np.array(values, dtype=np.float64) for key, values in columns.items()}
    i = np.array([r[0] for r in rows])
    j = np.array([r[1] for r in rows])
    out |= {key: matrix[i, j] for key, matrix in figures.items()}
    units = np.array([d.unit_count for d in docs], dtype=np.float64)
    out["units_min"] = np.minimum(units[i], units[j])
    out["label"] = np.array([r[2] for r in rows], dtype=bool)
    out["level"] = np.array([r[3] for r in rows])
    out["task"] = np.array([r[4] for r in rows])
    out["corpus"] = np.array([folder.corpus] * len(rows))
    out["a"] = np.array([docs[k].name for k in i])
    out["b"] = np.array([docs[k].name for k in j])
    out["weight"] = weights
    out["stratum"] = np.array(strata)
    seconds = time.perf_counter() - started
    print(f"  {folder.name}: {len(docs)} files, {len(rows)} pairs, {seconds:.0f} s", flush=True)
    return out


def engine_digest() -> str:
    """A digest of the engine's source: cached features are recomputed when it changes."""
    h = hashlib.sha1()
    for path in sorted(ENGINE.rglob("*.py")):
        h.update(path.relative_to(ENGINE).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:12]


def _folder_key(folder: Folder, engine: str) -> str:
    h = hashlib.sha1(f"{FEATURE_VERSION}|{engine}|{HARD}|{RANDOM}|{SEED}|{RARE_DOCS}".encode())
    for task in folder.tasks:
        h.update(task.name.encode())
        for f in task.files:
            h.update(f.name.encode() + b"\0" + f.text.encode("utf-8", "surrogatepass") + b"\0")
        h.update(repr(sorted(task.positives)).encode())
    return h.hexdigest()[:16]


def _cached_table(job: tuple[Folder, Path]) -> Table:
    folder, path = job
    if path.is_file():
        with np.load(path, allow_pickle=False) as data:
            return {k: data[k] for k in data.files}
    table = folder_table(folder)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.stem + ".tmp.npz")
    np.savez(tmp, **table)
    tmp.replace(path)
    stem = path.stem.rsplit("-", 1)[0]
    for stale in path.parent.glob(f"{stem}-*.npz"):
        if stale != path and stale.stem.rsplit("-", 1)[0] == stem:
            stale.unlink(missing_ok=True)  # the same folder under an older engine or settings
    return table


def feature_table(workers: int = 2) -> Table:
    """Both corpora's pairs, one row each, from the cache or computed (``workers`` processes)."""
    engine = engine_digest()
    folders = [Folder("ir-plag", "ir-plag", tuple(ir_plag_tasks()))]
    folders += [Folder("ljubovic", t.name, (t,)) for t in ljubovic_homework() if t.positives]
    jobs = [
        (f, CACHE / f"{f.name.replace('/', '-')}-{_folder_key(f, engine)}.npz") for f in folders
    ]
    if workers > 1:
        with Pool(workers) as pool:
            tables = pool.map(_cached_table, jobs, chunksize=1)
    else:
        tables = [_cached_table(job) for job in jobs]
    return {key: np.concatenate([t[key] for t in tables]) for key in tables[0]}


# --- measures ---------------------------------------------------------------------------


def average_precision(
    score: np.ndarray, label: np.ndarray, weight: np.ndarray, listed: np.ndarray | None = None
) -> float:
    """AP of a ranked list whose negatives may stand for several (``weight``).

    Tied pairs share one rank (precision counted once all of them are in, as
    scikit-learn does). With ``listed``, only those pairs are ranked: a
    positive not listed is a miss (adds 0), as in a scan's listing.
    """
    positives = int(label.sum())
    if positives == 0:
        return float("nan")
    if listed is not None:
        score, label, weight = score[listed], label[listed], weight[listed]
    order = np.argsort(-score, kind="stable")
    s, y = score[order], label[order]
    tp = np.cumsum(y)
    seen = np.cumsum(np.where(y, 1.0, weight[order]))
    last = np.r_[s[1:] != s[:-1], True]  # the end of each run of tied scores
    tp, seen = tp[last], seen[last]
    return float((np.diff(np.r_[0, tp]) * tp / seen).sum() / positives)


def weighted_auc(score: np.ndarray, label: np.ndarray, weight: np.ndarray) -> float:
    """P(a positive scores above a negative), ties counting half, negatives weighted."""
    pos, neg, wn = score[label], score[~label], weight[~label]
    if not pos.shape[0] or not neg.shape[0]:
        return float("nan")
    order = np.argsort(neg, kind="stable")
    neg, cum = neg[order], np.r_[0.0, np.cumsum(wn[order])]
    below = cum[np.searchsorted(neg, pos, side="left")]
    tied = cum[np.searchsorted(neg, pos, side="right")] - below
    return float(((below + tied / 2) / cum[-1]).mean())


def spread(values: Sequence[float]) -> dict[str, float]:
    """Mean, min, quartiles and max (NaN left out)."""
    v = np.asarray(values, dtype=np.float64)
    v = v[~np.isnan(v)]
    if not v.shape[0]:
        return {}
    q = np.percentile(v, [0, 25, 50, 75, 100])
    keys = ("min", "q1", "median", "q3", "max")
    return {"mean": round(float(v.mean()), 4)} | {
        k: round(float(x), 4) for k, x in zip(keys, q, strict=True)
    }


# --- rules ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    """A way to score a pair from its features, with a grid of parameters to choose from."""

    name: str
    formula: str  # with {} for each parameter
    score: Callable[[Table, tuple], np.ndarray]
    grid: tuple[tuple[float, ...], ...] = ((),)

    def describe(self, params: tuple[float, ...]) -> str:
        return self.formula.format(*params)


def _evidence(t: Table, s: str, lexical=("literals", "names")) -> np.ndarray:
    return np.stack([t[s], t[lexical[0]], t[lexical[1]]])


def _max_support(s: str, fixed: float | None = None):
    def score(t: Table, p: tuple) -> np.ndarray:
        beta = fixed if fixed is not None else p[0]
        e = _evidence(t, s)
        return (e.max(0) + beta * e.mean(0)) / (1 + beta)

    return score


def _weighted(s: str, lexical=("literals", "names")):
    def score(t: Table, p: tuple) -> np.ndarray:
        return (t[s] + p[0] * t[lexical[0]] + p[1] * t[lexical[1]]) / (1 + p[0] + p[1])

    return score


def _capped(s: str):
    def score(t: Table, p: tuple) -> np.ndarray:
        return np.maximum.reduce([t[s], p[0] * t["literals"], p[1] * t["names"]])

    return score


def _feature(key: str):
    return lambda t, p: t[key]


WEIGHTS = (0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0, 5.0)
PAIRS = tuple((a, b) for a in WEIGHTS for b in WEIGHTS)
CAPS = tuple((a, b) for a in WEIGHTS if a <= 1 for b in WEIGHTS if b <= 1)
SUPPORTS = tuple((b,) for b in (0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.0, 5.0, 20.0, 1000.0))
S = "scan_structure"
EXACT = "scan_exact"  # the scan's exact coverage: units in exact runs only

RULES = (
    Rule("current (compare s)", "(max(s,l,n) + 0.1·mean) / 1.1", _max_support("structure", 0.1)),
    Rule("current", "(max(s,l,n) + 0.1·mean) / 1.1", _max_support(S, 0.1)),
    Rule("structure (compare s)", "s", _feature("structure")),
    Rule("structure", "s", _feature(S)),
    Rule("Dolos-like prints Dice", "Dice of winnowed fingerprints", _feature("prints_dice")),
    Rule("prints Dice, boilerplate out", "Dice, boilerplate out", _feature("prints_dice_scan")),
    Rule("literals", "l", _feature("literals")),
    Rule("names", "n", _feature("names")),
    Rule("max + support", "(max(s,l,n) + {}·mean) / (1+β)", _max_support(S), SUPPORTS),
    Rule("capped max", "max(s, {}·l, {}·n)", _capped(S), CAPS),
    Rule("weighted (compare s)", "(s + {}·l + {}·n) / (1+a+b)", _weighted("structure"), PAIRS),
    Rule("weighted", "(s + {}·l + {}·n) / (1+a+b)", _weighted(S), PAIRS),
    Rule(
        "weighted, exact structure",
        "(e + {}·l + {}·n) / (1+a+b)",
        _weighted(EXACT),
        PAIRS,
    ),
    Rule(
        "weighted, tf-idf lexicon",
        "(s + {}·l_idf + {}·n_idf) / (1+a+b)",
        _weighted(S, ("literals_idf", "names_idf")),
        PAIRS,
    ),
    Rule(
        "weighted percentiles",
        "(P(s) + {}·P(l) + {}·P(n)) / (1+a+b)",
        _weighted("pct_" + S, ("pct_literals", "pct_names")),
        PAIRS,
    ),
)


def add_percentiles(t: Table, keys: Sequence[str] = (S, "literals", "names")) -> None:
    """``pct_<key>``: each pair's weighted mid-percentile of ``key`` among its task's pairs."""
    for key in keys:
        out = np.zeros(t[key].shape[0])
        for task in np.unique(t["task"]):
            rows = np.flatnonzero(t["task"] == task)
            v, w = t[key][rows], np.where(t["label"][rows], 1.0, t["weight"][rows])
            order = np.argsort(v, kind="stable")
            cum = np.r_[0.0, np.cumsum(w[order])]
            lo = cum[np.searchsorted(v[order], v, side="left")]
            hi = cum[np.searchsorted(v[order], v, side="right")]
            out[rows] = (lo + hi) / 2 / cum[-1]
        t[f"pct_{key}"] = out


#: Features of the logistic regression; counts enter as log(1 + count).
LR_FEATURES = (
    "structure",
    S,
    "cov_min",
    "cov_max",
    "exact",
    "scan_exact",
    "longest",
    "size_ratio",
    "literals",
    "names",
    "literals_contain",
    "names_contain",
    "literals_idf",
    "names_idf",
    "prints_dice",
    "prints_dice_scan",
)
LR_COUNTS = ("literals_rare5", "names_rare5", "literals_shared", "names_shared")
#: L2 penalty on the standardised coefficients (the fit's weights sum to 1).
LR_PENALTY = 1e-3


def design(t: Table) -> np.ndarray:
    return np.stack([t[k] for k in LR_FEATURES] + [np.log1p(t[k]) for k in LR_COUNTS], axis=1)


@dataclass(frozen=True)
class Logistic:
    """A fitted logistic regression: standardisation and coefficients (intercept first)."""

    mean: np.ndarray
    std: np.ndarray
    coef: np.ndarray

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return self.coef[0] + ((x - self.mean) / self.std) @ self.coef[1:]


def fit_logistic(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> Logistic:
    """Weighted, L2-penalised logistic regression (Newton's method)."""
    keep = w > 0
    x, y, w = x[keep], y[keep].astype(np.float64), w[keep] / w[keep].sum()
    mean = w @ x
    std = np.sqrt(w @ (x - mean) ** 2)
    std[std == 0] = 1.0
    z = np.c_[np.ones(x.shape[0]), (x - mean) / std]
    ridge = np.full(z.shape[1], LR_PENALTY)
    ridge[0] = 0.0
    beta = np.zeros(z.shape[1])
    for _ in range(100):
        p = 1 / (1 + np.exp(-np.clip(z @ beta, -30, 30)))
        grad = z.T @ (w * (p - y)) + ridge * beta
        hess = (z * (w * p * (1 - p))[:, None]).T @ z + np.diag(ridge)
        step = np.linalg.solve(hess, grad)
        beta -= step
        if np.abs(step).max() < 1e-9:
            break
    return Logistic(mean, std, beta)


# --- leave-one-out ----------------------------------------------------------------------


@dataclass(frozen=True)
class Tasks:
    """The table's tasks with both positives and negatives, and their rows."""

    names: tuple[str, ...]
    corpus: np.ndarray
    rows: tuple[np.ndarray, ...]

    @staticmethod
    def of(t: Table) -> Tasks:
        names, corpus, rows = [], [], []
        for task in sorted(set(t["task"].tolist())):
            r = np.flatnonzero(t["task"] == task)
            if t["label"][r].any() and not t["label"][r].all():
                names.append(task)
                corpus.append(str(t["corpus"][r[0]]))
                rows.append(r)
        return Tasks(tuple(names), np.array(corpus), tuple(rows))

    def training(self, held_out: int | None, scheme: str, corpus: str) -> np.ndarray:
        """Tasks' weights in the objective when ``held_out`` is scored (None: the
        across scheme, where all of the other corpus is used), one row per corpus
        the objective averages over; each row sums to 1."""
        rows = []
        for c in CORPORA:
            use = {"within": c == corpus, "across": c != corpus, "pooled": True}[scheme]
            w = (self.corpus == c).astype(np.float64) if use else np.zeros(len(self.names))
            if held_out is not None:
                w[held_out] = 0.0
            if w.sum():
                rows.append(w / w.sum())
        return np.array(rows)


def objective(ap: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Per grid point, the geometric mean over the corpora of their tasks' mean AP.

    ``ap``: grid x task; ``weights``: corpus x task (Tasks.training). With one
    corpus it is that corpus's mean AP; with two, each corpus counts by its
    relative change, so the corpus whose AP varies more (IR-Plag) cannot
    outvote the other."""
    means = ap @ weights.T  # grid x corpus
    return np.exp(np.log(np.maximum(means, 1e-9)).mean(axis=1))


@dataclass
class Outcome:
    """A rule's held-out figures, per scheme and corpus, and the parameters chosen."""

    rule: str
    formula: str
    ap: dict = field(default_factory=dict)  # (scheme, corpus) -> AP of each held-out task
    ap_scan: dict = field(default_factory=dict)  # the same, only the scan's listed pairs
    auc: dict = field(default_factory=dict)  # scheme -> level -> AUC of each IR-Plag case
    chosen: dict = field(default_factory=dict)  # (scheme, corpus) -> parameters per fold
    fit_all: str = ""  # the parameters chosen on every task (pooled weighting)
    fit_params: tuple = ()


def level_aucs(t: Table, rows: np.ndarray, score: np.ndarray) -> dict[str, float]:
    """IR-Plag, one case: AUC of each level's copies against the independent solutions,
    both paired with the original (as bench/ir_plag.py)."""
    a, b, level = t["a"][rows], t["b"][rows], t["level"][rows]
    with_original = np.char.startswith(a, "original/") | np.char.startswith(b, "original/")
    negatives = with_original & (level == "independent")
    out = {}
    for lv in (*LEVELS, "all"):
        positives = with_original & (np.isin(level, LEVELS) if lv == "all" else level == lv)
        keep = positives | negatives
        out[lv] = weighted_auc(score[rows][keep], positives[keep], np.ones(int(keep.sum())))
    return out


def _listed(t: Table) -> np.ndarray:
    """Pairs ``doublet scan`` lists: a passage once boilerplate is left out."""
    return t["scan_passages"] > 0


def _task_aps(t: Table, tasks: Tasks, score: np.ndarray, listed=None) -> np.ndarray:
    return np.array(
        [
            average_precision(
                score[r], t["label"][r], t["weight"][r], None if listed is None else listed[r]
            )
            for r in tasks.rows
        ]
    )


def _folds(tasks: Tasks, scheme: str, corpus: str) -> list[tuple[list[int], np.ndarray]]:
    """(held-out tasks, training weights) per fold of a scheme, for one corpus's tasks."""
    mine = np.flatnonzero(tasks.corpus == corpus)
    if scheme == "across":
        return [(mine.tolist(), tasks.training(None, scheme, corpus))]
    return [([k], tasks.training(k, scheme, corpus)) for k in mine.tolist()]


def evaluate_rule(t: Table, tasks: Tasks, rule: Rule) -> Outcome:
    """Held-out figures of a rule whose parameters maximise the training tasks' mean AP
    (``objective``); ties go to the first (simplest) point of the grid."""
    scores = [rule.score(t, p) for p in rule.grid]
    listed = _listed(t)
    ap = np.stack([_task_aps(t, tasks, s) for s in scores])  # grid x task
    label, weight = t["label"], t["weight"]

    def scan_ap(g: int, k: int) -> float:
        r = tasks.rows[k]
        return average_precision(scores[g][r], label[r], weight[r], listed[r])

    out = Outcome(rule.name, rule.formula)
    for scheme in SCHEMES:
        for corpus in CORPORA:
            aps, aps_scan, picks, aucs = [], [], [], []
            for tested, weights in _folds(tasks, scheme, corpus):
                g = int(np.argmax(objective(ap, weights)))
                for k in tested:
                    aps.append(ap[g, k])
                    aps_scan.append(scan_ap(g, k))
                    picks.append(rule.describe(rule.grid[g]))
                    if corpus == "ir-plag":
                        aucs.append(level_aucs(t, tasks.rows[k], scores[g]))
            out.ap[scheme, corpus] = np.array(aps)
            out.ap_scan[scheme, corpus] = np.array(aps_scan)
            out.chosen[scheme, corpus] = picks
            if aucs:
                out.auc[scheme] = {lv: np.array([a[lv] for a in aucs]) for lv in (*LEVELS, "all")}
    every = tasks.training(None, "pooled", "")
    out.fit_params = rule.grid[int(np.argmax(objective(ap, every)))]
    out.fit_all = rule.describe(out.fit_params)
    return out


def _balanced(t: Table, tasks: Tasks, task_weights: np.ndarray) -> np.ndarray:
    """Row weights: a task's positives weigh its task weight in all, and so do its
    negatives (their sampling weights kept)."""
    w = np.zeros(t["label"].shape[0])
    for k, r in enumerate(tasks.rows):
        if task_weights[k] == 0:
            continue
        y, sw = t["label"][r], t["weight"][r]
        w[r[y]] = task_weights[k] / y.sum()
        w[r[~y]] = task_weights[k] * sw[~y] / sw[~y].sum()
    return w


def evaluate_logistic(t: Table, tasks: Tasks) -> Outcome:
    """Logistic regression on every feature, refitted in every fold."""
    x, y, listed = design(t), t["label"], _listed(t)
    out = Outcome(
        "logistic regression", f"logistic on {len(LR_FEATURES) + len(LR_COUNTS)} features"
    )
    for scheme in SCHEMES:
        for corpus in CORPORA:
            aps, aps_scan, aucs = [], [], []
            for tested, weights in _folds(tasks, scheme, corpus):
                model = fit_logistic(x, y, _balanced(t, tasks, weights.mean(0)))
                for k in tested:
                    r = tasks.rows[k]
                    s = np.zeros(y.shape[0])
                    s[r] = model(x[r])
                    one = Tasks((tasks.names[k],), tasks.corpus[[k]], (r,))
                    aps.append(_task_aps(t, one, s)[0])
                    aps_scan.append(_task_aps(t, one, s, listed)[0])
                    if corpus == "ir-plag":
                        aucs.append(level_aucs(t, r, s))
            out.ap[scheme, corpus] = np.array(aps)
            out.ap_scan[scheme, corpus] = np.array(aps_scan)
            out.chosen[scheme, corpus] = []
            if aucs:
                out.auc[scheme] = {lv: np.array([a[lv] for a in aucs]) for lv in (*LEVELS, "all")}
    model = fit_logistic(x, y, _balanced(t, tasks, tasks.training(None, "pooled", "").mean(0)))
    names = [*LR_FEATURES, *(f"log1p {k}" for k in LR_COUNTS)]
    ranked = sorted(zip(names, model.coef[1:], strict=True), key=lambda c: -abs(c[1]))
    out.fit_all = ", ".join(f"{n} {c:+.2f}" for n, c in ranked[:6])
    return out


# --- pairs without a passage ------------------------------------------------------------

#: Rules "the pair shares at least K distinct values of these, each in at most R files".
RARE_SOURCES = {"literals": ("literals",), "names": ("names",), "either": ("literals", "names")}
RARE_K = (1, 2, 3, 5, 10)
THRESHOLDS = (0.5, 0.7, 0.9, 0.99)  # on literals cosine or names Jaccard, for the same question
LEXICAL = ("literals", "names", "literals_idf", "names_idf", "literals_contain", "names_contain")


def _groups(t: Table) -> dict[str, np.ndarray]:
    """Rows of each group of positives: IR-Plag levels (with the original) and copy pairs,
    Ljubović courses."""
    ir, label = t["corpus"] == "ir-plag", t["label"]
    original = np.char.startswith(t["a"], "original/") | np.char.startswith(t["b"], "original/")
    out = {f"ir-plag {lv}": ir & original & (t["level"] == lv) for lv in LEVELS}
    out["ir-plag copy pairs"] = ir & (t["level"] == "copies")
    out["ir-plag all positives"] = ir & label
    course = np.array([s.split("/")[0] for s in t["task"]])
    for c in ("A2016", "A2017", "B2016"):
        out[f"ljubovic {c}"] = ~ir & label & (course == c)
    out["ljubovic all positives"] = ~ir & label
    return out


def no_passage(t: Table) -> dict:
    """How many positives have no passage (plain compare, and as the scan aligns), how well
    the lexical evidence alone ranks those pairs, and what "K rare shared values" adds."""
    views = {"compare": t["passages"] == 0, "scan": t["scan_passages"] == 0}
    counts = {}
    for name, rows in _groups(t).items():
        counts[name] = {"pairs": int(rows.sum())} | {
            f"no passage ({v})": int((rows & m).sum()) for v, m in views.items()
        }
    for corpus in CORPORA:
        neg = (t["corpus"] == corpus) & ~t["label"]
        w = t["weight"]
        counts[f"{corpus} negatives"] = {"pairs": round(float(w[neg].sum()))} | {
            f"no passage ({v})": round(float(w[neg & m].sum())) for v, m in views.items()
        }
    separation, rare = {}, {}
    for corpus in CORPORA:
        mine = t["corpus"] == corpus
        tasks = sorted(set(t["task"][mine].tolist()))
        for view, none in views.items():
            rows = mine & none
            y, w = t["label"][rows], t["weight"][rows]
            sub = {k: v[rows] for k, v in t.items()}
            task_rows = [np.flatnonzero(sub["task"] == name) for name in tasks]
            task_rows = [r for r in task_rows if sub["label"][r].any()]
            figures = {}
            for key in LEXICAL:
                aps = [average_precision(sub[key][r], y[r], w[r]) for r in task_rows]
                figures[key] = {
                    "auc": round(weighted_auc(sub[key], y, w), 4),
                    "ap_mean": round(float(np.mean(aps)), 4) if aps else None,
                }
            separation[corpus, view] = figures
            listed = float(t["weight"][mine & ~none].sum()) / len(tasks)
            hits = {}
            for source, keys in RARE_SOURCES.items():
                for r in RARE_DOCS:
                    shared = sum(sub[f"{k}_rare{r}"] for k in keys)
                    for k in RARE_K:
                        hits[f"{source} R={r} K={k}"] = shared >= k
            for key in ("literals", "names"):
                for x in THRESHOLDS:
                    hits[f"{key} >= {x}"] = sub[key] >= x
            grid = {}
            for name, hit in hits.items():
                found = int((hit & y).sum())
                extra = float(w[hit & ~y].sum())
                grid[name] = {
                    "found": found,
                    "of": int(y.sum()),
                    "extra_pairs_per_task": round(extra / len(tasks), 2),
                    "precision": round(found / max(found + extra, 1e-9), 4),
                }
                if corpus == "ir-plag":  # the copies paired with their original, per level
                    original = np.char.startswith(sub["a"], "original/") | np.char.startswith(
                        sub["b"], "original/"
                    )
                    grid[name]["found_by_level"] = {
                        lv: f"{int((hit & original & (sub['level'] == lv)).sum())}/"
                        f"{int((original & (sub['level'] == lv)).sum())}"
                        for lv in LEVELS
                    }
            rare[corpus, view] = {"listed_pairs_per_task": round(listed, 1), "rules": grid}
    return {"counts": counts, "separation": separation, "rare": rare}


# --- output -----------------------------------------------------------------------------

CORPUS_TITLE = {"ir-plag": "IR-Plag (7 cases)", "ljubovic": "Ljubović (50 assignments)"}
SCHEME_TITLE = {
    "within": "Leave one task out within each corpus",
    "across": "Across corpora: chosen on the other corpus, scored on every task of this one",
    "pooled": "Leave one task out of both corpora pooled (objective: geometric mean of the "
    "two corpora's mean AP)",
}
#: The rules the summary compares: today's, structure alone (compare's and the scan's),
#: the Dolos-like overlap, and the recommendation.
SUMMARY = (
    "current (compare s)",
    "current",
    "structure (compare s)",
    "structure",
    "Dolos-like prints Dice",
)
RECOMMENDED = "weighted, exact structure"


def _fmt(x: float | None) -> str:
    return "–" if x is None or x != x else f"{x:.3f}"


def _spread_cells(values: np.ndarray) -> list[str]:
    s = spread(values)
    return [_fmt(s.get(k)) for k in ("mean", "min", "q1", "median", "q3", "max")]


def _mode(picks: list[str]) -> str:
    if not picks:
        return "refitted"
    value, count = Counter(picks).most_common(1)[0]
    return value if count == len(picks) else f"{value} ({count}/{len(picks)} folds)"


def render(outcomes: list[Outcome], tasks: Tasks, extra: dict) -> str:
    lines = []
    head = "| rule | " + " | ".join(
        f"{c} {k}" for c in ("IR", "Lj") for k in ("mean", "min", "q1", "median", "q3", "max")
    )
    for scheme in SCHEMES:
        lines += ["", f"**AP per held-out task — {SCHEME_TITLE[scheme]}**", ""]
        lines += [head + " |", "|---|" + "---:|" * 12]
        for o in outcomes:
            cells = [c for corpus in CORPORA for c in _spread_cells(o.ap[scheme, corpus])]
            lines.append(f"| {o.rule} | " + " | ".join(cells) + " |")
    lines += ["", "**Scan order (only the pairs the scan lists; pooled leave-one-out)**", ""]
    lines += [head + " |", "|---|" + "---:|" * 12]
    for o in outcomes:
        cells = [c for corpus in CORPORA for c in _spread_cells(o.ap_scan["pooled", corpus])]
        lines.append(f"| {o.rule} | " + " | ".join(cells) + " |")
    lines += ["", "**Ljubović: mean AP per course (pooled leave-one-out)**", ""]
    courses = ("A2016", "A2017", "B2016")
    lj = [tasks.names[k] for k in np.flatnonzero(tasks.corpus == "ljubovic")]
    course_of = np.array([n.split("/")[0] for n in lj])
    lines += ["| rule | " + " | ".join(f"{c} ({(course_of == c).sum()})" for c in courses) + " |"]
    lines += ["|---|" + "---:|" * len(courses)]
    for o in outcomes:
        ap = o.ap["pooled", "ljubovic"]
        lines.append(
            f"| {o.rule} | " + " | ".join(_fmt(ap[course_of == c].mean()) for c in courses) + " |"
        )
    lines += ["", "**IR-Plag: AUC per level, copies vs independent solutions against the original"]
    lines[-1] += " (pooled leave-one-out; mean over cases, min in brackets)**"
    lines += ["", "| rule | " + " | ".join((*LEVELS, "all")) + " |", "|---|" + "---:|" * 7]
    for o in outcomes:
        cells = [
            f"{np.nanmean(o.auc['pooled'][lv]):.3f} ({np.nanmin(o.auc['pooled'][lv]):.2f})"
            for lv in (*LEVELS, "all")
        ]
        lines.append(f"| {o.rule} | " + " | ".join(cells) + " |")
    lines += ["", "**Parameters chosen (most frequent over folds; all tasks, pooled)**", ""]
    lines += ["| rule | within IR | within Lj | on IR (for Lj) | on Lj (for IR) | pooled | all |"]
    lines += ["|---|---|---|---|---|---|---|"]
    for o in outcomes:
        if o.chosen["within", "ir-plag"] and "{" not in o.formula:
            continue  # a rule without parameters: nothing to choose
        cells = [
            _mode(o.chosen["within", "ir-plag"]),
            _mode(o.chosen["within", "ljubovic"]),
            _mode(o.chosen["across", "ljubovic"]),
            _mode(o.chosen["across", "ir-plag"]),
            _mode(o.chosen["pooled", "ir-plag"] + o.chosen["pooled", "ljubovic"]),
            o.fit_all,
        ]
        lines.append(f"| {o.rule} | " + " | ".join(cells) + " |")
    lines += _render_no_passage(extra)
    return "\n".join(lines)


def _render_no_passage(extra: dict) -> list[str]:
    lines = ["", "**Positive pairs without a passage (never listed by doublet scan)**", ""]
    lines += [
        "| pairs | labelled | no passage (compare) | no passage (scan) |",
        "|---|---:|---:|---:|",
    ]
    for name, c in extra["counts"].items():
        cells = [str(c["pairs"]), str(c["no passage (compare)"]), str(c["no passage (scan)"])]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", "**Lexical evidence alone among the pairs without a passage: AUC (mean AP"]
    lines[-1] += " per task)**"
    lines += [
        "",
        "| feature | " + " | ".join(f"{c} ({v})" for c in CORPORA for v in ("compare", "scan")),
    ]
    lines[-1] += " |"
    lines += ["|---|" + "---:|" * 4]
    for key in LEXICAL:
        cells = []
        for c in CORPORA:
            for v in ("compare", "scan"):
                f = extra["separation"][c, v][key]
                cells.append(f"{_fmt(f['auc'])} ({_fmt(f['ap_mean'])})")
        lines.append(f"| {key} | " + " | ".join(cells) + " |")
    for corpus in CORPORA:
        r = extra["rare"][corpus, "scan"]
        lines += ["", f"**{CORPUS_TITLE[corpus]}, pairs the scan does not list: positives found"]
        lines[-1] += ' / extra negatives listed per task by "at least K shared values found in at'
        lines[-1] += f' most R files"** (the scan lists {r["listed_pairs_per_task"]} labelled'
        lines[-1] += " pairs per task today)"
        lines += ["", "| shared | R | " + " | ".join(f"K={k}" for k in RARE_K) + " |"]
        lines += ["|---|---:|" + "---:|" * len(RARE_K)]
        for source in RARE_SOURCES:
            for rare in RARE_DOCS:
                cells = []
                for k in RARE_K:
                    g = r["rules"][f"{source} R={rare} K={k}"]
                    cells.append(f"{g['found']}/{g['of']}, +{g['extra_pairs_per_task']:.1f}")
                lines.append(f"| {source} | {rare} | " + " | ".join(cells) + " |")
        lines += ["", "| threshold | " + " | ".join(f"≥ {x}" for x in THRESHOLDS) + " |"]
        lines += ["|---|" + "---:|" * len(THRESHOLDS)]
        for key in ("literals", "names"):
            cells = []
            for x in THRESHOLDS:
                g = r["rules"][f"{key} >= {x}"]
                cells.append(f"{g['found']}/{g['of']}, +{g['extra_pairs_per_task']:.1f}")
            lines.append(f"| {key} | " + " | ".join(cells) + " |")
        if corpus == "ir-plag":
            lines += ["", "Of those, copies paired with their original, found per level:", ""]
            lines += ["| rule | " + " | ".join(LEVELS) + " |", "|---|" + "---:|" * len(LEVELS)]
            for name in ("literals >= 0.7", "literals >= 0.9", "either R=25 K=1", "names R=10 K=1"):
                by = r["rules"][name]["found_by_level"]
                lines.append(f"| {name} | " + " | ".join(by[lv] for lv in LEVELS) + " |")
    return lines


def fixed_figures(t: Table, tasks: Tasks, score: np.ndarray) -> dict:
    """A rule with fixed parameters on every task: AP per task (all pairs, and the scan's
    listing only) and, for IR-Plag, the AUC per level pooled over the cases (as
    bench/ir_plag.py)."""
    listed = _listed(t)
    out: dict = {}
    for corpus in CORPORA:
        mine = [k for k in range(len(tasks.names)) if tasks.corpus[k] == corpus]
        sub = Tasks(
            tuple(tasks.names[k] for k in mine),
            tasks.corpus[mine],
            tuple(tasks.rows[k] for k in mine),
        )
        out[corpus] = {
            "ap": spread(_task_aps(t, sub, score)),
            "ap_scan_order": spread(_task_aps(t, sub, score, listed)),
        }
    ir = np.flatnonzero(t["corpus"] == "ir-plag")
    out["ir-plag"]["auc_pooled"] = {k: round(v, 4) for k, v in level_aucs(t, ir, score).items()}
    return out


def render_summary(outcomes: list[Outcome], fixed: dict[str, dict]) -> list[str]:
    """The rules that matter side by side: held-out AP (pooled leave-one-out), scan order,
    IR-Plag AUC."""
    by_name = {o.rule: o for o in outcomes}
    lines = ["", "**Summary: AP per held-out task, pooled leave-one-out (mean [min, median, max])"]
    lines[-1] += "; scan order; IR-Plag AUC of the copies against the independent solutions**"
    lines += [
        "",
        "| rule | IR-Plag AP | Ljubović AP | IR scan order | Lj scan order | IR AUC all | L6 |",
    ]
    lines += ["|---|---|---|---|---|---:|---:|"]

    def cell(values: np.ndarray) -> str:
        v = spread(values)
        return f"{v['mean']:.3f} [{v['min']:.2f}, {v['median']:.2f}, {v['max']:.2f}]"

    for name in (*SUMMARY, RECOMMENDED, "logistic regression"):
        o = by_name[name]
        label = name if name != RECOMMENDED else f"{name} (parameters chosen per fold)"
        lines.append(
            f"| {label} | {cell(o.ap['pooled', 'ir-plag'])} | {cell(o.ap['pooled', 'ljubovic'])} | "
            f"{cell(o.ap_scan['pooled', 'ir-plag'])} | {cell(o.ap_scan['pooled', 'ljubovic'])} | "
            f"{np.nanmean(o.auc['pooled']['all']):.3f} | {np.nanmean(o.auc['pooled']['L6']):.3f} |"
        )
    lines += ["", "Fixed parameters on every task (in-sample for the recommendation; IR-Plag AUC"]
    lines[-1] += " pooled over cases as bench/ir_plag.py):"
    lines += [
        "",
        "| rule | IR-Plag AP | Ljubović AP | IR scan order | Lj scan order | "
        + " | ".join(f"AUC {lv}" for lv in (*LEVELS, "all"))
        + " |",
    ]
    lines += ["|---|---:|---:|---:|---:|" + "---:|" * 7]
    for name, f in fixed.items():
        ir, lj = f["ir-plag"], f["ljubovic"]
        aucs = " | ".join(f"{ir['auc_pooled'][lv]:.3f}" for lv in (*LEVELS, "all"))
        lines.append(
            f"| {name} | {ir['ap']['mean']:.3f} | {lj['ap']['mean']:.3f} | "
            f"{ir['ap_scan_order']['mean']:.3f} | {lj['ap_scan_order']['mean']:.3f} | {aucs} |"
        )
    return lines


def _json_outcome(o: Outcome, tasks: Tasks) -> dict:
    out: dict = {"formula": o.formula, "fit_all": o.fit_all, "schemes": {}}
    for scheme in SCHEMES:
        per = {}
        for corpus in CORPORA:
            names = [tasks.names[k] for k in np.flatnonzero(tasks.corpus == corpus)]
            per[corpus] = {
                "ap": spread(o.ap[scheme, corpus]),
                "ap_scan_order": spread(o.ap_scan[scheme, corpus]),
                "ap_per_task": dict(
                    zip(names, (round(float(x), 4) for x in o.ap[scheme, corpus]), strict=True)
                ),
                "chosen": dict(Counter(o.chosen[scheme, corpus])),
            }
        per["ir-plag"]["auc_per_level"] = {lv: spread(v) for lv, v in o.auc.get(scheme, {}).items()}
        out["schemes"][scheme] = per
    return out


def run(workers: int) -> dict:
    started = time.perf_counter()
    print("Features (cached in bench/.cache/code_ranking) ...", flush=True)
    t = feature_table(workers)
    features_seconds = time.perf_counter() - started
    add_percentiles(t)
    tasks = Tasks.of(t)
    print(f"Rules on {t['label'].shape[0]} pairs of {len(tasks.names)} tasks ...", flush=True)
    outcomes = [evaluate_rule(t, tasks, rule) for rule in RULES]
    outcomes.append(evaluate_logistic(t, tasks))
    extra = no_passage(t)
    fixed = {}
    for rule in RULES:
        if rule.name in SUMMARY:
            fixed[rule.name] = fixed_figures(t, tasks, rule.score(t, ()))
    best = next(o for o in outcomes if o.rule == RECOMMENDED)
    rule = next(r for r in RULES if r.name == RECOMMENDED)
    fixed[f"{RECOMMENDED}: {best.fit_all}"] = fixed_figures(
        t, tasks, rule.score(t, best.fit_params)
    )
    print("\n".join(render_summary(outcomes, fixed)))
    print(render(outcomes, tasks, extra))
    result = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "commit": git_commit(),
        "engine": engine_digest(),
        "command": "python -m bench.code_ranking " + " ".join(sys.argv[1:]),
        "settings": {"hard": HARD, "random": RANDOM, "seed": SEED, "rare_docs": RARE_DOCS},
        "pairs": {
            c: {
                "rows": int((t["corpus"] == c).sum()),
                "positives": int(((t["corpus"] == c) & t["label"]).sum()),
                "negatives_represented": round(
                    float(t["weight"][(t["corpus"] == c) & ~t["label"]].sum())
                ),
                "tasks": int((tasks.corpus == c).sum()),
            }
            for c in CORPORA
        },
        "rules": {o.rule: _json_outcome(o, tasks) for o in outcomes},
        "fixed": fixed,
        "recommended": {"rule": RECOMMENDED, "parameters": best.fit_all},
        "no_passage": {
            "counts": extra["counts"],
            "separation": {f"{c} {v}": f for (c, v), f in extra["separation"].items()},
            "rare": {f"{c} {v}": f for (c, v), f in extra["rare"].items()},
        },
        "seconds": {
            "features": round(features_seconds, 1),
            "total": round(time.perf_counter() - started, 1),
        },
    }
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--workers", type=int, default=2, help="processes computing features")
    args = parser.parse_args(argv)
    result = run(args.workers)
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / "code_ranking.json"
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)
    print(f"\nWrote {path.relative_to(REPO)} in {result['seconds']['total']:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
