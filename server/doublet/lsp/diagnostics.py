"""Diagnostics: the passages of one document, as the editor shows them.

Passages of several other files that cover the same stretch of the document
become one diagnostic, pointing (relatedInformation) at the matching range in
each of those files, best match first; its message names the best one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from lsprotocol import types

from doublet.engine.comparison import PairResult, passage_digest
from doublet.engine.passages import Passage
from doublet.excerpts import line_range, lines_label
from doublet.lsp.positions import LineIndex

SOURCE = "doublet"
CODE = "shared-passage"
#: Most related locations on one diagnostic.
RELATED_LIMIT = 8

SEVERITIES = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "information": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}


@dataclass(frozen=True)
class Match:
    """One passage of the document and where it matches in another file."""

    other: str  # workspace-relative path of the other file
    passage: Passage  # side a is this document, side b the other file
    other_text: str
    digest: str

    @property
    def start(self) -> int:
        return self.passage.a.start

    @property
    def end(self) -> int:
        return self.passage.a.end


def matches_of(results: list[PairResult]) -> list[Match]:
    """Every passage of every result, as matches of the asking document (side A)."""
    found = []
    for result in results:
        for passage in result.passages:
            digest = passage_digest(result.a, result.b, passage)
            found.append(Match(result.b.name, passage, result.b.text, digest))
    return found


def group(matches: list[Match]) -> list[list[Match]]:
    """Matches whose ranges in this document overlap, together; best match first."""
    groups: list[list[Match]] = []
    end = -1
    for match in sorted(matches, key=lambda m: (m.start, -m.end)):
        if groups and match.start < end:
            groups[-1].append(match)
            end = max(end, match.end)
        else:
            groups.append([match])
            end = match.end
    return [sorted(g, key=lambda m: (-m.passage.matched, m.other)) for g in groups]


def _lines(text: str, start: int, end: int) -> str:
    return lines_label(*line_range(text, start, end))


def _exact(match: Match) -> str:
    return f"{round(100 * match.passage.score)}%"


def describe(match: Match) -> str:
    passage = match.passage
    length = passage.a.end - passage.a.start
    kind = passage.kind
    where = _lines(match.other_text, passage.b.start, passage.b.end)
    return f"{match.other} {where} ({length} characters, {kind}, {_exact(match)} exact)"


def diagnostics(
    matches: list[Match],
    lines: LineIndex,
    uri_of,
    severity_of: Callable[[str], str],
    other_lines,
) -> list[types.Diagnostic]:
    """One diagnostic per stretch of the document that matches other files, as severe as
    its most severe kind of match (``severity_of``: a passage kind's severity name)."""
    found = []
    for members in group(matches):
        best = members[0]
        start = min(m.start for m in members)
        end = max(m.end for m in members)
        more = len({m.other for m in members}) - 1
        message = f"Matches {describe(best)}"
        if more:
            message += f" and {more} other file{'s' if more > 1 else ''}"
        related = [
            types.DiagnosticRelatedInformation(
                location=types.Location(
                    uri=uri_of(m.other),
                    range=other_lines(m.other, m.other_text).range(
                        m.passage.b.start, m.passage.b.end
                    ),
                ),
                message=f"matching passage ({m.passage.kind}, {_exact(m)} exact)",
            )
            for m in members[:RELATED_LIMIT]
        ]
        found.append(
            types.Diagnostic(
                range=lines.range(start, end),
                message=message,
                severity=min(
                    SEVERITIES.get(severity_of(m.passage.kind), types.DiagnosticSeverity.Warning)
                    for m in members
                ),
                source=SOURCE,
                code=CODE,
                related_information=related,
                data={
                    "matches": [
                        {
                            "other": m.other,
                            "a": [m.passage.a.start, m.passage.a.end],
                            "b": [m.passage.b.start, m.passage.b.end],
                            "digest": m.digest,
                        }
                        for m in members[:RELATED_LIMIT]
                    ]
                },
            )
        )
    return found
