"""Reports: scan and compare results as JSON-ready data, text, CSV and a matrix.

The JSON shape is documented in docs/cli.md and kept stable; the text and CSV
renderings are made from the same data, so every format says the same thing.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass

from doublet.engine.comparison import PairResult
from doublet.engine.document import Document
from doublet.engine.passages import Side
from doublet.excerpts import excerpt, line_range, lines_label
from doublet.skipped import Skipped


@dataclass(frozen=True)
class Listing:
    """The documents a report is about, numbered: the ids of the JSON output.

    ``shown`` turns an engine name (a path, or a workspace-relative path) into
    the path printed; the text of a document is needed only for its excerpts,
    and comes from the results.
    """

    names: list[str]
    chars: dict[str, int]
    modes: dict[str, str]
    shown: dict[str, str]

    def ids(self) -> dict[str, int]:
        return {name: i for i, name in enumerate(self.names)}

    def data(self) -> list[dict]:
        return [
            {"id": i, "path": self.shown[n], "chars": self.chars[n], "mode": self.modes[n]}
            for i, n in enumerate(self.names)
        ]


def _side(document: Document, side: Side) -> dict:
    first, last = line_range(document.text, side.start, side.end)
    return {"start": side.start, "end": side.end, "line": first, "end_line": last}


def pair_data(result: PairResult, ids: dict[str, int]) -> dict:
    data = {
        "a": ids[result.a.name],
        "b": ids[result.b.name],
        "similarity": round(result.similarity, 4),
        "exact_coverage": round(result.exact_coverage, 4),
        "a_coverage": round(result.a_coverage, 4),
        "b_coverage": round(result.b_coverage, 4),
        "longest": result.longest,
        "passages": [
            {
                "a": _side(result.a, p.a),
                "b": _side(result.b, p.b),
                "score": p.score,
                "kind": p.kind,
            }
            for p in result.passages
        ],
    }
    if result.a.mode.lexical:
        evidence = result.resemblance
        data["resemblance"] = {
            "score": round(evidence.score, 4),
            "structure": round(evidence.structure, 4),
            "literals": round(evidence.literals, 4),
            "names": round(evidence.names, 4),
        }
    return data


def _resemblance_line(pair: dict) -> str:
    evidence = pair.get("resemblance")
    if evidence is None:
        return ""
    return (
        f"   resemblance {_percent(evidence['score'])} (structure"
        f" {_percent(evidence['structure'])} · literals {_percent(evidence['literals'])}"
        f" · names {_percent(evidence['names'])})\n"
    )


def scan_data(listing: Listing, results: Sequence[PairResult], skipped: Sequence[Skipped]) -> dict:
    ids = listing.ids()
    return {
        "documents": listing.data(),
        "pairs": [pair_data(r, ids) for r in results],
        "skipped": [{"path": s.path, "reason": s.reason} for s in skipped],
    }


def compare_data(listing: Listing, result: PairResult, measures: dict[str, float]) -> dict:
    data = {"documents": listing.data()}
    data.update(pair_data(result, listing.ids()))
    data["measures"] = {k: round(v, 4) if isinstance(v, float) else v for k, v in measures.items()}
    return data


def texts_of(results: Sequence[PairResult], listing: Listing) -> dict[int, Document]:
    """The documents of the results by id: what the text renderings quote from."""
    ids = listing.ids()
    return {ids[d.name]: d for r in results for d in (r.a, r.b)}


def _lines(side: dict) -> str:
    return lines_label(side["line"], side["end_line"])


def _percent(value: float) -> str:
    return f"{100 * value:.0f}%"


def render_pairs_text(data: dict, texts: dict[int, Document]) -> str:
    out = io.StringIO()
    pairs = data["pairs"]
    paths = [d["path"] for d in data["documents"]]
    if not pairs:
        out.write("No pair of documents shares a passage above the thresholds.\n")
        return out.getvalue()
    for rank, pair in enumerate(pairs, 1):
        a, b = texts[pair["a"]], texts[pair["b"]]
        count = len(pair["passages"])
        out.write(
            f"{rank}. {paths[pair['a']]}  ~  {paths[pair['b']]}\n"
            f"   similarity {_percent(pair['similarity'])} · covers {_percent(pair['a_coverage'])}"
            f" of A, {_percent(pair['b_coverage'])} of B · longest passage {pair['longest']}"
            f" characters · {count} passage{'s' if count != 1 else ''}\n"
        )
        out.write(_resemblance_line(pair))
        for passage in pair["passages"]:
            pa, pb = passage["a"], passage["b"]
            out.write(
                f"   - A {_lines(pa)}  ~  B {_lines(pb)}  ({passage['kind']},"
                f" score {passage['score']:.2f})\n"
                f"       A: {excerpt(a.text, pa['start'], pa['end'])}\n"
                f"       B: {excerpt(b.text, pb['start'], pb['end'])}\n"
            )
        out.write("\n")
    return out.getvalue()


def render_summary(data: dict, seconds: float) -> str:
    documents = data["documents"]
    modes: dict[str, int] = {}
    for d in documents:
        modes[d["mode"]] = modes.get(d["mode"], 0) + 1
    parts = ", ".join(f"{n} {m}" for m, n in sorted(modes.items()))
    skipped = f"; {len(data['skipped'])} skipped" if data["skipped"] else ""
    pairs = len(data["pairs"])
    return (
        f"Scanned {len(documents)} documents ({parts or 'none'}){skipped} in {seconds:.2f} s:"
        f" {pairs} pair{'s' if pairs != 1 else ''} share passages.\n"
    )


def render_pairs_csv(data: dict) -> str:
    paths = [d["path"] for d in data["documents"]]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["a", "b", "similarity", "a_coverage", "b_coverage", "longest", "passages"])
    for pair in data["pairs"]:
        writer.writerow(
            [
                paths[pair["a"]],
                paths[pair["b"]],
                pair["similarity"],
                pair["a_coverage"],
                pair["b_coverage"],
                pair["longest"],
                len(pair["passages"]),
            ]
        )
    return out.getvalue()


def similarity_matrix(count: int, data: dict) -> list[list[float]]:
    """Symmetric matrix of pair similarities (1.0 on the diagonal, 0.0 where nothing matched)."""
    matrix = [[1.0 if i == j else 0.0 for j in range(count)] for i in range(count)]
    for pair in data["pairs"]:
        matrix[pair["a"]][pair["b"]] = matrix[pair["b"]][pair["a"]] = pair["similarity"]
    return matrix


def render_matrix_text(data: dict, highlight: bool) -> str:
    """The seeds' view: every document against every other, matches marked."""
    paths = [d["path"] for d in data["documents"]]
    matrix = similarity_matrix(len(paths), data)
    out = io.StringIO()
    for i, path in enumerate(paths):
        out.write(f"[{i + 1:>2}] {path}\n")
    out.write("\n     " + "".join(f"{j + 1:>5}" for j in range(len(paths))) + "\n")
    for i, row in enumerate(matrix):
        cells = []
        for j, value in enumerate(row):
            if i == j:
                cells.append(f"{'—':>5}")
                continue
            cell = f"{100 * value:>4.0f}%" if value else f"{'·':>5}"
            if value and highlight:
                cell = f"\033[31m{cell}\033[0m"
            cells.append(cell)
        out.write(f"[{i + 1:>2}] " + "".join(cells) + "\n")
    out.write("\nCells: similarity of the two documents (· = no shared passage).\n")
    return out.getvalue()


