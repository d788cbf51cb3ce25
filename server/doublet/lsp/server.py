"""`doublet serve`: the language server, speaking LSP over stdio (or TCP for debugging).

The server owns the editor's side of things: which folders the editor has open
(lsp/folders: each with its own index, doublet.toml and settings), which
documents are open and their unsaved text, when to recompute (debounced, stale
results dropped) and how results look in an editor. Everything it knows about
matching it asks a folder's workspace (doublet.workspace), which asks the engine.

A document belongs to the deepest folder holding it and is matched against that
folder's documents only; one outside every folder is not checked, and the user
is told so.

Threads: LSP messages are handled on pygls' event loop. Work that can take a
while runs on two threads shared by all folders, one job at a time each, so the
loop keeps answering requests: analysing documents and answering commands on
the worker thread, and bringing indexes up to date with the disk (and saving
them) on the indexer thread. A refresh holds a workspace's lock only a few
thousand files at a time, so an edit made while 100,000 files are checked is
analysed at once, not after them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from doublet import __version__
from doublet.lsp.diagnostics import Match, diagnostics, matches_of
from doublet.lsp.folders import Folder, file_path, outside_message
from doublet.lsp.positions import LineIndex, use_lsp_lines
from doublet.lsp.protocol import DoubletProtocol
from doublet.lsp.settings import Settings

log = logging.getLogger("doublet.lsp")


@dataclass
class OpenDocument:
    """An editor buffer the server analyses, and what it last published for it."""

    uri: str
    folder: Folder | None  # the deepest folder holding it; None outside every folder
    rel: str | None = None  # folder-relative path; None if not one of its documents
    version: int | None = None
    matches: list[Match] = field(default_factory=list)
    partners: dict[str, frozenset[str]] = field(default_factory=dict)  # file -> passage digests
    task: asyncio.Task | None = None


#: What leads to a check of an open document, by the checkFrequency setting.
CHECKED_ON = {
    "edit": {"edit", "open", "save", "index", "command"},
    "save": {"open", "save", "index", "command"},
    "manual": {"command"},
}

#: Skipped files listed in doublet.status (all are counted, and logged).
STATUS_SKIPPED = 100


class DoubletServer(LanguageServer):
    """The language server's state; handlers are registered by :func:`create_server`."""

    def __init__(self) -> None:
        super().__init__("doublet", __version__, protocol_cls=DoubletProtocol)
        #: The editor's workspace folders by root, in the order it gave them.
        self.folders: dict[Path, Folder] = {}
        self.started = False  # `initialized` came: folders are opened as they come
        #: Settings from initializationOptions and didChangeConfiguration pushes, under
        #: what the client answers for each folder.
        self.initial_settings = Settings()
        #: The last error anywhere (a folder's, prefixed by its name when there are several).
        self.last_error: str | None = None
        self.opened: dict[str, OpenDocument] = {}
        self.worker = ThreadPoolExecutor(1, thread_name_prefix="doublet-worker")
        self.indexer = ThreadPoolExecutor(1, thread_name_prefix="doublet-indexer")
        self.client_compare = False  # the client implements side-by-side comparison
        #: The diagnostics last published for each open document.
        self.published: dict[str, list[types.Diagnostic]] = {}
        self._told_outside: set[str] = set()  # documents the log said are outside
        self._tasks: set[asyncio.Task] = set()
        self._typing_prepared = False

    # --- folders ----------------------------------------------------------------------

    def add_folders(self, given: Iterable[types.WorkspaceFolder]) -> list[Folder]:
        """Folders for the client's workspace folders (file URIs only; each root once)."""
        added = []
        for workspace_folder in given:
            if file_path(workspace_folder.uri) is None:
                log.info("not a folder on disk, not indexed: %s", workspace_folder.uri)
                continue
            name = workspace_folder.name or Path(file_path(workspace_folder.uri) or "").name
            folder = Folder(self, workspace_folder.uri, name)
            folder.settings = self.initial_settings  # until the client is asked
            if folder.root not in self.folders:
                self.folders[folder.root] = folder
                added.append(folder)
        return added

    def folders_of_initialize(self, params: types.InitializeParams) -> None:
        """The folders ``initialize`` names: workspaceFolders, else rootUri or rootPath
        (and the documents opened after it, split into lines as LSP does)."""
        use_lsp_lines(self.workspace)
        given = list(params.workspace_folders or [])
        root_uri = self.workspace.root_uri  # pygls turns a rootPath into a URI
        if not given and root_uri:
            name = Path(file_path(root_uri) or "").name
            given = [types.WorkspaceFolder(uri=root_uri, name=name)]
        self.add_folders(given)
        self.nest()

    def folder_of(self, uri: str) -> Folder | None:
        """The deepest folder holding a URI's file (or that is its folder), if any."""
        path = file_path(uri)
        if path is None:
            return None
        exact = next((f for f in self.folders.values() if f.root == Path(path).resolve()), None)
        if exact is not None:
            return exact
        holding = [f for f in self.folders.values() if f.holds(path)]
        return max(holding, key=lambda f: len(f.root.parts), default=None)

    @property
    def first_folder(self) -> Folder | None:
        return next(iter(self.folders.values()), None)

    def label(self, folder: Folder) -> str:
        return f"{folder.name}: " if len(self.folders) > 1 else ""

    async def change_folders(
        self, added: Iterable[types.WorkspaceFolder], removed: Iterable[types.WorkspaceFolder]
    ) -> None:
        """``workspace/didChangeWorkspaceFolders``: a removed folder stops and saves its
        index; an added one is opened and indexed; open documents follow."""
        gone = []
        for workspace_folder in removed:
            path = file_path(workspace_folder.uri)
            folder = self.folders.pop(Path(path).resolve(), None) if path else None
            if folder is not None:
                gone.append(folder)
        new = self.add_folders(added)
        self.nest()
        self.reroute()
        for folder in gone:
            await folder.close()
        if new and self.started:
            await self.fetch_settings(new)
            for folder in new:
                self.spawn(folder.start())
        self.notify_status()

    def reroute(self) -> None:
        """Each open document to its deepest folder again; one that changed folder loses
        what it had (its diagnostics are cleared) and is analysed in its new one."""
        for document in list(self.opened.values()):
            folder = self.folder_of(document.uri)
            if folder is document.folder:
                continue
            if document.task is not None:
                document.task.cancel()
            document.folder = folder
            document.rel = folder.rel_of(document.uri) if folder else None
            document.matches, document.partners = [], {}
            self.clear(document.uri)
            if folder is None:
                self.tell_outside(document.uri)
            elif document.rel is not None and folder.answers:
                self.schedule(document, delay=0, why="open")

    def nest(self) -> None:
        """Tell each folder which workspace folders lie inside it: a document belongs to
        the deepest folder holding it, so the outer one leaves their files out of its
        index (nothing of theirs is diagnosed or paired there)."""
        for folder in self.folders.values():
            inside = sorted(
                other.root.relative_to(folder.root).as_posix()
                for other in self.folders.values()
                if other is not folder and other.root.is_relative_to(folder.root)
            )
            folder.set_nested(tuple(inside))

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` in the background, keeping a reference until it is done."""
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # --- what a folder asks of the server (folders.Host) ---------------------------------

    async def run(self, job, *args):
        """Run blocking work on the worker thread."""
        return await asyncio.get_running_loop().run_in_executor(self.worker, job, *args)

    async def run_indexing(self, job, *args):
        """Run work on an index (a refresh, a save) on the indexer thread."""
        return await asyncio.get_running_loop().run_in_executor(self.indexer, job, *args)

    def buffers(self, folder: Folder) -> dict[str, str]:
        """The open documents of a folder and their text in the editor."""
        found = {}
        for document in list(self.opened.values()):
            if document.folder is folder and document.rel is not None:
                found[document.rel] = self.workspace.get_text_document(document.uri).source
        return found

    def relocate(self, folder: Folder) -> None:
        """Each open document of ``folder`` as the folder now names it; one that is no
        longer among its documents (excluded, say) loses what was published for it:
        its diagnostics and hovers told of matches the index no longer holds."""
        for document in list(self.opened.values()):
            if document.folder is folder:
                document.rel = folder.rel_of(document.uri)
                if document.rel is None and (document.matches or document.uri in self.published):
                    document.matches, document.partners = [], {}
                    self.clear(document.uri)

    async def analyse_now(self, folder: Folder) -> None:
        if "index" not in CHECKED_ON[folder.settings.checks_on]:
            return
        for document in list(self.opened.values()):
            if document.folder is folder and document.rel is not None:
                await self.analyse(document, 0)

    def reanalyse(self, folder: Folder, unanswered_only: bool = False) -> None:
        for document in list(self.opened.values()):
            if document.folder is not folder:
                continue
            if unanswered_only and document.uri in self.published:
                version = self.workspace.get_text_document(document.uri).version
                if document.version == version:
                    continue  # answered for this very text
            self.schedule(document, delay=0)

    def show_message(self, kind: types.MessageType, message: str) -> None:
        self.window_show_message(types.ShowMessageParams(type=kind, message=message))

    def error_occurred(self, folder: Folder | None, message: str) -> None:
        self.last_error = (self.label(folder) if folder else "") + message

    async def begin_progress(self, token: str, title: str) -> bool:
        capabilities = self.client_capabilities
        window = capabilities.window if capabilities else None
        if not (window and window.work_done_progress):
            return False
        try:
            await self.work_done_progress.create_async(token)
        except Exception:  # a client that refuses progress still gets the work done
            return False
        self.work_done_progress.begin(
            token, types.WorkDoneProgressBegin(title=title, percentage=0, cancellable=False)
        )
        return True

    def report_progress(self, token: str, message: str, percentage: int) -> None:
        self.work_done_progress.report(
            token, types.WorkDoneProgressReport(message=message, percentage=percentage)
        )

    def end_progress(self, token: str) -> None:
        self.work_done_progress.end(token, types.WorkDoneProgressEnd(message="done"))

    # --- start-up and status ------------------------------------------------------------------

    async def start(self) -> None:
        """Read every folder's settings, then open and index each in the background."""
        self.started = True
        if not self.folders:
            log.info("no workspace folder: nothing to index")
            self.notify_status()
            return
        await self.fetch_settings(list(self.folders.values()))
        for folder in list(self.folders.values()):
            self.spawn(folder.start())

    async def reindex(self) -> None:
        """Rebuild every folder's index, one after the other."""
        for folder in list(self.folders.values()):
            await folder.index(rebuild=True)

    @property
    def state(self) -> str:
        """The folders' states as one: indexing, else error, else starting, else ready."""
        states = {folder.state for folder in self.folders.values()}
        if not states:
            return "no workspace" if self.started else "starting"
        for state in ("indexing", "error", "starting"):
            if state in states:
                return state
        return "ready"

    def notify_status(self, progress: dict | None = None) -> None:
        """Tell the client (its status bar) how the index is doing: ``doublet/status``."""
        self.protocol.notify("doublet/status", {**self.status(), "progress": progress})

    def status(self) -> dict:
        """What ``doublet.status`` answers: the folders' indexes taken together, their
        state, the last error; and each folder on its own (``folders``)."""
        folders = list(self.folders.values())
        several = len(folders) > 1
        skipped = [
            {"path": f"{folder.name}/{s.path}" if several else s.path, "reason": s.reason}
            for folder in folders
            for s in (folder.project.skipped if folder.project else [])
        ]
        return {
            "version": __version__,
            "root": str(folders[0].root) if folders else None,
            "state": self.state,
            "documents": sum(f.status()["documents"] for f in folders),
            "open": len(self.opened),
            "lastError": self.last_error,
            # files passed over at the last refresh, with the reason (the first hundred)
            "skipped": skipped[:STATUS_SKIPPED],
            "skippedCount": len(skipped),
            "warnings": [self.label(folder) + w for folder in folders for w in folder.warnings],
            "folders": [folder.status() for folder in folders],
        }

    # --- settings -----------------------------------------------------------------------

    async def fetch_settings(self, folders: list[Folder]) -> None:
        """Each folder's ``doublet`` settings: the client's answer for the folder's scope
        (one request for all) over those of initializationOptions and pushes."""
        for folder in folders:
            folder.settings = self.initial_settings
        capabilities = self.client_capabilities
        workspace = capabilities.workspace if capabilities else None
        if not (folders and workspace and workspace.configuration):
            return
        items = [types.ConfigurationItem(scope_uri=f.uri, section="doublet") for f in folders]
        try:
            values = await self.workspace_configuration_async(
                types.ConfigurationParams(items=items)
            )
        except Exception as exc:
            log.warning("could not read the client's settings: %s", exc)
            return
        where: dict[str, list[str]] = {}  # a bad setting is said once, with its folders
        for folder, value in zip(folders, values or [], strict=False):
            problems: list[str] = []
            pulled = Settings.parse(value, problems.append)
            folder.settings = self.initial_settings.merged(pulled)
            for message in problems:
                folder.fail(message)
                where.setdefault(message, []).append(folder.name)
        for message, names in where.items():
            everywhere = len(self.folders) <= 1 or len(names) == len(self.folders)
            named = "" if everywhere else ", ".join(names) + ": "
            self.show_message(types.MessageType.Error, f"Doublet: {named}{message}")

    def report_setting_error(self, message: str) -> None:
        """A bad setting of initializationOptions or a push (no folder's own)."""
        self.error_occurred(None, message)
        self.show_message(types.MessageType.Error, f"Doublet: {message}")

    async def reconfigure(self) -> None:
        """The client's settings changed: re-read every folder's, re-index what they affect."""
        folders = list(self.folders.values())
        await self.fetch_settings(folders)
        for folder in folders:
            await folder.reconfigure(fetch=False)  # one still starting reads them when it opens

    # --- open documents -------------------------------------------------------------------

    def open_document(self, uri: str) -> None:
        """``didOpen``: the document joins its folder (or is told to be outside every one)."""
        folder = self.folder_of(uri)
        document = OpenDocument(uri, folder, folder.rel_of(uri) if folder else None)
        self.opened[uri] = document
        if folder is None:
            self.tell_outside(uri)
        elif document.rel is not None and folder.answers:
            self.schedule(document, delay=0, why="open")

    async def close_document(self, uri: str) -> None:
        """``didClose``: the file on disk counts again, not the buffer that was closed."""
        document = self.opened.pop(uri, None)
        if document is None:
            return
        if document.task is not None:
            document.task.cancel()
        self.clear(document.uri)
        folder = document.folder
        if folder is not None and document.rel is not None and folder.state != "ready":
            folder.closed_meanwhile.add(document.rel)  # read again once the index is built
        elif folder is not None and document.rel is not None:
            await folder.refresh()
            for rel in document.partners:
                other = self.opened_at(folder, rel)
                if other is not None:
                    self.schedule(other, delay=0)

    def tell_outside(self, uri: str) -> None:
        """Log, once per document, that a document outside every folder is not checked."""
        if uri in self._told_outside:
            return
        self._told_outside.add(uri)
        self.window_log_message(
            types.LogMessageParams(type=types.MessageType.Info, message=outside_message(uri))
        )

    # --- analysis -------------------------------------------------------------------

    def schedule(
        self, document: OpenDocument, delay: float | None = None, why: str = "index"
    ) -> None:
        """Analyse a document after ``delay`` (the debounce by default); restart if pending.

        ``why``: "edit", "open", "save", "index" (its own or another file changed) or
        "command"; the checkFrequency setting (of its folder) says which lead to a check.
        """
        settings = document.folder.settings if document.folder else self.initial_settings
        if why not in CHECKED_ON[settings.checks_on]:
            return
        if document.task is not None and not document.task.done():
            document.task.cancel()
        wait = settings.wait if delay is None else delay
        document.task = asyncio.get_running_loop().create_task(self.analyse(document, wait))

    async def analyse(self, document: OpenDocument, delay: float) -> None:
        if delay:
            await asyncio.sleep(delay)
        folder = document.folder
        if folder is None or folder.project is None or document.rel is None:
            return
        if not folder.answers:
            return  # indexing analyses every open document when it is done
        text_document = self.workspace.get_text_document(document.uri)
        version, text = text_document.version, text_document.source
        # a refresh under way waits until the answer is sent, not only computed: the
        # event loop's share (the diagnostics made and written) ran at half speed
        with folder.project.questions.asked():
            try:
                results = await self.run(self._analyse, folder, document.rel, text)
            except Exception as exc:
                log.exception("analysing %s failed", document.uri)
                folder.fail(f"analysing {document.rel} failed: {exc}")
                return
            if self.opened.get(document.uri) is not document or document.folder is not folder:
                return  # closed, or its folder left, meanwhile
            if self.workspace.get_text_document(document.uri).version != version:
                return  # stale: a newer analysis is on its way
            self.publish(document, version, text, matches_of(results))

    def _analyse(self, folder: Folder, rel: str, text: str):
        assert folder.project is not None
        with folder.project.questions.asked():  # before a refresh under way
            folder.project.update_text(rel, text)
            if folder.saver:
                folder.saver.changed()
            return folder.project.similar(rel, text)

    def publish(self, document: OpenDocument, version, text: str, matches: list[Match]) -> None:
        folder = document.folder
        assert folder is not None and folder.project is not None
        before = document.partners
        document.matches = matches
        document.version = version
        partners: dict[str, set[str]] = {}
        for match in matches:
            partners.setdefault(match.other, set()).add(match.digest)
        document.partners = {rel: frozenset(d) for rel, d in partners.items()}
        found = diagnostics(
            matches,
            self.lines(text),
            folder.uri_of,
            folder.project.config.severity_of,
            self.lines_of,
        )
        self.published[document.uri] = found
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=document.uri, diagnostics=found, version=version)
        )
        if not self._typing_prepared:  # after the first answer, before the first keystroke
            self._typing_prepared = True
            self.protocol.prepare_typing()
        # a match that appeared, changed or went away shows in the other file too
        for rel in set(before) | set(document.partners):
            if before.get(rel) == document.partners.get(rel):
                continue
            other = self.opened_at(folder, rel)
            if other is not None and other is not document:
                self.schedule(other, delay=0)

    def opened_at(self, folder: Folder, rel: str) -> OpenDocument | None:
        return next((d for d in self.opened.values() if d.folder is folder and d.rel == rel), None)

    def lines(self, text: str) -> LineIndex:
        """Positions in ``text`` in the encoding agreed with the client."""
        encoding = self.workspace.position_encoding
        return LineIndex(text, str(getattr(encoding, "value", encoding) or "utf-16"))

    def lines_of(self, rel: str, text: str) -> LineIndex:
        """Positions in another file (its text as indexed: the buffer if it is open)."""
        return self.lines(text)

    def clear(self, uri: str) -> None:
        self.published.pop(uri, None)
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
        )
