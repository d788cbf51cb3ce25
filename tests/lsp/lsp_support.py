"""Helpers for the language server's end-to-end tests (fixtures are in conftest.py).

- :class:`DoubletClient`: pytest-lsp's client, keeping every publishDiagnostics
  and the server's stderr; :func:`session` runs a server on a folder as an async
  context manager (other capabilities, initialization options, or two servers
  one after the other);
- waiting: :func:`published` waits for a publishDiagnostics of a URI that meets a
  condition, :func:`wait_until` for any condition, both with a timeout;
- positions: :func:`utf16_range` computes an LSP range from a text and code-point
  offsets, counting UTF-16 code units itself (not with doublet's own code).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any, Union

from lsprotocol import types
from pygls.protocol import default_converter
from pygls.uris import to_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SERVER = [sys.executable, "-m", "doublet", "serve"]
TIMEOUT = 20.0
DEBOUNCE_MS = 50

#: The planted verbatim paragraph (examples-expected.md: verbatim-source-paragraph).
SOURCE = "sources/hives-above-the-traffic.md"
ESSAY = "essays/amira-haddad.txt"
EDITED = "essays/chloe-martin.md"  # an edited copy of another paragraph of ESSAY
INDEPENDENT = "essays/ben-adeyemi.md"  # shares nothing with any file
FIRST_WORDS = "The first wave of modern city beekeeping"
LAST_WORDS = "shrubs in private gardens"  # a passage ends at its last letter, not at "."
#: Another paragraph of SOURCE (lines 32–40) that no other file holds.
OTHER_FIRST = "Some of the best-known hives were placed"
OTHER_LAST = "the balconies of apartment blocks"
#: Documents of the example workspace the ``folder`` fixture copies (essays and sources).
EXAMPLE_DOCUMENTS = sum(1 for part in ("essays", "sources") for _ in (EXAMPLES / part).iterdir())


# --- the client ------------------------------------------------------------------------


class DoubletClient(LanguageClient):
    """pytest-lsp's client, keeping every publishDiagnostics and the server's stderr."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.published: list[types.PublishDiagnosticsParams] = []
        self.statuses: list[dict] = []  # the server's doublet/status notifications
        self.stderr_lines: list[str] = []
        self.process: asyncio.subprocess.Process | None = None

    async def start_io(self, cmd: str, *args: Any, **kwargs: Any) -> None:
        await super(LanguageClient, self).start_io(cmd, *args, **kwargs)
        self.process = self._server
        if self._server and self._server.stderr:
            self._stderr_forwarder = asyncio.create_task(self._read_stderr(self._server))

    async def _read_stderr(self, server: asyncio.subprocess.Process) -> None:
        assert server.stderr is not None
        while (line := await server.stderr.readline()) != b"":
            self.stderr_lines.append(line.decode("utf-8", "replace"))
            sys.stderr.buffer.write(line)


def _publish_diagnostics(client: DoubletClient, params: types.PublishDiagnosticsParams) -> None:
    client.diagnostics[params.uri] = params.diagnostics
    client.published.append(params)


def _status(client: DoubletClient, params: Any) -> None:
    client.statuses.append(params if isinstance(params, dict) else params._asdict())


def _converter():
    """pygls' converter, telling a CodeAction that has a command from a bare Command.

    lsprotocol's hook takes any object with a ``command`` key for a Command, so a
    CodeAction carrying one (as LSP allows) would arrive mangled. A Command's
    ``command`` is a string; a CodeAction's is an object.
    """
    converter = default_converter()

    def command_or_code_action(value: Any, _: type) -> types.Command | types.CodeAction:
        if isinstance(value.get("command"), str):
            return converter.structure(value, types.Command)
        return converter.structure(value, types.CodeAction)

    converter.register_structure_hook(
        Union[types.Command, types.CodeAction],  # noqa: UP007 (the type lsprotocol registers)
        command_or_code_action,
    )
    return converter


