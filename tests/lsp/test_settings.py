"""Configuration: the client's ``doublet`` settings over doublet.toml, both live."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsp_support import (
    DEBOUNCE_MS,
    EDITED,
    ESSAY,
    SOURCE,
    change_document,
    command,
    filler,
    mark,
    matching,
    nothing_published,
    open_document,
    published,
    ready,
    session,
    status,
    uri,
    wait_until,
)
from lsprotocol import types
from pytest_lsp import LanguageClient

#: A passage shorter than this many letters is not reported: more than either planted one.
HIGH = 1000


def push(client: LanguageClient, settings: dict | None) -> None:
    """didChangeConfiguration: with the settings (push), or with null (the server pulls)."""
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=settings))


def errors(client: LanguageClient) -> list[str]:
    return [m.message for m in client.messages if m.type == types.MessageType.Error]


@pytest.mark.parametrize("settings", [{"debounce": DEBOUNCE_MS, "minLength": HIGH}], indirect=True)
async def test_a_threshold_in_the_client_settings_applies_and_changes_live(
    client: LanguageClient, folder: Path, settings: dict
):
    essay = open_document(client, folder, ESSAY)
    assert await published(client, essay) == []

    # the editor's settings change: it says so, and the server asks for them
    client.set_configuration({**settings, "minLength": 80}, section="doublet")
    since = mark(client)
    push(client, None)
    found = await published(client, essay, since=since, where=lambda d: len(d) == 2)
    assert matching(found, uri(folder, SOURCE)) and matching(found, uri(folder, EDITED))

    client.set_configuration(settings, section="doublet")
    since = mark(client)
    push(client, None)
    assert await published(client, essay, since=since, where=lambda d: not d) == []


async def test_settings_pushed_by_a_client_without_workspace_configuration(folder: Path):
    options = {"settings": {"debounce": DEBOUNCE_MS, "minLength": HIGH}}
    async with session(folder, options=options, configuration=False) as client:
        essay = open_document(client, folder, ESSAY)
        assert await published(client, essay) == []
        since = mark(client)
        push(client, {"doublet": {"debounce": DEBOUNCE_MS, "minLength": 80}})
        await published(client, essay, since=since, where=lambda d: len(d) == 2)
        since = mark(client)
        push(client, {"doublet": {"debounce": DEBOUNCE_MS, "severity": "error"}})
        found = await published(
            client,
            essay,
            since=since,
            where=lambda d: len(d) == 2 and d[0].severity == types.DiagnosticSeverity.Error,
        )
        assert {d.severity for d in found} == {types.DiagnosticSeverity.Error}


async def test_a_threshold_in_doublet_toml_changes_live(client: LanguageClient, folder: Path):
    await ready(client)
    essay = open_document(client, folder, ESSAY)
    await published(client, essay, where=lambda d: len(d) == 2)

    config = folder / "doublet.toml"
    since = mark(client)
    config.write_text(f"# thresholds for the course\n[prose]\nmin_length = {HIGH}\n")
    assert await published(client, essay, since=since, where=lambda d: not d) == []

    since = mark(client)
    config.write_text("[prose]\nmin_length = 80\n")
    await published(client, essay, since=since, where=lambda d: len(d) == 2)

    since = mark(client)
    config.write_text("min_similarity = 0.9\n")  # neither pair is that similar
    assert await published(client, essay, since=since, where=lambda d: not d) == []

    since = mark(client)
    config.unlink()
    await published(client, essay, since=since, where=lambda d: len(d) == 2)


async def test_the_client_settings_override_doublet_toml(folder: Path):
    """Severity and threshold from doublet.toml, the editor's settings over them."""
    (folder / "doublet.toml").write_text(f'severity = "error"\n[prose]\nmin_length = {HIGH}\n')
    settings = {"debounce": DEBOUNCE_MS, "minLength": 80}
    async with session(folder, settings=settings) as client:
        essay = open_document(client, folder, ESSAY)
        found = await published(client, essay, where=lambda d: len(d) == 2)
        assert {d.severity for d in found} == {types.DiagnosticSeverity.Error}  # from the file

        # severity changed in the editor: republished without a restart
        client.set_configuration({**settings, "severity": "hint"}, section="doublet")
        since = mark(client)
        push(client, None)
        found = await published(
            client,
            essay,
            since=since,
            where=lambda d: {x.severity for x in d} == {types.DiagnosticSeverity.Hint},
        )
        assert len(found) == 2


async def test_bad_settings_are_reported_and_the_server_carries_on(folder: Path):
    settings = {"debounce": DEBOUNCE_MS, "minLenght": 10, "severity": "loud"}
    async with session(folder, settings=settings) as client:
        essay = open_document(client, folder, ESSAY)
        await published(client, essay, where=lambda d: len(d) == 2)
        await wait_until(lambda: len(errors(client)) >= 2, "two error messages")
        messages = errors(client)
        assert any("minLenght" in m and "unknown setting" in m for m in messages), messages
        assert any("severity" in m and "loud" in m for m in messages), messages
        assert all(m.startswith("Doublet:") for m in messages)
        current = await status(client)
        assert current["state"] == "ready" and current["lastError"]

        # a bad debounce is reported too, and a good change still applies
        client.set_configuration({"debounce": -1, "minLength": HIGH}, section="doublet")
        since = mark(client)
        push(client, None)
        assert await published(client, essay, since=since) == []
        await wait_until(lambda: any("debounce" in m for m in errors(client)), "the message")


async def test_a_bad_client_setting_does_not_drop_doublet_toml(folder: Path):
    (folder / "doublet.toml").write_text(f"[prose]\nmin_length = {HIGH}\n")
    async with session(folder, settings={"debounce": DEBOUNCE_MS, "severity": "loud"}) as client:
        essay = open_document(client, folder, ESSAY)
        found = await published(client, essay)
        assert found == [], "doublet.toml's min_length was not applied"


