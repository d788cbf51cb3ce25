"""Hover on a flagged passage: the matching passage of the other file, where it is, its score."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsp_support import (
    EDITED,
    ESSAY,
    FIRST_WORDS,
    INDEPENDENT,
    LAST_WORDS,
    SOURCE,
    TIMEOUT,
    essay_range,
    open_document,
    passage,
    published,
    read,
    ready,
    span,
    uri,
    utf16_range,
)
from lsprotocol import types
from pytest_lsp import LanguageClient


async def hover(client: LanguageClient, address: str, line: int, character: int):
    return await asyncio.wait_for(
        client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=address),
                position=types.Position(line=line, character=character),
            )
        ),
        TIMEOUT,
    )


async def test_hover_shows_the_matching_passage_with_its_location_and_score(
    client: LanguageClient, folder: Path
):
    essay = open_document(client, folder, ESSAY)
    await published(client, essay, where=lambda d: len(d) == 2)
    result = await hover(client, essay, 15, 10)  # inside lines 13–22 (1-based)
    assert result is not None
    assert result.range == essay_range(folder)
    assert isinstance(result.contents, types.MarkupContent)
    assert result.contents.kind == types.MarkupKind.Markdown
    value = result.contents.value
    assert SOURCE in value
    assert "lines 23–30" in value
    assert "100% exact" in value
    assert "> " + FIRST_WORDS in value  # the other file's passage, quoted
    assert f"({uri(folder, SOURCE)}#L23)" in value  # a link to it

    # the other passage of the essay: its own file, nothing of the first
    [edited] = [d for d in await published(client, essay) if EDITED in d.message]
    middle = edited.range.start.line + 2
    result = await hover(client, essay, middle, 5)
    assert result is not None and result.range == edited.range
    value = result.contents.value
    assert EDITED in value and "edited" in value and f"{uri(folder, EDITED)}#L" in value
    assert SOURCE not in value


async def test_no_hover_outside_a_passage_or_in_a_clean_document(
    client: LanguageClient, folder: Path
):
    essay = open_document(client, folder, ESSAY)
    await published(client, essay, where=lambda d: len(d) == 2)
    assert await hover(client, essay, 0, 3) is None  # the title
    assert await hover(client, essay, 11, 0) is None  # the line before the copy
    clean = open_document(client, folder, INDEPENDENT)
    await published(client, clean)
    assert await hover(client, clean, 5, 5) is None
    await ready(client)
    # a document the editor has not opened
    assert await hover(client, uri(folder, SOURCE), 25, 5) is None


async def test_hover_positions_count_utf16_code_units(client: LanguageClient, folder: Path):
    paragraph = " ".join(passage(read(folder, SOURCE), FIRST_WORDS, LAST_WORDS).split())
    text = f"Notes\n🐝🐝🐝 城市 — {paragraph}. 完\n"
    rel = "essays/emoji-hover.txt"
    (folder / rel).write_text(text, encoding="utf-8")
    await ready(client)
    notes = open_document(client, folder, rel, text)
    expected = utf16_range(text, *span(text, FIRST_WORDS, LAST_WORDS))
    await published(client, notes, where=lambda d: len(d) == 1 and d[0].range == expected)
    # "🐝🐝🐝 城市 — " is 9 code points but 12 UTF-16 units: the passage starts at 12
    assert expected.start.character == 12
    assert await hover(client, notes, 1, 11) is None  # the space before "The"
    result = await hover(client, notes, 1, 12)  # "T"
    assert result is not None and result.range == expected
