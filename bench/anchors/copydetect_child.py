"""Child process of `copydetect_all_pairs`: one CopyDetector run, summary on stdout.

A standalone script (no imports from our code) so that the measured process
holds copydetect's memory only.
"""

from __future__ import annotations

import json
import sys
import time

NOISE = 25


def run_detector(folder: str) -> dict[str, object]:
    """Run CopyDetector on `folder` against itself, as the anchors did."""
    from copydetect import CopyDetector

    start = time.perf_counter()
    detector = CopyDetector(
        test_dirs=[folder],
        ref_dirs=[folder],
        noise_t=NOISE,
        guarantee_t=NOISE,
        disable_filtering=True,
        silent=True,  # only keeps its progress bars off our stdout
    )
    detector.run()
    n = len(detector.file_data)
    return {
        "pairs": len(detector.slice_matrix),  # unordered pairs with a shared passage
        "pairs_compared": n * (n - 1) // 2,
        "files": n,
        "tool_seconds": time.perf_counter() - start,
    }


if __name__ == "__main__":
    print(json.dumps(run_detector(sys.argv[1])))
