"""What the user can ask of a match: hover, quick fixes and commands.

Every handler here reads the server's last analysis or asks the workspace of the
document's folder (the workspace report is the page of ``doublet report``, made
by report_html); the only thing written is the folder's doublet.toml (an ignored
match, a reference, a template), through a workspace edit or, for the ignore
list, directly. A document outside every folder is answered as one that is not
checked, and the user is told why.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import tomlkit
from lsprotocol import types

from doublet.config import FILE_NAME
from doublet.excerpts import excerpt, line_of
from doublet.lsp.diagnostics import CODE, SOURCE, Match, describe, matches_of
from doublet.lsp.folders import outside_message
from doublet.lsp.positions import LineIndex
from doublet.report_html import render_html
from doublet.results import listing_of, quotable, scan_data, texts_of, with_given

if TYPE_CHECKING:
    from doublet.lsp.folders import Folder
    from doublet.lsp.server import DoubletServer
    from doublet.workspace import Workspace

FIND_SIMILAR = "doublet.findSimilar"
WORKSPACE_REPORT = "doublet.workspaceReport"
REINDEX = "doublet.reindex"
STATUS = "doublet.status"
CHECK_DOCUMENT = "doublet.checkDocument"
SHOW_MATCH = "doublet.showMatch"
IGNORE_MATCH = "doublet.ignoreMatch"
#: Implemented by the VS Code extension (it can open a diff editor; LSP cannot).
CLIENT_COMPARE = "doublet.compareSideBySide"

EXCERPT = 300
ACTIONS_PER_DIAGNOSTIC = 3


# --- hover ---------------------------------------------------------------------------


def hover(ls: DoubletServer, params: types.HoverParams) -> types.Hover | None:
    document = ls.opened.get(params.text_document.uri)
    if document is None or document.folder is None or not document.matches:
        return None
    text = ls.workspace.get_text_document(document.uri).source
    lines = ls.lines(text)
    offset = lines.offset(params.position)
    here = [m for m in document.matches if m.start <= offset < m.end]
    if not here:
        return None
    here.sort(key=lambda m: -m.passage.matched)
    parts = []
    for match in here[:3]:
        parts.append(f"**Doublet** — matches {describe(match)}")
        quoted = excerpt(match.other_text, match.passage.b.start, match.passage.b.end, EXCERPT)
        parts.append("> " + quoted.replace("\n", " "))
        line = line_of(match.other_text, match.passage.b.start)
        parts.append(f"[Open {match.other}]({document.folder.uri_of(match.other)}#L{line})")
    start = min(m.start for m in here)
    end = max(m.end for m in here)
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value="\n\n".join(parts)),
        range=lines.range(start, end),
    )


# --- code actions --------------------------------------------------------------------


def code_actions(ls: DoubletServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    document = ls.opened.get(params.text_document.uri)
    folder = document.folder if document is not None else None
    if document is None or folder is None or folder.project is None or document.rel is None:
        return []
    found = []
    for diagnostic in params.context.diagnostics:
        if diagnostic.source != SOURCE or diagnostic.code != CODE:
            continue
        data = diagnostic.data if isinstance(diagnostic.data, dict) else {}
        for entry in list(data.get("matches", []))[:ACTIONS_PER_DIAGNOSTIC]:
            try:
                found.extend(
                    _actions_for(ls, folder, document.rel, document.uri, entry, diagnostic)
                )
            except (KeyError, TypeError, ValueError):
                continue  # data from an older server version, or tampered with
    return found


def _actions_for(
    ls: DoubletServer, folder: Folder, rel: str, uri: str, entry: dict, diagnostic
) -> list:
    assert folder.project is not None
    other = str(entry["other"])
    if other not in folder.project.index:
        raise ValueError(f"not a document of the workspace: {other!r}")
    b0, b1 = (int(x) for x in entry["b"])
    other_uri = folder.uri_of(other)
    other_text = folder.project.document(other).text
    other_range = ls.lines(other_text).range(b0, b1)
    actions = [
        types.CodeAction(
            title=f"Doublet: open the matching passage in {other}",
            kind=types.CodeActionKind.QuickFix,
            diagnostics=[diagnostic],
            command=types.Command(
                title="Open matching passage",
                command=SHOW_MATCH,
                arguments=[other_uri, _range_json(other_range)],
            ),
        )
    ]
    if ls.client_compare:
        actions.append(
            types.CodeAction(
                title=f"Doublet: compare with {other} side by side",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diagnostic],
                command=types.Command(
                    title="Compare side by side",
                    command=CLIENT_COMPARE,
                    arguments=[
                        uri,
                        _range_json(diagnostic.range),
                        other_uri,
                        _range_json(other_range),
                    ],
                ),
            )
        )
    actions.append(
        types.CodeAction(
            title="Doublet: ignore this match",
            kind=types.CodeActionKind.QuickFix,
            diagnostics=[diagnostic],
            command=types.Command(
                title="Ignore this match",
                command=IGNORE_MATCH,
                arguments=[rel, other, str(entry["digest"]), uri],  # uri: whose doublet.toml
            ),
        )
    )
    for key, word in (("references", "a reference"), ("templates", "a template")):
        edit = config_edit(ls, folder, lambda text, key=key: add_pattern(text, key, other))
        if edit is not None:
            actions.append(
                types.CodeAction(
                    title=f"Doublet: treat {other} as {word}",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diagnostic],
                    edit=edit,
                )
            )
    return actions


def _range_json(r: types.Range) -> dict:
    return {
        "start": {"line": r.start.line, "character": r.start.character},
        "end": {"line": r.end.line, "character": r.end.character},
    }


def _range_of(value: Any) -> types.Range:
    """A Range from its JSON form; ValueError if it is not one."""
    try:
        start, end = value["start"], value["end"]
        return types.Range(
            start=types.Position(line=int(start["line"]), character=int(start["character"])),
            end=types.Position(line=int(end["line"]), character=int(end["character"])),
        )
    except (KeyError, TypeError) as exc:
        raise ValueError(f"not a range: {value!r}") from exc


# --- doublet.toml ----------------------------------------------------------------------


def add_pattern(text: str, key: str, pattern: str) -> str:
    """doublet.toml's text with ``pattern`` added to the list ``key`` (kept as written)."""
    document = tomlkit.parse(text)
    current = document.get(key)
    if current is None:
        current = tomlkit.array()
        document[key] = current
    if pattern not in current:
        current.append(pattern)
    return tomlkit.dumps(document)


