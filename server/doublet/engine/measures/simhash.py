"""SimHash (Charikar): a 64-bit hash where similar documents differ in few bits.

Every word adds its frequency to the bit counters where its own 64-bit hash has
a 1 and subtracts it where it has a 0; the signs of the counters are the
SimHash. Words come from folded text; runs of Chinese characters are segmented
with jieba, since single characters are too common to describe a text.
"""

from __future__ import annotations

import logging
import re
from collections import Counter

import numpy as np

from doublet.engine.hashing import salt_of
from doublet.engine.words import word_strings

BITS = 64
_CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


def _segment_chinese(run: str) -> list[str]:
    import jieba  # imported lazily: loading its dictionary takes about a second

    jieba.setLogLevel(logging.WARNING)
    return [w for w in jieba.cut(run) if w.strip()]


def features(text: str) -> Counter[str]:
    """Word frequencies; Chinese runs are cut into words by jieba."""
    counts: Counter[str] = Counter(word_strings(_CJK_RUN.sub(" ", text)))
    for run in _CJK_RUN.findall(text):
        counts.update(_segment_chinese(run))
    return counts


def simhash(text: str) -> int:
    """The 64-bit SimHash of ``text`` (0 for text without words)."""
    weights = features(text)
    if not weights:
        return 0
    hashes = np.array([salt_of(word) for word in weights], dtype=np.uint64)
    bits = ((hashes[:, None] >> np.arange(BITS, dtype=np.uint64)) & np.uint64(1)).astype(np.int64)
    counts = np.array(list(weights.values()), dtype=np.int64)
    totals = (counts[:, None] * (2 * bits - 1)).sum(axis=0)
    return int(sum(1 << i for i in range(BITS) if totals[i] > 0))


def hamming(x: int, y: int) -> int:
    return (x ^ y).bit_count()


def similarity(x: int, y: int) -> float:
    """1 - Hamming distance / 64."""
    return 1.0 - hamming(x, y) / BITS
