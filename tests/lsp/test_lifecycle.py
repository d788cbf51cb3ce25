"""Start-up (configuration, saved index, background indexing with progress, requests answered
meanwhile), clean shutdown and exit with the index saved, and a restart that reuses it."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from lsp_support import (
    EDITED,
    ESSAY,
    EXAMPLE_DOCUMENTS,
    FIRST_WORDS,
    INDEPENDENT,
    LAST_WORDS,
    SERVER,
    SOURCE,
    TIMEOUT,
    change_document,
    filler,
    initialize,
    make_client,
    matching,
    open_document,
    passage,
    published,
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
from pytest_lsp import ClientServerConfig

INDEX = Path(".doublet") / "index.msgpack"
INDEXED = re.compile(r"indexed (\d+) documents in [\d.]+ s \((\d+) read, (\d+) skipped\)")


async def indexed_line(client) -> tuple[int, int, int]:
    """(documents, read, skipped) from the server's log line after indexing."""
    line = await wait_until(
        lambda: next((m for x in client.stderr_lines if (m := INDEXED.search(x))), None),
        "the server's 'indexed N documents' log line",
    )
    return int(line[1]), int(line[2]), int(line[3])


async def test_start_up_indexes_in_the_background_with_progress(folder: Path):
    async with session(folder) as client:
        essay = open_document(client, folder, ESSAY)  # before the index is ready
        found = await published(client, essay, where=lambda d: len(d) == 2)
        assert matching(found, uri(folder, SOURCE)) and matching(found, uri(folder, EDITED))

        [reports] = [r for r in client.progress_reports.values() if r]
        begin, *steps, end = reports
        assert isinstance(begin, types.WorkDoneProgressBegin)
        assert begin.title == "Doublet: indexing"
        assert isinstance(end, types.WorkDoneProgressEnd)
        assert steps and all(isinstance(s, types.WorkDoneProgressReport) for s in steps)
        percentages = [s.percentage for s in steps]
        assert percentages == sorted(percentages) and percentages[-1] == 100
        assert steps[-1].message == f"{EXAMPLE_DOCUMENTS} of {EXAMPLE_DOCUMENTS} files"
        assert await indexed_line(client) == (EXAMPLE_DOCUMENTS, EXAMPLE_DOCUMENTS, 0)
        # the status notifications the server sends along the way end ready
        await wait_until(lambda: client.statuses and client.statuses[-1]["state"] == "ready")


async def test_requests_are_answered_while_indexing(folder: Path):
    (folder / "zz-big.txt").write_text(filler(5, 1_000_000), encoding="utf-8")
    async with session(folder) as client:
        loop = asyncio.get_running_loop()
        seen: list[str] = []
        deadline = loop.time() + TIMEOUT
        while not seen or seen[-1] != "ready":
            assert loop.time() < deadline, seen
            seen.append((await status(client))["state"])
        assert "indexing" in seen, f"no answer during indexing: {seen}"
        reports = [r for r in client.progress_reports.values() if r]
        assert reports and isinstance(reports[0][-1], types.WorkDoneProgressEnd)
        assert (await status(client))["documents"] == EXAMPLE_DOCUMENTS + 1


async def test_edits_during_indexing_are_analysed_when_it_is_done(folder: Path):
    (folder / "zz-big.txt").write_text(filler(6, 1_000_000), encoding="utf-8")
    async with session(folder) as client:
        essay = open_document(client, folder, INDEPENDENT)
        await wait_until(lambda: any(s["state"] == "indexing" for s in client.statuses))
        paragraph = passage(read(folder, SOURCE), FIRST_WORDS, LAST_WORDS)
        text = f"(1)\n{paragraph}.\n(2)\n" + read(folder, INDEPENDENT)
        change_document(client, essay, 2, text)
        found = await published(client, essay, version=2, where=lambda d: len(d) == 1)
        assert found[0].range == utf16_range(text, *span(text, FIRST_WORDS, LAST_WORDS))
        assert (await status(client))["state"] == "ready"


async def test_shutdown_and_exit_are_clean_and_save_the_index(folder: Path):
    async with session(folder) as client:
        await ready(client)
        index = folder / INDEX
        assert index.exists()  # saved once indexed
        saved = index.read_bytes()
        # an unsaved edit changes the index; the save it schedules is still pending
        essay = open_document(client, folder, INDEPENDENT)
        paragraph = passage(read(folder, SOURCE), FIRST_WORDS, LAST_WORDS)
        change_document(client, essay, 2, f"(1)\n{paragraph}.\n(2)\n" + read(folder, INDEPENDENT))
        await published(client, essay, version=2, where=lambda d: len(d) == 1)
        process = client.process
    # leaving the session sent shutdown and exit
    assert process is not None and process.returncode == 0
    assert index.read_bytes() != saved, "the index was saved again on shutdown"
    assert not list(folder.glob(".doublet/*.tmp*")), "no temporary files left behind"


