"""Open documents: the buffer counts, changes are debounced, stale results dropped, and
the other open documents a match involves are republished."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsp_support import (
    DEBOUNCE_MS,
    EDITED,
    ESSAY,
    FIRST_WORDS,
    INDEPENDENT,
    LAST_WORDS,
    OTHER_FIRST,
    OTHER_LAST,
    SOURCE,
    change_document,
    close_document,
    mark,
    matching,
    nothing_published,
    open_document,
    passage,
    published,
    read,
    related_to,
    session,
    source_range,
    span,
    uri,
    utf16_range,
)
from lsprotocol import types
from pytest_lsp import LanguageClient


def paste(text: str, addition: str, after: str) -> str:
    """``text`` with ``addition`` as a paragraph of its own after the line holding ``after``.

    Numbers go either side of it: a passage is a maximal exact run, so letters
    that happen to equal those around the paragraph elsewhere would extend it.
    """
    at = text.index("\n", text.index(after)) + 1
    return text[:at] + "\n(1)\n" + addition + "\n(2)\n" + text[at:]


def other_paragraph(folder: Path) -> str:
    """A paragraph of SOURCE (lines 32–40) that no other file holds."""
    return passage(read(folder, SOURCE), OTHER_FIRST, OTHER_LAST) + "."


def other_range(folder: Path) -> types.Range:
    text = read(folder, SOURCE)
    return utf16_range(text, *span(text, OTHER_FIRST, OTHER_LAST))


async def test_pasting_a_paragraph_lights_up_both_documents_and_deleting_it_clears_them(
    client: LanguageClient, folder: Path
):
    original = read(folder, INDEPENDENT)
    essay = open_document(client, folder, INDEPENDENT)
    source = open_document(client, folder, SOURCE)
    assert await published(client, essay) == []
    before = await published(client, source, where=lambda d: len(d) == 1)
    assert matching(before, uri(folder, ESSAY))

    # paste a paragraph of the source into the essay (not saved)
    pasted = paste(original, other_paragraph(folder), "My uncle Tunde")
    since = mark(client)
    change_document(client, essay, 2, pasted)
    [mine] = await published(client, essay, since=since, version=2, where=lambda d: len(d) == 1)
    expected = utf16_range(pasted, *span(pasted, OTHER_FIRST, OTHER_LAST))
    assert mine.range == expected
    assert [r.location for r in mine.related_information] == [
        types.Location(uri=source, range=other_range(folder))
    ]
    assert SOURCE in mine.message and "lines 32–40" in mine.message

    # the source lights up too, pointing at the pasted copy; its old match stays
    theirs = await published(client, source, since=since, where=lambda d: bool(matching(d, essay)))
    assert len(theirs) == 2
    [new] = matching(theirs, essay)
    assert new.range == other_range(folder)
    assert related_to(new, essay) == [types.Location(uri=essay, range=expected)]
    assert INDEPENDENT in new.message
    [old] = matching(theirs, uri(folder, ESSAY))
    assert old.range == source_range(folder)
    assert read(folder, INDEPENDENT) == original  # the buffer counted, not the disk

    # delete it again: both clear
    since = mark(client)
    change_document(client, essay, 3, original)
    assert await published(client, essay, since=since, version=3) == []
    after = await published(client, source, since=since, where=lambda d: not matching(d, essay))
    assert len(after) == 1 and matching(after, uri(folder, ESSAY))


async def test_passages_added_removed_or_resized_against_a_matched_file_update_it(
    client: LanguageClient, folder: Path
):
    """The essay already matches the source; its edits change what they share."""
    original = read(folder, ESSAY)
    essay = open_document(client, folder, ESSAY)
    source = open_document(client, folder, SOURCE)
    await published(client, essay, where=lambda d: len(d) == 2)
    await published(client, source, where=lambda d: len(d) == 1)

    # added: a second paragraph of the source pasted into the essay
    pasted = paste(original, other_paragraph(folder), "have a second look.")
    since = mark(client)
    change_document(client, essay, 2, pasted)
    await published(client, essay, since=since, version=2, where=lambda d: len(d) == 3)
    found = await published(client, source, since=since, where=lambda d: len(d) == 2)
    assert sorted(str(d.range) for d in found) == sorted(
        [str(source_range(folder)), str(other_range(folder))]
    )

    # removed again: only the planted paragraph is shared
    since = mark(client)
    change_document(client, essay, 3, original)
    await published(client, essay, since=since, version=3, where=lambda d: len(d) == 2)
    found = await published(client, source, since=since, where=lambda d: len(d) == 1)
    assert found[0].range == source_range(folder)

    # resized: the copy cut in half in the essay moves the source's range
    cut = original.index("A roof is warm")
    end = span(original, FIRST_WORDS, LAST_WORDS)[1] + 1
    changed = original[:cut] + "Nothing else here is copied from anywhere at all." + original[end:]
    since = mark(client)
    change_document(client, essay, 4, changed)
    mine = await published(client, essay, since=since, version=4, where=lambda d: len(d) == 2)
    [half] = matching(mine, source)
    assert half.range == utf16_range(changed, *span(changed, FIRST_WORDS, "good apiaries"))
    source_text = read(folder, SOURCE)
    expected = utf16_range(source_text, *span(source_text, FIRST_WORDS, "good apiaries"))
    found = await published(
        client,
        source,
        since=since,
        where=lambda d: len(d) == 1 and d[0].range == expected,
    )
    assert related_to(found[0], essay) == [types.Location(uri=essay, range=half.range)]


async def test_the_buffer_counts_not_the_file_on_disk(client: LanguageClient, folder: Path):
    text = read(folder, ESSAY)
    start, end = span(text, FIRST_WORDS, LAST_WORDS)
    without = text[:start] + "I wrote this paragraph myself." + text[end + 1 :]
    essay = open_document(client, folder, ESSAY, without)
    found = await published(client, essay, where=lambda d: len(d) == 1)
    assert matching(found, uri(folder, EDITED))
    # the source does not match the file on disk, since the editor has it otherwise
    source = open_document(client, folder, SOURCE)
    assert await published(client, source) == []


async def test_closing_a_document_clears_it_and_the_file_on_disk_counts_again(
    client: LanguageClient, folder: Path
):
    original = read(folder, INDEPENDENT)
    pasted = paste(original, other_paragraph(folder), "My uncle Tunde")
    essay = open_document(client, folder, INDEPENDENT, pasted)
    source = open_document(client, folder, SOURCE)
    await published(client, essay, where=lambda d: len(d) == 1)
    await published(client, source, where=lambda d: bool(matching(d, essay)))

    since = mark(client)
    close_document(client, essay)
    assert await published(client, essay, since=since) == []
    after = await published(client, source, since=since, where=lambda d: not matching(d, essay))
    assert [d.range for d in after] == [source_range(folder)]


async def test_a_burst_of_changes_publishes_the_last_version_only(
    client: LanguageClient, folder: Path
):
    """Changes closer together than the debounce are analysed once, at the last version."""
    original = read(folder, INDEPENDENT)
    pasted = paste(original, other_paragraph(folder), "My uncle Tunde")
    essay = open_document(client, folder, INDEPENDENT)
    await published(client, essay, version=1)
    since = mark(client)
    for version in range(2, 12):
        change_document(client, essay, version, pasted if version % 2 else original)
        await asyncio.sleep(DEBOUNCE_MS / 1000 / 5)
    found = await published(client, essay, since=since, version=11, where=lambda d: len(d) == 1)
    assert found[0].range == utf16_range(pasted, *span(pasted, OTHER_FIRST, OTHER_LAST))
    await asyncio.sleep(0.3)  # bounded: an older version must not come after it
    versions = [p.version for p in client.published[since:] if p.uri == essay]
    assert set(versions) == {11}


async def test_stale_results_are_dropped_without_a_debounce(folder: Path):
    """With no debounce, analyses overlap: only the newest version's result is published,
    and versions never go backwards."""
    async with session(folder, settings={"debounce": 0}) as client:
        original = read(folder, INDEPENDENT)
        pasted = paste(original, other_paragraph(folder), "My uncle Tunde")
        essay = open_document(client, folder, INDEPENDENT)
        await published(client, essay, version=1)
        since = mark(client)
        for version in range(2, 22):
            change_document(client, essay, version, pasted if version % 2 == 0 else original)
        found = await published(client, essay, since=since, version=21)
        assert found == []  # version 21 is the original text
        await asyncio.sleep(0.3)  # bounded: no older version may come after it
        versions = [p.version for p in client.published[since:] if p.uri == essay]
        assert versions == sorted(versions) and versions[-1] == 21
        # what was published for each version is that version's analysis
        for params in client.published[since:]:
            if params.uri == essay:
                assert len(params.diagnostics) == (1 if params.version % 2 == 0 else 0)


async def test_the_debounce_setting_delays_the_analysis(folder: Path):
    async with session(folder, settings={"debounce": 500}) as client:
        essay = open_document(client, folder, INDEPENDENT)  # opening is not debounced
        await published(client, essay, version=1)
        original = read(folder, INDEPENDENT)
        pasted = paste(original, other_paragraph(folder), "My uncle Tunde")
        since = mark(client)
        loop = asyncio.get_running_loop()
        started = loop.time()
        change_document(client, essay, 2, pasted)
        await nothing_published(client, essay, since=since, seconds=0.3)
        await published(client, essay, since=since, version=2, where=lambda d: len(d) == 1)
        assert loop.time() - started >= 0.45


async def test_ignore_marks_typed_around_a_copied_paragraph_clear_its_warning(
    client: LanguageClient, folder: Path
):
    text = read(folder, ESSAY)
    essay = open_document(client, folder, ESSAY)
    found = await published(client, essay, where=lambda d: len(d) == 2)
    assert matching(found, uri(folder, SOURCE))
    start, end = span(text, FIRST_WORDS, LAST_WORDS)
    marked = (
        f"{text[:start]}(quoted on purpose; doublet: ignore-start)\n"
        f"{text[start:end]}\n(doublet: ignore-end){text[end:]}"
    )
    since = mark(client)
    change_document(client, essay, 2, marked)
    left = await published(client, essay, since=since, version=2)
    assert len(left) == 1 and not matching(left, uri(folder, SOURCE))
