"""The anchors: copydetect 0.5.0 and Dolos 3.5.1, run as /work/shared/ANCHORS.md says.

Passages are (a_start, a_end, b_start, b_end) code-point offsets into the two
texts of a pair, ends exclusive, so they compare directly with ours.
"""

from bench.anchors._copydetect import (
    copydetect_all_pairs,
    copydetect_compare,
    copydetect_pairs,
    copydetect_similarity,
)
from bench.anchors._dolos import dolos_all_pairs, dolos_compare, dolos_pairs, dolos_similarity
from bench.anchors._setup import copydetect_installed, dolos_installed, setup
from bench.anchors._types import PairResult, Passage, TextPair

__all__ = [
    "PairResult",
    "Passage",
    "TextPair",
    "copydetect_all_pairs",
    "copydetect_compare",
    "copydetect_installed",
    "copydetect_pairs",
    "copydetect_similarity",
    "dolos_all_pairs",
    "dolos_compare",
    "dolos_installed",
    "dolos_pairs",
    "dolos_similarity",
    "setup",
]