def add_ignore(text: str, a: str, b: str, digest: str) -> str:
    """doublet.toml's text with one more [[ignore]] entry."""
    document = tomlkit.parse(text)
    tables = document.get("ignore")
    if tables is None:
        tables = tomlkit.aot()
        document["ignore"] = tables
    entry = tomlkit.table()
    entry["a"], entry["b"], entry["digest"] = a, b, digest
    tables.append(entry)
    return tomlkit.dumps(document)


def _config_path(folder: Folder) -> Path:
    return folder.root / FILE_NAME


def _config_text(ls: DoubletServer, folder: Folder) -> str:
    path = _config_path(folder)
    uri = folder.uri_of(FILE_NAME)
    open_document = ls.workspace.text_documents.get(uri)
    if open_document is not None:
        return open_document.source
    return path.read_text(encoding="utf-8") if path.exists() else ""


def config_edit(ls: DoubletServer, folder: Folder, change) -> types.WorkspaceEdit | None:
    """A workspace edit applying ``change`` to the folder's doublet.toml (creating it if
    needed)."""
    try:
        old = _config_text(ls, folder)
        new = change(old)
    except Exception:  # a doublet.toml we cannot parse: no quick fix rather than a broken one
        return None
    uri = folder.uri_of(FILE_NAME)
    whole = ls.lines(old).range(0, len(old))
    edit = types.TextEdit(range=whole, new_text=new)
    if _config_path(folder).exists():
        return types.WorkspaceEdit(changes={uri: [edit]})
    capabilities = ls.client_capabilities.workspace if ls.client_capabilities else None
    operations = (
        capabilities.workspace_edit.resource_operations
        if capabilities and capabilities.workspace_edit
        else None
    )
    if not operations or types.ResourceOperationKind.Create not in operations:
        return None
    return types.WorkspaceEdit(
        document_changes=[
            types.CreateFile(uri=uri, options=types.CreateFileOptions(ignore_if_exists=True)),
            types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=None),
                edits=[edit],
            ),
        ]
    )


