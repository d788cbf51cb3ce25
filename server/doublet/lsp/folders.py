"""One workspace folder of the editor: its index, doublet.toml, settings, watcher and state.

An editor may open several folders at once (a multi-root workspace). Each is a
doublet workspace of its own — its own ``.doublet/`` index and doublet.toml,
its own editor settings (VS Code's resource-scoped settings differ per
folder), watcher, debounced save, state and warnings — so nothing matches
across folders, as nothing does across two runs of ``doublet scan``. A folder
opened inside another one owns its files: the outer one excludes it.

The server (lsp/server.py) owns what folders share: the worker and indexer threads, the
client (progress, messages, settings requests), the open documents and their
analysis. A folder asks it for these through :class:`Host`; it does not know
the server's class.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import logging
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from doublet import parallel
from doublet.config import DEFAULTS, FILE_NAME, Config, ConfigError
from doublet.config import load as load_config
from doublet.index_store import IndexFileError
from doublet.lsp.settings import Settings
from doublet.lsp.watcher import Watcher
from doublet.workspace import Changes, DebouncedSave, Workspace

log = logging.getLogger("doublet.lsp")
#: Seconds between two progress reports while a folder is indexed.
PROGRESS_INTERVAL = 0.1

#: How long files must be quiet on disk before the index follows them (a git
#: checkout of a thousand files is one refresh, not a thousand).
DISK_QUIET = 0.3

#: done, total: files of a refresh read so far (called on the indexer thread).
Report = Callable[[int, int], None]

#: Characters that a glob pattern would read as wildcards or escapes.
_GLOB_SPECIAL = frozenset("\\*?[]")


def folder_pattern(rel: str) -> str:
    """An exclude pattern (gitignore-style, config.py) matching exactly the folder ``rel``
    of the workspace and everything in it, whatever characters its name holds."""
    escaped = "".join("\\" + c if c in _GLOB_SPECIAL else c for c in rel)
    return f"/{escaped}/"


def without_nested(config: Config, nested: Iterable[str]) -> Config:
    """``config`` with the folders ``nested`` (folder-relative) excluded after the user's
    own patterns, so that no pattern of theirs brings a file of those folders back."""
    patterns = tuple(folder_pattern(rel) for rel in nested)
    if not patterns:
        return config
    # our patterns, not the user's: built here, so nothing to report on them
    return replace(config, exclude=config.exclude + patterns)


class Host(Protocol):
    """What a folder asks of the server that holds it."""

    async def run(self, job: Callable[..., Any], *args: Any) -> Any:
        """Run blocking work on the server's worker thread (analyses, commands)."""
        ...

    async def run_indexing(self, job: Callable[..., Any], *args: Any) -> Any:
        """Run work on an index (refresh, save) on the server's indexer thread."""
        ...

    def notify_status(self, progress: dict | None = None) -> None: ...

    async def begin_progress(self, token: str, title: str) -> bool: ...

    def report_progress(self, token: str, message: str, percentage: int) -> None: ...

    def end_progress(self, token: str) -> None: ...

    def show_message(self, kind: types.MessageType, message: str) -> None: ...

    def error_occurred(self, folder: Folder, message: str) -> None:
        """Remember ``message`` as the server's last error (``lastError`` of the status)."""
        ...

    async def fetch_settings(self, folders: list[Folder]) -> None:
        """Set each folder's ``settings`` from the client's."""
        ...

    async def analyse_now(self, folder: Folder) -> None:
        """Analyse the folder's open documents at once, and wait for their diagnostics."""
        ...

    def label(self, folder: Folder) -> str:
        """``"name: "`` to put before what is said of a folder when there are several."""
        ...

    def buffers(self, folder: Folder) -> dict[str, str]:
        """The folder's open documents (relative paths) and their text in the editor."""
        ...

    def relocate(self, folder: Folder) -> None:
        """Work out again which of the folder's open buffers are documents (include and
        exclude may have changed, or the folder has just been opened)."""
        ...

    def reanalyse(self, folder: Folder, unanswered_only: bool = False) -> None:
        """Analyse the folder's open documents again: its index changed (or, with
        ``unanswered_only``, it did not, and only those without an answer for their
        text are)."""
        ...


def file_path(uri: str) -> Path | None:
    """The path of a file URI with its folder's links resolved (not the file's own: links
    are not documents), as ``Workspace.relative`` sees it; None if it is no file URI."""
    if not isinstance(uri, str) or not uri.startswith("file:"):
        return None
    path = to_fs_path(uri)
    if not path:
        return None
    full = Path(os.path.abspath(path))
    return Path(os.path.realpath(full.parent)) / full.name


