"""Files changed outside the editor, seen through watchdog in a process of its own.

Setting up watches walks the whole folder: watchdog lists every folder's files
to find the folders in it (0.33 s at 100,000 documents, all of it holding the
interpreter), which in the server's process held up the editor's questions at
every start. So a child process watches (:func:`main`, started with the
server's own module path, so that it imports what the server imports and
nothing from the folder it runs in) and writes each path that changed,
workspace-relative, as a JSON string on a line (or a list of them), and
``{"ready": true}`` once its watches are set; a thread of the server reads them
and hands them to its event loop. Its start takes a fraction of a second: a
folder is refreshed once its watches are set (lsp/folders), so that nothing
changed before is missed. Folders it could not watch (out of inotify watches)
it finds and polls (lsp/unwatched). The server waits for the disk to be quiet
before it refreshes the index, so a burst of events is one refresh. The
child ends when its input closes: when the server stops watching, or leaves
however it leaves.
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import signal
import stat
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import asyncio

log = logging.getLogger("doublet.watcher")

#: The child's line once its watches are set (anything changed after it is seen).
READY = {"ready": True}
#: How long a folder waits for its watches to be set before it refreshes anyway.
READY_WITHIN = 60.0


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
        self.process: subprocess.Popen[bytes] | None = None
        #: Whether the watcher's process has set its watches.
        self.ready = False
        self._settled = threading.Event()  # ready, or watching failed
        self._stopped = False
        self._reader: threading.Thread | None = None

    def start(self) -> None:
        """Start watching. Back at once: the watcher's process sets its watches
        meanwhile (:meth:`wait_until_ready`); if it cannot, it is said why (editing
        still works without them)."""
        from doublet.discovery import SKIPPED_DIRS  # here: the child imports only this module

        skipped = json.dumps(sorted(SKIPPED_DIRS))
        arguments = [json.dumps(sys.path), str(self.root), skipped]
        try:
            process = subprocess.Popen(
                [sys.executable, *_flags(), "-c", _BOOT, *arguments],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                creationflags=getattr(subprocess, "CREATE_NO_WINDOW", 0),  # Windows: no console
            )
        except OSError as exc:
            log.error("cannot watch %s for changes: %s", self.root, exc)
            self._settled.set()
            return
        self.process = process
        self._reader = threading.Thread(
            target=self._read, args=(process,), name="doublet-watcher", daemon=True
        )
        self._reader.start()

    def wait_until_ready(self, timeout: float = READY_WITHIN) -> bool:
        """Whether the watches are set (anything changed from then on is reported),
        waiting for them up to ``timeout`` seconds; False if watching failed."""
        self._settled.wait(timeout)
        return self.ready

    def _read(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stdout is not None
        for line in process.stdout:
            try:
                value = json.loads(line)
            except ValueError:  # not the watcher's (a library printing): passed over
                continue
            if value == READY:
                self.ready = True
                self._settled.set()
            elif isinstance(value, (str, list)):  # a path, or a list of them
                paths = {value} if isinstance(value, str) else set(map(str, value))
                with contextlib.suppress(RuntimeError):  # the loop has closed: leaving
                    self.loop.call_soon_threadsafe(self.changed, paths)
        if not (self.ready or self._stopped):  # it said why on its standard error, and ended
            log.error("cannot watch %s for changes (its watcher ended)", self.root)
        self._settled.set()

    def stop(self) -> None:
        self._stopped = True  # its end, even before it was ready, is no error
        if self.process is not None:
            self._end(self.process)
            self.process = None
        if self._reader is not None:
            self._reader.join(5)
            self._reader = None

    @staticmethod
    def _end(process: subprocess.Popen[bytes]) -> None:
        """Close the child's input (it ends on its own), and wait a little for it."""
        with contextlib.suppress(OSError):
            if process.stdin is not None:
                process.stdin.close()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


#: The child's program: the server's module path first, then this module's ``main``.
_BOOT = (
    "import json, sys; sys.path[:] = json.loads(sys.argv[1]); "
    "from doublet.lsp.watcher import main; main(sys.argv[2:])"
)


