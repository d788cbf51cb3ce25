"""One number for how alike two programs are, from three kinds of evidence.

Passages say where code was copied, and their coverage (the pair's
similarity) is the evidence of *structure*: the same statements in the same
order, whatever the names. But a copier who moves methods about, swaps a
``for`` for a ``while`` and flips conditions breaks the structure into pieces
too short to be passages, while two students solving a small exercise
independently often write the same structure. What such a copier rarely
changes is what the program *says*: its messages and constants. And a copier
who did not rename keeps the names. So, for code:

- ``structure``: the pair's exact coverage (units in the exact runs of its
  passages; the similarity, which counts passages whole, gaps bridged, makes
  two solutions a few tokens apart equal to two copies);
- ``literals``: cosine of the two programs' string and number literals;
- ``names``: Jaccard of their identifiers (as multisets; a file's own name,
  which Java gives its public class, left out: engine/code.code_lexicon).

``score`` is structure plus a weighted share of the other two, scaled back into
[0, 1]: ``(s + 0.3·l + 0.1·n) / 1.4``. The weights were chosen by
leave-one-out over the tasks of two labelled corpora together, IR-Plag (Java)
and Ljubović & Pajić's homework (C/C++), bench/code_ranking.py: the two
disagree (IR-Plag alone would weigh literals 5 to 1 over structure, the C
homework, where every solution prints the prescribed messages, wants them
light), and a rule chosen on one does not carry over to the other. These
weights were chosen, pooled, in 56 of the 57 folds that each leave one task
out; their held-out scores and spread are in docs/benchmarks.md. For prose
the score is the similarity: there, the sentence stage finds reworded text.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from doublet.engine.document import Document

#: Weights of shared literals and of shared names beside structure (weight 1).
LITERALS_WEIGHT = 0.3
NAMES_WEIGHT = 0.1


@dataclass(frozen=True, slots=True)
class Resemblance:
    """A pair's evidence and the score made of it (all in [0, 1])."""

    structure: float
    literals: float
    names: float
    score: float

    def __reduce__(self) -> tuple:  # as engine/passages.Side's
        return (Resemblance, (self.structure, self.literals, self.names, self.score))


def resemblance(structure: float, a: Document, b: Document) -> Resemblance:
    """How alike two documents are over all the evidence their mode has.

    ``structure`` is the share of them that passages match: for code the exact
    coverage, for prose the similarity (PairResult.resemblance).
    """
    if not a.mode.lexical:
        return Resemblance(structure, 0.0, 0.0, structure)
    la, lb = a.lexicon, b.lexicon
    return combined(structure, _cosine(la.literals, lb.literals), _jaccard(la.names, lb.names))


def combined(structure: float, literals: float, names: float) -> Resemblance:
    """A program pair's evidence and its score (the weights above)."""
    score = (structure + LITERALS_WEIGHT * literals + NAMES_WEIGHT * names) / (
        1 + LITERALS_WEIGHT + NAMES_WEIGHT
    )
    return Resemblance(structure, literals, names, score)


def _counts(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """How often each distinct value of ``a`` or ``b`` occurs in each."""
    values, inverse = np.unique(np.concatenate([a, b]), return_inverse=True)
    ca = np.bincount(inverse[: a.shape[0]], minlength=values.shape[0])
    cb = np.bincount(inverse[a.shape[0] :], minlength=values.shape[0])
    return ca.astype(np.float64), cb.astype(np.float64)


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    if not a.shape[0] or not b.shape[0]:
        return 0.0
    ca, cb = _counts(a, b)
    return float(ca @ cb / (np.linalg.norm(ca) * np.linalg.norm(cb)))


def _jaccard(a: np.ndarray, b: np.ndarray) -> float:
    if not a.shape[0] or not b.shape[0]:
        return 0.0
    ca, cb = _counts(a, b)
    return float(np.minimum(ca, cb).sum() / np.maximum(ca, cb).sum())
