"""Commands: doublet.findSimilar, doublet.workspaceReport, doublet.reindex, doublet.status."""

from __future__ import annotations

import json
import re
from pathlib import Path

from lsp_support import (
    EDITED,
    ESSAY,
    EXAMPLE_DOCUMENTS,
    FIRST_WORDS,
    INDEPENDENT,
    LAST_WORDS,
    OTHER_FIRST,
    OTHER_LAST,
    SOURCE,
    as_range,
    command,
    essay_range,
    filler,
    mark,
    open_document,
    passage,
    published,
    range_json,
    read,
    ready,
    session,
    source_range,
    span,
    status,
    uri,
    utf16_range,
    wait_until,
)
from lsprotocol import types
from pytest_lsp import LanguageClient

FIND = "doublet.findSimilar"


def flat(text: str) -> str:
    return " ".join(text.split())


async def test_status_says_what_the_server_knows(client: LanguageClient, folder: Path):
    current = await ready(client)
    assert current["state"] == "ready"
    assert current["documents"] == EXAMPLE_DOCUMENTS
    assert current["lastError"] is None
    assert current["open"] == 0
    assert Path(current["root"]) == folder.resolve()
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", current["version"])
    open_document(client, folder, ESSAY)
    assert (await status(client))["open"] == 1


async def test_find_similar_returns_every_passage_with_both_locations(
    client: LanguageClient, folder: Path
):
    await ready(client)
    essay = uri(folder, ESSAY)
    results = await command(client, FIND, essay)  # not open: the file on disk
    assert len(results) == 2
    assert [r["other"]["path"] for r in results] == [SOURCE, EDITED]  # in document order

    copied = results[0]
    text = read(folder, ESSAY)
    start, end = span(text, FIRST_WORDS, LAST_WORDS)
    assert copied["uri"] == essay
    assert as_range(copied["range"]) == essay_range(folder)
    assert copied["other"]["uri"] == uri(folder, SOURCE)
    assert as_range(copied["other"]["range"]) == source_range(folder)
    assert copied["score"] == 1.0
    assert copied["kind"] == "verbatim"
    assert copied["length"] == end - start
    # excerpts: whitespace flattened, the middle elided, the same words both sides
    words = flat(text[start:end])
    for excerpt in (copied["excerpt"], copied["otherExcerpt"]):
        assert excerpt.startswith(FIRST_WORDS)
        assert len(excerpt) <= 300 < len(words)
        head, tail = excerpt.split(" … ")
        assert words.startswith(head) and words.endswith(tail)
    assert isinstance(copied["digest"], str) and copied["digest"]

    edited = results[1]
    assert edited["kind"] == "edited"
    assert 0.5 < edited["score"] < 1.0
    assert edited["other"]["uri"] == uri(folder, EDITED)
    assert 23 <= as_range(edited["range"]).start.line <= 32  # Amira's paragraph 3
    assert 15 <= as_range(edited["other"]["range"]).start.line <= 22  # Chloe's


async def test_find_similar_in_a_selection(client: LanguageClient, folder: Path):
    await ready(client)
    essay = uri(folder, ESSAY)
    paragraph_3 = types.Range(
        start=types.Position(line=23, character=0), end=types.Position(line=32, character=19)
    )
    results = await command(client, FIND, essay, range_json(paragraph_3))
    assert [r["other"]["path"] for r in results] == [EDITED]
    # the object form, and a selection of a single point inside the copied paragraph
    point = types.Range(
        start=types.Position(line=15, character=3), end=types.Position(line=15, character=3)
    )
    results = await command(client, FIND, {"uri": essay, "range": range_json(point)})
    assert [r["other"]["path"] for r in results] == [SOURCE]
    # a selection with no passage in it
    title = types.Range(
        start=types.Position(line=0, character=0), end=types.Position(line=1, character=0)
    )
    assert await command(client, FIND, essay, range_json(title)) == []


async def test_find_similar_reads_the_open_buffer(client: LanguageClient, folder: Path):
    text = read(folder, INDEPENDENT)
    paragraph = passage(read(folder, SOURCE), OTHER_FIRST, OTHER_LAST)
    buffer = f"{paragraph}.\n\n(1)\n{text}"  # pasted at the top, not saved
    essay = open_document(client, folder, INDEPENDENT, buffer)
    await published(client, essay, where=lambda d: len(d) == 1)
    [result] = await command(client, FIND, essay)
    assert as_range(result["range"]) == utf16_range(buffer, *span(buffer, OTHER_FIRST, OTHER_LAST))
    assert result["other"]["path"] == SOURCE
    assert await command(client, FIND, uri(folder, "essays/elena-rossi.md")) == []