def config_stamp(root: Path) -> tuple[int, int] | None:
    """The size and time of ``root``'s doublet.toml (None if there is none): whether it
    changed while nothing watched it."""
    try:
        info = (root / FILE_NAME).stat()
    except OSError:
        return None
    return info.st_size, info.st_mtime_ns


def file_uri(path: Path) -> str:
    """The URI of a file, also when its name is not UTF-8 (its bytes quoted: pygls's
    ``from_fs_path`` raised, and every analysis of a document matching that file
    failed)."""
    try:
        return from_fs_path(str(path)) or ""
    except UnicodeEncodeError:
        return path.as_uri()


def outside_message(uri: str) -> str:
    """What the user is told of a document outside every workspace folder."""
    path = file_path(uri)
    name = path.name if path is not None else uri
    return (
        f"Doublet: {name} is outside every workspace folder; only files inside a folder are checked"
    )


class Throttled:
    """Progress reports at most once per ``interval``, the latest one never lost.

    Indexing reports every file; a message per file of 24,000 keeps the editor
    redrawing its status bar. A report that comes too soon is held, and sent when
    the interval is over unless a newer one was sent meanwhile, so a slow file after
    quick ones still shows "8 of 9 files" while it is read. Called from the indexing
    thread; the held report is sent from the event loop.
    """

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        send: Callable[[int, int], None],
        interval: float = PROGRESS_INTERVAL,
    ):
        self.loop, self.send, self.interval = loop, send, interval
        self._lock = threading.Lock()
        self._last = -interval  # when a report was last sent (monotonic)
        self._sent = -1  # its count of files done
        self._latest: tuple[int, int] | None = None
        self._held = False
        self._stopped = False

    def __call__(self, done: int, total: int) -> None:
        with self._lock:
            self._latest = (done, total)
            wait = self._last + self.interval - time.monotonic()
            if done < total and wait > 0:
                if not self._held:
                    self._held = True
                    self.loop.call_soon_threadsafe(self.loop.call_later, wait, self._release)
                return
            self._emit(done, total)

    def _release(self) -> None:
        with self._lock:
            self._held = False
            if self._latest is not None:
                self._emit(*self._latest)

    def _emit(self, done: int, total: int) -> None:
        """Send, in order (the lock is held): never an older count after a newer one."""
        if self._stopped or done <= self._sent:
            return
        self._sent, self._last = done, time.monotonic()
        self.send(done, total)

    def stop(self) -> None:
        """Indexing ended: nothing held is sent after its end."""
        with self._lock:
            self._stopped = True


