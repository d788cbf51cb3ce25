"""Files changed outside the editor: seen through watchdog, coalesced, applied to the index,
and the open documents they affect republished."""

from __future__ import annotations

import asyncio
import re
import shutil
import subprocess
import sys
from pathlib import Path

from lsp_support import (
    ESSAY,
    EXAMPLE_DOCUMENTS,
    FIRST_WORDS,
    LAST_WORDS,
    OTHER_FIRST,
    OTHER_LAST,
    SOURCE,
    command,
    filler,
    indexed,
    mark,
    matching,
    open_document,
    passage,
    published,
    read,
    ready,
    related_to,
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


def copy_of_paragraph(folder: Path, seed: int, first: str = FIRST_WORDS, last: str = LAST_WORDS):
    """A new document: made-up prose around a paragraph of SOURCE (numbers either side,
    so the passage cannot grow into the prose)."""
    paragraph = passage(read(folder, SOURCE), first, last) + "."
    return f"{filler(seed, 150)}\n(1)\n\n{paragraph}\n\n(2)\n{filler(seed + 1, 150)}"


async def source_opened(client: LanguageClient, folder: Path) -> str:
    """The workspace indexed and watched, SOURCE open with its one planted match."""
    await ready(client)
    source = open_document(client, folder, SOURCE)
    await published(client, source, where=lambda d: len(d) == 1)
    return source


async def test_a_file_written_by_another_process_is_picked_up(client: LanguageClient, folder: Path):
    source = await source_opened(client, folder)
    rel = "essays/new-student.txt"
    text = copy_of_paragraph(folder, 1)
    since = mark(client)
    # another process: the editor's server must not be the one writing it
    subprocess.run(
        [sys.executable, "-c", f"import sys; open(sys.argv[1], 'w').write({text!r})", folder / rel],
        check=True,
    )
    new = uri(folder, rel)
    found = await published(client, source, since=since, where=lambda d: bool(matching(d, new)))
    [diagnostic] = found
    assert diagnostic.range == source_range(folder)
    assert {loc.uri for loc in (r.location for r in diagnostic.related_information)} == {
        new,
        uri(folder, ESSAY),
    }
    assert related_to(diagnostic, new)[0].range == utf16_range(
        text, *span(text, FIRST_WORDS, LAST_WORDS)
    )
    assert (await status(client))["documents"] == EXAMPLE_DOCUMENTS + 1


async def test_a_file_modified_then_deleted_on_disk(client: LanguageClient, folder: Path):
    source = await source_opened(client, folder)
    original = read(folder, ESSAY)
    start, end = span(original, FIRST_WORDS, LAST_WORDS)
    since = mark(client)
    (folder / ESSAY).write_text(original[:start] + "My own words." + original[end + 1 :])
    assert await published(client, source, since=since, where=lambda d: not d) == []

    since = mark(client)
    (folder / ESSAY).write_text(original, encoding="utf-8")  # the copy is back
    found = await published(client, source, since=since, where=lambda d: len(d) == 1)
    assert related_to(found[0], uri(folder, ESSAY))[0].range == utf16_range(original, start, end)

    since = mark(client)
    (folder / ESSAY).unlink()
    assert await published(client, source, since=since, where=lambda d: not d) == []
    assert (await status(client))["documents"] == EXAMPLE_DOCUMENTS - 1


async def test_a_file_moved_on_disk_is_followed(client: LanguageClient, folder: Path):
    source = await source_opened(client, folder)
    since = mark(client)
    (folder / "essays" / "2024").mkdir()
    moved = "essays/2024/amira-haddad.txt"
    (folder / ESSAY).rename(folder / moved)
    found = await published(
        client, source, since=since, where=lambda d: bool(matching(d, uri(folder, moved)))
    )
    [diagnostic] = found
    text = read(folder, moved)
    assert [r.location for r in diagnostic.related_information] == [
        types.Location(
            uri=uri(folder, moved), range=utf16_range(text, *span(text, FIRST_WORDS, LAST_WORDS))
        )
    ]
    assert moved in diagnostic.message
    assert (await status(client))["documents"] == EXAMPLE_DOCUMENTS


async def test_a_folder_deleted_and_made_again_is_watched_again(
    client: LanguageClient, folder: Path, tmp_path: Path
):
    """Submissions unzipped anew, a fresh clone: the folder is a new one to the system
    (its watches went with the old one), and what is written in it is still seen."""
    source = await source_opened(client, folder)
    kept = tmp_path / "kept"
    shutil.copytree(folder, kept)
    shutil.rmtree(folder)
    await wait_until(lambda: _published_for_all_gone(client, folder))
    shutil.copytree(kept, folder)
    await ready(client)
    since = mark(client)
    await asyncio.sleep(1.0)  # watched again by now: a later write is the watches' news
    rel = "essays/after-the-unzip.txt"
    text = copy_of_paragraph(folder, 5)
    (folder / rel).write_text(text, encoding="utf-8")
    new = uri(folder, rel)
    await published(client, source, since=since, where=lambda d: bool(matching(d, new)))
    assert (await status(client))["documents"] == EXAMPLE_DOCUMENTS + 1


def _published_for_all_gone(client: LanguageClient, folder: Path) -> bool:
    """Whether the open source's latest diagnostics name no document (all deleted)."""
    latest = [p for p in client.published if p.uri == uri(folder, SOURCE)]
    return bool(latest) and not latest[-1].diagnostics


async def test_many_files_changed_at_once_are_coalesced(client: LanguageClient, folder: Path):
    """60 files written in a burst, one of them a copy: one refresh, not sixty."""
    source = await source_opened(client, folder)
    since = mark(client)
    (folder / "batch").mkdir()
    for n in range(60):
        body = copy_of_paragraph(folder, 1000) if n == 37 else filler(2000 + n, 200)
        (folder / "batch" / f"doc-{n:02}.txt").write_text(body, encoding="utf-8")
    copy = uri(folder, "batch/doc-37.txt")
    await published(client, source, since=since, where=lambda d: bool(matching(d, copy)))
    await indexed(client, EXAMPLE_DOCUMENTS + 60)
    await asyncio.sleep(0.5)  # bounded: nothing more should come
    # one republish (two if the burst was ever quiet long enough to be split)
    assert len([p for p in client.published[since:] if p.uri == source]) <= 2


async def test_a_git_checkout_of_many_files_is_applied(client: LanguageClient, folder: Path):
    """A real `git checkout` between two branches that differ in many files."""

    def git(*args: str) -> None:
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
            cwd=folder,
            check=True,
            capture_output=True,
        )

    git("init", "-q", "-b", "main")
    git("add", "-A")
    git("commit", "-q", "-m", "essays")
    git("checkout", "-q", "-b", "next")
    (folder / ESSAY).write_text("Amira started again from a blank page.\n", encoding="utf-8")
    (folder / "more").mkdir()
    for n in range(30):
        body = copy_of_paragraph(folder, 3000, OTHER_FIRST, OTHER_LAST) if n == 5 else ""
        (folder / "more" / f"essay-{n:02}.txt").write_text(
            body or filler(4000 + n, 200), encoding="utf-8"
        )
    git("add", "-A")
    git("commit", "-q", "-m", "next")
    git("checkout", "-q", "main")

    source = await source_opened(client, folder)
    since = mark(client)
    git("checkout", "-q", "next")
    copy = uri(folder, "more/essay-05.txt")
    found = await published(
        client,
        source,
        since=since,
        where=lambda d: bool(matching(d, copy)) and not matching(d, uri(folder, ESSAY)),
    )
    [diagnostic] = found
    text = read(folder, SOURCE)
    assert diagnostic.range == utf16_range(text, *span(text, OTHER_FIRST, OTHER_LAST))
    assert (await status(client))["documents"] == EXAMPLE_DOCUMENTS + 30

    since = mark(client)
    git("checkout", "-q", "main")  # the folder more/ goes away
    found = await published(
        client, source, since=since, where=lambda d: bool(matching(d, uri(folder, ESSAY)))
    )
    assert [d.range for d in found] == [source_range(folder)]
    assert (await status(client))["documents"] == EXAMPLE_DOCUMENTS


