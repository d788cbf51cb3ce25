"""Several workspace folders (a multi-root workspace): one index, doublet.toml and set of
editor settings per folder; folders added and removed while the server runs; documents
outside every folder left alone, and the user told why.

The workspace: ``alpha`` and ``beta``, each with a pair of files sharing a short
passage (about 260 letters), ``beta`` also a pair sharing a long one (about 1,300),
and each a file holding the same passage as a file of the other folder. alpha's
doublet.toml reports passages of 100 letters, beta's only those of 800.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsp_support import (
    DEBOUNCE_MS,
    SERVER,
    TIMEOUT,
    DoubletClient,
    capabilities,
    change_document,
    change_folders,
    close,
    command,
    filler,
    folders_session,
    make_client,
    mark,
    matching,
    nothing_published,
    open_document,
    published,
    ready,
    status,
    uri,
    wait_until,
)
from lsprotocol import types
from pytest_lsp import ClientServerConfig

INDEX = Path(".doublet") / "index.msgpack"

SHORT_A = filler(1, 40)  # shared by alpha/one.txt and alpha/two.txt
SHORT_B = filler(2, 40)  # shared by beta/one.txt and beta/two.txt: below beta's threshold
LONG_B = filler(3, 200)  # shared by beta/one.txt and beta/two.txt
CROSS = filler(4, 200)  # in alpha/cross.txt and beta/cross.txt: two folders, no match

ONE, TWO, CROSSED = "one.txt", "two.txt", "cross.txt"


def write(folder: Path, rel: str, *parts: str) -> None:
    path = folder / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(parts), encoding="utf-8")


def make_alpha(root: Path) -> Path:
    alpha = root / "alpha"
    write(alpha, "doublet.toml", "[prose]\nmin_length = 100\n")
    write(alpha, ONE, filler(10, 120), SHORT_A, filler(11, 120))
    write(alpha, TWO, filler(12, 120), SHORT_A, filler(13, 120))
    write(alpha, CROSSED, filler(14, 120), CROSS, filler(15, 120))
    return alpha


def make_beta(root: Path) -> Path:
    beta = root / "beta"
    write(beta, "doublet.toml", "[prose]\nmin_length = 800\n")
    write(beta, ONE, filler(20, 120), SHORT_B, filler(21, 120), LONG_B, filler(22, 120))
    write(beta, TWO, filler(23, 120), LONG_B, filler(24, 120), SHORT_B, filler(25, 120))
    write(beta, CROSSED, filler(26, 120), CROSS, filler(27, 120))
    return beta


@pytest.fixture
def alpha(tmp_path: Path) -> Path:
    return make_alpha(tmp_path)


@pytest.fixture
def beta(tmp_path: Path) -> Path:
    return make_beta(tmp_path)


def info(messages) -> list[str]:
    return [m.message for m in messages if m.type == types.MessageType.Info]


async def all_ready(client: DoubletClient, count: int) -> dict:
    """The status once every one of ``count`` folders has been indexed."""
    current = await ready(client)
    assert len(current["folders"]) == count, current
    return current


async def test_each_folder_has_its_own_index_thresholds_and_status(alpha: Path, beta: Path):
    (alpha / "blob.txt").write_bytes(b"\x00" * 4000)  # not text: skipped, and listed so
    async with folders_session([alpha, beta]) as client:
        current = await all_ready(client, 2)
        assert Path(current["root"]) == alpha.resolve()
        assert current["documents"] == 6
        assert [(f["name"], f["state"], f["documents"]) for f in current["folders"]] == [
            ("alpha", "ready", 3),
            ("beta", "ready", 3),
        ]
        assert [Path(f["root"]) for f in current["folders"]] == [alpha.resolve(), beta.resolve()]
        assert [k["path"] for k in current["skipped"]] == ["alpha/blob.txt"]
        assert current["skippedCount"] == 1
        assert [f["skippedCount"] for f in current["folders"]] == [1, 0]
        assert (alpha / INDEX).is_file() and (beta / INDEX).is_file()

        # within a folder, by its own thresholds: alpha's short copy is reported ...
        one_a = open_document(client, alpha, ONE)
        [found] = await published(client, one_a, where=lambda d: len(d) == 1)
        assert matching([found], uri(alpha, TWO))
        # ... beta's short copy is not (below 800 letters), its long copy is
        one_b = open_document(client, beta, ONE)
        [found] = await published(client, one_b, where=lambda d: len(d) == 1)
        assert matching([found], uri(beta, TWO))
        assert found.range.start.line > 3, "the long passage, not the short one at the top"
        # across the two folders: nothing
        since = mark(client)
        cross_a = open_document(client, alpha, CROSSED)
        cross_b = open_document(client, beta, CROSSED)
        assert await published(client, cross_a, since=since) == []
        assert await published(client, cross_b, since=since) == []
        assert await command(client, "doublet.findSimilar", cross_a) == []
        [similar] = await command(client, "doublet.findSimilar", uri(beta, TWO))
        assert similar["other"]["uri"] == uri(beta, ONE) and similar["other"]["path"] == ONE


async def test_editor_settings_of_a_folder_apply_to_that_folder_only(alpha: Path, beta: Path):
    everywhere = {"debounce": DEBOUNCE_MS}
    scoped = {
        alpha: {"debounce": DEBOUNCE_MS, "minLength": 1000},  # over alpha's doublet.toml
        beta: {"debounce": DEBOUNCE_MS, "severity": "error"},
    }
    async with folders_session([alpha, beta], settings=everywhere, scoped=scoped) as client:
        one_a = open_document(client, alpha, ONE)
        one_b = open_document(client, beta, ONE)
        [found] = await published(client, one_b, where=lambda d: len(d) == 1)
        assert found.severity == types.DiagnosticSeverity.Error
        await all_ready(client, 2)
        assert await published(client, one_a) == []

        # alpha's settings change in the editor: it says so, the server asks again
        hint = {"debounce": DEBOUNCE_MS, "severity": "hint"}
        client.set_configuration(hint, section="doublet", scope_uri=alpha.as_uri())
        since = mark(client)
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
        [found] = await published(client, one_a, since=since, where=lambda d: len(d) == 1)
        assert found.severity == types.DiagnosticSeverity.Hint
        assert matching([found], uri(alpha, TWO))
        # beta kept its own
        change_document(client, one_b, 2, (beta / ONE).read_text(encoding="utf-8") + "\n")
        [found] = await published(client, one_b, version=2, where=lambda d: len(d) == 1)
        assert found.severity == types.DiagnosticSeverity.Error


async def test_a_folder_added_while_running_is_indexed_and_checked(alpha: Path, beta: Path):
    async with folders_session([alpha]) as client:
        await all_ready(client, 1)
        one_b = open_document(client, beta, ONE)  # not in the workspace yet
        await wait_until(lambda: any("one.txt is outside" in m for m in info(client.log_messages)))
        tokens = set(client.progress_reports)

        since = mark(client)
        change_folders(client, added=[beta])
        [found] = await published(client, one_b, since=since, where=lambda d: len(d) == 1)
        assert matching([found], uri(beta, TWO))
        current = await all_ready(client, 2)
        assert [f["name"] for f in current["folders"]] == ["alpha", "beta"]
        assert current["documents"] == 6
        assert (beta / INDEX).is_file()
        # indexed with progress of its own, named
        [token] = set(client.progress_reports) - tokens
        begin, *_, end = client.progress_reports[token]
        assert begin.title == "Doublet: indexing beta"
        assert isinstance(end, types.WorkDoneProgressEnd)


async def test_a_removed_folder_stops_and_its_documents_are_cleared(alpha: Path, beta: Path):
    async with folders_session([alpha, beta]) as client:
        await all_ready(client, 2)
        one_a = open_document(client, alpha, ONE)
        one_b = open_document(client, beta, ONE)
        await published(client, one_a, where=lambda d: len(d) == 1)
        # an unsaved edit: beta's index changes, and its save waits a couple of seconds
        edited = (beta / ONE).read_text(encoding="utf-8") + filler(31, 30)
        change_document(client, one_b, 2, edited)
        await published(client, one_b, version=2, where=lambda d: len(d) == 1)
        saved = (beta / INDEX).read_bytes()

        since = mark(client)
        change_folders(client, removed=[beta])
        assert await published(client, one_b, since=since, where=lambda d: not d) == []
        # the status the server sends once the folder is gone; its index saved by then
        await wait_until(lambda: len(client.statuses[-1]["folders"]) == 1, "beta gone")
        assert (beta / INDEX).read_bytes() != saved, "the edit was saved with beta's index"
        current = await all_ready(client, 1)
        assert [f["name"] for f in current["folders"]] == ["alpha"]
        assert current["documents"] == 3

        # no longer checked: an edit publishes nothing, nor does a change on disk
        since = mark(client)
        change_document(client, one_b, 3, SHORT_A + LONG_B)
        (beta / TWO).write_text(SHORT_A, encoding="utf-8")
        await nothing_published(client, one_b, since=since)
        result = await command(client, "doublet.checkDocument", one_b)
        assert result == {"checked": False, "diagnostics": 0, "outside": True}
        # alpha still is
        since = mark(client)
        change_document(client, one_a, 2, filler(30, 50) + SHORT_A)
        await published(client, one_a, since=since, version=2, where=lambda d: len(d) == 1)


async def test_a_document_outside_every_folder_is_not_checked_and_says_so(
    tmp_path: Path, alpha: Path, beta: Path
):
    loose = tmp_path / "elsewhere"
    write(loose, "loose.txt", SHORT_A, CROSS)
    async with folders_session([alpha, beta]) as client:
        await all_ready(client, 2)
        address = open_document(client, loose, "loose.txt")
        said = "Doublet: loose.txt is outside every workspace folder"
        await wait_until(lambda: any(m.startswith(said) for m in info(client.log_messages)))
        await nothing_published(client, address, since=0)

        assert await command(client, "doublet.findSimilar", address) == []
        await wait_until(lambda: any(m.startswith(said) for m in info(client.messages)))
        result = await command(client, "doublet.checkDocument", address)
        assert result == {"checked": False, "diagnostics": 0, "outside": True}
        assert (await status(client))["open"] == 1
        # once per document in the log
        open_document(client, loose, "loose.txt", version=2)
        await asyncio.sleep(0.3)
        assert sum(m.startswith(said) for m in info(client.log_messages)) == 1


async def test_commands_act_on_the_folder_they_are_given(alpha: Path, beta: Path):
    async with folders_session([alpha, beta]) as client:
        await all_ready(client, 2)
        first = await command(client, "doublet.workspaceReport")
        assert (first["documents"], first["pairs"]) == (3, 1)
        assert "Doublet report: alpha" in first["html"]
        of_beta = await command(client, "doublet.workspaceReport", beta.as_uri())
        assert "Doublet report: beta" in of_beta["html"]
        of_document = await command(client, "doublet.workspaceReport", uri(beta, ONE))
        assert of_document["pairs"] == of_beta["pairs"] == 1

        # reindex: every folder, each with its progress
        tokens = set(client.progress_reports)
        result = await asyncio.wait_for(command(client, "doublet.reindex"), TIMEOUT)
        assert result["state"] == "ready" and result["documents"] == 6
        assert len(set(client.progress_reports) - tokens) == 2

        # ignoring a match in beta writes beta's doublet.toml, not alpha's
        one_b = open_document(client, beta, ONE)
        [diagnostic] = await published(client, one_b, where=lambda d: len(d) == 1)
        actions = await client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=one_b),
                range=diagnostic.range,
                context=types.CodeActionContext(diagnostics=[diagnostic]),
            )
        )
        [ignore] = [a for a in actions if "ignore this match" in a.title]
        alpha_config = (alpha / "doublet.toml").read_text(encoding="utf-8")
        since = mark(client)
        assert await command(client, ignore.command.command, *ignore.command.arguments) == {
            "ignored": True
        }
        assert await published(client, one_b, since=since, where=lambda d: not d) == []
        assert "[[ignore]]" in (beta / "doublet.toml").read_text(encoding="utf-8")
        assert (alpha / "doublet.toml").read_text(encoding="utf-8") == alpha_config


OWNED = filler(5, 60)  # in alpha/own.txt and the nested folder's x.txt
#: A folder inside alpha opened as a workspace folder of its own; its name holds glob
#: characters, and alpha also holds a plain folder that the unescaped glob would match.
NESTED, PLAIN = "in[n]er", "inner"


def make_nested(alpha: Path) -> Path:
    """alpha/in[n]er: its own doublet.toml and a pair sharing SHORT_B; x.txt also holds
    OWNED, which alpha/own.txt holds too. alpha/inner/kept.txt holds CROSS, as
    alpha/cross.txt does: a folder of alpha's own, not a workspace folder."""
    inner = alpha / NESTED
    write(inner, "doublet.toml", "[prose]\nmin_length = 100\n")
    write(inner, "x.txt", filler(40, 100), SHORT_B, filler(41, 100), OWNED, filler(44, 50))
    write(inner, "y.txt", filler(42, 100), SHORT_B, filler(43, 100))
    write(alpha, "own.txt", filler(45, 120), OWNED, filler(46, 120))
    write(alpha, f"{PLAIN}/kept.txt", filler(47, 120), CROSS, filler(48, 120))
    return inner


