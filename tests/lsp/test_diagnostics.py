"""Diagnostics: one per matched passage, exact UTF-16 ranges, message, code, related information."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from lsp_support import (
    EDITED,
    ESSAY,
    EXAMPLE_DOCUMENTS,
    FIRST_WORDS,
    INDEPENDENT,
    LAST_WORDS,
    SOURCE,
    essay_range,
    filler,
    matching,
    open_document,
    passage,
    published,
    read,
    ready,
    related_to,
    source_range,
    span,
    uri,
    utf16_range,
)
from lsprotocol import types
from pytest_lsp import LanguageClient

SOURCE_LINES = "lines 23–30"  # where the planted paragraph is in SOURCE (1-based)
ESSAY_LINES = "lines 13–22"  # ... and in ESSAY


async def test_an_essay_gets_one_diagnostic_per_matched_passage(
    client: LanguageClient, folder: Path
):
    essay = open_document(client, folder, ESSAY, version=7)
    found = await published(client, essay, version=7, where=lambda d: len(d) == 2)
    assert {p.version for p in client.published if p.uri == essay} == {7}  # the buffer's

    copied = matching(found, uri(folder, SOURCE))
    assert len(copied) == 1
    diagnostic = copied[0]
    text = read(folder, ESSAY)
    start, end = span(text, FIRST_WORDS, LAST_WORDS)
    assert diagnostic.range == essay_range(folder)
    assert diagnostic.source == "doublet"
    assert diagnostic.code == "shared-passage"
    assert diagnostic.severity == types.DiagnosticSeverity.Warning  # the default
    # the message names the other file, its line range and how much matches
    assert SOURCE in diagnostic.message
    assert SOURCE_LINES in diagnostic.message
    assert f"{end - start} characters" in diagnostic.message
    assert "100% exact" in diagnostic.message
    assert [r.location for r in diagnostic.related_information] == [
        types.Location(uri=uri(folder, SOURCE), range=source_range(folder))
    ]

    edited = matching(found, uri(folder, EDITED))
    assert len(edited) == 1
    # Amira's paragraph 3 is lines 24–33; Chloe's edited copy of it lines 16–23
    assert 23 <= edited[0].range.start.line < edited[0].range.end.line <= 32
    assert EDITED in edited[0].message
    assert "edited" in edited[0].message
    assert edited[0].code == "shared-passage"
    [location] = related_to(edited[0], uri(folder, EDITED))
    assert 15 <= location.range.start.line < location.range.end.line <= 22


async def test_the_source_points_back_at_the_copy(client: LanguageClient, folder: Path):
    source = open_document(client, folder, SOURCE)
    found = await published(client, source, where=lambda d: len(d) == 1)
    [diagnostic] = found
    assert diagnostic.range == source_range(folder)
    assert ESSAY in diagnostic.message
    assert ESSAY_LINES in diagnostic.message
    assert [r.location for r in diagnostic.related_information] == [
        types.Location(uri=uri(folder, ESSAY), range=essay_range(folder))
    ]


async def test_documents_without_matches_get_empty_diagnostics(
    client: LanguageClient, folder: Path
):
    independent = open_document(client, folder, INDEPENDENT)
    # a short, attributed quotation is a fair citation, not reuse
    quoting = open_document(client, folder, "essays/dmitri-volkov.txt")
    assert await published(client, independent) == []
    assert await published(client, quoting) == []


async def test_ranges_count_utf16_code_units_before_and_inside_the_passage(
    client: LanguageClient, folder: Path
):
    """Emoji (two UTF-16 units, one with a modifier) and CJK (one astral) before the passage.

    What surrounds the passage is CJK, so the exact run cannot grow past the
    paragraph into letters that happen to equal those around it elsewhere.
    """
    paragraph = " ".join(passage(read(folder, SOURCE), FIRST_WORDS, LAST_WORDS).split())
    head, tail = paragraph.split(" A roof is warm, ")
    text = (
        "Notes\n"
        f"🐝🐝 城市养蜂 𠀋 👍🏽 — 摘录: {head}\n"
        f"😀👍 A roof is warm, {tail}. 🌼🌼 完\n"
        "The end.\n"
    )
    rel = "essays/emoji-notes.txt"
    (folder / rel).write_text(text, encoding="utf-8")
    await ready(client)
    notes = open_document(client, folder, rel, text)
    source = open_document(client, folder, SOURCE)

    start, end = span(text, FIRST_WORDS, LAST_WORDS)
    expected = utf16_range(text, start, end)
    # worked out by hand too: the prefixes' UTF-16 lengths
    prefix = "🐝🐝 城市养蜂 𠀋 👍🏽 — 摘录: "  # 23 code points, 5 of them astral
    assert expected.start == types.Position(line=1, character=len(prefix) + 5)
    assert expected.end.line == 2
    found = await published(client, notes, where=lambda d: len(d) == 1)
    assert found[0].range == expected
    assert "100% exact" in found[0].message  # emoji are not text: the copy is verbatim
    assert {(r.location.uri, str(r.location.range)) for r in found[0].related_information} == {
        (source, str(source_range(folder))),
        (uri(folder, ESSAY), str(essay_range(folder))),
    }

    # the other way round: the source's related information points into the emoji line
    back = await published(client, source, where=lambda d: any(related_to(x, notes) for x in d))
    [location] = [loc for d in back for loc in related_to(d, notes)]
    assert location.range == expected


async def test_a_cp1252_file_with_crlf_line_ends_is_matched_on_the_right_lines(
    client: LanguageClient, folder: Path
):
    rel = "essays/notes-cp1252.txt"
    text = (folder / rel).read_bytes().decode("cp1252")
    address = open_document(client, folder, rel, text)
    found = await published(client, address, where=lambda d: len(d) == 1)
    start, end = span(text, "Every rooftop hive on a café", "than for the city’s pollinators")
    assert found[0].range == utf16_range(text, start, end)
    assert found[0].range.start.line == 4  # lines 5–7
    assert "sources/sharing-the-flowers.md" in found[0].message


async def test_related_information_names_every_other_file_up_to_a_cap(
    client: LanguageClient, folder: Path
):
    # the paragraph in 13 files: no longer boilerplate only if the limit is raised
    (folder / "doublet.toml").write_text("boilerplate = 100\n", encoding="utf-8")
    paragraph = passage(read(folder, SOURCE), FIRST_WORDS, LAST_WORDS)
    copies = [f"essays/copy-{n:02}.txt" for n in range(11)]
    for n, rel in enumerate(copies):
        # numbers around the paragraph, so its exact run cannot grow into the filler
        body = f"{filler(100 + n, 120)}\nCopy {n}.\n\n{paragraph}\n\n{n} ends.\n\n"
        body += filler(200 + n, 120)
        (folder / rel).write_text(body, encoding="utf-8")
    status = await ready(client)
    assert status["documents"] == EXAMPLE_DOCUMENTS + len(copies)

    source = open_document(client, folder, SOURCE)
    found = await published(client, source, where=lambda d: len(d) == 1)
    [diagnostic] = found
    assert diagnostic.range == source_range(folder)
    others = [ESSAY, *copies]
    assert f"and {len(others) - 1} other files" in diagnostic.message
    related = diagnostic.related_information
    assert 2 <= len(related) < len(others), "related information is capped"
    targets = [r.location.uri for r in related]
    assert len(set(targets)) == len(targets)
    for item in related:
        rel = next(r for r in others if uri(folder, r) == item.location.uri)
        text = read(folder, rel)
        assert item.location.range == utf16_range(text, *span(text, FIRST_WORDS, LAST_WORDS))


async def test_a_paraphrased_paragraph_is_flagged_as_paraphrased(
    client: LanguageClient, folder: Path
):
    rel, flowers = "essays/farah-nasser.md", "sources/sharing-the-flowers.md"
    address = open_document(client, folder, rel)
    [diagnostic] = await published(client, address, where=lambda d: len(d) == 1)
    text = read(folder, rel)
    start = text.index("So what actually helps?")
    # the whole reworded paragraph (line 9), not just the sentence kept word for word
    assert diagnostic.range.start == utf16_range(text, start, start + 1).start
    assert diagnostic.range.start.line == diagnostic.range.end.line == 8
    assert flowers in diagnostic.message
    assert "paraphrased" in diagnostic.message
    [location] = related_to(diagnostic, uri(folder, flowers))
    assert location.range.start.line == 39  # "What, then, helps?" on line 40

    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=address),
            position=diagnostic.range.start,
        )
    )
    assert hover is not None and "paraphrased" in hover.contents.value
    assert "> What, then, helps?" in hover.contents.value


@pytest.mark.skipif(sys.platform != "linux", reason="other systems refuse such names")
async def test_a_file_named_in_bytes_that_are_not_utf8_is_linked_by_them(
    client: LanguageClient, folder: Path
):
    """A name that is not UTF-8 made every analysis of a document matching that file
    fail (its URI could not be written), and the document's diagnostics stood still."""
    odd = os.fsdecode(b"copy-\xff.txt")
    (folder / odd).write_bytes((folder / SOURCE).read_bytes())
    essay = open_document(client, folder, ESSAY)
    odd_uri = (folder / odd).as_uri()
    found = await published(client, essay, where=lambda d: bool(matching(d, odd_uri)))
    assert odd_uri.endswith("copy-%FF.txt")
    [diagnostic] = matching(found, odd_uri)
    assert diagnostic.range == essay_range(folder)