def make_client() -> DoubletClient:
    client = DoubletClient(converter_factory=_converter)
    features = dict(DEFAULT_CLIENT_FEATURES)
    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = _publish_diagnostics
    features["doublet/status"] = _status
    register_lsp_features(client, features)
    return client


def capabilities(*, configuration: bool = True) -> types.ClientCapabilities:
    return types.ClientCapabilities(
        window=types.WindowClientCapabilities(
            work_done_progress=True,
            show_document=types.ShowDocumentClientCapabilities(support=True),
        ),
        workspace=types.WorkspaceClientCapabilities(
            configuration=configuration,
            did_change_configuration=types.DidChangeConfigurationClientCapabilities(),
            workspace_edit=types.WorkspaceEditClientCapabilities(
                document_changes=True,
                resource_operations=[types.ResourceOperationKind.Create],
            ),
        ),
        text_document=types.TextDocumentClientCapabilities(
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(
                related_information=True, version_support=True
            ),
            hover=types.HoverClientCapabilities(
                content_format=[types.MarkupKind.Markdown, types.MarkupKind.PlainText]
            ),
            code_action=types.CodeActionClientCapabilities(
                code_action_literal_support=types.ClientCodeActionLiteralOptions(
                    code_action_kind=types.ClientCodeActionKindOptions(
                        value_set=[types.CodeActionKind.QuickFix]
                    )
                )
            ),
        ),
    )


async def initialize(
    client: DoubletClient,
    folder: Path,
    *,
    settings: dict | None = None,
    options: dict | None = None,
    configuration: bool = True,
) -> types.InitializeResult:
    if settings is not None:
        client.set_configuration(settings, section="doublet")
    return await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities(configuration=configuration),
            root_uri=folder.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=folder.as_uri(), name="ws")],
            initialization_options=options,
        )
    )


async def close(client: DoubletClient, *, shutdown: bool = True) -> None:
    """Shut the server down and exit it; kill it if that does not work, so nothing hangs."""
    try:
        if shutdown:
            await asyncio.wait_for(client.shutdown_session(), TIMEOUT)
    finally:
        process = client.process
        if process is not None and process.returncode is None:
            process.kill()
        await asyncio.wait_for(client.stop(), TIMEOUT)


@contextlib.asynccontextmanager
async def session(
    folder: Path,
    *,
    settings: dict | None = None,
    options: dict | None = None,
    configuration: bool = True,
) -> AsyncIterator[DoubletClient]:
    """A server process on ``folder``, initialized; shut down and exited on leaving.

    If the body fails, the server is still shut down (or killed), never left running.
    """
    config = ClientServerConfig(server_command=SERVER, client_factory=make_client)
    client = await config.start()
    assert isinstance(client, DoubletClient)
    try:
        await initialize(
            client,
            folder,
            settings={"debounce": DEBOUNCE_MS} if settings is None else settings,
            options=options,
            configuration=configuration,
        )
        yield client
    finally:
        await close(client)


# --- waiting ---------------------------------------------------------------------------


async def wait_until(
    condition: Callable[[], Any], what: str = "condition", timeout: float = TIMEOUT
) -> Any:
    """Poll ``condition`` until it returns something true; fail after ``timeout``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = condition()
        if value:
            return value
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        await asyncio.sleep(0.02)


def mark(client: DoubletClient) -> int:
    """A point in the client's publishDiagnostics history (see ``published(since=)``)."""
    return len(client.published)


