"""Word counter for one or more files, with a small bar chart.

Example:
    python word_counter.py --top 5 essay1.txt essay2.txt
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

WORD_RE = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")
BORING = frozenset({"the", "of", "and", "to", "a", "in", "is", "it", "that", "was"})


class WordCounter:
    """Accumulates word counts across several documents."""

    def __init__(self, skip_common: bool = True) -> None:
        self.counter: Counter[str] = Counter()
        self.documents = 0
        self.skip_common = skip_common

    def feed(self, text: str) -> None:
        self.documents += 1
        words = (m.group().lower() for m in WORD_RE.finditer(text))
        if self.skip_common:
            words = (w for w in words if w not in BORING)
        self.counter.update(words)

    def feed_file(self, path: Path) -> None:
        self.feed(path.read_text(encoding="utf-8", errors="replace"))

    def report(self, top: int, bar_width: int = 30) -> str:
        common = self.counter.most_common(top)
        if not common:
            return "(no words found)"
        biggest = common[0][1]
        lines = [f"{self.documents} document(s), {sum(self.counter.values())} words kept"]
        for word, n in common:
            bar = "#" * max(1, round(bar_width * n / biggest))
            lines.append(f"{word:>15} {n:4d} {bar}")
        return "\n".join(lines)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Count words in text files.")
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--top", type=int, default=10, help="how many words to show")
    parser.add_argument("--keep-common", action="store_true", help="do not drop stop words")
    return parser.parse_args()


if __name__ == "__main__":
    options = parse_args()
    wc = WordCounter(skip_common=not options.keep_common)
    for file in options.files:
        wc.feed_file(file)
    print(wc.report(options.top))
