"""Bad requests: unknown URIs, out-of-range positions, malformed params, an exception inside
a handler. Each gets an error response or a logged message, and the server stays up."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
from pathlib import Path

import pytest
from lsp_support import (
    ESSAY,
    EXAMPLE_DOCUMENTS,
    INDEPENDENT,
    SOURCE,
    TIMEOUT,
    command,
    essay_range,
    mark,
    matching,
    nothing_published,
    open_document,
    published,
    raw_notify,
    raw_request,
    ready,
    status,
    uri,
)
from lsprotocol import types
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInternalError,
    JsonRpcInvalidParams,
    JsonRpcMethodNotFound,
)
from pytest_lsp import LanguageClient


async def still_working(client: LanguageClient, folder: Path) -> None:
    """The process is up, answers, and still publishes diagnostics for an edit."""
    assert client.process is not None and client.process.returncode is None
    assert (await status(client))["state"] == "ready"
    since = mark(client)
    essay = open_document(client, folder, ESSAY, version=100)
    found = await published(client, essay, since=since, version=100, where=lambda d: len(d) == 2)
    assert matching(found, uri(folder, SOURCE))[0].range == essay_range(folder)


def hover_params(address: str, line: int, character: int) -> dict:
    return {"textDocument": {"uri": address}, "position": {"line": line, "character": character}}


def action_params(address: str, data: object) -> dict:
    zero = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}
    diagnostic = {
        "range": zero,
        "message": "tampered",
        "source": "doublet",
        "code": "shared-passage",
        "data": data,
    }
    return {
        "textDocument": {"uri": address},
        "range": zero,
        "context": {"diagnostics": [diagnostic]},
    }


async def test_unknown_uris_get_empty_answers(client: LanguageClient, folder: Path):
    await ready(client)
    nowhere = uri(folder, "essays/never-opened.txt")
    elsewhere = "file:///somewhere/else/entirely.txt"
    for address in (nowhere, elsewhere, "untitled:Untitled-1"):
        assert await raw_request(client, "textDocument/hover", hover_params(address, 1, 1)) is None
        assert await raw_request(client, "textDocument/codeAction", action_params(address, {})) in (
            None,
            [],
        )
    assert await command(client, "doublet.findSimilar", elsewhere) == []
    assert await command(client, "doublet.findSimilar", "untitled:Untitled-1") == []
    # a file of the workspace that does not exist: an error response, not a crash
    with pytest.raises(JsonRpcException):
        await command(client, "doublet.findSimilar", nowhere)
    await still_working(client, folder)


async def test_positions_out_of_range_are_clamped(client: LanguageClient, folder: Path):
    essay = open_document(client, folder, ESSAY)
    await published(client, essay, where=lambda d: len(d) == 2)
    far = await raw_request(client, "textDocument/hover", hover_params(essay, 99_999, 99_999))
    assert far is None
    # past the end of a flagged line: the end of that line, which is in the passage
    result = await raw_request(client, "textDocument/hover", hover_params(essay, 15, 99_999))
    assert result is not None and "hives-above-the-traffic.md" in result.contents.value
    huge = {"start": {"line": 0, "character": 0}, "end": {"line": 10**6, "character": 10**6}}
    assert len(await command(client, "doublet.findSimilar", essay, huge)) == 2
    await still_working(client, folder)


MALFORMED = [
    ("textDocument/hover", {"textDocument": 5}),
    ("textDocument/hover", ...),  # no params at all
    ("textDocument/hover", {"textDocument": {"uri": "file:///x"}, "position": {"line": "x"}}),
    ("textDocument/codeAction", {"textDocument": {"uri": "file:///x"}}),
    ("workspace/executeCommand", {"arguments": []}),
]


async def test_malformed_params_get_an_error_response(client: LanguageClient, folder: Path):
    """A request whose params cannot be read is answered by its id with an error (pygls
    alone only logged it, and the client waited for good)."""
    await ready(client)

    async def ask(method: str, params: object) -> str:
        try:
            await raw_request(client, method, params, timeout=5.0)
        except JsonRpcException:
            return "error response"
        except asyncio.TimeoutError:
            return "no response"
        return "answered"

    outcomes = await asyncio.gather(*(ask(m, p) for m, p in MALFORMED))
    assert outcomes == ["error response"] * len(MALFORMED), list(
        zip(MALFORMED, outcomes, strict=True)
    )
    await still_working(client, folder)


async def test_bad_commands_and_methods_get_error_responses(client: LanguageClient, folder: Path):
    await ready(client)
    essay = uri(folder, ESSAY)
    calls = [
        (JsonRpcInternalError, "doublet.findSimilar", []),
        (JsonRpcInternalError, "doublet.findSimilar", [42]),
        (JsonRpcInternalError, "doublet.findSimilar", [essay, "not a range"]),
        (JsonRpcInternalError, "doublet.findSimilar", [essay, {"start": {"line": -5}}]),
        (JsonRpcInternalError, "doublet.showMatch", [5]),
        (JsonRpcInternalError, "doublet.showMatch", [essay, "x"]),
        (JsonRpcInternalError, "doublet.ignoreMatch", []),
        (JsonRpcInternalError, "doublet.ignoreMatch", ["only one"]),
        (JsonRpcInvalidParams, "doublet.noSuchCommand", []),
    ]
    for error, name, arguments in calls:
        with pytest.raises(error):
            await raw_request(
                client, "workspace/executeCommand", {"command": name, "arguments": arguments}
            )
    with pytest.raises(JsonRpcMethodNotFound):
        await raw_request(client, "doublet/noSuchRequest", {})
    raw_notify(client, "doublet/noSuchNotification", {"x": 1})  # ignored
    assert not (folder / "doublet.toml").exists()  # no half-done ignore
    assert client.shown_documents == []
    await still_working(client, folder)


async def test_an_exception_inside_a_handler_is_an_error_response(
    client: LanguageClient, folder: Path
):
    """A command given a malformed range raises inside its handler: an error response."""
    essay = open_document(client, folder, ESSAY)
    await published(client, essay, where=lambda d: len(d) == 2)
    with pytest.raises(JsonRpcException):
        await raw_request(
            client,
            "workspace/executeCommand",
            {"command": "doublet.findSimilar", "arguments": [essay, {"start": "nowhere"}]},
        )
    # diagnostic data naming a file that is gone, or of the wrong shape, gives no action
    gone = {"matches": [{"other": "essays/gone.txt", "a": [0, 5], "b": [0, 5], "digest": "x"}]}
    for data in (gone, "garbage", {"matches": "x"}, {"matches": [{"other": "x"}]}, None):
        answer = await raw_request(client, "textDocument/codeAction", action_params(essay, data))
        assert answer in (None, [])
    await still_working(client, folder)


async def test_diagnostic_data_cannot_point_outside_the_workspace(
    client: LanguageClient, folder: Path
):
    essay = open_document(client, folder, ESSAY)
    await published(client, essay, where=lambda d: len(d) == 2)
    outside = folder.parent / "outside.txt"
    outside.write_text("a file next to the workspace\n", encoding="utf-8")
    data = {"matches": [{"other": "../outside.txt", "a": [0, 5], "b": [0, 5], "digest": "x"}]}
    try:
        answer = await raw_request(client, "textDocument/codeAction", action_params(essay, data))
    except JsonRpcException:
        answer = None
    assert not answer, answer


async def test_bad_notifications_are_survived(client: LanguageClient, folder: Path):
    await ready(client)
    nowhere = "file:///nowhere/at/all.txt"
    raw_notify(
        client,
        "textDocument/didChange",
        {"textDocument": {"uri": nowhere, "version": 2}, "contentChanges": [{"text": "x"}]},
    )
    raw_notify(client, "textDocument/didChange", {"textDocument": 7})
    raw_notify(client, "textDocument/didClose", {"textDocument": {"uri": nowhere}})
    raw_notify(client, "textDocument/didOpen", {"textDocument": {"uri": "bad"}})
    raw_notify(client, "workspace/didChangeConfiguration", {"settings": [1, 2]})
    raw_notify(client, "workspace/didChangeConfiguration", {"settings": {"doublet": 5}})
    raw_notify(client, "workspace/didChangeWatchedFiles", {"changes": "x"})
    await still_working(client, folder)


async def test_documents_outside_the_workspace_get_no_diagnostics(
    client: LanguageClient, folder: Path, tmp_path: Path
):
    await ready(client)
    # the copied paragraph, in a file outside the workspace and in an untitled buffer
    text = (folder / ESSAY).read_text(encoding="utf-8")
    outside = tmp_path / "outside.txt"
    outside.write_text(text, encoding="utf-8")
    since = mark(client)
    for address in (outside.as_uri(), "untitled:Untitled-1"):
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=address, language_id="plaintext", version=1, text=text
                )
            )
        )
    source = open_document(client, folder, SOURCE)
    found = await published(client, source, since=since)
    assert [related.location.uri for d in found for related in d.related_information] == [
        uri(folder, ESSAY)
    ]
    await nothing_published(client, outside.as_uri(), since=since, seconds=0.3)
    assert (await status(client))["documents"] == EXAMPLE_DOCUMENTS


async def test_an_excluded_file_opened_in_the_editor_is_not_indexed(
    client: LanguageClient, folder: Path
):
    (folder / "doublet.toml").write_text('exclude = ["drafts/"]\n', encoding="utf-8")
    (folder / "drafts").mkdir()
    draft = folder / "drafts" / "copy.txt"
    draft.write_text((folder / ESSAY).read_text(encoding="utf-8"), encoding="utf-8")
    await ready(client)
    source = open_document(client, folder, SOURCE)
    await published(client, source, where=lambda d: len(d) == 1)
    since = mark(client)
    opened = open_document(client, folder, "drafts/copy.txt")
    open_document(client, folder, "doublet.toml")  # opened to edit it, say
    other = open_document(client, folder, INDEPENDENT)
    await published(client, other, since=since)  # the server has handled both opens
    await asyncio.sleep(0.3)  # bounded: and whatever they set off
    assert not client.diagnostics.get(opened), "an excluded file got diagnostics"
    assert not matching(client.diagnostics[source], opened)
    assert (await status(client))["documents"] == EXAMPLE_DOCUMENTS


@pytest.mark.parametrize("kind", ["fifo", "link-outside", "link-to-zero"])
async def test_find_similar_reads_only_regular_files_of_the_workspace(
    client: LanguageClient, folder: Path, tmp_path: Path, kind: str
):
    await ready(client)
    target = folder / "essays" / f"{kind}.txt"
    if kind == "fifo":
        os.mkfifo(target)  # reading it would block the worker for good
    elif kind == "link-outside":
        (tmp_path / "outside.txt").write_text("A private text outside the workspace. " * 20)
        target.symlink_to(tmp_path / "outside.txt")
    else:
        target.symlink_to("/dev/zero")  # reading it would never end
    with pytest.raises(JsonRpcInternalError) as caught:
        await raw_request(
            client,
            "workspace/executeCommand",
            {"command": "doublet.findSimilar", "arguments": [target.as_uri()]},
        )
    assert "private text" not in str(caught.value)
    await still_working(client, folder)  # the worker was not blocked


def _random_message(rng: random.Random, folder: Path) -> tuple[str, str, object]:
    """One message of a hostile or clumsy client: a known method with params of the
    right shape, of the wrong shape, or junk; an unknown method now and then."""
    addresses = [uri(folder, ESSAY), uri(folder, SOURCE), "file:///etc/passwd", "untitled:x", 7]
    address = rng.choice(addresses)
    junk = rng.choice([None, 5, "x", [], {}, {"a": [1, {"b": None}]}, "\udcff"[:0], -(2**70)])
    position = {"line": rng.choice([0, 3, -1, 10**9, "1"]), "character": rng.choice([0, 5, -3])}
    text = rng.choice(["", "short", "Ünïcode 😀 text\r\n" * rng.randint(1, 50), "\x00" * 10])
    shapes = [
        (
            "notify",
            "textDocument/didOpen",
            {
                "textDocument": {
                    "uri": address,
                    "languageId": "plaintext",
                    "version": rng.randint(-5, 5),
                    "text": text,
                }
            },
        ),
        (
            "notify",
            "textDocument/didChange",
            {
                "textDocument": {"uri": address, "version": rng.randint(0, 9)},
                "contentChanges": [{"text": text}],
            },
        ),
        (
            "notify",
            "textDocument/didChange",
            {
                "textDocument": {"uri": address, "version": 3},
                "contentChanges": [{"range": {"start": position, "end": position}, "text": text}],
            },
        ),
        ("notify", "textDocument/didClose", {"textDocument": {"uri": address}}),
        ("notify", "textDocument/didSave", {"textDocument": {"uri": address}}),
        (
            "notify",
            "workspace/didChangeConfiguration",
            {"settings": {"doublet": rng.choice([junk, {"minLength": junk}, {"threshold": 0.5}])}},
        ),
        ("request", "textDocument/hover", {"textDocument": {"uri": address}, "position": position}),
        (
            "request",
            "textDocument/codeAction",
            {
                "textDocument": {"uri": address},
                "range": {"start": position, "end": position},
                "context": {"diagnostics": rng.choice([[], [junk]])},
            },
        ),
        (
            "request",
            "workspace/executeCommand",
            {
                "command": rng.choice(
                    [
                        "doublet.findSimilar",
                        "doublet.status",
                        "doublet.showMatch",
                        "doublet.ignoreMatch",
                        "doublet.nothing",
                    ]
                ),
                "arguments": rng.choice([[], [address], [address, junk], [junk, junk, junk]]),
            },
        ),
        ("request", rng.choice(["doublet/unknown", "textDocument/unknown"]), junk),
        ("notify", "$/cancelRequest", {"id": rng.choice(["raw-1", 1, junk])}),
    ]
    return rng.choice(shapes)


async def test_random_message_sequences_never_break_the_server(
    client: LanguageClient, folder: Path
):
    """Thirty random sequences of messages (seeded, so a failure can be replayed); after
    each, the server answers; at the end, it still analyses an edit."""
    await ready(client)
    for seed in range(30):
        rng = random.Random(seed)
        for _ in range(rng.randint(1, 8)):
            kind, method, params = _random_message(rng, folder)
            if kind == "notify":
                raw_notify(client, method, params)
                continue
            with contextlib.suppress(JsonRpcException):  # an error response is an answer
                await raw_request(client, method, params, timeout=TIMEOUT)
        state = await status(client)
        assert state["state"] in ("ready", "indexing"), (seed, state)
    for address in (uri(folder, ESSAY), uri(folder, SOURCE)):
        raw_notify(client, "textDocument/didClose", {"textDocument": {"uri": address}})
    await still_working(client, folder)
