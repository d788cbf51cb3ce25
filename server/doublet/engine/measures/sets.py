"""Set measures over winnowed fingerprints: containment and Jaccard."""

from __future__ import annotations

import numpy as np


def containment(a: np.ndarray, b: np.ndarray) -> float:
    """Shared distinct fingerprints over the smaller set (1.0 when one contains the other)."""
    ua, ub = np.unique(a), np.unique(b)
    smaller = min(ua.shape[0], ub.shape[0])
    if smaller == 0:
        return 0.0
    return np.intersect1d(ua, ub, assume_unique=True).shape[0] / smaller


def jaccard(a: np.ndarray, b: np.ndarray) -> float:
    """Shared distinct fingerprints over all distinct fingerprints."""
    ua, ub = np.unique(a), np.unique(b)
    shared = np.intersect1d(ua, ub, assume_unique=True).shape[0]
    union = ua.shape[0] + ub.shape[0] - shared
    return shared / union if union else 0.0