async def published(
    client: DoubletClient,
    uri: str,
    *,
    since: int = 0,
    version: int | None = None,
    where: Callable[[Sequence[types.Diagnostic]], bool] | None = None,
    timeout: float = TIMEOUT,
) -> list[types.Diagnostic]:
    """The diagnostics of the latest publish for ``uri`` after ``since`` meeting the conditions.

    Only the latest publish for the URI counts: an older one that met the
    condition but was replaced does not.
    """

    def latest():
        for params in reversed(client.published[since:]):
            if params.uri == uri:
                return params
        return None

    def ok():
        params = latest()
        if params is None:
            return False
        if version is not None and params.version != version:
            return False
        return where is None or where(params.diagnostics)

    def describe() -> str:
        params = latest()
        got = "nothing" if params is None else f"v{params.version}: {params.diagnostics}"
        return f"diagnostics of {uri} (last published: {got})"

    try:
        await wait_until(ok, timeout=timeout)
    except AssertionError:
        raise AssertionError(f"timed out waiting for {describe()}") from None
    return list(latest().diagnostics)


async def nothing_published(
    client: DoubletClient, uri: str, *, since: int, seconds: float = 0.5
) -> None:
    """Check that nothing is published for ``uri`` during a short, bounded wait."""
    await asyncio.sleep(seconds)
    late = [p for p in client.published[since:] if p.uri == uri]
    assert not late, f"unexpected diagnostics for {uri}: {late}"


# --- documents and commands --------------------------------------------------------------


def uri(folder: Path, rel: str) -> str:
    return (folder / rel).as_uri()


def open_document(
    client: DoubletClient, folder: Path, rel: str, text: str | None = None, version: int = 1
) -> str:
    """didOpen a file of the workspace, with its text on disk unless ``text`` is given."""
    path = folder / rel
    if text is None:
        text = path.read_text(encoding="utf-8")
    address = path.as_uri()
    language = "markdown" if rel.endswith(".md") else "plaintext"
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=address, language_id=language, version=version, text=text
            )
        )
    )
    return address


def change_document(client: DoubletClient, address: str, version: int, text: str) -> None:
    """didChange replacing the whole buffer."""
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=address, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


def close_document(client: DoubletClient, address: str) -> None:
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=address))
    )


async def command(client: DoubletClient, name: str, *arguments: Any) -> Any:
    return await asyncio.wait_for(
        client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=name, arguments=list(arguments))
        ),
        TIMEOUT,
    )


async def status(client: DoubletClient) -> dict:
    return await command(client, "doublet.status")


