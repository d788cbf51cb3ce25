"""Count how often each word appears in a text file.

Usage: python wordfreq.py FILE [N]

Prints the N most common words (default 10), ignoring case,
punctuation and a short list of very common English words.
"""

import string
import sys

STOP_TEXT = "a an and are as at be but by for from in is it of on or that the to was with"
STOP_WORDS = set(STOP_TEXT.split())


def read_text(path):
    # Read the whole file at once; the inputs are short essays.
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def clean_word(word):
    # Strip punctuation from both ends and lower-case what is left.
    word = word.strip(string.punctuation + "“”‘’")
    return word.lower()


def count_words(text):
    counts = {}
    for raw in text.split():
        word = clean_word(raw)
        if not word or word in STOP_WORDS:
            continue
        if word.isdigit():
            continue
        counts[word] = counts.get(word, 0) + 1
    return counts


def top_words(counts, limit):
    # Highest count first; ties are broken alphabetically.
    pairs = list(counts.items())
    pairs.sort(key=lambda pair: (-pair[1], pair[0]))
    return pairs[:limit]


def print_table(pairs, total):
    width = max((len(word) for word, _ in pairs), default=4)
    print(f"{'word':<{width}}  count  share")
    print("-" * (width + 15))
    for word, count in pairs:
        share = 100.0 * count / total if total else 0.0
        print(f"{word:<{width}}  {count:>5}  {share:5.1f}%")


def main(argv):
    if len(argv) < 2:
        print("usage: wordfreq.py FILE [N]", file=sys.stderr)
        return 2
    path = argv[1]
    limit = int(argv[2]) if len(argv) > 2 else 10
    text = read_text(path)
    counts = count_words(text)
    total = sum(counts.values())
    print(f"{len(counts)} distinct words, {total} in total")
    print_table(top_words(counts, limit), total)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
