"""Document-level measures: one number per pair, each with its own strengths.

Passages say *where* two documents match; these say *how much* at a glance and
answer different questions: containment finds a short text inside a long one,
Jaccard and MinHash near-duplicates, the profile cosine and FlyHash shared
vocabulary, SimHash and CTPH lightly edited copies.
"""

from __future__ import annotations

from doublet.engine.document import Document
from doublet.engine.hashing import kgram_hashes
from doublet.engine.measures import ctph, flyhash, minhash, profile, sets, simhash

MEASURE_NAMES = (
    "containment",
    "jaccard",
    "cosine",
    "simhash",
    "simhash_distance",
    "minhash",
    "ctph",
    "flyhash",
)


def measure_all(a: Document, b: Document) -> dict[str, float]:
    """Every document-level measure for one pair, each in [0, 1] except the distance in bits."""
    ha, hb = simhash.simhash(a.text), simhash.simhash(b.text)
    return {
        "containment": sets.containment(a.fingerprints.hashes, b.fingerprints.hashes),
        "jaccard": sets.jaccard(a.fingerprints.hashes, b.fingerprints.hashes),
        "cosine": profile.cosine(profile.profile(a.units), profile.profile(b.units)),
        "simhash": simhash.similarity(ha, hb),
        "simhash_distance": simhash.hamming(ha, hb),
        "minhash": minhash.similarity(
            minhash.signature(kgram_hashes(a.units.symbols, a.mode.k, a.mode.salt)),
            minhash.signature(kgram_hashes(b.units.symbols, b.mode.k, b.mode.salt)),
        ),
        "ctph": ctph.compare(ctph.fuzzy_hash(a.units.symbols), ctph.fuzzy_hash(b.units.symbols))
        / 100.0,
        "flyhash": flyhash.similarity(flyhash.tag(a.units), flyhash.tag(b.units)),
    }