def documents_of(current: dict) -> dict[str, int]:
    return {f["name"]: f["documents"] for f in current["folders"]}


async def counted(client: DoubletClient, expected: dict[str, int]) -> dict:
    """The status once every folder is ready with ``expected`` documents."""

    async def check() -> dict | None:
        current = await ready(client)
        return current if documents_of(current) == expected else None

    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIMEOUT
    while (current := await check()) is None:
        assert loop.time() < deadline, f"not {expected}: {await status(client)}"
        await asyncio.sleep(0.05)
    return current


async def test_a_nested_folder_owns_its_documents(alpha: Path):
    inner = make_nested(alpha)
    async with folders_session([alpha, inner]) as client:
        # alpha: one, two, cross, own and inner/kept; the nested folder's two are its own
        await counted(client, {"alpha": 5, NESTED: 2})
        x = open_document(client, inner, "x.txt")
        [found] = await published(client, x, where=lambda d: len(d) == 1)
        assert matching([found], uri(inner, "y.txt"))
        assert (inner / INDEX).is_file()
        # the inner folder's document is answered from the inner folder's index
        [similar] = await command(client, "doublet.findSimilar", x)
        assert similar["other"]["path"] == "y.txt"

        # alpha neither diagnoses nor pairs the nested folder's files ...
        own = open_document(client, alpha, "own.txt")
        assert await published(client, own) == []
        assert await command(client, "doublet.findSimilar", own) == []
        report = await command(client, "doublet.workspaceReport", alpha.as_uri())
        assert (report["documents"], report["pairs"]) == (5, 2)  # one-two, cross-inner/kept
        assert NESTED not in report["html"]
        # ... but keeps its own folder named like the nested one's unescaped glob
        cross = open_document(client, alpha, CROSSED)
        [found] = await published(client, cross, where=lambda d: len(d) == 1)
        assert matching([found], uri(alpha, f"{PLAIN}/kept.txt"))

        # a file written into the nested folder is that folder's only
        since = mark(client)
        write(inner, "z.txt", filler(49, 100), OWNED, filler(50, 100))
        await counted(client, {"alpha": 5, NESTED: 3})
        await published(
            client, x, since=since, where=lambda d: bool(matching(d, uri(inner, "z.txt")))
        )
        await nothing_published(client, own, since=since)


