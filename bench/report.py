"""The teacher's report at 500 and 5,000 submissions: build, size, open.

Each folder is a Moodle-style download (a folder per student, as
`doublet report` recognises it) of essays cut from the 44 novels (about 3,000
characters, a student's essay), one in ten with a 1,200-character passage of
another student's pasted in. Measured:

- build: `doublet report FOLDER -o FILE` from nothing (child process: wall
  time, peak memory) and the file's size;
- open: the file opened from disk in headless Chromium (tests/vscode-e2e's
  playwright-core and browser): time to the ranked pairs, to the top pair side
  by side, and back to the overview; the page's JavaScript heap;
- copydetect, the anchor whose report is also one static HTML file, on the
  same folder: `CopyDetector(...).run()` and `generate_html_report()` (in a
  child process; at 5,000 its all-pairs run is projected from 500, not run).

Reads ../shared/data/novels (or $DOUBLET_DATA). Writes bench/results/report.json.

    python -m bench.report [--sizes 500 5000]
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.datasets import CACHE_DIR, chunk_text, novel_files
from bench.measure import git_commit, rounded_mb, run_measured

RESULTS = Path(__file__).resolve().parent / "results"
ROOT = Path(__file__).resolve().parent.parent
ESSAY = 3_000
PASTED = 1_200
OPEN_SCRIPT = Path(__file__).resolve().parent / "report_open.mjs"
COPYDETECT_CHILD = Path(__file__).resolve().parent / "anchors" / "copydetect_report_child.py"


def essays(count: int) -> list[str]:
    """``count`` essays of about ESSAY characters, taken evenly from all the novels."""
    pieces: list[str] = []
    for novel in novel_files():
        text = gzip.decompress(novel.read_bytes()).decode("utf-8", errors="replace")
        pieces += [p for p in chunk_text(text, ESSAY) if len(p) > ESSAY // 2]
    step = max(1, len(pieces) // count)
    return pieces[::step][:count]


def download(count: int) -> Path:
    """A Moodle-style folder of ``count`` submissions (made once, cached)."""
    folder = CACHE_DIR / f"report-{count}"
    done = folder / ".complete"
    if done.exists():
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    texts = essays(count)
    for i, text in enumerate(texts):
        if i % 10 == 0:  # one in ten pastes a passage of the next student's essay
            donor = texts[(i + 1) % len(texts)]
            middle = len(text) // 2
            text = f"{text[:middle]}\n\n{donor[500 : 500 + PASTED]}\n\n{text[middle:]}"
        student = folder / f"Student {i:05d}_{100000 + i}_assignsubmission_file_"
        student.mkdir(parents=True)
        (student / "essay.txt").write_text(text, encoding="utf-8")
    done.touch()
    return folder


def build(folder: Path, out: Path) -> dict:
    argv = [sys.executable, "-m", "doublet", "report", str(folder), "-o", str(out)]
    run = run_measured([*argv, "--no-progress", "--no-index"])
    if run.returncode != 0:
        raise RuntimeError(run.stderr[-2000:])
    page = out.read_text(encoding="utf-8")
    data = json.loads(
        page.split('<script id="report-data" type="application/json">', 1)[1].split("</script>")[0]
    )
    text_bytes = sum(len(t.encode("utf-8")) for t in data["texts"].values())
    return {
        "seconds": round(run.seconds, 2),
        "peak_rss_mb": round(run.peak_rss_mb),
        "tree_peak_mb": rounded_mb(run.tree_peak_mb),
        "file_mb": round(out.stat().st_size / 1e6, 2),
        "texts_mb": round(text_bytes / 1e6, 2),
        "documents": len(data["documents"]),
        "pairs": len(data["pairs"]),
    }


def open_in_chromium(out: Path) -> dict:
    run = subprocess.run(
        ["node", str(OPEN_SCRIPT), str(out)], capture_output=True, text=True, timeout=600
    )
    if run.returncode != 0:
        raise RuntimeError(run.stderr[-2000:])
    return json.loads(run.stdout)


def copydetect_report(folder: Path, out: Path) -> dict:
    run = run_measured([sys.executable, str(COPYDETECT_CHILD), str(folder), str(out)], 3600)
    if run.returncode != 0:
        return {"error": run.stderr[-500:]}
    return {
        "seconds": round(run.seconds, 2),
        "peak_rss_mb": round(run.peak_rss_mb),
        "file_mb": round(out.stat().st_size / 1e6, 2) if out.exists() else None,
        **json.loads(run.stdout),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 5000])
    parser.add_argument("--copydetect-up-to", type=int, default=500)
    args = parser.parse_args()
    results: dict = {"commit": git_commit(), "sizes": {}}
    with tempfile.TemporaryDirectory(prefix="doublet-report-bench-") as scratch:
        for count in args.sizes:
            folder = download(count)
            out = Path(scratch) / f"report-{count}.html"
            row: dict = {"build": build(folder, out)}
            print(count, "build", row["build"], flush=True)
            row["open"] = open_in_chromium(out)
            print(count, "open", row["open"], flush=True)
            if count <= args.copydetect_up_to:
                row["copydetect"] = copydetect_report(folder, Path(scratch) / f"cd-{count}.html")
                print(count, "copydetect", row["copydetect"], flush=True)
            results["sizes"][str(count)] = row
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "report.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
