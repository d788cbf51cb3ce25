"""Lines as LSP counts them: ended by "\\r\\n", "\\r" or "\\n" only. A form feed (a page
break in a text export), U+0085 or U+2028 is a character of its line; a lone "\\r"
(classic Mac files, Neovim's fileformat=mac) ends one. Diagnostics point at the
passage in the editor's lines, and an edit lands where the editor made it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from lsp_support import (
    DEBOUNCE_MS,
    ESSAY,
    FIRST_WORDS,
    INDEPENDENT,
    LAST_WORDS,
    SERVER,
    SOURCE,
    capabilities,
    close,
    make_client,
    matching,
    open_document,
    passage,
    published,
    read,
    ready,
    span,
    uri,
)
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

LSP_LINE = re.compile("[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def lsp_offset(text: str, position: types.Position) -> int:
    """The offset of an LSP position (UTF-16 columns) in ``text``, lines as LSP counts them."""
    lines = LSP_LINE.findall(text)
    offset = sum(len(line) for line in lines[: position.line])
    units = 0
    for i, ch in enumerate(lines[position.line] if position.line < len(lines) else ""):
        if units >= position.character:
            return offset + i
        units += 2 if ord(ch) > 0xFFFF else 1
    return offset + len(lines[position.line]) if position.line < len(lines) else len(text)


def quoted(text: str, r: types.Range) -> str:
    return " ".join(text[lsp_offset(text, r.start) : lsp_offset(text, r.end)].split())


@pytest.mark.parametrize(
    "reshape",
    [
        lambda text: text.replace("\n", "\r"),  # lone CRs
        lambda text: text.replace("\n\n", "\n\x0c\n").replace("\n", "\u2028", 3),
    ],
    ids=["lone-cr", "form-feed-and-line-separator"],
)
async def test_a_passage_is_located_in_the_editors_lines(
    client: LanguageClient, folder: Path, reshape
):
    await ready(client)
    text = reshape(read(folder, ESSAY))
    essay = open_document(client, folder, ESSAY, text=text)
    found = await published(client, essay, where=lambda d: bool(matching(d, uri(folder, SOURCE))))
    [diagnostic] = matching(found, uri(folder, SOURCE))
    expected = " ".join(passage(text, FIRST_WORDS, LAST_WORDS).split())
    assert quoted(text, diagnostic.range) == expected


async def test_an_edit_after_a_form_feed_lands_where_the_editor_made_it(
    client: LanguageClient, folder: Path
):
    await ready(client)
    text = read(folder, INDEPENDENT)
    head, rest = text.split("\n", 1)
    text = head + "\x0c page two\u2028 still line one\n" + rest  # one LSP line, three for Python
    other = open_document(client, folder, INDEPENDENT, text=text)
    await published(client, other, version=1)
    pasted = passage(read(folder, SOURCE), FIRST_WORDS, LAST_WORDS) + "\n"
    at = types.Position(line=3, character=0)  # the editor's line 3
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=other, version=2),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(start=at, end=at), text=pasted
                )
            ],
        )
    )
    edited = text[: lsp_offset(text, at)] + pasted + text[lsp_offset(text, at) :]
    found = await published(
        client, other, version=2, where=lambda d: bool(matching(d, uri(folder, SOURCE)))
    )
    [diagnostic] = matching(found, uri(folder, SOURCE))
    assert quoted(edited, diagnostic.range) == " ".join(pasted.split())
    assert diagnostic.range.start.line == 3


@pytest.mark.parametrize(("encoding", "width"), [("utf-8", 9), ("utf-16", 5), ("utf-32", 4)])
async def test_columns_are_counted_in_the_position_encoding_agreed(
    folder: Path, encoding: str, width: int
):
    """A client that prefers UTF-8 (Helix) or UTF-32 gets columns in it: "é😀ü " before
    the passage on its line is 9 bytes, 5 UTF-16 units, 4 code points."""
    config = ClientServerConfig(server_command=SERVER, client_factory=make_client)
    client = await config.start()
    try:
        offered = capabilities()
        offered.general = types.GeneralClientCapabilities(position_encodings=[encoding])
        client.set_configuration({"debounce": DEBOUNCE_MS}, section="doublet")
        answer = await client.initialize_session(
            types.InitializeParams(capabilities=offered, root_uri=folder.as_uri())
        )
        assert answer.capabilities.position_encoding == encoding
        await ready(client)
        text = read(folder, ESSAY)
        start = span(text, FIRST_WORDS, LAST_WORDS)[0]
        text = text[:start] + "é😀ü " + text[start:]
        essay = open_document(client, folder, ESSAY, text=text)
        found = await published(
            client, essay, where=lambda d: bool(matching(d, uri(folder, SOURCE)))
        )
        [diagnostic] = matching(found, uri(folder, SOURCE))
        assert diagnostic.range.start.character == width
    finally:
        await close(client)
