"""The anchors' all-pairs cost on the 100,000-document folder, extrapolated from samples.

copydetect and Dolos compare every pair of documents (/work/shared/ANCHORS.md),
so their time grows with the number of pairs: on the 100,008 documents of
bench/scale_100k.py's folder (5 billion pairs) a run would take weeks. So each
runs its own all-pairs way (bench/anchors: ``copydetect_all_pairs``,
``dolos_all_pairs``, in a child process, wall time and the child's peak
memory) on random samples of the folder of growing size (the same documents
for both, a fixed seed), and its time is fitted as ``a·n + b·n(n−1)/2``
(reading and fingerprinting each document, comparing each pair) by least
squares, then extrapolated to the whole folder. Doublet scans the same samples
(``doublet scan SAMPLE --format json --threshold 0 --no-index``), beside them.

Each sample is a folder of hard links into the big one (``bench/.cache/scale/
anchors-sample-N/``), its subfolders kept. Reads the folder that
``python -m bench.scale_100k --build-only`` makes (about a minute). Run with
nothing else heavy on the machine::

    .venv/bin/python -m bench.scale_anchors                  # about 5 minutes
    .venv/bin/python -m bench.scale_anchors --sizes 250 500  # quicker

Writes bench/results/scale_anchors.json and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import random
import shutil
import sys
from pathlib import Path

import numpy as np

from bench import scale, scale_100k
from bench.anchors import copydetect_all_pairs, dolos_all_pairs
from bench.measure import all_processes, git_commit, rounded_mb
from bench.scan_quality import measured_run

SIZES = (500, 1000, 2000, 4000)
SEED = 12
TIMEOUT = 1800.0
#: Node's heap for Dolos, in MB: its default runs out on a few tens of MB of text.
DOLOS_HEAP = 8192


def sample_folder(folder: Path, documents: list[Path], size: int) -> Path:
    """A folder of hard links to ``size`` of ``documents`` (relative to ``folder``)."""
    target = scale.SCALE / f"anchors-sample-{size}"
    shutil.rmtree(target, ignore_errors=True)
    for rel in documents[:size]:
        (target / rel.parent).mkdir(parents=True, exist_ok=True)
        os.link(folder / rel, target / rel)
    return target


def doublet_scan(doublet: str, folder: Path) -> dict:
    argv = [doublet, "scan", str(folder), "--format", "json", "--threshold", "0"]
    run = measured_run([*argv, "--no-index", "--no-progress"], TIMEOUT)
    if run.exit_code != 0:
        raise RuntimeError(f"{' '.join(argv)}: exit code {run.exit_code}: {run.stderr[-2000:]}")
    pairs = len(json.loads(run.stdout)["pairs"])
    return {
        "seconds": round(run.seconds, 2),
        "peak_rss_mb": round(run.peak_rss_mb),
        "tree_peak_mb": rounded_mb(run.tree_peak_mb),
        "pairs": pairs,
    }


def fitted(runs: dict[int, dict], total: int) -> dict | None:
    """``a·n + b·n(n−1)/2`` fitted to the finished runs' seconds, and at ``total``."""
    done = {n: r["seconds"] for n, r in runs.items() if r.get("finished", True)}
    if len(done) < 2:
        return None
    sizes = np.array(sorted(done), dtype=float)
    seconds = np.array([done[int(n)] for n in sizes])
    terms = np.column_stack([sizes, sizes * (sizes - 1) / 2])
    (per_document, per_pair), *_ = np.linalg.lstsq(terms, seconds, rcond=None)
    per_document, per_pair = max(per_document, 0.0), max(per_pair, 0.0)
    at_total = per_document * total + per_pair * total * (total - 1) / 2
    return {
        "seconds_per_document": per_document,
        "microseconds_per_pair": round(per_pair * 1e6, 3),
        "seconds_at_total": round(at_total),
        "hours_at_total": round(at_total / 3600, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--current", default=str(scale.DEFAULT_CURRENT), help="doublet")
    args = parser.parse_args()

    folder, _ = scale_100k.paths_of(scale_100k.DOCUMENTS)
    truth = scale_100k.build_folder()
    documents = sorted(
        p.relative_to(folder) for p in folder.rglob("*.txt") if ".doublet" not in p.parts
    )
    random.Random(SEED).shuffle(documents)
    results: dict = {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "commit": git_commit(),
        "cpus": os.cpu_count(),
        "folder": {"documents": truth["documents"], "megabytes": truth["megabytes"]},
        "load_average_before": scale.load_average(),
        "runs": {},
    }
    tools = {
        "copydetect": lambda paths: copydetect_all_pairs(paths, timeout=TIMEOUT),
        "dolos": lambda paths: dolos_all_pairs(
            paths, timeout=TIMEOUT, max_old_space_size=DOLOS_HEAP
        ),
    }
    for size in sorted(args.sizes):
        sample = sample_folder(folder, documents, size)
        paths = [str(sample / rel) for rel in documents[:size]]
        chars = sum((sample / rel).stat().st_size for rel in documents[:size])
        row: dict = {"documents": size, "megabytes": round(chars / 1e6, 2)}
        row["doublet"] = doublet_scan(args.current, sample)
        for name, run in tools.items():
            found = run(paths)
            row[name] = {
                key: found[key]
                for key in ("seconds", "peak_rss_mb", "pairs", "finished", "reason")
                if key in found
            }
        results["runs"][size] = row
        print(json.dumps(row), flush=True)
        shutil.rmtree(sample, ignore_errors=True)
    total = truth["documents"]
    results["extrapolated"] = {
        name: fitted({n: r[name] for n, r in results["runs"].items()}, total)
        for name in ("copydetect", "dolos")
    }
    results["load_average_after"] = scale.load_average()
    out = scale.RESULTS / "scale_anchors.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(render(results))
    print(f"\n{out.relative_to(scale.REPO)}")


def render(results: dict) -> str:
    lines = [
        "| documents (MB) | Doublet scan | copydetect | Dolos |",
        "|---|---|---|---|",
    ]
    for size, row in results["runs"].items():
        cells = [f"{int(size):,} ({row['megabytes']} MB)"]
        for name in ("doublet", "copydetect", "dolos"):
            run = row[name]
            done = run.get("finished", True)
            cell = f"{run['seconds']:.1f} s, {run['peak_rss_mb']:,.0f} MB{all_processes(run)}"
            cells.append(cell if done else f"not finished ({run.get('reason')})")
        lines.append("| " + " | ".join(cells) + " |")
    for name, fit in results["extrapolated"].items():
        if fit is None:
            lines.append(f"\n{name}: too few finished runs to extrapolate")
            continue
        lines.append(
            f"\n{name}: {fit['microseconds_per_pair']} µs a pair, "
            f"{fit['seconds_per_document']:.4f} s a document: "
            f"{fit['seconds_at_total']:,} s ({fit['hours_at_total']} hours) for "
            f"{results['folder']['documents']:,} documents"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