def write_config(folder: Folder, text: str) -> None:
    """Write doublet.toml atomically (the ignore list is saved with the workspace)."""
    path = _config_path(folder)
    handle, temporary = tempfile.mkstemp(prefix=FILE_NAME + ".", dir=path.parent)
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        out.write(text)
    os.replace(temporary, path)


async def ignore_match(ls: DoubletServer, args: tuple) -> dict:
    """Add a match to the ignore list of doublet.toml: that of the folder of the document
    named by the fourth argument (the quick fix passes it), else of the first folder."""
    if not ls.folders:
        return {"ignored": False}
    try:
        a, b, digest = (str(x) for x in args[:3])
    except ValueError:
        raise ValueError("doublet.ignoreMatch takes (path, other path, digest[, URI])") from None
    folder = ls.folder_of(args[3]) if len(args) > 3 else ls.first_folder
    if folder is None or folder.project is None:
        return {"ignored": False}
    write_config(folder, add_ignore(_config_text(ls, folder), a, b, digest))
    await folder.reconfigure()
    return {"ignored": True}


# --- commands --------------------------------------------------------------------------


def _match_json(
    ls: DoubletServer, folder: Folder, uri: str, lines: LineIndex, text: str, m: Match
) -> dict:
    other_lines = ls.lines(m.other_text)
    return {
        "uri": uri,
        "range": _range_json(lines.range(m.start, m.end)),
        "other": {
            "uri": folder.uri_of(m.other),
            "path": m.other,
            "range": _range_json(other_lines.range(m.passage.b.start, m.passage.b.end)),
        },
        "score": m.passage.score,
        "kind": m.passage.kind,
        "length": m.end - m.start,
        "excerpt": excerpt(text, m.start, m.end, EXCERPT),
        "otherExcerpt": excerpt(m.other_text, m.passage.b.start, m.passage.b.end, EXCERPT),
        "digest": m.digest,
    }


async def find_similar(ls: DoubletServer, args: tuple) -> list[dict]:
    """Every similar passage of a document (its buffer if open), or of a selection of it."""
    if not args:
        raise ValueError("doublet.findSimilar takes a document URI (and optionally a range)")
    first = args[0]
    uri = first.get("uri") if isinstance(first, dict) else first
    selection = (
        first.get("range") if isinstance(first, dict) else (args[1] if len(args) > 1 else None)
    )
    if not isinstance(uri, str):
        raise ValueError(f"not a document URI: {uri!r}")
    folder = await _indexed_folder_of(ls, uri)
    if folder is None:
        return []
    rel = folder.rel_of(uri)
    if rel is None or folder.project is None:
        return []
    opened = ls.workspace.text_documents.get(uri)
    text = opened.source if opened is not None else None
    results = await ls.run(folder.project.similar, rel, text)
    if text is None:
        text = folder.project.document(rel).text
    lines = ls.lines(text)
    matches = matches_of(results)
    if selection is not None:
        wanted = _range_of(selection)
        lo, hi = lines.offset(wanted.start), lines.offset(wanted.end)
        matches = [m for m in matches if m.start < max(hi, lo + 1) and lo < m.end]
    matches.sort(key=lambda m: (m.start, -m.passage.matched))
    return [_match_json(ls, folder, uri, lines, text, m) for m in matches]


