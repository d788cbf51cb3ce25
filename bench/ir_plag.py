"""Source-code reuse on IR-Plag (Java), Doublet beside Dolos and copydetect, in one run.

IR-Plag (Karnalim, 2019) has seven introductory Java tasks ("cases"), each with
one original solution, 15 independent solutions ("non-plagiarized") and
plagiarised copies of the original at six disguise levels (Faidhi & Robinson):
L1 comments and whitespace, L2 + renamed identifiers, L3 + moved declarations,
L4 + changed method structure, L5 + replaced statements, L6 + changed logic.

Every submission is scored against its case's original (one pair each, 460
pairs). Per level, ROC AUC ranks that level's plagiarised files (positives)
against the independent ones (negatives): pooled over cases, and as the mean
of per-case AUCs; "all" pools L1..L6. Also the mean similarity per level and
each tool's time. All tools score the same decoded texts in the same run:

- Doublet: ``compare`` in the ``code`` mode, its ``resemblance`` score (the
  strongest of structure, shared literals and shared names, engine/resemblance);
  "Doublet passages" is the structure alone (the pair's similarity: units
  covered by passages), to show what each kind of evidence adds.
- Dolos 3.5.1: ``new Dolos({language: "java"})`` with its default k-gram length
  and window (23, 17), the pair's ``similarity``.
- copydetect 0.5.0: ``CodeFingerprint`` with filtering on (Pygments' Java
  lexer, names to V/F/O, strings to S) at copydetect's default thresholds
  (noise 25, guarantee 25, window 1), mean of the pair's two similarities;
  "copydetect g30" is the same with guarantee 30 (window 6), whose winnowing
  depends on Python's per-process string hash, so it moves slightly per run.

Reads ir-plag.zip from /work/shared/data (or $DOUBLET_DATA), extracted once
into bench/.cache/. Writes bench/results/ir_plag.json (with every pair's
scores) and prints Markdown tables.

    python -m bench.ir_plag              # all tools (under a minute)
    python -m bench.ir_plag --no-anchors # Doublet only
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.anchors._copydetect import copydetect_code_similarity
from bench.anchors._dolos import dolos_code_similarity
from bench.anchors._setup import copydetect_installed, dolos_installed
from bench.datasets import IR_PLAG_INDEPENDENT, IR_PLAG_LEVELS, ir_plag
from bench.roc import roc_auc
from doublet.engine.comparison import compare
from doublet.engine.document import Document
from doublet.engine.modes import MODES

RESULTS = Path(__file__).resolve().parent / "results"
ALL_LEVELS = "all"

TextPair = tuple[str, str]  # (original, submission)
Scorer = Callable[[Sequence[TextPair]], list[float]]


@dataclass(frozen=True)
class ScoredItem:
    """One submission paired with its case's original."""

    case: str
    label: str  # "non-plagiarized" or L1..L6
    path: str  # relative to the case folder
    pair: TextPair


# --- Scorers --------------------------------------------------------------------------


def doublet_similarity(text_a: str, text_b: str, passages_only: bool = False) -> float:
    """Doublet's score of two Java files in the code mode, default settings."""
    mode = MODES["code"]
    # The code mode picks its lexer from the file name, so both names end in .java.
    result = compare(Document("a.java", text_a, mode), Document("b.java", text_b, mode))
    return result.similarity if passages_only else result.resemblance.score


def doublet_scores(pairs: Sequence[TextPair]) -> list[float]:
    return [doublet_similarity(a, b) for a, b in pairs]


def doublet_passage_scores(pairs: Sequence[TextPair]) -> list[float]:
    return [doublet_similarity(a, b, passages_only=True) for a, b in pairs]


def dolos_java_scores(pairs: Sequence[TextPair]) -> list[float]:
    return dolos_code_similarity(pairs, language="java")


def copydetect_java_scores(pairs: Sequence[TextPair]) -> list[float]:
    return copydetect_code_similarity(pairs, language="java")


def copydetect_java_g30_scores(pairs: Sequence[TextPair]) -> list[float]:
    return copydetect_code_similarity(pairs, language="java", noise_t=25, guarantee_t=30)


def dolos_java_works() -> bool:
    """Whether Dolos can load its tree-sitter Java parser here."""
    try:
        dolos_java_scores([("class A {}", "class B {}")])
    except RuntimeError:
        return False
    return True


def choose_tools(with_anchors: bool) -> tuple[dict[str, Scorer], list[str]]:
    """The scorers to run and notes on any anchor left out or run differently."""
    tools: dict[str, Scorer] = {
        "Doublet": doublet_scores,
        "Doublet passages": doublet_passage_scores,
    }
    notes: list[str] = []
    if not with_anchors:
        return tools, ["anchors not run (--no-anchors)"]
    if not dolos_installed():
        notes.append("Dolos not installed: python -m bench.anchors setup")
    elif dolos_java_works():
        tools["Dolos"] = dolos_java_scores
    else:
        tools["Dolos (char)"] = lambda pairs: dolos_code_similarity(pairs, language="char")
        notes.append(
            "Dolos' Java parser failed to load: Dolos ran on characters (char), k=23, w=17"
        )
    if copydetect_installed():
        tools["copydetect"] = copydetect_java_scores
        tools["copydetect g30"] = copydetect_java_g30_scores
    else:
        notes.append("copydetect not installed: python -m bench.anchors setup")
    return tools, notes


# --- Measuring ------------------------------------------------------------------------


