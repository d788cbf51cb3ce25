"""What the server holds must follow what the editor and the disk say: a buffer closed
while the index is built, a document excluded while open, an index that cannot be
saved, a request after shutdown (found by an adversarial run of a real client)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from lsp_support import (
    DEBOUNCE_MS,
    ESSAY,
    FIRST_WORDS,
    LAST_WORDS,
    SERVER,
    SOURCE,
    TIMEOUT,
    DoubletClient,
    change_document,
    close,
    close_document,
    command,
    filler,
    initialize,
    make_client,
    matching,
    open_document,
    passage,
    published,
    raw_request,
    read,
    ready,
    session,
    status,
    uri,
)
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient


async def test_a_document_excluded_while_open_loses_its_diagnostics(
    client: LanguageClient, folder: Path
):
    await ready(client)
    essay, source = open_document(client, folder, ESSAY), open_document(client, folder, SOURCE)
    for address, other in ((essay, source), (source, essay)):
        await published(client, address, where=lambda d, o=other: bool(matching(d, o)))
    (folder / "doublet.toml").write_text(f'exclude = ["{SOURCE}"]\n', encoding="utf-8")
    await published(client, source, where=lambda d: not d)  # no match to tell of
    await published(client, essay, where=lambda d: not matching(d, source))
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=source),
            position=types.Position(line=25, character=3),
        )
    )
    assert hover is None


async def test_an_index_that_cannot_be_saved_still_answers(folder: Path):
    """`.doublet` a file in the way: the save fails, is logged, and the folder answers."""
    (folder / ".doublet").write_text("not a folder\n", encoding="utf-8")
    async with session(folder) as client:
        assert (await ready(client))["state"] == "ready"
        essay = open_document(client, folder, ESSAY)
        found = await published(
            client, essay, where=lambda d: bool(matching(d, uri(folder, SOURCE)))
        )
        assert found and (await status(client))["lastError"] is None


async def test_a_request_after_shutdown_gets_an_error_response(folder: Path):
    config = ClientServerConfig(server_command=SERVER, client_factory=make_client)
    client = await config.start()
    assert isinstance(client, DoubletClient)
    try:
        await initialize(client, folder, settings={"debounce": DEBOUNCE_MS})
        await ready(client)
        await asyncio.wait_for(client.shutdown_async(None), TIMEOUT)  # no exit yet
        with pytest.raises(JsonRpcException, match="shutting down"):
            await raw_request(client, "workspace/executeCommand", {"command": "doublet.status"})
        client.exit(None)
    finally:
        await close(client, shutdown=False)


async def test_a_buffer_closed_while_the_index_is_built_leaves_the_index(folder: Path):
    """An edited document closed while the start-up refresh runs: its file counts again,
    not the buffer the refresh began with (the refresh keeps open buffers as they are)."""
    pasted = passage(read(folder, SOURCE), FIRST_WORDS, LAST_WORDS)
    for i in range(600):  # a start-up refresh long enough to close a buffer during it
        (folder / "filler" / f"f{i:03}.txt").parent.mkdir(exist_ok=True)
        (folder / "filler" / f"f{i:03}.txt").write_text(filler(i, 60), encoding="utf-8")
    async with session(folder) as first:  # builds and saves the index
        await ready(first)
        await command(first, "doublet.status")
    for path in folder.rglob("*.txt"):  # every file read again at the next start
        os.utime(path, (path.stat().st_atime, path.stat().st_mtime + 10))
    async with session(folder) as client:
        own = "essays/ben-adeyemi.md"  # shares nothing until the paste
        text = read(folder, own)
        address = open_document(client, folder, own)
        change_document(client, address, 2, text + "\n" + pasted + "\n")
        await published(client, address, version=2)
        close_document(client, address)
        await ready(client)
        source = open_document(client, folder, SOURCE)
        found = await published(client, source, where=lambda d: bool(d))
        assert not matching(found, address), "matched against a buffer closed unsaved"
        similar = await command(client, "doublet.findSimilar", source)
        assert own not in str(similar)