async def _indexed_folder_of(ls: DoubletServer, uri: str) -> Folder | None:
    """The folder of a document once its index is built (an answer from half an index
    would say "nothing similar"); None, and the user told why, outside every folder."""
    folder = ls.folder_of(uri)
    if folder is not None:
        await folder.until_indexed()
        folder = ls.folder_of(uri)  # the folder may have left meanwhile
    if folder is None:
        ls.show_message(types.MessageType.Info, outside_message(uri))
    return folder


async def workspace_report(ls: DoubletServer, args: tuple) -> dict:
    """A folder's report page: the one ``doublet report`` writes (report_html), for the
    client to show as it is, with the number of pairs and of documents. The folder is
    that of the URI given (a document or a folder), else the first one."""
    first = args[0] if args else None
    uri = first.get("uri") if isinstance(first, dict) else first
    if uri is not None and not isinstance(uri, str):
        raise ValueError(f"doublet.workspaceReport takes a document or folder URI, not {uri!r}")
    folder = ls.folder_of(uri) if uri else ls.first_folder
    if folder is None or folder.project is None:
        return {"html": None, "pairs": 0, "documents": 0}
    return await ls.run(report_page, folder.project)


def report_page(workspace: Workspace) -> dict:
    """Every pair of the workspace that shares passages, best first, as a report page
    (its documents as indexed: an editor's buffers where the index holds them)."""
    data, texts = report_data(workspace)
    page = render_html(
        data,
        texts,
        title=f"Doublet report: {workspace.root.name}",
        threshold=workspace.config.min_similarity,
    )
    return {"html": page, "pairs": len(data["pairs"]), "documents": len(data["documents"])}


def report_data(workspace: Workspace) -> tuple[dict, dict[int, str]]:
    """What ``doublet scan --format json`` prints for the workspace (paths relative to its
    root), and the text of each document of a pair by id."""
    warnings = workspace.warnings()  # not under the lock: it lets an editor's edits first
    with workspace.lock:  # the pairs, the listing and the texts of one state of the index
        pairs = workspace.scan()
        listing = with_given(listing_of(workspace, lambda name: name), workspace, pairs)
        skipped = list(workspace.skipped)
        documents = texts_of(pairs, listing, workspace.document)
    texts = {i: document.text for i, document in documents.items()}
    return quotable(scan_data(listing, pairs, skipped, warnings), documents), texts


async def show_match(ls: DoubletServer, args: tuple) -> dict:
    """Open a file at a range in the editor (window/showDocument)."""
    if len(args) < 2 or not isinstance(args[0], str):
        raise ValueError("doublet.showMatch takes a URI and a range")
    selection = _range_of(args[1])
    result = await ls.window_show_document_async(
        types.ShowDocumentParams(uri=args[0], take_focus=True, selection=selection)
    )
    return {"success": bool(result and result.success)}


async def check_document(ls: DoubletServer, args: tuple) -> dict:
    """Check an open document now, whatever the checkFrequency setting says (with
    "manual", the only way): its diagnostics are published, and their number returned."""
    first = args[0] if args else None
    uri = first.get("uri") if isinstance(first, dict) else first
    if not isinstance(uri, str):
        raise ValueError("doublet.checkDocument takes the URI of an open document")
    folder = await _indexed_folder_of(ls, uri)
    if folder is None:
        return {"checked": False, "diagnostics": 0, "outside": True}
    document = ls.opened.get(uri)
    if document is None or document.rel is None or document.folder is not folder:
        return {"checked": False, "diagnostics": 0}
    if folder.state != "ready":
        return {"checked": False, "diagnostics": 0}
    ls.schedule(document, delay=0, why="command")
    while document.task is not None and not document.task.done():  # a newer check may
        await asyncio.wait({document.task})  # replace this one: wait for the last
    published = ls.published.get(uri, [])
    return {"checked": True, "diagnostics": len(published)}
