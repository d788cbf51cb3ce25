"""@dodona/dolos-lib 3.5.1, run the way /work/shared/ANCHORS.md describes.

Dolos is a Node library, so a Node script does the comparing and we spawn it
once per batch (starting Node per pair would cost more than Dolos itself).
Its selections come back as (row, UTF-16 column) and are converted here.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from collections.abc import Sequence

from bench.anchors._child import run_child, summarise
from bench.anchors._offsets import LineIndex
from bench.anchors._types import PairResult, Passage, TextPair

DOLOS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dolos")
PAIRS_SCRIPT = os.path.join(DOLOS_DIR, "run_pairs.mjs")
ALL_PAIRS_SCRIPT = os.path.join(DOLOS_DIR, "run_all_pairs.mjs")


def dolos_compare(pairs: Sequence[TextPair], node: str = "node") -> list[PairResult]:
    """Compare each (text_a, text_b) pair; one call gives both passages and scores."""
    raw = _run_pairs_script(pairs, node)
    return [_to_result(text_a, text_b, r) for (text_a, text_b), r in zip(pairs, raw, strict=True)]


def _run_pairs_script(
    pairs: Sequence[TextPair], node: str, language: str | None = None
) -> list[dict]:
    """Feed all pairs to one Node process as JSON lines; read one line back per pair.

    Without ``language`` the script compares prose (char tokens, k=23, w=17);
    with one it uses that tree-sitter language and Dolos' default k and window.
    """
    payload = "".join(json.dumps({"a": a, "b": b}) + "\n" for a, b in pairs)
    language_args = ["--language", language] if language is not None else []
    done = subprocess.run(
        [node, PAIRS_SCRIPT, *language_args],
        input=payload,
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=DOLOS_DIR,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"Dolos script failed ({done.returncode}): {done.stderr[-2000:]}")
    results = [json.loads(line) for line in done.stdout.split("\n") if line.strip()]
    if len(results) != len(pairs):
        raise RuntimeError(f"Dolos returned {len(results)} results for {len(pairs)} pairs")
    errors = [r["error"] for r in results if "error" in r]
    if errors:
        raise RuntimeError(f"Dolos failed on {len(errors)} pairs; first: {errors[0]}")
    return results


def _to_result(text_a: str, text_b: str, raw: dict) -> PairResult:
    """Convert one pair's Dolos selections to code-point passages."""
    index_a, index_b = LineIndex(text_a), LineIndex(text_b)
    passages = []
    for fragment in raw["fragments"]:
        a_start, a_end = index_a.span(fragment[:4])
        b_start, b_end = index_b.span(fragment[4:])
        passages.append((a_start, a_end, b_start, b_end))
    return PairResult(passages, float(raw["similarity"]))


def dolos_pairs(pairs: Sequence[TextPair]) -> list[list[Passage]]:
    """Passages (a_start, a_end, b_start, b_end) per pair, code-point offsets."""
    return [r.passages for r in dolos_compare(pairs)]


def dolos_similarity(pairs: Sequence[TextPair]) -> list[float]:
    """Dolos' pair similarity per pair (the score the AUCs used)."""
    return [r.similarity for r in dolos_compare(pairs)]


def dolos_code_similarity(
    pairs: Sequence[TextPair], language: str = "java", node: str = "node"
) -> list[float]:
    """Dolos' pair similarity for source code, run as its users run it on code.

    ``new Dolos({language})`` with Dolos' default k-gram length and window (23
    and 17 in 3.5.1); only the score is read, not the tree-sitter selections.
    """
    return [float(r["similarity"]) for r in _run_pairs_script(pairs, node, language)]


def dolos_all_pairs(
    paths: Sequence[str],
    timeout: float = 600.0,
    max_old_space_size: int | None = None,
    node: str = "node",
) -> dict[str, object]:
    """All-pairs Dolos run over `paths` in a child Node process.

    `max_old_space_size` (MB) raises Node's heap limit; at the default limit
    Dolos runs out of memory on a few tens of MB of text, which is reported as
    finished=False with the reason, not raised.
    """
    argv = [node]
    if max_old_space_size is not None:
        argv.append(f"--max-old-space-size={max_old_space_size}")
    with tempfile.NamedTemporaryFile("w", suffix=".txt", encoding="utf-8") as listing:
        listing.write("".join(os.path.abspath(p) + "\n" for p in paths))
        listing.flush()
        run = run_child([*argv, ALL_PAIRS_SCRIPT, listing.name], timeout, cwd=DOLOS_DIR)
    result = summarise(run, timeout)
    result["max_old_space_size"] = max_old_space_size
    return result
