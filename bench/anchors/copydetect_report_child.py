"""Child process of bench/report.py: copydetect's all-pairs run and its HTML report.

A standalone script (no imports from our code), run as the anchors were
(ANCHORS.md: noise and guarantee 25, filtering off), with the report saved
where the second argument says. Prints the times on stdout as JSON.
"""

from __future__ import annotations

import json
import sys
import time

NOISE = 25


def main(folder: str, out: str) -> dict[str, object]:
    import matplotlib

    matplotlib.use("Agg")  # no display: the report's plots are drawn to images
    from copydetect import CopyDetector

    started = time.perf_counter()
    detector = CopyDetector(
        test_dirs=[folder],
        ref_dirs=[folder],
        extensions=["txt"],
        noise_t=NOISE,
        guarantee_t=NOISE,
        disable_filtering=True,
        autoopen=False,
        out_file=out,
        silent=True,
    )
    detector.run()
    ran = time.perf_counter()
    detector.generate_html_report()
    return {
        "files": len(detector.file_data),
        "run_seconds": round(ran - started, 2),
        "report_seconds": round(time.perf_counter() - ran, 2),
    }


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], sys.argv[2])))