def load_items() -> list[ScoredItem]:
    """Every submission of every case, paired with that case's original."""
    return [
        ScoredItem(case.name, sub.label, sub.path, (case.original, sub.text))
        for case in ir_plag()
        for sub in case.submissions
    ]


def timed_scores(scorer: Scorer, pairs: Sequence[TextPair]) -> tuple[list[float], float]:
    started = time.perf_counter()
    scores = scorer(pairs)
    return scores, time.perf_counter() - started


def level_auc(items: Sequence[ScoredItem], scores: Sequence[float], level: str) -> float:
    """AUC of ``level``'s files (or all plagiarised ones) against the independent ones."""
    kept = [
        (score, item.label != IR_PLAG_INDEPENDENT)
        for item, score in zip(items, scores, strict=True)
        if item.label in (level, IR_PLAG_INDEPENDENT)
        or (level == ALL_LEVELS and item.label in IR_PLAG_LEVELS)
    ]
    return roc_auc([s for s, _ in kept], [positive for _, positive in kept])


def case_mean_auc(items: Sequence[ScoredItem], scores: Sequence[float], level: str) -> float:
    """Mean over cases of the AUC within each case."""
    cases = sorted({item.case for item in items})
    per_case = []
    for case in cases:
        chosen = [(i, s) for i, s in zip(items, scores, strict=True) if i.case == case]
        per_case.append(level_auc([i for i, _ in chosen], [s for _, s in chosen], level))
    return statistics.fmean(per_case)


def mean_similarity(items: Sequence[ScoredItem], scores: Sequence[float], label: str) -> float:
    return statistics.fmean(s for i, s in zip(items, scores, strict=True) if i.label == label)


def summarise_tool(items: Sequence[ScoredItem], scores: list[float], seconds: float) -> dict:
    levels = [*IR_PLAG_LEVELS, ALL_LEVELS]
    labels = [IR_PLAG_INDEPENDENT, *IR_PLAG_LEVELS]
    return {
        "seconds": round(seconds, 2),
        "auc_pooled": {lv: round(level_auc(items, scores, lv), 4) for lv in levels},
        "auc_case_mean": {lv: round(case_mean_auc(items, scores, lv), 4) for lv in levels},
        "mean_similarity": {lb: round(mean_similarity(items, scores, lb), 4) for lb in labels},
    }


def label_counts(items: Sequence[ScoredItem]) -> dict[str, int]:
    return {
        label: sum(item.label == label for item in items)
        for label in (IR_PLAG_INDEPENDENT, *IR_PLAG_LEVELS)
    }


def run(with_anchors: bool) -> dict:
    items = load_items()
    pairs = [item.pair for item in items]
    tools, notes = choose_tools(with_anchors)
    summaries, all_scores = {}, {}
    for name, scorer in tools.items():
        scores, seconds = timed_scores(scorer, pairs)
        all_scores[name] = scores
        summaries[name] = summarise_tool(items, scores, seconds)
        print(
            f"  {name}: all-levels AUC {summaries[name]['auc_pooled'][ALL_LEVELS]:.3f}"
            f" in {seconds:.1f} s",
            flush=True,
        )
    return {
        "pairs": len(items),
        "cases": len({item.case for item in items}),
        "counts": label_counts(items),
        "notes": notes,
        "tools": summaries,
        "scores": [
            {"case": item.case, "path": item.path, "label": item.label}
            | {name: round(all_scores[name][k], 4) for name in tools}
            for k, item in enumerate(items)
        ],
    }


# --- Output ---------------------------------------------------------------------------


def render(results: dict) -> str:
    tools = list(results["tools"])
    counts = results["counts"]
    n_plag = sum(counts[lv] for lv in IR_PLAG_LEVELS)
    lines = [
        f"IR-Plag: {results['pairs']} pairs from {results['cases']} cases; "
        f"negatives: {counts[IR_PLAG_INDEPENDENT]} independent files"
    ]
    for key, title in (
        ("auc_pooled", "AUC, pooled over cases"),
        ("auc_case_mean", "AUC, mean of per-case AUCs"),
    ):
        lines += ["", f"**{title}**", "", _header("level", "n", tools)]
        for level in (*IR_PLAG_LEVELS, ALL_LEVELS):
            n = counts.get(level, n_plag)
            cells = [f"{results['tools'][t][key][level]:.3f}" for t in tools]
            lines.append(f"| {level} | {n} | " + " | ".join(cells) + " |")
    lines += ["", "**Mean similarity to the original**", "", _header("files", "n", tools)]
    for label in (IR_PLAG_INDEPENDENT, *IR_PLAG_LEVELS):
        cells = [f"{results['tools'][t]['mean_similarity'][label]:.3f}" for t in tools]
        lines.append(f"| {label} | {counts[label]} | " + " | ".join(cells) + " |")
    lines += ["", "**Time**", "", "| tool | seconds | ms per pair |", "|---|---:|---:|"]
    for t in tools:
        seconds = results["tools"][t]["seconds"]
        lines.append(f"| {t} | {seconds:.2f} | {1000 * seconds / results['pairs']:.1f} |")
    lines += [f"\nNote: {note}" for note in results["notes"]]
    return "\n".join(lines)


def _header(first: str, second: str, tools: list[str]) -> str:
    return f"| {first} | {second} | " + " | ".join(tools) + " |\n|---|---:|" + "---:|" * len(tools)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-anchors", action="store_true", help="run Doublet only")
    args = parser.parse_args()
    results = run(with_anchors=not args.no_anchors)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "ir_plag.json").write_text(json.dumps(results, indent=2) + "\n")
    print(render(results))


if __name__ == "__main__":
    main()
