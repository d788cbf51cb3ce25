# text_stats.py -- my solution for exercise 4
# run it as:  python text_stats.py <file> [how_many]
# shows the most frequent terms in a document


import string
import sys

NOISE = "a an and are as at be but by for from in is it of on or that the to was with"
IGNORED = set( NOISE.split() )

def load_file(filename):
    # slurp everything into memory (files are small)
    with open(filename, encoding="utf-8") as fh:
        return fh.read()

def normalise(token):
    # drop leading/trailing punctuation incl. smart quotes, then lowercase
    token = token.strip(string.punctuation+"“”‘’")
    return token.lower()

def tally(document):
    freq = {}
    for piece in document.split():
        token = normalise(piece)
        if not token or token in IGNORED:
            continue
        if token.isdigit():
            continue
        freq[token] = freq.get(token,0)+1
    return freq

def most_common(freq, n):
    # descending by frequency, alphabetical when equal
    items = list(freq.items())
    items.sort(key=lambda kv: (-kv[1], kv[0]))
    return items[:n]

def show(items, grand_total):
    col = max((len(token) for token, _ in items), default=4)
    print(f"{'term':<{col}}  count  share")
    print("-"*(col+15))
    for token, hits in items:
        pct = 100.0*hits/grand_total if grand_total else 0.0
        print(f"{token:<{col}}  {hits:>5}  {pct:5.1f}%")

def run(args):
    if len(args) < 2:
        print("usage: text_stats.py FILE [N]", file=sys.stderr)
        return 2
    filename = args[1]
    n = int(args[2]) if len(args) > 2 else 10
    document = load_file(filename)
    freq = tally(document)
    grand_total = sum(freq.values())
    print(f"{len(freq)} distinct words, {grand_total} in total")
    show(most_common(freq, n), grand_total)
    return 0

if __name__ == "__main__":
    sys.exit(run(sys.argv))