class Folder:
    """A workspace folder and everything the server keeps for it.

    ``state``: "starting" (until its saved index is loaded and indexing begins),
    "indexing", "ready", "error" (the last refresh failed; the next may recover)
    or "closed" (the editor removed the folder).
    """

    def __init__(self, host: Host, uri: str, name: str):
        self.host = host
        self.uri = uri  # as the client names it: the scope of its settings
        self.name = name
        path = to_fs_path(uri) or ""
        self.root = Path(path).resolve()
        self.settings = Settings()
        self.project: Workspace | None = None
        self.saver: DebouncedSave | None = None
        self.watcher: Watcher | None = None
        self.state = "starting"
        self.last_error: str | None = None
        #: What would make the answers mislead as configured (Workspace.warnings)
        self.warnings: list[str] = []
        #: Set while no index is being built (start-up and indexing clear it).
        self.indexed = asyncio.Event()
        self._disk_changes: set[str] = set()
        self._disk_task: asyncio.Task | None = None
        self._config_changed = False
        self._config_read: tuple[int, int] | None = None  # doublet.toml as last read
        #: The editor removed the folder (work under way finishes, nothing follows it).
        self.closed = False
        #: Folder-relative paths of the workspace folders inside this one: their files are
        #: theirs (their own index and doublet.toml), so this folder leaves them out.
        self.nested: tuple[str, ...] = ()
        self._nested_applied: tuple[str, ...] = ()  # those the configuration leaves out
        #: The index was loaded from the last session's save: open documents are checked
        #: against it at once, and again when the refresh has brought it up to date.
        self.from_saved = False
        #: Whether the last refresh changed the index from the disk (not the buffers).
        self._disk_changed_index = False
        #: Documents closed while the index was built: a refresh under way keeps the
        #: buffers it began with, so these are read from disk again once it is done.
        self.closed_meanwhile: set[str] = set()

    @property
    def answers(self) -> bool:
        """Whether open documents are analysed now: when the folder is ready, and while
        it starts or indexes from a saved index (diagnostics within a second of start;
        Find Similar still waits for the index, ``indexed``)."""
        return self.state == "ready" or (self.from_saved and self.state in ("starting", "indexing"))

    def __repr__(self) -> str:
        return f"Folder({self.name!r}, {str(self.root)!r}, {self.state})"

    # --- paths ------------------------------------------------------------------------

    def holds(self, path: Path) -> bool:
        """Whether a path (from :func:`file_path`) is this folder or inside it."""
        return path == self.root or path.is_relative_to(self.root)

    def rel_of(self, uri: str) -> str | None:
        """Folder-relative path of a file URI, or None if it is not one of its documents."""
        if self.project is None or file_path(uri) is None:
            return None
        try:
            rel = self.project.relative(to_fs_path(uri))
        except ValueError:
            return None
        return rel if self.project.is_document(rel) else None

    def uri_of(self, rel: str) -> str:
        return file_uri(self.root / rel)

    def in_nested(self, rel: str) -> bool:
        """Whether a folder-relative path lies in a workspace folder inside this one."""
        return any(rel == inner or rel.startswith(inner + "/") for inner in self.nested)

    def set_nested(self, nested: tuple[str, ...]) -> None:
        """The workspace folders inside this one changed (one added or removed): their
        files leave this folder's index, or come back to it, as after an edit of
        doublet.toml's exclude."""
        if nested == self.nested:
            return
        self.nested = nested
        if self.closed or self.project is None or self.state == "indexing":
            return  # start-up reads them; indexing reconfigures when it is done
        self._config_changed = True
        if self._disk_task is not None:
            self._disk_task.cancel()
        self._disk_task = asyncio.get_running_loop().create_task(self._after_quiet())

    # --- start-up and indexing ----------------------------------------------------------

    async def start(self) -> None:
        """Load the saved index (settings already fetched), watch the folder, index it."""
        if not self.root.is_dir():  # a folder the editor names that is not on disk
            self.fail(f"{self.root} is not a folder on disk: nothing to index", show=True)
            self.state = "error"
            self.indexed.set()
            self.host.notify_status()
            return
        try:
            self.project = await self.host.run(
                functools.partial(Workspace.open, self.root, config=self.current_config())
            )
        except Exception as exc:  # an unreadable folder: said, and nobody waits for good
            log.exception("opening %s failed", self.root)
            self.fail(f"opening {self.root} failed: {exc}")
            self.indexed.set()
            self.host.notify_status()
            return
        if self.closed:  # removed while its index was loading
            return
        # the index's hundreds of thousands of objects live as long as the server:
        # out of the collector's way, whose full passes over them paused edits 50-100 ms
        gc.freeze()
        self.saver = DebouncedSave(self.project)
        self.watcher = Watcher(self.project.root, asyncio.get_running_loop(), self.files_changed)
        if len(self.project.index):  # the last session's index: its answers first
            self.from_saved = True
            self.host.relocate(self)
            # its lookup directories made on the indexer thread meanwhile, not by the
            # first answer; then its entries, not by each snapshot of the refresh's end
            await asyncio.gather(
                self.host.run_indexing(self.project.index.prepare_lookups),
                self.host.analyse_now(self),
            )
            await self.host.run_indexing(self.project.prepare_entries)  # frozen too
            if self.closed:
                return
            # watched before the refresh, so that nothing written meanwhile is missed:
            # the indexer thread waits for the watches (its process walks the folder:
            # begun earlier, beside the entries, it slowed the first edits)
            self.watcher.start()
            await self.host.run_indexing(self.watcher.wait_until_ready)
            if self.closed:  # removed meanwhile (closing stopped the watcher)
                return
            await self.index()
            return
        # nothing to answer from until the index is built: built first (the watcher's
        # start, 0.2-0.5 s of another process, held up the first warnings of a new
        # folder), then watched, then what changed before the watches were set found
        await self.index()
        if self.closed:
            return
        self.watcher.start()
        if await self.host.run_indexing(self.watcher.wait_until_ready) and not self.closed:
            if config_stamp(self.root) != self._config_read:  # also doublet.toml
                self._config_changed = True
            await self._refresh_from_disk()

    def current_config(self) -> Config:
        """doublet.toml with the client's settings on top; what is bad is reported and left out.

        A broken doublet.toml leaves the defaults (the watcher notices the fix); a bad
        setting leaves that one setting out, not the file.
        """
        self._config_read = config_stamp(self.root)
        try:
            base = load_config(self.root)
        except ConfigError as exc:
            self.fail(str(exc), show=True)
            base = DEFAULTS
        config = self.settings.apply(base, lambda message: self.fail(message, show=True))
        self._nested_applied = self.nested
        return without_nested(config, self.nested)

    async def index(self, rebuild: bool = False) -> None:
        """Bring the index up to date with progress, then analyse the open documents."""
        if self.project is None or self.closed:
            return
        if rebuild:  # nothing to answer from until it is built
            self.from_saved = False
        self.state = "indexing"
        self.indexed.clear()
        self.host.notify_status()
        token = str(uuid.uuid4())
        named = bool(self.host.label(self))  # several folders: say which one
        title = f"Doublet: indexing {self.name}" if named else "Doublet: indexing"
        progress = await self.host.begin_progress(token, title)
        loop = asyncio.get_running_loop()

        def send(done: int, total: int) -> None:
            counts = {"done": done, "total": total, "folder": self.name}
            loop.call_soon_threadsafe(self.host.notify_status, counts)
            if progress:
                message = f"{done} of {total} files"
                percentage = int(100 * done / max(total, 1))
                loop.call_soon_threadsafe(self.host.report_progress, token, message, percentage)

        report = Throttled(loop, send)
        answered = False  # whether the open documents' answers still hold
        try:
            started = time.perf_counter()
            changes = await self.host.run_indexing(self._refresh, report, rebuild)
            while self.closed_meanwhile:  # their files count again, before any answer
                self.closed_meanwhile.clear()
                changes.index_changed |= (await self.refresh()).index_changed
            answered = self.from_saved and not changes.index_changed
            if self._disk_changed_index or rebuild:  # buffers are saved when edits pause
                await self.host.run_indexing(self._save_or_say)
            await self.check_warnings()
            log.info(
                "%sindexed %d documents in %.2f s (%d read, %d skipped)",
                self.host.label(self),
                len(self.project.index),
                time.perf_counter() - started,
                len(changes.added) + len(changes.updated),
                len(changes.skipped),
            )
            self.state = "ready"
        except Exception as exc:  # the daemon stays up and says what went wrong
            log.exception("indexing %s failed", self.root)
            self.fail(f"indexing failed: {exc}")
            self.state = "error"
        finally:
            report.stop()
            if progress:
                self.host.end_progress(token)
            self.indexed.set()
            self.host.notify_status()
        if self.closed:
            self.state = "closed"
            return
        if self.closed_meanwhile and self.project is not None:  # closed while it saved
            self.closed_meanwhile.clear()
            answered = answered and not (await self.refresh()).index_changed
        self.host.relocate(self)  # buffers may have opened before the index
        # an unchanged index gives the answers given from it before the refresh: asking
        # again would only keep the first edits after it waiting (100,000 documents)
        self.host.reanalyse(self, unanswered_only=answered)
        if self.nested != self._nested_applied:  # a folder inside came or went meanwhile
            self._config_changed = True
        if self._disk_changes or self._config_changed:  # files changed while indexing
            self._disk_task = loop.create_task(self._after_quiet())

    def _refresh(self, report: Report | None, rebuild: bool) -> Changes:
        """On the indexer: the index in step with the disk, open documents as the editor
        has them."""
        project = self.project
        assert project is not None
        if rebuild:
            project.reset_index()
        with project.lock:
            keep = set(self.host.buffers(self)) & set(project.index.names())
        with parallel.in_background():  # the editor's requests come first
            changes = project.refresh(_Counting(report) if report else None, keep=keep)
        # not the editor's own updates meanwhile: they are saved when edits pause, and
        # saving 100,000 documents right after the start-up slowed every edit made then
        self._disk_changed_index = changes.index_changed
        with project.lock:
            # the buffers as they are now: an edit analysed meanwhile, on the worker
            # thread, must not be put back to the text the refresh started with
            for rel, text in self.host.buffers(self).items():
                if not project.holds_text(rel, text):
                    project.update_text(rel, text)
        return changes

    async def refresh(self) -> Changes:
        """The index in step with the disk, quietly (no progress)."""
        return await self.host.run_indexing(self._refresh, None, False)

    async def check_warnings(self) -> None:
        """Look for what would make the answers mislead (Workspace.warnings): logged, in
        the status, and shown once when they change."""
        assert self.project is not None
        found = await self.host.run_indexing(self.project.warnings)
        if found != self.warnings:
            for warning in found:
                log.warning("%s%s", self.host.label(self), warning)
                self.host.show_message(
                    types.MessageType.Warning, f"Doublet: {self.host.label(self)}{warning}"
                )
        self.warnings = found

    async def until_indexed(self) -> None:
        """Wait while the folder starts or builds its index."""
        await self.indexed.wait()

    def fail(self, message: str, *, show: bool = False) -> None:
        """Remember an error (the status says it); ``show`` it to the user too."""
        self.last_error = message
        self.host.error_occurred(self, message)
        if show:
            self.host.show_message(
                types.MessageType.Error, f"Doublet: {self.host.label(self)}{message}"
            )

    # --- configuration --------------------------------------------------------------------

    async def reconfigure(self, fetch: bool = True) -> None:
        """Settings or doublet.toml changed: re-read both (the settings unless the caller
        just did), re-index what they affect."""
        if self.project is None or self.closed:
            return
        if fetch:
            await self.host.fetch_settings([self])
        self.project.config = self.current_config()
        self.host.relocate(self)  # include/exclude may have changed
        await self.refresh()
        await self.check_warnings()
        self.after_index_change()

    # --- files on disk ----------------------------------------------------------------------

    def files_changed(self, paths: set[str]) -> None:
        """Called on the loop by the watcher; coalesces bursts into one refresh."""
        paths = {rel for rel in paths if not self.in_nested(rel)}  # the inner folder's
        if self.closed or not paths:
            return
        self._disk_changes |= paths
        if "doublet.toml" in paths:
            self._config_changed = True
        if self._disk_task is not None:
            self._disk_task.cancel()
        self._disk_task = asyncio.get_running_loop().create_task(self._after_quiet())

    async def _after_quiet(self) -> None:
        await asyncio.sleep(DISK_QUIET)
        self._disk_task = None
        await self._refresh_from_disk()

    async def _refresh_from_disk(self) -> None:
        """The index in step with the disk again (files or doublet.toml changed), and
        what it changes analysed again."""
        if self.project is None or self.closed or self.state == "indexing":
            return  # indexing looks at the changes kept when it is done
        self._disk_changes.clear()
        if self._config_changed:
            self._config_changed = False
            await self.reconfigure()
            return
        try:
            changes = await self.refresh()
        except Exception as exc:  # said in the status; the next change on disk tries again
            log.exception("refreshing the index of %s failed", self.root)
            self.fail(f"refreshing the index failed: {exc}")
            self.state = "error"
            self.host.notify_status()
            return
        if self.closed:
            return
        if self.state == "error":  # recovered: everything is analysed again
            self.state = "ready"
            self.after_index_change()
        elif changes.changed:
            self.after_index_change()

    def after_index_change(self) -> None:
        self.host.notify_status()
        if self.saver:
            self.saver.changed()
        self.host.reanalyse(self)

    # --- leaving ----------------------------------------------------------------------------

    async def close(self) -> None:
        """The editor removed the folder: stop watching it and save its index once more."""
        self.closed = True
        self.state = "closed"
        if self._disk_task is not None:
            self._disk_task.cancel()
        self.indexed.set()  # nobody waits for an index that is not coming
        if self.watcher is not None:
            self.watcher.stop()
        if self.saver is not None:
            await self.host.run_indexing(self._save_now)

    def stop(self) -> None:
        """The server is shutting down: stop watching, save the index if it changed."""
        if self.watcher is not None:
            self.watcher.stop()
        self._save_now()

    def _save_or_say(self) -> None:
        """Save the index built; one that cannot be saved (a folder or a file in the way
        of `.doublet/`, a full disk) is logged and answered from all the same, as a
        later save's failure is (workspace.DebouncedSave): it was built."""
        assert self.project is not None
        try:
            self.project.save()
        except (OSError, IndexFileError) as exc:
            log.error("could not save the index of %s: %s", self.root, exc)

    def _save_now(self) -> None:
        if self.saver is not None:
            self.saver.changed()
            self.saver.flush()

    # --- status -------------------------------------------------------------------------------

    def status(self) -> dict:
        """This folder's row of ``doublet.status``'s ``folders``."""
        project = self.project
        return {
            "root": str(self.root),
            "name": self.name,
            "state": self.state,
            "documents": len(project.index) if project else 0,
            "skippedCount": len(project.skipped) if project else 0,
            "warnings": self.warnings,
            "lastError": self.last_error,
        }


class _Counting:
    """Wraps the refresh's work list, reporting progress every few files."""

    def __init__(self, report: Report):
        self.report = report

    def __call__(self, items: Iterable) -> Iterator:
        total = len(items)  # type: ignore[arg-type]  (a sized work list)
        step = max(1, total // 50)
        for done, item in enumerate(items, 1):
            if done % step == 0 or done == total:
                self.report(done, total)
            yield item