def _flags() -> list[str]:
    """``-I``: neither the working folder (often the workspace: a ``json.py`` there
    would be imported) nor PYTHONPATH counts; the child is given the server's module
    path instead. And ``-S`` if the server was started with it (the editor's launcher
    runs it without site-packages, from the libraries bundled in the extension)."""
    return ["-I", *(["-S"] if sys.flags.no_site else [])]


# --- the child process --------------------------------------------------------------


def main(argv: list[str]) -> None:
    """The child: ``argv`` is the folder and the JSON list of folder names left out."""
    logging.basicConfig(format="doublet: watcher: %(levelname)s %(message)s")
    logging.getLogger("watchdog").setLevel(logging.ERROR)  # its warnings as it stops
    # a watch set again on a folder it had (deleted and made again quickly): not news
    warnings.filterwarnings("ignore", category=RuntimeWarning, module="watchdog")
    sys.exit(watch(Path(argv[0]), frozenset(json.loads(argv[1]))))


def watch(root: Path, skipped_dirs: frozenset[str]) -> int:
    """Write what changes under ``root`` to standard output until standard input ends
    (paths in ``skipped_dirs`` and hidden folders at the top are left out)."""
    from watchdog.events import FileSystemEvent, FileSystemEventHandler
    from watchdog.observers import Observer

    from doublet.lsp import unwatched

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a terminal's ^C is the server's to take
    out = sys.stdout
    writing = threading.Lock()

    def say(value: object) -> None:
        with contextlib.suppress(OSError, ValueError), writing:  # the server has gone
            out.write(json.dumps(value) + "\n")
            out.flush()

    created = threading.Event()  # a folder was made: was it watched? (lsp/unwatched)

    class Collector(FileSystemEventHandler):
        def on_any_event(self, event: FileSystemEvent) -> None:
            if event.is_directory and event.event_type in ("created", "moved"):
                created.set()
            if event.event_type == "deleted" and os.fsdecode(event.src_path) == str(root):
                kept.deleted.set()
            if event.is_directory and event.event_type == "modified":
                return  # a folder's own time changed: the files in it report themselves
            for raw in (event.src_path, getattr(event, "dest_path", "")):
                if not raw:
                    continue
                path = raw.decode() if isinstance(raw, bytes) else raw
                try:
                    rel = Path(path).relative_to(root).as_posix()
                except ValueError:
                    continue
                first = rel.split("/", 1)[0]
                if first in skipped_dirs or (first.startswith(".") and first != "."):
                    continue  # our own index writes, VCS folders
                say(rel)

    observer = Observer()
    observer.daemon = True
    observer.start()
    kept = _KeptWatch(observer, root, Collector())
    failure = kept.watch()
    if failure is not None and failure.errno not in (errno.ENOSPC, errno.ENOENT):
        log.error("cannot watch %s for changes: %s", root, failure)
        return 1
    # not there (yet, or any more): watched once it is; out of inotify watches even
    # for the folder itself: all of it is polled (lsp/unwatched)
    say(READY)
    threading.Thread(
        target=unwatched.guard,
        args=(root, skipped_dirs, say, created),
        kwargs={"steady": kept.steady, "rewatch": kept.watch},
        daemon=True,
    ).start()
    threading.Thread(target=kept.keep, args=(say, created), daemon=True).start()
    while sys.stdin.buffer.read(1 << 16):  # the server writes nothing: this waits for its end
        pass
    observer.stop()
    return 0


#: Seconds between two looks at the watched folder itself (deleted, moved away, made
#: again); and between two tries to watch it when that failed (out of inotify watches).
RETURN_POLL = 0.5
RETRY_EVERY = 5.0


