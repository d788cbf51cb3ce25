"""Results as JSON-ready data: the shape every adapter shows.

``doublet scan --format json`` prints it, the HTML report inlines it, the
editor's workspace report sends it; docs/cli.md documents it and keeps it
stable. Documents are numbered by a `Listing` (no text is read for it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from doublet.engine.comparison import PairResult
from doublet.engine.document import Document
from doublet.engine.passages import Side
from doublet.excerpts import line_range
from doublet.skipped import Skipped
from doublet.workspace import Workspace


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
    groups: dict[str, str] = field(default_factory=dict)  # the author, for those in a group
    #: spans of template text, for documents in a pair that hold some
    given: dict[str, list[tuple[int, int]]] = field(default_factory=dict)

    def ids(self) -> dict[str, int]:
        return {name: i for i, name in enumerate(self.names)}

    def data(self) -> list[dict]:
        rows = []
        for i, n in enumerate(self.names):
            row = {"id": i, "path": self.shown[n], "chars": self.chars[n], "mode": self.modes[n]}
            if n in self.groups:
                row["group"] = self.groups[n]
            if n in self.given:
                row["given"] = [list(span) for span in self.given[n]]
            rows.append(row)
        return rows


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


def listing_of(
    workspace: Workspace, shown: Callable[[str], str], names: Sequence[str] | None = None
) -> Listing:
    """The workspace's indexed documents (or ``names`` of them), each path as ``shown``
    turns it, with the group of those in one."""
    rows = {name: (chars, mode) for name, chars, mode in workspace.listing()}
    names = list(rows) if names is None else list(names)
    groups = {name: workspace.role(name).group for name in names}
    return Listing(
        names,
        {name: rows[name][0] for name in names},
        {name: rows[name][1] for name in names},
        {name: shown(name) for name in names},
        {name: group for name, group in groups.items() if group is not None},
    )


def with_given(listing: Listing, workspace: Workspace, results: Sequence[PairResult]) -> Listing:
    """The listing with the template text of every document in a pair (``given``)."""
    names = dict.fromkeys(d.name for r in results for d in (r.a, r.b))
    return replace(listing, given=workspace.given_spans(names))


def scan_data(
    listing: Listing,
    results: Sequence[PairResult],
    skipped: Sequence[Skipped],
    warnings: Sequence[str] = (),
) -> dict:
    ids = listing.ids()
    return {
        "documents": listing.data(),
        "pairs": [pair_data(r, ids) for r in results],
        "skipped": [{"path": s.path, "reason": s.reason} for s in skipped],
        "warnings": list(warnings),
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