async def test_a_restart_reuses_the_saved_index(folder: Path):
    async with session(folder) as client:
        first = await ready(client)
        assert await indexed_line(client) == (EXAMPLE_DOCUMENTS, EXAMPLE_DOCUMENTS, 0)
    index = folder / INDEX
    assert index.exists()
    saved = index.read_bytes()

    async with session(folder) as client:
        second = await ready(client)
        # nothing was read again: every file was recognised by its size and time
        assert await indexed_line(client) == (EXAMPLE_DOCUMENTS, 0, 0)
        assert second["documents"] == first["documents"] == EXAMPLE_DOCUMENTS
        assert index.read_bytes() == saved, "the same index, saved again"
        source = open_document(client, folder, SOURCE)
        [diagnostic] = await published(client, source, where=lambda d: len(d) == 1)
        assert diagnostic.range == source_range(folder)


async def test_a_restart_that_finds_nothing_changed_answers_each_document_once(folder: Path):
    async with session(folder) as client:
        await ready(client)
    index = folder / INDEX
    saved = index.read_bytes()
    async with session(folder) as client:
        source = open_document(client, folder, SOURCE)  # while the saved index loads
        await published(client, source, where=lambda d: len(d) == 1)
        await ready(client)
        await asyncio.sleep(0.5)
        answers = [p for p in client.published if p.uri == source]
        assert len(answers) == 1, "the unchanged index was asked again after its refresh"
        assert index.read_bytes() == saved, "an unchanged index was saved again"


async def test_a_restart_answers_from_the_saved_index_while_it_is_refreshed(folder: Path):
    async with session(folder) as client:
        await ready(client)
    # written while the server was down: the next start reads them (a second or two)
    for number in range(3):
        (folder / f"zz-big-{number}.txt").write_text(filler(20 + number, 600_000), "utf-8")
    async with session(folder) as client:
        essay = open_document(client, folder, ESSAY)
        found = await published(client, essay, where=lambda d: len(d) == 2)
        assert matching(found, uri(folder, SOURCE)) and matching(found, uri(folder, EDITED))
        # from the saved index, before the refresh ends (or, on a busy machine, begins)
        state = (await status(client))["state"]
        assert state in ("starting", "indexing"), "answered only once indexed"
        await ready(client)
        # checked again once the index is current: the same two matches
        assert len(client.diagnostics[uri(folder, ESSAY)]) == 2


async def test_a_restart_reads_only_what_changed_while_the_server_was_down(folder: Path):
    async with session(folder) as client:
        await ready(client)
    # while no server runs: one file edited, one added, one deleted
    text = read(folder, ESSAY)
    start, end = span(text, FIRST_WORDS, LAST_WORDS)
    (folder / ESSAY).write_text(text[:start] + "Mine." + text[end + 1 :], encoding="utf-8")
    paragraph = passage(read(folder, SOURCE), FIRST_WORDS, LAST_WORDS)
    added = "essays/new.txt"
    (folder / added).write_text(f"(1)\n{paragraph}.\n(2)\n", encoding="utf-8")
    (folder / "essays" / "elena-rossi.md").unlink()

    async with session(folder) as client:
        await ready(client)
        assert await indexed_line(client) == (EXAMPLE_DOCUMENTS, 2, 0)
        source = open_document(client, folder, SOURCE)
        found = await published(client, source, where=lambda d: len(d) == 1)
        assert matching(found, uri(folder, added))
        assert not matching(found, uri(folder, ESSAY))


async def test_a_damaged_saved_index_is_rebuilt(folder: Path):
    (folder / ".doublet").mkdir()
    (folder / INDEX).write_bytes(b"not an index at all")
    async with session(folder) as client:
        assert (await ready(client))["documents"] == EXAMPLE_DOCUMENTS
        assert await indexed_line(client) == (EXAMPLE_DOCUMENTS, EXAMPLE_DOCUMENTS, 0)
        essay = open_document(client, folder, ESSAY)
        await published(client, essay, where=lambda d: len(d) == 2)
    assert not (folder / INDEX).read_bytes().startswith(b"not an index")


async def test_exit_without_shutdown_stops_the_server(folder: Path):
    """A client that goes away without asking for shutdown: the server does not linger,
    and ends with exit code 1, as LSP asks (pygls swallows the SystemExit it raises)."""
    client = await ClientServerConfig(server_command=SERVER, client_factory=make_client).start()
    try:
        await initialize(client, folder, settings={"debounce": 50})
        await ready(client)
        client.exit(None)
        await asyncio.wait_for(client.process.wait(), TIMEOUT)
        assert client.process.returncode == 1
    finally:
        if client.process.returncode is None:
            client.process.kill()
        await asyncio.wait_for(client.stop(), TIMEOUT)
