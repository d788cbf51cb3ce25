"""The command line's renderings of the results' data (doublet.results): text, CSV
and a matrix, made from the same data as the JSON, so every format says the same
thing.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator, Sequence

from doublet.engine.document import Document
from doublet.excerpts import excerpt, lines_label
from doublet.rows import Rows

#: Characters that would break a line of text output, or move the cursor: C0, DEL, C1.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def one_line(path: str) -> str:
    """A path as text output shows it: a control character in a file's name (a newline,
    an escape) as ``\\n``, ``\\x1b``, so that no name can start a line of its own that
    reads as a result. JSON and CSV quote names themselves."""
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), path)


def _resemblance_line(pair: dict) -> str:
    evidence = pair.get("resemblance")
    if evidence is None:
        return ""
    return (
        f"   resemblance {_percent(evidence['score'])} (structure"
        f" {_percent(evidence['structure'])} · literals {_percent(evidence['literals'])}"
        f" · names {_percent(evidence['names'])})\n"
    )


def _lines(side: dict) -> str:
    return lines_label(side["line"], side["end_line"])


def _percent(value: float) -> str:
    return f"{100 * value:.0f}%"


def render_pairs_text(data: dict, texts: dict[int, Document]) -> str:
    out = io.StringIO()
    pairs = data["pairs"]
    paths = [one_line(d["path"]) for d in data["documents"]]
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


def summary_of(data: dict) -> dict:
    """What the summary line counts: documents by mode, files passed over, pairs."""
    modes: dict[str, int] = {}
    for d in data["documents"]:
        modes[d["mode"]] = modes.get(d["mode"], 0) + 1
    return {"modes": modes, "skipped": len(data["skipped"]), "pairs": len(data["pairs"])}


def render_summary(summary: dict, seconds: float) -> str:
    """The last line of a text report (``summary``: :func:`summary_of` the data)."""
    modes: dict[str, int] = summary["modes"]
    parts = ", ".join(f"{n} {m}" for m, n in sorted(modes.items()))
    skipped = f"; {summary['skipped']} skipped" if summary["skipped"] else ""
    pairs = summary["pairs"]
    return (
        f"Scanned {sum(modes.values())} documents ({parts or 'none'}){skipped} in {seconds:.2f} s:"
        f" {pairs} pair{'s' if pairs != 1 else ''} share passages.\n"
    )


def _cell(text: str) -> str:
    """A text cell a spreadsheet will not run as a formula (a name like ``=cmd|...``)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def render_pairs_csv(data: dict) -> str:
    paths = [_cell(d["path"]) for d in data["documents"]]
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


def render_students_csv(data: dict) -> str:
    """One row per student (a document's group, else the document itself): how many
    documents, the highest similarity with anyone else and with whom, and every
    partner with their highest similarity, best first: what an LMS or a committee
    takes in."""
    documents = data["documents"]
    student = [d.get("group") or d["path"] for d in documents]
    owned: dict[str, int] = {}
    for name in student:
        owned[name] = owned.get(name, 0) + 1
    best: dict[str, dict[str, float]] = {name: {} for name in owned}
    for pair in data["pairs"]:
        a, b = student[pair["a"]], student[pair["b"]]
        if a == b:
            continue
        for me, other in ((a, b), (b, a)):
            best[me][other] = max(best[me].get(other, 0.0), pair["similarity"])
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["student", "documents", "highest_similarity", "closest", "partners"])
    rows = sorted(best.items(), key=lambda item: (-max(item[1].values(), default=0.0), item[0]))
    for name, partners in rows:
        ranked = sorted(partners.items(), key=lambda item: (-item[1], item[0]))
        writer.writerow(
            [
                _cell(name),
                owned[name],
                ranked[0][1] if ranked else 0.0,
                _cell(ranked[0][0]) if ranked else "",
                _cell("; ".join(f"{other} ({_percent(value)})" for other, value in ranked)),
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
    paths = [one_line(d["path"]) for d in data["documents"]]
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
    paths = [_cell(d["path"]) for d in data["documents"]]
    matrix = similarity_matrix(len(paths), data)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["", *paths])
    for path, row in zip(paths, matrix, strict=True):
        writer.writerow([path, *(round(v, 4) for v in row)])
    return out.getvalue()


def render_compare_text(data: dict, documents: Sequence[Document]) -> str:
    a, b = documents
    path_a, path_b = (one_line(d["path"]) for d in data["documents"])
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


def render_json(data: dict) -> str:
    """The report's data as JSON: each top-level key on a line of its own, and each
    element of a list (a document, a pair) on one line.

    Every element is encoded by json's C encoder (an indented dump goes through its
    Python one, a call per token: 18 of a 28-second scan of 100,008 documents). The
    result is one JSON document, as ``json.loads`` reads it, and a line per pair.
    """
    return "".join(json_pieces(data))


def json_pieces(data: dict) -> Iterator[str]:
    """:func:`render_json`'s text in pieces, an element at a time: written as they come,
    the rows of a scan's data are made and let go of one by one."""
    yield "{"
    last = len(data) - 1
    for number, (key, value) in enumerate(data.items()):
        yield f"\n  {_compact(key)}: "
        if isinstance(value, (list, Rows)) and value:
            yield "[\n    "
            for at, element in enumerate(value):
                yield f",\n    {_compact(element)}" if at else _compact(element)
            yield "\n  ]"
        else:
            yield _compact(list(value) if isinstance(value, Rows) else value)
        if number < last:
            yield ","
    yield "\n}\n"


def _compact(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)
