#!/usr/bin/env python3
# Streaming top-k word frequencies. Reads standard input line by line,
# so it also works on files too big to load at once, and writes CSV.
#
#   cat essay.txt | python top_words_heap.py 20 > top.csv

import csv
import heapq
import sys
import unicodedata
from collections import defaultdict

# Map every punctuation character of the Basic Multilingual Plane to a space.
PUNCT_TO_SPACE = {cp: " " for cp in range(0x10000) if unicodedata.category(chr(cp)).startswith("P")}
SKIP = {"and", "but", "for", "from", "the", "this", "with", "are", "was", "were", "its"}


def tokens(lines):
    """Yield lower-case words from an iterable of lines."""
    for line in lines:
        for tok in line.translate(PUNCT_TO_SPACE).casefold().split():
            if tok.isalpha() and tok not in SKIP:
                yield tok


def frequencies(words):
    table = defaultdict(int)
    for w in words:
        table[w] += 1
    return table


def top_k(table, k):
    # nlargest keeps only k entries in its heap instead of sorting everything.
    best = heapq.nlargest(k, table.items(), key=lambda item: (item[1], [-ord(c) for c in item[0]]))
    return best


def write_csv(rows, total, out):
    writer = csv.writer(out)
    writer.writerow(["rank", "word", "count", "percent"])
    for rank, (word, count) in enumerate(rows, start=1):
        writer.writerow([rank, word, count, f"{count / total:.2%}"])


def main():
    try:
        k = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    except ValueError:
        sys.exit("k must be a whole number")
    table = frequencies(tokens(sys.stdin))
    if not table:
        sys.exit("no words on standard input")
    write_csv(top_k(table, k), sum(table.values()), sys.stdout)


if __name__ == "__main__":
    main()
