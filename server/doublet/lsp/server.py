"""`doublet serve`: the language server, speaking LSP over stdio (or TCP for debugging).

The server owns the editor's side of things: which documents are open and
their unsaved text, the client's settings, when to recompute (debounced, stale
results dropped) and how results look in an editor. Everything it knows about
matching it asks the workspace (doublet.workspace), which asks the engine.

Threads: LSP messages are handled on pygls' event loop. Work that can take a
while — indexing the workspace, reacting to files changed on disk, analysing
a document — runs on one worker thread, one job at a time, so the loop keeps
answering requests while the index is built.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from doublet import __version__
from doublet.config import DEFAULTS, Config, ConfigError
from doublet.config import load as load_config
from doublet.lsp.diagnostics import Match, diagnostics, matches_of
from doublet.lsp.positions import LineIndex
from doublet.lsp.protocol import DoubletProtocol
from doublet.lsp.settings import Settings
from doublet.lsp.watcher import Watcher
from doublet.workspace import DebouncedSave, Workspace

log = logging.getLogger("doublet.lsp")

#: How long files must be quiet on disk before the index follows them (a git
#: checkout of a thousand files is one refresh, not a thousand).
DISK_QUIET = 0.3


@dataclass
class OpenDocument:
    """An editor buffer the server analyses, and what it last published for it."""

    uri: str
    rel: str | None  # workspace-relative path; None outside the workspace
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
        self.project: Workspace | None = None
        self.settings = Settings()
        self.state = "starting"
        self.last_error: str | None = None
        #: What would make the answers mislead as configured (Workspace.warnings)
        self.warnings: list[str] = []
        self.opened: dict[str, OpenDocument] = {}
        self.worker = ThreadPoolExecutor(1, thread_name_prefix="doublet-worker")
        self.saver: DebouncedSave | None = None
        self.watcher: Watcher | None = None
        self.client_compare = False  # the client implements side-by-side comparison
        self.initial_settings = Settings()  # from initializationOptions
        self._disk_changes: set[str] = set()
        self._disk_task: asyncio.Task | None = None
        self._config_changed = False
        #: Set while the index is not being built (start-up and indexing clear it).
        self.indexed = asyncio.Event()
        #: The diagnostics last published for each open document.
        self.published: dict[str, list[types.Diagnostic]] = {}

    # --- paths ----------------------------------------------------------------------

    def rel_of(self, uri: str) -> str | None:
        """Workspace-relative path of a file URI, or None if it is not in the workspace."""
        if self.project is None or not uri.startswith("file:"):
            return None
        path = to_fs_path(uri)
        if path is None:
            return None
        try:
            rel = self.project.relative(path)
        except ValueError:
            return None
        return rel if self.project.is_document(rel) else None

    def uri_of(self, rel: str) -> str:
        assert self.project is not None
        return from_fs_path(str(self.project.root / rel)) or ""

    async def run(self, job, *args):
        """Run blocking work on the worker thread."""
        return await asyncio.get_running_loop().run_in_executor(self.worker, job, *args)

    # --- start-up -------------------------------------------------------------------

    async def start(self) -> None:
        """Load settings and the saved index, then index the workspace in the background."""
        root = self.workspace.root_path
        if not root:
            self.indexed.set()
            self.state = "no workspace"
            log.info("no workspace folder: nothing to index")
            self.notify_status()
            return
        await self.fetch_settings()
        self.project = Workspace.open(root, config=self.current_config(Path(root).resolve()))
        self.saver = DebouncedSave(self.project)
        # watch before indexing, so that nothing written meanwhile is missed
        self.watcher = Watcher(
            self.project.root, asyncio.get_running_loop(), self.files_changed_on_disk
        )
        self.watcher.start()
        asyncio.get_running_loop().create_task(self.index_workspace())

    def current_config(self, root: Path) -> Config:
        """doublet.toml with the client's settings on top; what is bad is reported and left out.

        A broken doublet.toml leaves the defaults (the watcher notices the fix); a bad
        setting leaves that one setting out, not the file.
        """
        try:
            base = load_config(root)
        except ConfigError as exc:
            self.report_config_error(exc)
            base = DEFAULTS
        return self.settings.apply(base, self.report_setting_error)

    def notify_status(self, progress: dict | None = None) -> None:
        """Tell the client (its status bar) how the index is doing: ``doublet/status``."""
        self.protocol.notify("doublet/status", {**self.status(), "progress": progress})

    def status(self) -> dict:
        """What ``doublet.status`` answers: the index, its state, the last error."""
        return {
            "version": __version__,
            "root": str(self.project.root) if self.project else None,
            "state": self.state,
            "documents": len(self.project.index) if self.project else 0,
            "open": len(self.opened),
            "lastError": self.last_error,
            # files passed over at the last refresh, with the reason (the first hundred)
            "skipped": [
                {"path": s.path, "reason": s.reason}
                for s in (self.project.skipped[:STATUS_SKIPPED] if self.project else [])
            ],
            "skippedCount": len(self.project.skipped) if self.project else 0,
            "warnings": self.warnings,
        }

    async def index_workspace(self, rebuild: bool = False) -> None:
        """Bring the index up to date with progress, then analyse every open document."""
        assert self.project is not None
        self.state = "indexing"
        self.indexed.clear()
        self.notify_status()
        token = str(uuid.uuid4())
        progress = await self.begin_progress(token, "Doublet: indexing")
        loop = asyncio.get_running_loop()

        def report(done: int, total: int) -> None:
            loop.call_soon_threadsafe(self.notify_status, {"done": done, "total": total})
            if progress:
                message = f"{done} of {total} files"
                percentage = int(100 * done / max(total, 1))
                loop.call_soon_threadsafe(self.report_progress, token, message, percentage)

        try:
            started = time.perf_counter()
            changes = await self.run(self._refresh_with_progress, report, rebuild)
            await self.run(self.project.save)
            await self.check_warnings()
            log.info(
                "indexed %d documents in %.2f s (%d read, %d skipped)",
                len(self.project.index),
                time.perf_counter() - started,
                len(changes.added) + len(changes.updated),
                len(changes.skipped),
            )
            self.state = "ready"
        except Exception as exc:  # the daemon stays up and says what went wrong
            log.exception("indexing failed")
            self.last_error = f"indexing failed: {exc}"
            self.state = "error"
        finally:
            if progress:
                self.work_done_progress.end(token, types.WorkDoneProgressEnd(message="done"))
            self.indexed.set()
            self.notify_status()
        for document in list(self.opened.values()):
            document.rel = self.rel_of(document.uri)  # it may have opened before the workspace
            self.schedule(document, delay=0)
        if self._disk_changes or self._config_changed:  # files changed while indexing
            self._disk_task = loop.create_task(self._after_quiet())

    async def check_warnings(self) -> None:
        """Look for what would make the answers mislead (Workspace.warnings): logged, in
        the status, and shown once when they change."""
        assert self.project is not None
        found = await self.run(self.project.warnings)
        if found != self.warnings:
            for warning in found:
                log.warning("%s", warning)
                self.window_show_message(
                    types.ShowMessageParams(
                        type=types.MessageType.Warning, message=f"Doublet: {warning}"
                    )
                )
        self.warnings = found

    async def until_indexed(self) -> None:
        """Wait while the server starts or builds its index."""
        await self.indexed.wait()

    def _refresh_with_progress(self, report, rebuild: bool):
        assert self.project is not None
        if rebuild:
            self.project.reset_index()
        counted = _Counting(report)
        buffers = self.buffers()
        changes = self.project.refresh(counted, keep=set(buffers) & set(self.project.index.names()))
        for rel, text in buffers.items():  # an open document counts as the editor has it
            if not self.project.holds_text(rel, text):
                self.project.update_text(rel, text)
        return changes

    def buffers(self) -> dict[str, str]:
        """The open documents of the workspace and their text in the editor."""
        found = {}
        for document in list(self.opened.values()):
            if document.rel is not None:
                found[document.rel] = self.workspace.get_text_document(document.uri).source
        return found

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

    # --- settings -------------------------------------------------------------------

    async def fetch_settings(self) -> None:
        """Ask the client for the ``doublet`` settings section, if it can answer."""
        self.settings = self.initial_settings
        capabilities = self.client_capabilities
        workspace = capabilities.workspace if capabilities else None
        if not (workspace and workspace.configuration):
            return
        try:
            values = await self.workspace_configuration_async(
                types.ConfigurationParams(items=[types.ConfigurationItem(section="doublet")])
            )
        except Exception as exc:
            log.warning("could not read the client's settings: %s", exc)
            return
        pulled = Settings.parse(values[0] if values else None, self.report_setting_error)
        self.settings = self.initial_settings.merged(pulled)

    def report_setting_error(self, message: str) -> None:
        self.last_error = message
        self.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Error, message=f"Doublet: {message}")
        )

    def report_config_error(self, exc: ConfigError) -> None:
        self.last_error = str(exc)
        self.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Error, message=f"Doublet: {exc}")
        )

    async def reconfigure(self) -> None:
        """Settings or doublet.toml changed: re-read both, re-index what they affect."""
        if self.project is None:
            return
        await self.fetch_settings()
        self.project.config = self.current_config(self.project.root)
        for document in self.opened.values():
            document.rel = self.rel_of(document.uri)  # include/exclude may have changed
        await self.run(self._refresh_with_progress, lambda done, total: None, False)
        await self.check_warnings()
        self.after_index_change()

    # --- files on disk --------------------------------------------------------------

    def files_changed_on_disk(self, paths: set[str]) -> None:
        """Called on the loop by the watcher; coalesces bursts into one refresh."""
        self._disk_changes |= paths
        if "doublet.toml" in paths:
            self._config_changed = True
        if self._disk_task is not None:
            self._disk_task.cancel()
        self._disk_task = asyncio.get_running_loop().create_task(self._after_quiet())

    async def _after_quiet(self) -> None:
        await asyncio.sleep(DISK_QUIET)
        self._disk_task = None
        if self.project is None or self.state == "indexing":
            return  # indexing looks at the changes kept when it is done
        self._disk_changes.clear()
        if self._config_changed:
            self._config_changed = False
            await self.reconfigure()
            return
        try:
            changes = await self.run(self._refresh_with_progress, lambda done, total: None, False)
        except Exception as exc:  # said in the status; the next change on disk tries again
            log.exception("refreshing the index failed")
            self.last_error = f"refreshing the index failed: {exc}"
            self.state = "error"
            self.notify_status()
            return
        if self.state == "error":  # recovered: everything is analysed again
            self.state = "ready"
            self.after_index_change()
        elif changes.changed:
            self.after_index_change()

    def after_index_change(self) -> None:
        self.notify_status()
        if self.saver:
            self.saver.changed()
        for document in list(self.opened.values()):
            self.schedule(document, delay=0)

    # --- analysis -------------------------------------------------------------------

    def schedule(
        self, document: OpenDocument, delay: float | None = None, why: str = "index"
    ) -> None:
        """Analyse a document after ``delay`` (the debounce by default); restart if pending.

        ``why``: "edit", "open", "save", "index" (its own or another file changed) or
        "command"; the checkFrequency setting says which of them lead to a check.
        """
        if why not in CHECKED_ON[self.settings.checks_on]:
            return
        if document.task is not None and not document.task.done():
            document.task.cancel()
        wait = self.settings.wait if delay is None else delay
        document.task = asyncio.get_running_loop().create_task(self.analyse(document, wait))

    async def analyse(self, document: OpenDocument, delay: float) -> None:
        if delay:
            await asyncio.sleep(delay)
        if self.project is None or document.rel is None or self.state != "ready":
            return  # indexing analyses every open document when it is done
        text_document = self.workspace.get_text_document(document.uri)
        version, text = text_document.version, text_document.source
        try:
            results = await self.run(self._analyse, document.rel, text)
        except Exception as exc:
            log.exception("analysing %s failed", document.uri)
            self.last_error = f"analysing {document.rel} failed: {exc}"
            return
        if self.opened.get(document.uri) is not document:
            return  # closed meanwhile
        if self.workspace.get_text_document(document.uri).version != version:
            return  # stale: a newer analysis is on its way
        self.publish(document, version, text, matches_of(results))

    def _analyse(self, rel: str, text: str):
        assert self.project is not None
        self.project.update_text(rel, text)
        if self.saver:
            self.saver.changed()
        return self.project.similar(rel, text)

    def publish(self, document: OpenDocument, version, text: str, matches: list[Match]) -> None:
        assert self.project is not None
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
            self.uri_of,
            self.project.config.severity_of,
            self.lines_of,
        )
        self.published[document.uri] = found
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=document.uri, diagnostics=found, version=version)
        )
        # a match that appeared, changed or went away shows in the other file too
        for rel in set(before) | set(document.partners):
            if before.get(rel) == document.partners.get(rel):
                continue
            other = self.opened_at(rel)
            if other is not None and other is not document:
                self.schedule(other, delay=0)

    def opened_at(self, rel: str) -> OpenDocument | None:
        return next((d for d in self.opened.values() if d.rel == rel), None)

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


class _Counting:
    """Wraps the refresh's work list, reporting progress every few files."""

    def __init__(self, report):
        self.report = report

    def __call__(self, items):
        total = len(items)
        step = max(1, total // 50)
        for done, item in enumerate(items, 1):
            if done % step == 0 or done == total:
                self.report(done, total)
            yield item
