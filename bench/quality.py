"""Quality on real data, Doublet beside the anchors (copydetect, Dolos), in one run.

- PAN 2013 text-alignment training corpus, the given pairs: plagdet, precision,
  recall and granularity per obfuscation folder and overall, and detections on
  01-no-plagiarism (false alarms).
- Clough & Stevenson: every answer against its task's original; ROC AUC of
  cut + light + heavy against non, heavy against non, and mean coverage per
  category.

Reads ../shared/data (or $DOUBLET_DATA). Writes bench/results/quality.json and
prints Markdown tables for docs/benchmarks.md.

    python -m bench.quality              # everything (about 3 minutes, most of it the anchors)
    python -m bench.quality --no-anchors # Doublet only
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from bench.datasets import PAN13_FOLDERS, clough_stevenson, pan13
from bench.pan_measures import PanScores, evaluate_pair
from bench.roc import roc_auc
from doublet.engine.comparison import compare
from doublet.engine.document import Document
from doublet.engine.modes import MODES

RESULTS = Path(__file__).resolve().parent / "results"
Detection = tuple[int, int, int, int]  # susp offset, susp length, src offset, src length


def doublet_pairs(
    texts: list[tuple[str, str]], score: str = "similarity"
) -> tuple[list[list[Detection]], list[float]]:
    """Passages and ``score`` (a PairResult figure) of each (suspicious, source) pair."""
    mode = MODES["prose"]
    detections, similarities = [], []
    for susp, src in texts:
        result = compare(Document("a", susp, mode), Document("b", src, mode))
        detections.append(
            [
                (p.a.start, p.a.end - p.a.start, p.b.start, p.b.end - p.b.start)
                for p in result.passages
            ]
        )
        similarities.append(getattr(result, score))
    return detections, similarities


def _as_detections(passages: list[tuple[int, int, int, int]]) -> list[Detection]:
    return [(a0, a1 - a0, b0, b1 - b0) for a0, a1, b0, b1 in passages]


def pan(tools: dict) -> dict:
    corpus = pan13()
    pairs = corpus.pairs()
    texts = [(corpus.susp_text(p.susp), corpus.src_text(p.src)) for p in pairs]
    out = {}
    for name, run in tools.items():
        started = time.perf_counter()
        detections = run(texts)
        seconds = time.perf_counter() - started
        per_folder: dict[str, PanScores] = {}
        for pair, found in zip(pairs, detections, strict=True):
            score = evaluate_pair(pair.cases, found)
            per_folder[pair.folder] = (
                per_folder[pair.folder] + score if pair.folder in per_folder else score
            )
        overall = sum(per_folder.values(), PanScores())
        out[name] = {
            "seconds": round(seconds, 1),
            "pairs": len(pairs),
            "folders": {f: per_folder[f].as_dict() for f in PAN13_FOLDERS},
            "folder_pairs": {f: sum(p.folder == f for p in pairs) for f in PAN13_FOLDERS},
            "overall": overall.as_dict(),
        }
        print(f"  PAN {name}: overall plagdet {overall.plagdet:.3f} in {seconds:.0f} s", flush=True)
    return out


def clough(tools: dict) -> dict:
    corpus = clough_stevenson()
    answers = corpus.answers
    texts = [(a.text, corpus.originals[a.task]) for a in answers]
    positive = [a.category != "non" for a in answers]
    out = {}
    for name, run in tools.items():
        scores = run(texts)
        heavy = [
            (s, a.category == "heavy")
            for s, a in zip(scores, answers, strict=True)
            if a.category in ("heavy", "non")
        ]
        means = {
            c: round(
                statistics.mean(s for s, a in zip(scores, answers, strict=True) if a.category == c),
                3,
            )
            for c in ("cut", "light", "heavy", "non")
        }
        out[name] = {
            "auc": round(roc_auc(scores, positive), 3),
            "auc_heavy": round(roc_auc([h[0] for h in heavy], [h[1] for h in heavy]), 3),
            "mean_by_category": means,
        }
        print(f"  Clough & Stevenson {name}: AUC {out[name]['auc']}", flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-anchors", action="store_true", help="run Doublet only")
    args = parser.parse_args()
    pan_tools = {"doublet": lambda texts: doublet_pairs(texts)[0]}
    cs_tools = {
        "doublet": lambda texts: doublet_pairs(texts)[1],
        # the share copied word for word: what cut > light > heavy > non is about
        "doublet (exact coverage)": lambda texts: doublet_pairs(texts, "exact_coverage")[1],
    }
    if not args.no_anchors:
        from bench.anchors import copydetect_compare, dolos_compare

        def passages_of(compare_tool):
            return lambda texts: [_as_detections(r.passages) for r in compare_tool(texts)]

        def similarity_of(compare_tool):
            return lambda texts: [r.similarity for r in compare_tool(texts)]

        pan_tools.update(
            copydetect=passages_of(copydetect_compare), dolos=passages_of(dolos_compare)
        )
        cs_tools.update(
            copydetect=similarity_of(copydetect_compare), dolos=similarity_of(dolos_compare)
        )
    print("PAN 2013 training corpus ...", flush=True)
    results = {"pan13": pan(pan_tools)}
    print("Clough & Stevenson ...", flush=True)
    results["clough_stevenson"] = clough(cs_tools)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "quality.json").write_text(json.dumps(results, indent=2) + "\n")
    print(render(results))


def render(results: dict) -> str:
    pan_results = results["pan13"]
    tools = list(pan_results)
    lines = [
        "PAN 2013 training corpus, given pairs: plagdet / precision / recall / granularity",
        "",
        "| folder | " + " | ".join(tools) + " |",
        "|---|" + "---|" * len(tools),
    ]
    for folder in PAN13_FOLDERS:
        cells = []
        for tool in tools:
            s = pan_results[tool]["folders"][folder]
            if folder.startswith("01"):
                count = pan_results[tool]["folder_pairs"][folder]
                cells.append(f"{s['detections']} detections in {count:,} pairs")
            else:
                figures = (s["plagdet"], s["precision"], s["recall"])
                cells.append(" / ".join(f"{x:.3f}" for x in figures) + f" / {s['granularity']:.2f}")
        lines.append(f"| {folder} | " + " | ".join(cells) + " |")
    lines.append(
        "| overall | "
        + " | ".join(f"{pan_results[t]['overall']['plagdet']:.3f}" for t in tools)
        + " |"
    )
    lines.append(
        f"| time for {pan_results[tools[0]]['pairs']:,} pairs | "
        + " | ".join(f"{pan_results[t]['seconds']:.0f} s" for t in tools)
        + " |"
    )
    cs = results["clough_stevenson"]
    lines += [
        "",
        "Clough & Stevenson, each answer against its task's original",
        "",
        "| tool | AUC plagiarised vs non | AUC heavy vs non | mean score cut/light/heavy/non |",
        "|---|---|---|---|",
    ]
    for tool, r in cs.items():
        m = r["mean_by_category"]
        lines.append(
            f"| {tool} | {r['auc']:.3f} | {r['auc_heavy']:.3f} | "
            f"{m['cut']:.3f} / {m['light']:.3f} / {m['heavy']:.3f} / {m['non']:.3f} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