async def test_a_broken_doublet_toml_is_reported_and_the_last_good_one_kept(
    client: LanguageClient, folder: Path
):
    config = folder / "doublet.toml"
    config.write_text(f"[prose]\nmin_length = {HIGH}\n")
    await ready(client)
    essay = open_document(client, folder, ESSAY)
    assert await published(client, essay) == []

    config.write_text("[prose\nmin_length = \n")
    message = await wait_until(
        lambda: next((m for m in errors(client) if "doublet.toml" in m), None),
        "an error message naming doublet.toml",
    )
    assert message.startswith("Doublet:")
    assert "doublet.toml" in (await status(client))["lastError"]
    # the file is fixed: it applies again
    since = mark(client)
    config.write_text("[prose]\nmin_length = 80\n")
    await published(client, essay, since=since, where=lambda d: len(d) == 2)


async def test_a_broken_doublet_toml_at_start_up_is_reported_and_the_server_works(
    folder: Path,
):
    config = folder / "doublet.toml"
    config.write_text("min_similarity = 7\n")
    async with session(folder) as client:
        message = await wait_until(
            lambda: next((m for m in errors(client) if "min_similarity" in m), None),
            "an error message",
        )
        assert "doublet.toml" in message
        essay = open_document(client, folder, ESSAY)
        # the defaults apply meanwhile
        await published(client, essay, where=lambda d: len(d) == 2)
        assert (await status(client))["state"] == "ready"
        # and the fixed file is read without a restart
        since = mark(client)
        config.write_text(f"[prose]\nmin_length = {HIGH}\n")
        assert await published(client, essay, since=since) == []


@pytest.mark.parametrize(
    "settings", [{"debounce": DEBOUNCE_MS, "paraphrase": False}], indirect=True
)
async def test_the_paraphrase_setting_turns_the_paraphrase_stage_off_and_on_live(
    client: LanguageClient, folder: Path, settings: dict
):
    rel = "essays/farah-nasser.md"
    address = open_document(client, folder, rel)
    [copied] = await published(client, address, where=lambda d: len(d) == 1)
    assert "edited" in copied.message  # the copied sentence alone, found by fingerprints

    client.set_configuration({**settings, "paraphrase": True}, section="doublet")
    since = mark(client)
    push(client, None)
    [widened] = await published(
        client, address, since=since, where=lambda d: len(d) == 1 and "paraphrased" in d[0].message
    )
    assert widened.range.start.character < copied.range.start.character  # the whole paragraph


async def test_thresholds_that_make_all_text_boilerplate_are_warned_of_until_fixed(folder: Path):
    for seed in range(12):  # more documents than the smallest boilerplate limit (10)
        (folder / f"filler-{seed}.txt").write_text(filler(seed))
    config = folder / "doublet.toml"
    config.write_text("[prose]\nnoise = 1\n")
    async with session(folder) as client:
        await ready(client)
        [warning] = (await status(client))["warnings"]
        assert "prose.noise = 1 is too short" in warning and "ignored as boilerplate" in warning
        shown = [m.message for m in client.messages if m.type == types.MessageType.Warning]
        assert shown == [f"Doublet: {warning}"]

        config.write_text("[prose]\nnoise = 12\n")
        for _ in range(200):
            if not (await status(client))["warnings"]:
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("the warning outlived its cause")


@pytest.mark.parametrize(
    "settings", [{"debounce": DEBOUNCE_MS, "severityByKind": {"edited": "error"}}], indirect=True
)
async def test_severity_by_kind_shows_an_edited_copy_louder_than_the_rest(
    client: LanguageClient, folder: Path, settings: dict
):
    essay = open_document(client, folder, ESSAY)
    found = await published(client, essay, where=lambda d: len(d) == 2)
    [copied] = matching(found, uri(folder, SOURCE))
    [edited] = matching(found, uri(folder, EDITED))
    assert "verbatim" in copied.related_information[0].message
    assert "edited" in edited.related_information[0].message
    assert copied.severity == types.DiagnosticSeverity.Warning  # severity, the default
    assert edited.severity == types.DiagnosticSeverity.Error


@pytest.mark.parametrize(
    "settings", [{"debounce": DEBOUNCE_MS, "checkFrequency": "manual"}], indirect=True
)
async def test_check_frequency_manual_checks_only_when_asked(
    client: LanguageClient, folder: Path, settings: dict
):
    await ready(client)
    since = mark(client)
    essay = open_document(client, folder, ESSAY)
    await nothing_published(client, essay, since=since)
    answer = await command(client, "doublet.checkDocument", essay)
    assert answer == {"checked": True, "diagnostics": 2}
    assert len(await published(client, essay, since=since)) == 2
    since = mark(client)
    change_document(client, essay, 2, read_text(folder, ESSAY) + "\nMore of my own words.")
    await nothing_published(client, essay, since=since)


@pytest.mark.parametrize(
    "settings", [{"debounce": DEBOUNCE_MS, "checkFrequency": "save"}], indirect=True
)
async def test_check_frequency_save_checks_on_open_and_save_not_on_edits(
    client: LanguageClient, folder: Path, settings: dict
):
    essay = open_document(client, folder, ESSAY)
    assert len(await published(client, essay, where=lambda d: len(d) == 2)) == 2
    since = mark(client)
    change_document(client, essay, 2, "Nothing copied any more.")
    await nothing_published(client, essay, since=since)
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=essay))
    )
    assert await published(client, essay, since=since, version=2) == []


def read_text(folder: Path, rel: str) -> str:
    return (folder / rel).read_text(encoding="utf-8")
