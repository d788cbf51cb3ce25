"""copydetect 0.5.0, run the way /work/shared/ANCHORS.md describes.

Noise threshold 25, window 1, filtering off: copydetect's filter tokenizes
source code and leaves plain text empty, and with it off the slices it returns
are code-point offsets into the original text.
"""

from __future__ import annotations

import io
import os
import sys
import tempfile
from collections.abc import Sequence

from bench.anchors._child import run_child, summarise
from bench.anchors._types import PairResult, Passage, TextPair

CHILD = os.path.join(os.path.dirname(__file__), "copydetect_child.py")

NOISE = 25
WINDOW = 1


def copydetect_compare(pairs: Sequence[TextPair]) -> list[PairResult]:
    """Compare each (text_a, text_b) pair; one call gives both passages and scores."""
    from copydetect import CodeFingerprint, compare_files

    results = []
    for text_a, text_b in pairs:
        fa = CodeFingerprint("a.txt", NOISE, WINDOW, filter=False, fp=io.StringIO(text_a))
        fb = CodeFingerprint("b.txt", NOISE, WINDOW, filter=False, fp=io.StringIO(text_b))
        _, (sim_a, sim_b), (slices_a, slices_b) = compare_files(fa, fb)
        results.append(PairResult(_pair_slices(slices_a, slices_b), float(sim_a + sim_b) / 2))
    return results


def copydetect_code_similarity(
    pairs: Sequence[TextPair],
    language: str = "java",
    noise_t: int | None = None,
    guarantee_t: int | None = None,
) -> list[float]:
    """Mean of copydetect's two similarities per pair of source files, filtering on.

    Filtering tokenizes with the Pygments lexer named by ``language`` and maps
    names to V/F/O and strings to S, dropping whitespace and comments. The
    thresholds default to copydetect's own (``copydetect.defaults``: 25 and
    25, so a winnowing window of 1); the window is ``guarantee_t - noise_t + 1``
    as CopyDetector computes it.
    """
    from copydetect import CodeFingerprint, compare_files, defaults

    noise = defaults.NOISE_THRESHOLD if noise_t is None else noise_t
    guarantee = defaults.GUARANTEE_THRESHOLD if guarantee_t is None else guarantee_t
    window = guarantee - noise + 1
    scores = []
    for text_a, text_b in pairs:
        fa = CodeFingerprint("a", noise, window, language=language, fp=io.StringIO(text_a))
        fb = CodeFingerprint("b", noise, window, language=language, fp=io.StringIO(text_b))
        _, (sim_a, sim_b), _ = compare_files(fa, fb)
        scores.append(float(sim_a + sim_b) / 2)
    return scores


def _pair_slices(slices_a: object, slices_b: object) -> list[Passage]:
    """Pair each side's i-th slice in order, as the anchors were measured.

    copydetect returns the two sides' slices as independent 2xN arrays
    (starts, ends); when the counts differ, the extra slices are dropped.
    """
    starts_a, ends_a = _as_lists(slices_a)
    starts_b, ends_b = _as_lists(slices_b)
    return list(zip(starts_a, ends_a, starts_b, ends_b, strict=False))


def _as_lists(slices: object) -> tuple[list[int], list[int]]:
    """(starts, ends) as plain ints; copydetect gives an empty 1-D array for no overlap."""
    rows = slices.tolist()  # type: ignore[attr-defined]
    if len(rows) != 2:
        return [], []
    return [int(x) for x in rows[0]], [int(x) for x in rows[1]]


def copydetect_pairs(pairs: Sequence[TextPair]) -> list[list[Passage]]:
    """Passages (a_start, a_end, b_start, b_end) per pair, code-point offsets."""
    return [r.passages for r in copydetect_compare(pairs)]


def copydetect_similarity(pairs: Sequence[TextPair]) -> list[float]:
    """Mean of copydetect's two similarities per pair (the score the AUCs used)."""
    return [r.similarity for r in copydetect_compare(pairs)]


def copydetect_all_pairs(paths: Sequence[str], timeout: float = 600.0) -> dict[str, object]:
    """All-pairs CopyDetector run over `paths` in a child process.

    CopyDetector only takes directories, so the files are symlinked into a
    temporary one, each under an index prefix so equal base names stay apart.
    """
    with tempfile.TemporaryDirectory(prefix="copydetect-") as folder:
        for i, path in enumerate(paths):
            name = f"{i:06d}_{os.path.basename(path)}"
            os.symlink(os.path.abspath(path), os.path.join(folder, name))
        run = run_child([sys.executable, CHILD, folder], timeout)
    return summarise(run, timeout)