async def ready(client: DoubletClient) -> dict:
    """Wait until the server has indexed the workspace (and watches it); its status."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIMEOUT
    while True:
        current = await status(client)
        if current["state"] == "ready":
            return current
        assert current["state"] in ("starting", "indexing"), current
        assert loop.time() < deadline, f"not ready after {TIMEOUT} s: {current}"
        await asyncio.sleep(0.05)


async def indexed(client: DoubletClient, documents: int) -> dict:
    """Wait until the server's index holds ``documents`` documents; its status. A burst
    of files can reach it in two refreshes (the second after the first one's news)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIMEOUT
    while True:
        current = await status(client)
        if current["documents"] == documents:
            return current
        assert loop.time() < deadline, f"not {documents} documents after {TIMEOUT} s: {current}"
        await asyncio.sleep(0.05)


# --- text and positions --------------------------------------------------------------------


def span(text: str, first: str, last: str, start_at: int = 0) -> tuple[int, int]:
    """Code-point offsets from the start of ``first`` to the end of ``last`` (wrapping allowed).

    Words are matched with any run of whitespace between them, so a passage
    wrapped at another width is found.
    """

    def pattern(words: str) -> str:
        return r"\s+".join(re.escape(w) for w in words.split())

    found = re.compile(pattern(first) + r"[\s\S]*?" + pattern(last)).search(text, start_at)
    assert found, f"{first!r} … {last!r} not in the text"
    return found.start(), found.end()


def passage(text: str, first: str, last: str) -> str:
    start, end = span(text, first, last)
    return text[start:end]


def utf16_position(text: str, offset: int) -> tuple[int, int]:
    """(line, UTF-16 column) of a code-point offset: lines split at "\\n" only."""
    line = text.count("\n", 0, offset)
    line_start = text.rfind("\n", 0, offset) + 1
    column = sum(2 if ord(ch) > 0xFFFF else 1 for ch in text[line_start:offset])
    return line, column


def utf16_range(text: str, start: int, end: int) -> types.Range:
    (l0, c0), (l1, c1) = utf16_position(text, start), utf16_position(text, end)
    return types.Range(
        start=types.Position(line=l0, character=c0), end=types.Position(line=l1, character=c1)
    )


def as_range(value: Any) -> types.Range:
    """A Range from a command's JSON (``{"start": {"line":..}, ...}``)."""
    return types.Range(
        start=types.Position(line=value["start"]["line"], character=value["start"]["character"]),
        end=types.Position(line=value["end"]["line"], character=value["end"]["character"]),
    )


def range_json(r: types.Range) -> dict:
    return {
        "start": {"line": r.start.line, "character": r.start.character},
        "end": {"line": r.end.line, "character": r.end.character},
    }


def read(folder: Path, rel: str) -> str:
    return (folder / rel).read_text(encoding="utf-8")


def source_range(folder: Path) -> types.Range:
    """Where the planted paragraph is in SOURCE (lines 23–30)."""
    text = read(folder, SOURCE)
    return utf16_range(text, *span(text, FIRST_WORDS, LAST_WORDS))


def essay_range(folder: Path) -> types.Range:
    """Where the planted paragraph is in ESSAY (lines 13–22)."""
    text = read(folder, ESSAY)
    return utf16_range(text, *span(text, FIRST_WORDS, LAST_WORDS))


def related_to(diagnostic: types.Diagnostic, address: str) -> list[types.Location]:
    return [r.location for r in diagnostic.related_information or [] if r.location.uri == address]


def matching(diagnostics: Sequence[types.Diagnostic], address: str) -> list[types.Diagnostic]:
    """The diagnostics whose related information points into ``address``."""
    return [d for d in diagnostics if related_to(d, address)]


# --- made-up text, workspace edits, raw messages ------------------------------------------

SYLLABLES = "ba ko ri te mu sa lo ne vi da pe fu zo gi ha ju ke ly mo nu".split()
VOCABULARY = [a + b + c for a in SYLLABLES for b in SYLLABLES for c in SYLLABLES]


def filler(seed: int, words: int = 300) -> str:
    """Prose-like text that shares no passage with any other seed's (nor the examples).

    Words are drawn from 8,000 made-up three-syllable words, so two texts share
    no run of words long enough to be a passage.
    """
    rng = random.Random(seed)
    chosen = rng.choices(VOCABULARY, k=words)
    sentences = [" ".join(chosen[i : i + 12]).capitalize() + "." for i in range(0, words, 12)]
    return "\n".join(" ".join(sentences[i : i + 4]) for i in range(0, len(sentences), 4)) + "\n"


def utf16_offset(text: str, position: types.Position) -> int:
    """The code-point offset of an LSP position (UTF-16 columns)."""
    lines = text.split("\n")
    offset = sum(len(line) + 1 for line in lines[: position.line])
    if position.line >= len(lines):
        return len(text)
    units = 0
    for i, ch in enumerate(lines[position.line]):
        if units >= position.character:
            return offset + i
        units += 2 if ord(ch) > 0xFFFF else 1
    return offset + len(lines[position.line])


def apply_edits(text: str, edits: Sequence[types.TextEdit]) -> str:
    """``text`` with LSP text edits applied (from the last, so offsets hold)."""
    spans = [
        (utf16_offset(text, e.range.start), utf16_offset(text, e.range.end), e.new_text)
        for e in edits
    ]
    for start, end, new in sorted(spans, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def apply_workspace_edit(edit: types.WorkspaceEdit) -> list[Path]:
    """Do what an editor does with a workspace edit, on disk; the files written."""
    written: list[Path] = []

    def edit_file(address: str, edits: Sequence[types.TextEdit]) -> None:
        path = Path(to_fs_path(address))
        old = path.read_text(encoding="utf-8") if path.exists() else ""
        path.write_text(apply_edits(old, edits), encoding="utf-8")
        written.append(path)

    for change in edit.document_changes or []:
        if isinstance(change, types.CreateFile):
            path = Path(to_fs_path(change.uri))
            if not path.exists():
                path.write_text("", encoding="utf-8")
        elif isinstance(change, types.TextDocumentEdit):
            edit_file(change.text_document.uri, change.edits)
        else:
            raise AssertionError(f"unexpected change: {change!r}")
    for address, edits in (edit.changes or {}).items():
        edit_file(address, edits)
    return written


_raw_ids = iter(range(1, 1_000_000))


async def raw_request(
    client: DoubletClient, method: str, params: Any, timeout: float = TIMEOUT
) -> Any:
    """A JSON-RPC request with ``params`` sent as they are (``...``: none), unchecked.

    The result comes back as pygls reads JSON it has no type for (objects may be
    named tuples); an error response raises the pygls JsonRpcException of its code.
    """
    msg_id = f"raw-{next(_raw_ids)}"
    future: Future = Future()
    client.protocol._request_futures[msg_id] = future
    message = {"jsonrpc": "2.0", "id": msg_id, "method": method}
    if params is not ...:
        message["params"] = params
    client.protocol._send_data(message)
    return await asyncio.wait_for(asyncio.wrap_future(future), timeout)


def raw_notify(client: DoubletClient, method: str, params: Any) -> None:
    """A JSON-RPC notification with ``params`` sent as they are."""
    client.protocol._send_data({"jsonrpc": "2.0", "method": method, "params": params})


# --- several workspace folders (multi-root) ---------------------------------------------------


def workspace_folder(folder: Path) -> types.WorkspaceFolder:
    """A workspace folder named as an editor names it: by its last component."""
    return types.WorkspaceFolder(uri=folder.as_uri(), name=folder.name)


async def initialize_folders(
    client: DoubletClient,
    folders: Sequence[Path],
    *,
    settings: dict | None = None,
    scoped: dict[Path, dict] | None = None,
) -> types.InitializeResult:
    """``initialize`` with several workspace folders (rootUri: the first). ``settings`` is
    the ``doublet`` section everywhere, ``scoped`` a folder's own, answered to a
    workspace/configuration whose scopeUri is in that folder (as VS Code's
    resource-scoped settings)."""
    if settings is not None:
        client.set_configuration(settings, section="doublet")
    for folder, values in (scoped or {}).items():
        client.set_configuration(values, section="doublet", scope_uri=folder.as_uri())
    return await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities(),
            root_uri=folders[0].as_uri() if folders else None,
            workspace_folders=[workspace_folder(f) for f in folders],
        )
    )


@contextlib.asynccontextmanager
async def folders_session(
    folders: Sequence[Path],
    *,
    settings: dict | None = None,
    scoped: dict[Path, dict] | None = None,
) -> AsyncIterator[DoubletClient]:
    """A server process on several workspace folders, initialized; shut down on leaving."""
    config = ClientServerConfig(server_command=SERVER, client_factory=make_client)
    client = await config.start()
    assert isinstance(client, DoubletClient)
    try:
        await initialize_folders(
            client,
            folders,
            settings={"debounce": DEBOUNCE_MS} if settings is None else settings,
            scoped=scoped,
        )
        yield client
    finally:
        await close(client)


def change_folders(
    client: DoubletClient, *, added: Sequence[Path] = (), removed: Sequence[Path] = ()
) -> None:
    """``workspace/didChangeWorkspaceFolders``, as an editor sends it when folders are
    added to or removed from the workspace."""
    client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(
                added=[workspace_folder(f) for f in added],
                removed=[workspace_folder(f) for f in removed],
            )
        )
    )
