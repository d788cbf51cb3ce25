"""The persistent index on all 44 novels cut into ~20 KB documents (2,391 files, 47 MB).

- build: `doublet index DIR` from nothing (child process: wall time, peak memory);
- warm start: `doublet index DIR` again, nothing changed (load + reconcile);
- one-document update + query: a document gets a paragraph of another pasted in,
  then the index is updated and asked for its passages (in process, p50/p95);
- memory: the index's own allocations after loading, against the corpus size.

Reads ../shared/data/novels (or $DOUBLET_DATA). Writes bench/results/index.json.

    python -m bench.index_speed
"""

from __future__ import annotations

import json
import random
import shutil
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

from bench.datasets import novel_chunks
from bench.measure import rounded_mb, run_measured
from doublet import index_store
from doublet.workspace import Workspace

RESULTS = Path(__file__).resolve().parent / "results"
UPDATES = 50


def doublet_index(folder: Path) -> dict:
    run = run_measured([sys.executable, "-m", "doublet", "index", str(folder), "--no-progress"])
    if run.returncode != 0:
        raise RuntimeError(run.stderr[-2000:])
    return {
        "seconds": round(run.seconds, 2),
        "peak_rss_mb": round(run.peak_rss_mb),
        "tree_peak_mb": rounded_mb(run.tree_peak_mb),
    }


def index_memory(folder: Path) -> dict:
    """Bytes allocated by loading the saved index (numpy arrays and entries)."""
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    index = index_store.load(folder)
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    allocated = sum(stat.size_diff for stat in after.compare_to(before, "filename"))
    corpus = sum(p.stat().st_size for p in folder.glob("*.txt"))
    return {
        "documents": len(index),
        "index_mb": round(allocated / 1e6, 1),
        "corpus_mb": round(corpus / 1e6, 1),
        "ratio": round(allocated / corpus, 2),
    }


def update_and_query(folder: Path) -> dict:
    """Paste a paragraph of one document into another; time update + query of the passages."""
    workspace = Workspace.open(folder)
    workspace.refresh()
    names = workspace.index.names()
    rng = random.Random(7)
    update_ms, query_ms, total_ms, found = [], [], [], 0
    for _ in range(UPDATES):
        target, source = rng.sample(names, 2)
        text = workspace.document(target).text
        pasted = workspace.document(source).text[2000:3500]
        edited = text[: len(text) // 2] + "\n\n" + pasted + "\n\n" + text[len(text) // 2 :]
        started = time.perf_counter()
        workspace.update_text(target, edited)
        updated = time.perf_counter()
        results = workspace.similar(target, edited)
        done = time.perf_counter()
        found += any(r.b.name == source for r in results)
        update_ms.append(1000 * (updated - started))
        query_ms.append(1000 * (done - updated))
        total_ms.append(1000 * (done - started))

    def p95(values: list[float]) -> float:
        return round(statistics.quantiles(values, n=20)[-1], 1)

    return {
        "updates": UPDATES,
        "pasted_passage_found": found,
        "update_ms_p50": round(statistics.median(update_ms), 1),
        "query_ms_p50": round(statistics.median(query_ms), 1),
        "total_ms_p50": round(statistics.median(total_ms), 1),
        "total_ms_p95": p95(total_ms),
    }


def main() -> None:
    folder = novel_chunks(44)
    shutil.rmtree(folder / ".doublet", ignore_errors=True)
    results = {"build": doublet_index(folder)}
    print(f"build: {results['build']}", flush=True)
    results["warm_start"] = doublet_index(folder)
    print(f"warm start: {results['warm_start']}", flush=True)
    results["memory"] = index_memory(folder)
    print(f"memory: {results['memory']}", flush=True)
    results["update_query"] = update_and_query(folder)
    print(f"update + query: {results['update_query']}", flush=True)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "index.json").write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