class _KeptWatch:
    """The watch on the folder itself, kept on the folder that has its path.

    A folder deleted, or moved away, takes its watches with it (watchdog says
    nothing when it is moved), and one made again in its place (a fresh clone,
    submissions unzipped anew) is a new folder to the system. So the folder at
    the path is looked at every RETURN_POLL seconds: when it is another than the
    one watched, it is watched, and ``"."`` is reported (all of it is news)."""

    def __init__(self, observer, root: Path, handler) -> None:  # watchdog's types
        from watchdog.events import (
            DirCreatedEvent,
            DirDeletedEvent,
            DirMovedEvent,
            FileClosedEvent,
            FileCreatedEvent,
            FileDeletedEvent,
            FileModifiedEvent,
            FileMovedEvent,
        )

        self.observer = observer
        self.root = root
        self.handler = handler
        #: The events asked of the kernel: not a file or folder opened or closed
        #: unwritten, which a walk of the folder (the server's, watchdog's own after
        #: an overflow) makes by the thousand: 5,000 folders kept the queue full
        #: and the watcher's process busy for good.
        self.events = [
            FileCreatedEvent,
            DirCreatedEvent,
            FileModifiedEvent,
            FileClosedEvent,
            FileDeletedEvent,
            DirDeletedEvent,
            FileMovedEvent,
            DirMovedEvent,
        ]
        self.watched: tuple[int, int] | None = None  # the folder watched: (device, inode)
        self.tried: tuple[int, int] | None = None  # the folder last tried, watched or not
        self.tries = 0
        #: Set when the folder watched is deleted (watchdog says so; not when it is
        #: moved, but then another folder at the path has another inode).
        self.deleted = threading.Event()
        self.setting = threading.Lock()

    def watch(self) -> OSError | None:
        """Watch the folder now at the path; why not, if it cannot be (not there:
        FileNotFoundError)."""
        with self.setting:  # the keeper's thread, or the guard's (the limit raised)
            return self._watch()

    def _watch(self) -> OSError | None:
        self.tries += 1
        self.tried = _identity_or_none(self.root)  # before the watch: one made after is new
        try:
            if self.tried is None:
                _identity(self.root)  # why not
            self.observer.unschedule_all()
            self.observer.schedule(
                self.handler, str(self.root), recursive=True, event_filter=self.events
            )
        except OSError as exc:
            self.watched = None
            return exc
        self.watched = self.tried
        return None

    def steady(self) -> int | None:
        """A number that changes whenever the watch is set again; None while the folder
        at the path is not the one last tried (deleted, moved, made again): the
        folders not watched then are not the limit's doing (lsp/unwatched)."""
        if self.deleted.is_set() or _identity_or_none(self.root) != self.tried:
            return None
        return self.tries

    def keep(self, say: Callable[[object], None], created: threading.Event) -> None:
        """Look at the path every RETURN_POLL seconds, for good (a daemon thread)."""
        seen = self.watched  # a folder there but not watched is tried at once
        tried = time.monotonic() - RETRY_EVERY
        while True:
            time.sleep(RETURN_POLL)
            now = _identity_or_none(self.root)
            if self.deleted.is_set():  # its watches went with it; the folder made again
                self.deleted.clear()  # in its place may have its inode number
                self.observer.unschedule_all()
                self.watched = seen = None
            if now is None:
                if self.watched is not None:  # gone, or moved away: not ours to report
                    self.observer.unschedule_all()
                    self.watched = None
            elif now != self.watched and (now != seen or time.monotonic() - tried >= RETRY_EVERY):
                tried = time.monotonic()
                if self.watch() is None or now != seen:  # not the same failure again: the
                    created.set()  # folders' watches compared again (lsp/unwatched)
            if now is not None and now != seen:
                say(".")  # another folder at the path: whatever is in it is news
            seen = now


def _identity(path: Path) -> tuple[int, int]:
    """Which folder is at ``path`` (NotADirectoryError if it is not a folder)."""
    found = os.stat(path)
    if not stat.S_ISDIR(found.st_mode):
        raise NotADirectoryError(errno.ENOTDIR, "not a folder", str(path))
    return (found.st_dev, found.st_ino)


def _identity_or_none(path: Path) -> tuple[int, int] | None:
    try:
        return _identity(path)
    except OSError:
        return None