def report_payload(page: str) -> dict:
    """The data inlined in a report page (what its script draws every view from)."""
    found = re.search(
        r'<script id="report-data" type="application/json">(.*?)</script>', page, re.S
    )
    assert found, "the page inlines its data"
    return json.loads(found.group(1))


def utf16_slice(text: str, start: int, end: int) -> str:
    """text[start:end] with JavaScript's offsets (UTF-16 units), as the page's script reads them."""
    return text.encode("utf-16-le", "surrogatepass")[2 * start : 2 * end].decode("utf-16-le")


async def test_the_workspace_report_ranks_the_pairs(client: LanguageClient, folder: Path):
    await ready(client)
    report = await command(client, "doublet.workspaceReport")
    page = report["html"]
    assert page.startswith("<!doctype html>")
    assert "default-src 'none'" in page  # self-contained: the page's own CSP forbids fetching
    data = report_payload(page)
    assert data["title"] == f"Doublet report: {folder.name}"
    paths = [d["path"] for d in data["documents"]]
    assert len(paths) == EXAMPLE_DOCUMENTS == report["documents"]
    assert paths == sorted(paths) and {ESSAY, SOURCE, EDITED, INDEPENDENT} <= set(paths)
    pairs = data["pairs"]
    assert len(pairs) == report["pairs"]
    names = [frozenset((paths[p["a"]], paths[p["b"]])) for p in pairs]
    assert len(set(names)) == len(names)
    assert set(names) == {
        frozenset((ESSAY, SOURCE)),
        frozenset((ESSAY, EDITED)),
        frozenset(("essays/notes-cp1252.txt", "sources/sharing-the-flowers.md")),
        frozenset(("essays/farah-nasser.md", "sources/sharing-the-flowers.md")),
    }
    similarities = [p["similarity"] for p in pairs]
    assert similarities == sorted(similarities, reverse=True)  # best first
    for pair in pairs:
        assert 0 < pair["similarity"] <= 1
        assert 0 < pair["a_coverage"] <= 1 and 0 < pair["b_coverage"] <= 1
        assert pair["longest"] > 0 and pair["passages"]
    # the page holds the text of every document in a pair, and of no other
    assert set(data["texts"]) == {str(d) for p in pairs for d in (p["a"], p["b"])}
    assert str(paths.index(INDEPENDENT)) not in data["texts"]

    [copied] = [p for p in pairs if {paths[p["a"]], paths[p["b"]]} == {ESSAY, SOURCE}]
    [shared] = copied["passages"]
    assert shared["score"] == 1.0 and shared["kind"] == "verbatim"
    sides = {paths[copied[s]]: (shared[s], data["texts"][str(copied[s])]) for s in ("a", "b")}
    for rel, lines in ((ESSAY, (13, 22)), (SOURCE, (23, 30))):
        side, text = sides[rel]
        assert text == read(folder, rel)
        assert (side["line"], side["end_line"]) == lines
        quoted = flat(utf16_slice(text, side["start"], side["end"]))
        assert quoted.startswith(FIRST_WORDS) and quoted.endswith(LAST_WORDS)


async def test_reindex_rebuilds_with_progress_and_returns_the_status(
    client: LanguageClient, folder: Path
):
    await ready(client)
    essay = open_document(client, folder, ESSAY)
    await published(client, essay, where=lambda d: len(d) == 2)
    tokens = set(client.progress_reports)
    logged = len(client.stderr_lines)
    since = mark(client)
    result = await command(client, "doublet.reindex")
    assert result["state"] == "ready"
    assert result["documents"] == EXAMPLE_DOCUMENTS
    assert result["lastError"] is None
    [token] = set(client.progress_reports) - tokens
    reports = client.progress_reports[token]
    assert isinstance(reports[0], types.WorkDoneProgressBegin)
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)
    # every file was read again
    line = await wait_until(
        lambda: next((x for x in client.stderr_lines[logged:] if "indexed" in x), None),
        "the log line",
    )
    assert f"indexed {EXAMPLE_DOCUMENTS} documents" in line
    assert f"({EXAMPLE_DOCUMENTS} read" in line
    # and the open documents are analysed again
    found = await published(client, essay, since=since, where=lambda d: len(d) == 2)
    assert len(found) == 2


async def test_find_similar_asked_while_the_index_is_built_waits_for_it(folder: Path):
    bulk = folder / "bulk"
    bulk.mkdir()
    for i in range(2500):  # a second or more of indexing
        (bulk / f"{i:04d}.txt").write_text(filler(i, 60))
    async with session(folder) as client:
        asked_while = (await status(client))["state"]
        answer = await command(client, FIND, uri(folder, ESSAY))
        assert asked_while in ("starting", "indexing")
        assert {m["other"]["path"] for m in answer} >= {SOURCE, EDITED}
        assert (await status(client))["state"] == "ready"
