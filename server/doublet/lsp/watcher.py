"""Files changed outside the editor, seen through watchdog.

The observer thread only collects workspace-relative paths and hands them to
the server's event loop; the server waits for the disk to be quiet before it
refreshes the index, so a burst of events is one refresh.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from doublet.discovery import SKIPPED_DIRS

log = logging.getLogger("doublet.watcher")


class _Collector(FileSystemEventHandler):
    def __init__(self, root: Path, report: Callable[[str], None]):
        self.root = root
        self.report = report

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in ("opened", "closed_no_write"):
            return
        if event.is_directory and event.event_type == "modified":
            return  # a folder's own time changed: the files in it report themselves
        for raw in (event.src_path, getattr(event, "dest_path", "")):
            if not raw:
                continue
            path = raw.decode() if isinstance(raw, bytes) else raw
            try:
                rel = Path(path).relative_to(self.root).as_posix()
            except ValueError:
                continue
            first = rel.split("/", 1)[0]
            if first in SKIPPED_DIRS or (first.startswith(".") and first != "."):
                continue  # our own index writes, VCS folders
            self.report(rel)


class Watcher:
    """Watches a workspace folder; calls ``changed(paths)`` on ``loop`` for each batch."""

    def __init__(
        self,
        root: Path,
        loop: asyncio.AbstractEventLoop,
        changed: Callable[[set[str]], None],
    ):
        self.root = root
        self.loop = loop
        self.changed = changed
        self.observer = Observer()

    def _report(self, rel: str) -> None:
        with contextlib.suppress(RuntimeError):  # the loop has closed: the server is leaving
            self.loop.call_soon_threadsafe(self.changed, {rel})

    def start(self) -> None:
        try:
            self.observer.schedule(
                _Collector(self.root, self._report), str(self.root), recursive=True
            )
            self.observer.daemon = True
            self.observer.start()
        except OSError as exc:  # out of inotify watches, say: editing still works
            log.error("cannot watch %s for changes: %s", self.root, exc)

    def stop(self) -> None:
        self.observer.stop()
