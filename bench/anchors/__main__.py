"""`python -m bench.anchors setup|check`: install the anchors, or try them on a tiny example."""

from __future__ import annotations

import argparse
import os
import tempfile
from collections.abc import Callable

from bench.anchors import (
    PairResult,
    TextPair,
    copydetect_all_pairs,
    copydetect_compare,
    dolos_all_pairs,
    dolos_compare,
    setup,
)

SHARED = (
    "The committee resolved that every applicant 🦉 shall submit two references\n"
    "and a written statement before the closing date in March."
)
EXAMPLE: TextPair = (
    "Minutes of the spring meeting.\nAttendance was good. " + SHARED + " Tea followed.",
    "Notes, 𝔄utumn term 😀.\nSeveral points were raised. " + SHARED + "\nNothing else.",
)


def check() -> bool:
    """Run both anchors on a planted shared passage; True if offsets slice equal text."""
    ok = True
    runners: dict[str, Callable[[list[TextPair]], list[PairResult]]] = {
        "copydetect": copydetect_compare,
        "dolos": dolos_compare,
    }
    for name, compare in runners.items():
        (result,) = compare([EXAMPLE])
        print(f"{name}: similarity {result.similarity:.3f}, {len(result.passages)} passages")
        for a0, a1, b0, b1 in result.passages:
            same = EXAMPLE[0][a0:a1] == EXAMPLE[1][b0:b1]
            ok = ok and same
            print(f"  a[{a0}:{a1}] b[{b0}:{b1}] same text: {same}: {EXAMPLE[0][a0:a1]!r}")
    return _check_all_pairs() and ok


def _check_all_pairs() -> bool:
    """Run both all-pairs modes on three small files; True if both finish."""
    with tempfile.TemporaryDirectory() as folder:
        paths = []
        for i, text in enumerate([*EXAMPLE, "Unrelated text about gardening in winter."]):
            paths.append(os.path.join(folder, f"doc{i}.txt"))
            with open(paths[-1], "w", encoding="utf-8") as f:
                f.write(text)
        results = {"copydetect": copydetect_all_pairs(paths), "dolos": dolos_all_pairs(paths)}
    for name, result in results.items():
        print(f"{name} all pairs: {result}")
    return all(r["finished"] for r in results.values())


def main() -> int:
    """Parse the command line and run the chosen command."""
    parser = argparse.ArgumentParser(prog="python -m bench.anchors")
    parser.add_argument("command", choices=["setup", "check"])
    args = parser.parse_args()
    if args.command == "setup":
        setup()
        return 0
    return 0 if check() else 1


if __name__ == "__main__":
    raise SystemExit(main())