async def test_a_nested_folder_added_takes_its_files_and_removed_gives_them_back(alpha: Path):
    inner = make_nested(alpha)
    async with folders_session([alpha]) as client:
        await counted(client, {"alpha": 7})
        own = open_document(client, alpha, "own.txt")
        x = open_document(client, inner, "x.txt")
        [found] = await published(client, own, where=lambda d: len(d) == 1)
        assert matching([found], uri(inner, "x.txt"))
        await published(client, x, where=lambda d: bool(matching(d, uri(alpha, "own.txt"))))

        # added: alpha's index lets go of the nested folder's files
        since = mark(client)
        change_folders(client, added=[inner])
        await counted(client, {"alpha": 5, NESTED: 2})
        # a check of own.txt begun before the change may still publish its match after
        # the mark: what counts is that the latest publish, after the change, has none
        assert await published(client, own, since=since, where=lambda d: not d) == []
        found = await published(client, x, since=since, where=lambda d: len(d) == 1)
        assert matching(found, uri(inner, "y.txt")) and not matching(found, uri(alpha, "own.txt"))
        assert await command(client, "doublet.findSimilar", own) == []
        report = await command(client, "doublet.workspaceReport", alpha.as_uri())
        assert report["documents"] == 5

        # removed: they are alpha's again, and x.txt is checked there
        since = mark(client)
        change_folders(client, removed=[inner])
        await counted(client, {"alpha": 7})
        [found] = await published(client, own, since=since, where=lambda d: len(d) == 1)
        assert matching([found], uri(inner, "x.txt"))
        await published(
            client, x, since=since, where=lambda d: bool(matching(d, uri(alpha, "own.txt")))
        )
        [similar] = await command(client, "doublet.findSimilar", own)
        assert similar["other"]["path"] == f"{NESTED}/x.txt"