async def test_an_open_document_changed_on_disk_keeps_its_buffer(
    client: LanguageClient, folder: Path
):
    """The editor's buffer counts: the file on disk losing the copy changes nothing."""
    source = await source_opened(client, folder)
    essay = open_document(client, folder, ESSAY)
    await published(client, essay, where=lambda d: len(d) == 2)
    text = read(folder, ESSAY)
    start, end = span(text, FIRST_WORDS, LAST_WORDS)
    since = mark(client)
    (folder / ESSAY).write_text(text[:start] + "Mine." + text[end + 1 :], encoding="utf-8")
    # a second file in the same burst tells us when the refresh has been applied
    rel = "essays/late.txt"
    (folder / rel).write_text(
        copy_of_paragraph(folder, 5, OTHER_FIRST, OTHER_LAST), encoding="utf-8"
    )
    found = await published(
        client, source, since=since, where=lambda d: bool(matching(d, uri(folder, rel)))
    )
    assert len(found) == 2
    assert matching(found, essay), "the essay's buffer still holds the copy"
    result = await command(client, "doublet.findSimilar", essay)
    assert SOURCE in {r["other"]["path"] for r in result}


async def test_a_file_outside_the_includes_is_not_indexed(client: LanguageClient, folder: Path):
    (folder / "doublet.toml").write_text('exclude = ["drafts/"]\n', encoding="utf-8")
    source = await source_opened(client, folder)
    (folder / "drafts").mkdir()
    (folder / "drafts" / "copy.txt").write_text(copy_of_paragraph(folder, 9), encoding="utf-8")
    # and an included one after it, to know the burst was handled
    since = mark(client)
    (folder / "essays" / "copy.txt").write_text(copy_of_paragraph(folder, 11), encoding="utf-8")
    found = await published(
        client,
        source,
        since=since,
        where=lambda d: bool(matching(d, uri(folder, "essays/copy.txt"))),
    )
    assert not matching(found, uri(folder, "drafts/copy.txt"))
    assert (await status(client))["documents"] == EXAMPLE_DOCUMENTS + 1


