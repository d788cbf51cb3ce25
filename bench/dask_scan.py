"""A scan on local Dask workers beside the one-machine scan, and the shuffle's volume.

On the scale folder (bench/scale.py builds it: the 44 novels in 2,000-character
pieces, 24,150 documents), one after the other:

- ``doublet scan --format json --no-index`` on this machine, then with
  ``--workers 1`` and ``--workers 2`` (a local Dask cluster): wall time, peak
  memory of the scanning process, and whether the JSON is the same, byte for byte;
- candidate selection alone, in this process, as one selection
  (engine/candidates ``all_candidates``) and as map, shuffle and reduce
  (engine/candidate_shards) with its steps run here: the time of each stage and
  the bytes each stage hands on (what a cluster sends between workers), per
  document and per posting, for docs/scale.md's projection.

    python -m bench.dask_scan            # writes bench/results/dask_scan.json
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import fields
from pathlib import Path

import numpy as np

from bench.measure import git_commit, rounded_mb, run_measured
from doublet.engine import candidate_shards
from doublet.engine.candidates import all_candidates
from doublet.workspace import Workspace

FOLDER = Path(__file__).resolve().parent / ".cache" / "scale" / "novels-2000"
RESULTS = Path(__file__).resolve().parent / "results"


def scan(folder: Path, out: Path, *options: str) -> dict:
    argv = [sys.executable, "-m", "doublet", "scan", str(folder), "--format", "json"]
    run = run_measured([*argv, "--no-index", "--no-progress", *options])
    if run.returncode != 0:
        raise RuntimeError(run.stderr[-2000:])
    out.write_text(run.stdout)
    return {
        "seconds": round(run.seconds, 1),
        "peak_rss_mb": round(run.peak_rss_mb),
        "tree_peak_mb": rounded_mb(run.tree_peak_mb),  # the local cluster's workers too
    }


def nbytes(value: object) -> int:
    """The bytes of the arrays a step's result holds (what would travel)."""
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, (tuple, list)):
        return sum(nbytes(v) for v in value)
    if hasattr(value, "__dataclass_fields__"):
        return sum(nbytes(getattr(value, f.name)) for f in fields(value))
    return 0


def selection(folder: Path, shards: int) -> dict:
    """Candidate selection at once and by stages, timed, with each stage's output bytes."""
    workspace = Workspace.open(folder)
    workspace.refresh()
    index, max_docs = workspace.index, workspace.settings().max_docs
    started = time.perf_counter()
    want = all_candidates(index, max_docs)
    at_once = time.perf_counter() - started
    seconds: dict[str, float] = {}
    handed: dict[str, int] = {"postings_out": 0}

    def here(function, *args):
        if function is candidate_shards.seeds_of_shard:
            handed["postings_out"] += nbytes(args[1:4])  # keys, documents, positions
        began = time.perf_counter()
        result = function(*args)
        name = function.__name__
        seconds[name] = seconds.get(name, 0.0) + time.perf_counter() - began
        handed[name] = handed.get(name, 0) + nbytes(result)
        return result

    started = time.perf_counter()
    got = candidate_shards.sharded_candidates(index, max_docs, shards, shards, here, list)
    staged = time.perf_counter() - started
    same = got[0] == want[0] and np.array_equal(got[1], want[1])
    documents = len(index)
    postings = index.posting_count()
    shuffled = handed["part_seeds"]
    return {
        "documents": documents,
        "postings": postings,
        "candidates": len(want[0]),
        "same_candidates": same,
        "all_candidates_s": round(at_once, 2),
        "staged_s": round(staged, 2),
        "stage_s": {name: round(s, 2) for name, s in seconds.items()},
        "stage_output_bytes": handed,
        "postings_out_bytes_per_posting": round(handed["postings_out"] / postings, 1),
        "shuffle_bytes": shuffled,
        "shuffle_bytes_per_document": round(shuffled / documents),
        "shuffle_bytes_per_posting": round(shuffled / postings, 1),
        "evidence_bytes_per_document": round(handed["evidence_of_part"] / documents, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", default=str(FOLDER))
    parser.add_argument("--shards", type=int, default=8)
    args = parser.parse_args()
    folder = Path(args.folder)
    results: dict = {"commit": git_commit(), "folder": str(folder)}
    with tempfile.TemporaryDirectory() as tmp:
        outs = {name: Path(tmp) / f"{name}.json" for name in ("one", "workers_1", "workers_2")}
        results["one_machine"] = scan(folder, outs["one"])
        print("one machine:", results["one_machine"], flush=True)
        for count in (1, 2):
            name = f"workers_{count}"
            results[name] = scan(folder, outs[name], "--workers", str(count))
            same = outs[name].read_bytes() == outs["one"].read_bytes()
            results[name]["json_identical"] = same
            print(f"--workers {count}:", results[name], flush=True)
    results["selection"] = selection(folder, args.shards)
    print("selection:", json.dumps(results["selection"], indent=1), flush=True)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "dask_scan.json").write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