async def test_a_client_without_workspace_folders_gets_its_root_as_the_one_folder(alpha: Path):
    config = ClientServerConfig(server_command=SERVER, client_factory=make_client)
    client = await config.start()
    try:
        client.set_configuration({"debounce": DEBOUNCE_MS}, section="doublet")
        result = await client.initialize_session(
            types.InitializeParams(capabilities=capabilities(), root_uri=alpha.as_uri())
        )
        folders = result.capabilities.workspace.workspace_folders
        assert folders.supported and folders.change_notifications
        current = await all_ready(client, 1)
        assert current["folders"][0]["name"] == "alpha"
        assert current["documents"] == 3
        one_a = open_document(client, alpha, ONE)
        await published(client, one_a, where=lambda d: len(d) == 1)
    finally:
        await close(client)


async def test_a_folder_that_is_not_on_disk_is_an_error_not_ready(alpha: Path, tmp_path: Path):
    missing = tmp_path / "gone"
    async with folders_session([alpha]) as client:
        await all_ready(client, 1)
        change_folders(client, added=[missing])
        for _ in range(100):  # the folder is added, then starts, on the server's loop
            current = await command(client, "doublet.status")
            rows = [f for f in current["folders"] if f["name"] == "gone"]
            if rows and rows[0]["state"] != "starting":
                break
            await asyncio.sleep(0.05)
        [row] = rows
        assert row["state"] == "error" and "not a folder on disk" in row["lastError"]
        assert current["state"] == "error"