def big_file(folder: Path) -> str:
    """A file whose indexing keeps the worker busy for a second or so; sorted last."""
    rel = "zz-big.txt"
    (folder / rel).write_text(filler(77, 1_200_000), encoding="utf-8")
    return rel


def reading_the_last_file(client: LanguageClient) -> bool:
    """Whether some work-done progress (not ended) says all files but the last are read:
    the big file, sorted last, is being read (reports are throttled, so the count of
    files before is not always sent, but this one is while the big file takes long)."""
    for reports in client.progress_reports.values():
        if any(isinstance(r, types.WorkDoneProgressEnd) for r in reports):
            continue
        for report in reports:
            counts = re.match(r"(\d+) of (\d+) files", getattr(report, "message", None) or "")
            if counts and int(counts[1]) == int(counts[2]) - 1:
                return True
    return False


async def test_a_file_written_during_a_reindex_is_not_lost(client: LanguageClient, folder: Path):
    big_file(folder)
    source = await source_opened(client, folder)
    reindex = asyncio.ensure_future(command(client, "doublet.reindex"))
    # all files but the big one read: the folder was listed, the big file is being read
    await wait_until(lambda: reading_the_last_file(client) and not reindex.done(), "the reindex")
    since = mark(client)
    rel = "essays/written-meanwhile.txt"
    (folder / rel).write_text(copy_of_paragraph(folder, 21), encoding="utf-8")
    assert (await reindex)["documents"] == EXAMPLE_DOCUMENTS + 1
    found = await published(
        client,
        source,
        since=since,
        where=lambda d: bool(matching(d, uri(folder, rel))),
    )
    assert found
    assert (await status(client))["documents"] == EXAMPLE_DOCUMENTS + 2


async def test_a_file_written_during_start_up_indexing_is_not_lost(folder: Path):
    big_file(folder)
    async with session(folder) as client:
        await wait_until(lambda: reading_the_last_file(client), "the start-up indexing")
        rel = "essays/written-meanwhile.txt"
        (folder / rel).write_text(copy_of_paragraph(folder, 22), encoding="utf-8")
        await ready(client)
        source = open_document(client, folder, SOURCE)
        found = await published(client, source, where=lambda d: len(d) == 1)
        await wait_until(
            lambda: matching(client.diagnostics.get(source, []), uri(folder, rel)),
            "the file written meanwhile",
        )
        assert found


async def test_a_file_that_cannot_be_read_added_while_running_blinds_nothing(
    client: LanguageClient, folder: Path
):
    source = await source_opened(client, folder)
    (folder / "essays" / "broken.ipynb").write_text("[" * 3000)  # once stopped every refresh
    for _ in range(200):  # the refresh after the disk is quiet lists it as skipped
        if any(k["path"] == "essays/broken.ipynb" for k in (await status(client))["skipped"]):
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError("the bad notebook was never listed as skipped")
    rel = "essays/after-the-bad-file.txt"
    new = uri(folder, rel)
    since = mark(client)
    (folder / rel).write_text(copy_of_paragraph(folder, 3))
    found = await published(client, source, since=since, where=lambda d: bool(matching(d, new)))
    assert found
    state = await status(client)
    assert state["state"] == "ready" and state["lastError"] is None
    [skipped] = [k for k in state["skipped"] if k["path"] == "essays/broken.ipynb"]
    assert skipped["reason"] == "nested too deeply to be read"
