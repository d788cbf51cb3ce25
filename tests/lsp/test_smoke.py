from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient


async def wait_for_diagnostics(client: LanguageClient, uri: str, timeout: float = 20.0):
    deadline = asyncio.get_running_loop().time() + timeout
    while uri not in client.diagnostics:
        remaining = deadline - asyncio.get_running_loop().time()
        assert remaining > 0, f"no diagnostics for {uri}"
        await asyncio.wait_for(
            client.wait_for_notification("textDocument/publishDiagnostics"), remaining
        )
    return client.diagnostics[uri]


async def test_an_opened_essay_shows_its_copied_paragraph(client: LanguageClient, folder: Path):
    path = folder / "essays" / "amira-haddad.txt"
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="plaintext", version=1, text=path.read_text()
            )
        )
    )
    diagnostics = await wait_for_diagnostics(client, uri)
    print(diagnostics)
    assert diagnostics
