"""Code actions on a flagged passage: open the match, compare, ignore it, treat the other file
as a reference or a template."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from lsp_support import (
    EDITED,
    ESSAY,
    SOURCE,
    TIMEOUT,
    apply_workspace_edit,
    command,
    essay_range,
    mark,
    matching,
    open_document,
    published,
    range_json,
    ready,
    session,
    source_range,
    uri,
)
from lsprotocol import types
from pytest_lsp import LanguageClient

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


async def code_actions(
    client: LanguageClient, address: str, diagnostics: list[types.Diagnostic]
) -> list[types.CodeAction]:
    result = await asyncio.wait_for(
        client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=address),
                range=diagnostics[0].range
                if diagnostics
                else types.Range(
                    start=types.Position(line=0, character=0),
                    end=types.Position(line=0, character=0),
                ),
                context=types.CodeActionContext(diagnostics=diagnostics),
            )
        ),
        TIMEOUT,
    )
    assert all(isinstance(a, types.CodeAction) for a in result or [])
    return list(result or [])


async def flagged(client: LanguageClient, folder: Path) -> tuple[str, types.Diagnostic]:
    """ESSAY open, and its diagnostic for the paragraph copied from SOURCE."""
    essay = open_document(client, folder, ESSAY)
    found = await published(client, essay, where=lambda d: len(d) == 2)
    [diagnostic] = matching(found, uri(folder, SOURCE))
    return essay, diagnostic


def titled(actions: list[types.CodeAction], words: str) -> types.CodeAction:
    [action] = [a for a in actions if words in a.title]
    return action


async def test_a_flagged_passage_offers_the_quick_fixes(client: LanguageClient, folder: Path):
    essay, diagnostic = await flagged(client, folder)
    actions = await code_actions(client, essay, [diagnostic])
    assert [a.title for a in actions] == [
        f"Doublet: open the matching passage in {SOURCE}",
        "Doublet: ignore this match",
        f"Doublet: treat {SOURCE} as a reference",
        f"Doublet: treat {SOURCE} as a template",
    ]
    for action in actions:
        assert action.kind == types.CodeActionKind.QuickFix
        assert list(action.diagnostics) == [diagnostic]
    # no side-by-side comparison unless the client says it can show one
    assert not any("compare" in a.title for a in actions)


async def test_open_the_matching_passage(client: LanguageClient, folder: Path):
    essay, diagnostic = await flagged(client, folder)
    action = titled(await code_actions(client, essay, [diagnostic]), "open the matching")
    assert action.command is not None
    assert action.command.command == "doublet.showMatch"
    result = await command(client, action.command.command, *action.command.arguments)
    assert result == {"success": True}
    [shown] = client.shown_documents
    assert shown.uri == uri(folder, SOURCE)
    assert shown.selection == source_range(folder)
    assert shown.take_focus


async def test_compare_side_by_side_when_the_client_can(folder: Path):
    async with session(folder, options={"clientCompare": True}) as client:
        essay, diagnostic = await flagged(client, folder)
        action = titled(await code_actions(client, essay, [diagnostic]), "side by side")
        assert action.title == f"Doublet: compare with {SOURCE} side by side"
        assert action.command.command == "doublet.compareSideBySide"
        assert list(action.command.arguments) == [
            essay,
            range_json(essay_range(folder)),
            uri(folder, SOURCE),
            range_json(source_range(folder)),
        ]


async def test_ignore_this_match_is_saved_with_the_workspace(folder: Path):
    async with session(folder) as client:
        essay, diagnostic = await flagged(client, folder)
        action = titled(await code_actions(client, essay, [diagnostic]), "ignore this match")
        since = mark(client)
        result = await command(client, action.command.command, *action.command.arguments)
        assert result == {"ignored": True}
        found = await published(client, essay, since=since, where=lambda d: len(d) == 1)
        assert matching(found, uri(folder, EDITED)), "the other match stays"

    saved = tomllib.loads((folder / "doublet.toml").read_text(encoding="utf-8"))
    [entry] = saved["ignore"]
    assert {entry["a"], entry["b"]} == {ESSAY, SOURCE}
    assert entry["digest"] == diagnostic.data["matches"][0]["digest"]

    # a new server on the same folder still ignores it, from either side
    async with session(folder) as client:
        essay = open_document(client, folder, ESSAY)
        source = open_document(client, folder, SOURCE)
        found = await published(client, essay, where=lambda d: len(d) == 1)
        assert matching(found, uri(folder, EDITED))
        assert await published(client, source) == []


async def test_treat_the_other_file_as_a_template(client: LanguageClient, folder: Path):
    await ready(client)  # doublet.toml is watched
    essay, diagnostic = await flagged(client, folder)
    action = titled(await code_actions(client, essay, [diagnostic]), "as a template")
    assert action.command is None and action.edit is not None
    # no doublet.toml yet: the edit creates it
    assert not (folder / "doublet.toml").exists()
    assert any(isinstance(c, types.CreateFile) for c in action.edit.document_changes)
    since = mark(client)
    [written] = apply_workspace_edit(action.edit)
    assert written == folder / "doublet.toml"
    assert tomllib.loads(written.read_text(encoding="utf-8")) == {"templates": [SOURCE]}
    # a template's text is subtracted from every document: the copy is no longer reported
    found = await published(client, essay, since=since, where=lambda d: len(d) == 1)
    assert matching(found, uri(folder, EDITED))


async def test_treat_the_other_file_as_a_reference_keeps_doublet_toml(
    client: LanguageClient, folder: Path
):
    config = folder / "doublet.toml"
    config.write_text('# chosen by the teacher\nseverity = "error"  # be loud\n', encoding="utf-8")
    await ready(client)
    essay, diagnostic = await flagged(client, folder)
    assert diagnostic.severity == types.DiagnosticSeverity.Error
    action = titled(await code_actions(client, essay, [diagnostic]), "as a reference")
    # doublet.toml exists: the edit changes it, keeping what the user wrote
    assert list(action.edit.changes) == [uri(folder, "doublet.toml")]
    since = mark(client)
    apply_workspace_edit(action.edit)
    text = config.read_text(encoding="utf-8")
    assert "# chosen by the teacher" in text and "# be loud" in text
    assert tomllib.loads(text) == {"severity": "error", "references": [SOURCE]}
    status = await command(client, "doublet.status")
    assert status["lastError"] is None
    # the configuration is read again (every open document is republished): a reference
    # is still matched against, so the essay keeps its diagnostic
    found = await published(client, essay, since=since)
    assert len(found) == 2
    assert matching(found, uri(folder, SOURCE))

    # asked again, the fix does not add the path twice
    action = titled(await code_actions(client, essay, [diagnostic]), "as a reference")
    apply_workspace_edit(action.edit)
    assert tomllib.loads(config.read_text(encoding="utf-8"))["references"] == [SOURCE]


async def test_no_actions_for_other_diagnostics(client: LanguageClient, folder: Path):
    essay, diagnostic = await flagged(client, folder)
    foreign = types.Diagnostic(
        range=diagnostic.range, message="spelling", source="cspell", code="unknown-word"
    )
    assert await code_actions(client, essay, [foreign]) == []
    assert await code_actions(client, essay, []) == []
    assert await code_actions(client, uri(folder, "essays/nowhere.txt"), [diagnostic]) == []
