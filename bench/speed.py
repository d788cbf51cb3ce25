"""Speed and memory: fingerprinting throughput, and scanning novels cut into ~20 KB documents.

Runs `doublet scan` and the anchors (copydetect, Dolos) on the same folders in
the same run, each as a child process whose wall time and own peak memory are
measured. Reads ../shared/data/novels (or $DOUBLET_DATA/novels).

    python -m bench.speed                   # throughput; 5, 10 novels with anchors; 44 ours only
    python -m bench.speed --anchors-on 5,10,44  # anchors on all 44 too (slow: ~10 min each)
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import sys
import time
from pathlib import Path

from bench.anchors import copydetect_all_pairs, dolos_all_pairs
from bench.datasets import novel_chunks, novel_files
from bench.measure import all_processes, rounded_mb, run_measured
from doublet.engine.document import Document
from doublet.engine.fingerprints import fingerprint
from doublet.engine.modes import MODES

RESULTS = Path(__file__).resolve().parent / "results"


def throughput() -> dict:
    """MB/s of UTF-8 input, one core, all novels, best of 3: through folding, hashing and
    winnowing (fingerprints), and through everything the index keeps of a document
    (fingerprints, sentences and their keys)."""
    texts = [gzip.decompress(p.read_bytes()).decode("utf-8", "replace") for p in novel_files()]
    megabytes = sum(len(t.encode("utf-8")) for t in texts) / 1e6
    mode = MODES["prose"]

    def fingerprints(text: str) -> None:
        fingerprint(mode.units(text), mode.k, mode.window, mode.salt)

    def keys(text: str) -> None:
        _ = Document("novel", text, mode).keys

    figures = {"megabytes": round(megabytes, 1)}
    for name, job in (("fingerprints", fingerprints), ("keys", keys)):
        job(texts[0][:10000])  # warm the folding and stemming tables
        best = float("inf")
        for _ in range(3):
            started = time.perf_counter()
            for text in texts:
                job(text)
            best = min(best, time.perf_counter() - started)
        figures[name] = {"seconds": round(best, 2), "mb_per_s": round(megabytes / best, 1)}
    return figures


def doublet_scan(folder: Path) -> dict:
    """A first scan of the folder (no saved index yet), then a second one reusing it."""
    shutil.rmtree(folder / ".doublet", ignore_errors=True)
    argv = [sys.executable, "-m", "doublet", "scan", str(folder), "--format", "json"]
    argv.append("--no-progress")
    run = run_measured(argv)
    if run.returncode != 0:
        raise RuntimeError(f"doublet scan failed: {run.stderr[-2000:]}")
    data = json.loads(run.stdout)
    again = run_measured(argv)
    return {
        "seconds": round(run.seconds, 2),
        "peak_rss_mb": round(run.peak_rss_mb),
        "tree_peak_mb": rounded_mb(run.tree_peak_mb),
        "pairs": len(data["pairs"]),
        "finished": True,
        "second_scan_seconds": round(again.seconds, 2),
    }


def _anchor(result: dict) -> dict:
    keep = ("seconds", "peak_rss_mb", "pairs", "finished", "reason")
    out = {k: result.get(k) for k in keep}
    out["seconds"] = round(out["seconds"], 2) if out["seconds"] else out["seconds"]
    out["peak_rss_mb"] = round(out["peak_rss_mb"]) if out["peak_rss_mb"] else out["peak_rss_mb"]
    return out


def scan_row(count: int, anchors: bool, timeout: float) -> dict:
    folder = novel_chunks(count)
    paths = sorted(str(p) for p in folder.glob("*.txt"))
    megabytes = sum(Path(p).stat().st_size for p in paths) / 1e6
    row = {"novels": count, "documents": len(paths), "megabytes": round(megabytes, 1)}
    row["doublet"] = doublet_scan(folder)
    print(f"  {count} novels: doublet {row['doublet']}", flush=True)
    if anchors:
        row["copydetect"] = _anchor(copydetect_all_pairs(paths, timeout=timeout))
        print(f"  {count} novels: copydetect {row['copydetect']}", flush=True)
        row["dolos"] = _anchor(dolos_all_pairs(paths, timeout=timeout))
        print(f"  {count} novels: dolos {row['dolos']}", flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--counts", default="5,10,44", help="novel counts to scan")
    parser.add_argument("--anchors-on", default="5,10", help="counts on which to run the anchors")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per anchor run")
    args = parser.parse_args()
    counts = [int(c) for c in args.counts.split(",") if c]
    with_anchors = {int(c) for c in args.anchors_on.split(",") if c}

    print("fingerprinting throughput ...", flush=True)
    results = {"throughput": throughput(), "scans": []}
    print(f"  {results['throughput']}", flush=True)
    for count in counts:
        results["scans"].append(scan_row(count, count in with_anchors, args.timeout))
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "speed.json").write_text(json.dumps(results, indent=2) + "\n")
    print(render(results))


def _cell(result: dict | None) -> str:
    if not result:
        return "—"
    if not result.get("finished"):
        return f"unfinished ({result.get('reason')})"
    return f"{result['seconds']:.1f} s, {result['peak_rss_mb']:,} MB{all_processes(result)}"


def render(results: dict) -> str:
    t = results["throughput"]
    f, k = t["fingerprints"], t["keys"]
    lines = [
        f"Fingerprinting (fold + hash + winnow, one core): {f['mb_per_s']} MB/s "
        f"({t['megabytes']} MB in {f['seconds']} s); everything the index keeps (fingerprints, "
        f"sentences, sentence keys): {k['mb_per_s']} MB/s ({k['seconds']} s)",
        "",
        "| novels | documents | MB | doublet | copydetect | Dolos "
        "| speed-up (cd / Dolos) | memory ratio (cd / Dolos) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in results["scans"]:
        ours = row["doublet"]
        ratios, memory = [], []
        for tool in ("copydetect", "dolos"):
            other = row.get(tool)
            if other and other.get("finished"):
                ratios.append(f"{other['seconds'] / ours['seconds']:.0f}×")
                memory.append(f"{ours['peak_rss_mb'] / other['peak_rss_mb']:.2f}")
            else:
                ratios.append("—")
                memory.append("—")
        lines.append(
            f"| {row['novels']} | {row['documents']:,} | {row['megabytes']} | {_cell(ours)} "
            f"| {_cell(row.get('copydetect'))} | {_cell(row.get('dolos'))} "
            f"| {' / '.join(ratios)} | {' / '.join(memory)} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