def render_matrix_csv(data: dict) -> str:
    paths = [d["path"] for d in data["documents"]]
    matrix = similarity_matrix(len(paths), data)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["", *paths])
    for path, row in zip(paths, matrix, strict=True):
        writer.writerow([path, *(round(v, 4) for v in row)])
    return out.getvalue()


def render_compare_text(data: dict, documents: Sequence[Document]) -> str:
    a, b = documents
    path_a, path_b = (d["path"] for d in data["documents"])
    out = io.StringIO()
    out.write(f"A: {path_a} ({len(a.text)} characters, {a.mode.name} mode)\n")
    out.write(f"B: {path_b} ({len(b.text)} characters, {b.mode.name} mode)\n\n")
    out.write(
        f"similarity {_percent(data['similarity'])} · covers {_percent(data['a_coverage'])}"
        f" of A, {_percent(data['b_coverage'])} of B · longest passage {data['longest']}"
        " characters\n"
    )
    out.write(_resemblance_line(data))
    if data["passages"]:
        out.write(f"\n{len(data['passages'])} passage(s):\n")
        pair_only = {"pairs": [dict(data, a=0, b=1)], "documents": data["documents"]}
        header = 3 if "resemblance" in data else 2  # lines already written above
        listing = render_pairs_text(pair_only, {0: a, 1: b}).split("\n", header)[header]
        out.write(listing)
    else:
        out.write("\nNo shared passage above the thresholds.\n\n")
    out.write("Document measures:\n")
    for name, value in data["measures"].items():
        shown = f"{value}" if isinstance(value, int) else f"{value:.3f}"
        out.write(f"  {name:<18}{shown}\n")
    return out.getvalue()
