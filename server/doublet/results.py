"""Results as JSON-ready data: the shape every adapter shows.

``doublet scan --format json`` prints it, the HTML report inlines it, the
editor's workspace report sends it; docs/cli.md documents it and keeps it
stable. Documents are numbered by a `Listing` (no text is read for it).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from doublet.engine.document import Document
from doublet.engine.matching import Unavailable
from doublet.engine.passages import Side
from doublet.rows import Rows
from doublet.scanned import ScannedPair
from doublet.skipped import NotText, Skipped
from doublet.workspace import Workspace

log = logging.getLogger(__name__)


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

    def data(self) -> Rows:
        """The documents as data, each made as it is read (doublet/rows)."""
        return Rows(len(self.names), lambda: map(self.row, range(len(self.names))))

    def row(self, i: int) -> dict:
        """Document ``i`` as data."""
        n = self.names[i]
        row = {"id": i, "path": self.shown[n], "chars": self.chars[n], "mode": self.modes[n]}
        if n in self.groups:
            row["group"] = self.groups[n]
        if n in self.given:
            row["given"] = [list(span) for span in self.given[n]]
        return row


def _side(side: Side, lines: tuple[int, int]) -> dict:
    return {"start": side.start, "end": side.end, "line": lines[0], "end_line": lines[1]}


def pair_data(pair: ScannedPair, ids: dict[str, int]) -> dict:
    data = {
        "a": ids[pair.a],
        "b": ids[pair.b],
        "similarity": round(pair.similarity, 4),
        "exact_coverage": round(pair.exact_coverage, 4),
        "a_coverage": round(pair.a_coverage, 4),
        "b_coverage": round(pair.b_coverage, 4),
        "longest": pair.longest,
        "passages": [
            {
                "a": _side(p.passage.a, p.a_lines),
                "b": _side(p.passage.b, p.b_lines),
                "score": p.passage.score,
                "kind": p.passage.kind,
            }
            for p in pair.passages
        ],
    }
    if pair.lexical:
        evidence = pair.resemblance
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


def with_given(listing: Listing, workspace: Workspace, pairs: Sequence[ScannedPair]) -> Listing:
    """The listing with the template text of every document in a pair (``given``)."""
    names = dict.fromkeys(name for pair in pairs for name in (pair.a, pair.b))
    return replace(listing, given=workspace.given_spans(names))


def scan_data(
    listing: Listing,
    pairs: Sequence[ScannedPair],
    skipped: Sequence[Skipped],
    warnings: Sequence[str] = (),
) -> dict:
    ids = listing.ids()
    return {
        "documents": listing.data(),
        "pairs": Rows(len(pairs), lambda: (pair_data(pair, ids) for pair in pairs)),
        "skipped": [{"path": s.path, "reason": s.reason} for s in skipped],
        "warnings": list(warnings),
    }


def compare_data(listing: Listing, pair: ScannedPair, measures: dict[str, float]) -> dict:
    data = {"documents": list(listing.data())}
    data.update(pair_data(pair, listing.ids()))
    data["measures"] = {k: round(v, 4) if isinstance(v, float) else v for k, v in measures.items()}
    return data


def texts_of(
    pairs: Sequence[ScannedPair], listing: Listing, document: Callable[[str], Document]
) -> dict[int, Document]:
    """The documents of the pairs by id (``document`` reads one): what the text
    renderings quote from. One that cannot be read any more (gone or changed into
    something unreadable since the scan) is left out, logged."""
    ids = listing.ids()
    names = dict.fromkeys(name for pair in pairs for name in (pair.a, pair.b))
    found = {}
    for name in names:
        try:
            found[ids[name]] = document(name)
        except (NotText, Unavailable) as exc:
            log.warning("cannot quote %s: %s", name, getattr(exc, "reason", exc))
    return found


def quotable(data: dict, texts: dict[int, Document]) -> dict:
    """The report's data without the pairs whose documents could not be read to quote."""
    kept = [p for p in data["pairs"] if p["a"] in texts and p["b"] in texts]
    return data if len(kept) == len(data["pairs"]) else {**data, "pairs": kept}
