"""Folders the watcher could not watch, looked at every few seconds instead.

On Linux each watched folder takes an inotify watch, and a user has a limited
number of them (``fs.inotify.max_user_watches``: 8,192 on older systems,
shared with the editor's own watcher and every other program of the user's).
When they run out, watchdog 7 passes over the folders it cannot watch without
a word, and what changed in them would never reach the index. So the watcher's
process, once its watches are set, again after new folders appear and every
minute while some are polled, compares the folders under its root with the
watches it holds (the kernel lists them in ``/proc/self/fdinfo``), says how many
it could not watch and how to raise the limit, and looks at those folders every
``POLL_EVERY`` seconds, reporting a path in each that changed; once the limit is
raised, it sets its watches again. Elsewhere (no ``/proc``) nothing is checked:
the other systems' watchers have no such limit per folder.

Only the watcher's process imports this module: the standard library only.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

log = logging.getLogger("doublet.watcher")

#: Seconds between two looks at the folders that are not watched.
POLL_EVERY = 5.0
#: Seconds without a new folder before the watches are compared again (a checkout
#: creating a thousand folders is one comparison).
CREATED_QUIET = 1.0
#: Seconds between two comparisons while folders are polled (watches freed since).
RECHECK_EVERY = 60.0
#: Seconds between the two looks that must agree that a folder has no watch.
SETTLE = 0.5
_LIMIT_FILE = Path("/proc/sys/fs/inotify/max_user_watches")

#: A folder as the kernel names it: (device major, device minor, inode).
FolderId = tuple[int, int, int]
#: What a folder held at the last look: name -> (is a folder, time in ns, size);
#: a folder's time and size are left at 0.
Listing = dict[str, tuple[bool, int, int]]


def held_watches(pid: str = "self") -> set[FolderId] | None:
    """The folders this process holds inotify watches on; None where the kernel
    does not list them."""
    fds = Path(f"/proc/{pid}/fd")
    try:
        names = os.listdir(fds)
    except OSError:
        return None
    held: set[FolderId] = set()
    for name in names:
        try:
            if os.readlink(fds / name) != "anon_inode:inotify":
                continue
            info = (fds.parent / "fdinfo" / name).read_text()
        except OSError:  # closed meanwhile
            continue
        for line in info.splitlines():
            if not line.startswith("inotify wd:"):
                continue
            fields = dict(part.split(":", 1) for part in line.split()[1:] if ":" in part)
            try:
                device = int(fields["sdev"], 16)  # the kernel's own encoding of it
                held.add((device >> 20, device & 0xFFFFF, int(fields["ino"], 16)))
            except (KeyError, ValueError):  # a kernel that lists them otherwise
                return None
    return held


def folders_under(root: Path, skipped_dirs: frozenset[str]) -> dict[FolderId, Path]:
    """Every folder under ``root`` and itself, as the watcher's walk finds them
    (symbolic links not followed), but for those it leaves out at the top
    (``skipped_dirs`` and hidden ones): what changes in them is not reported."""
    found: dict[FolderId, Path] = {}
    try:
        top = os.stat(root)
    except OSError:
        return found
    found[_folder_id(top)] = root
    waiting = [(root, True)]
    while waiting:
        folder, at_top = waiting.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                if not entry.is_dir(follow_symlinks=False):
                    continue
                if at_top and (entry.name in skipped_dirs or entry.name.startswith(".")):
                    continue
                found[_folder_id(entry.stat(follow_symlinks=False))] = Path(entry.path)
            except OSError:
                continue
            waiting.append((Path(entry.path), False))
    return found


def _folder_id(stat: os.stat_result) -> FolderId:
    return (os.major(stat.st_dev), os.minor(stat.st_dev), stat.st_ino)


def unwatched(root: Path, skipped_dirs: frozenset[str]) -> list[Path] | None:
    """The folders under ``root`` that this process holds no watch on (sorted);
    None where the kernel does not say."""
    held = held_watches()
    if held is None:
        return None
    found = folders_under(root, skipped_dirs)
    return sorted(path for key, path in found.items() if key not in held)


def watch_limit() -> int | None:
    """The system's limit on inotify watches per user, if it says."""
    try:
        return int(_LIMIT_FILE.read_text())
    except (OSError, ValueError):
        return None


class Poller:
    """Folders looked at by listing them: what appeared, changed or went since the
    last look. A folder that appears in a polled one is polled too (no watch could
    have been set on it: nothing told the watcher it was made)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.listings: dict[Path, Listing] = {}

    def track(self, folders: Iterable[Path]) -> list[Path]:
        """Poll ``folders`` from now on, and no others (one watched since, after
        watches were freed, is left to its watch); those not polled before."""
        wanted = set(folders)
        for folder in list(self.listings):
            if folder not in wanted:
                del self.listings[folder]
        new = sorted(folder for folder in wanted if folder not in self.listings)
        for folder in new:
            self.listings[folder] = _listing(folder) or {}
        return new

    def _add(self, folders: Iterable[Path]) -> None:
        for folder in folders:
            if folder not in self.listings:
                self.listings[folder] = _listing(folder) or {}

    def look(self) -> list[str]:
        """Paths relative to the root that changed since the last look, one per
        file or folder that appeared, changed or went."""
        changed: list[str] = []
        gone: set[Path] = set()
        for folder in list(self.listings):
            before = self.listings[folder]
            now = _listing(folder)
            if now is None:  # gone, or no longer readable: said once for a whole tree
                del self.listings[folder]
                if gone.isdisjoint(folder.parents):
                    changed.append(self.relative(folder))
                gone.add(folder)
                continue
            self.listings[folder] = now
            for name in sorted(before.keys() | now.keys()):
                if before.get(name) == now.get(name):
                    continue
                changed.append(self.relative(folder / name))
                if name in now and now[name][0]:  # a new folder (or a file became one)
                    self._add_tree(folder / name)
        return changed

    def _add_tree(self, folder: Path) -> None:
        """A new folder and the folders in it (made before the look saw it)."""
        self._add(folders_under(folder, frozenset()).values())

    def relative(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()


def _listing(folder: Path) -> Listing | None:
    """What ``folder`` holds now; None if it cannot be listed."""
    listing: Listing = {}
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return None
    for entry in entries:
        try:
            if entry.is_dir(follow_symlinks=False):  # whether it is there: what is in
                listing[entry.name] = (True, 0, 0)  # it, its own listing says
                continue
            stat = entry.stat(follow_symlinks=False)
        except OSError:  # gone meanwhile: absent, as the next look will agree
            continue
        listing[entry.name] = (False, stat.st_mtime_ns, stat.st_size)
    return listing


def guard(
    root: Path,
    skipped_dirs: frozenset[str],
    say: Callable[[list[str]], None],
    created: threading.Event,
    every: float = POLL_EVERY,
    steady: Callable[[], int | None] = lambda: 0,
    rewatch: Callable[[], None] = lambda: None,
) -> None:
    """The watcher's process's thread that finds the folders it could not watch and
    polls them: run once its watches are set; ``created`` is set when a folder is
    made (its watch may have failed), or the folder itself watched anew; ``steady``
    changes (or is None) while the watch on the folder itself is being set again,
    when folders without a watch are not the limit's doing; ``rewatch`` sets the
    watches of the whole folder again (the limit was raised, as the warning asks).
    Reports through ``say``, a list of paths at a time (ten thousand folders found
    unwatched are one message, not ten thousand)."""
    poller = Poller(root)
    warned = 0
    limit_then = watch_limit()
    while True:
        before = steady()
        missing = _still_unwatched(root, skipped_dirs)
        if missing is None:
            return
        if missing and (before is None or steady() != before):  # the folder itself
            time.sleep(CREATED_QUIET)  # deleted or made again: compared once watched
            continue
        limit_now = watch_limit()
        if missing and (limit_now or 0) > (limit_then or 0):  # raised: watched anew
            limit_then = limit_now
            rewatch()
            say(["."])  # what changed while the watches were set again
            continue
        limit_then = limit_now
        changed = poller.look()  # a folder watched from now on: what changed before
        if changed:
            say(changed)
        new = poller.track(missing)
        if len(missing) > 2 * warned:  # said once, and again only if they grow
            warned = len(missing)
            limit = watch_limit()
            log.warning(
                "%d folders under %s cannot be watched: the system's limit on inotify "
                "watches is reached%s, or they cannot be read. They are looked at every "
                "%g s instead; to watch them, raise the limit, for example: "
                "sudo sysctl fs.inotify.max_user_watches=%d",
                len(missing),
                root,
                f" (fs.inotify.max_user_watches = {limit})" if limit is not None else "",
                every,
                max(2 * (limit or 0), 524288),
            )
        if new:
            say([poller.relative(folder) for folder in new])  # changed before polled?
        looked = time.monotonic()
        while True:
            if created.wait(every if poller.listings else None):
                while created.wait(CREATED_QUIET):  # a burst of new folders: once
                    created.clear()
                break
            changed = poller.look()
            if changed:
                say(changed)
            if time.monotonic() - looked >= RECHECK_EVERY:
                break  # watches freed since (another program's), or a false alarm


def _still_unwatched(root: Path, skipped_dirs: frozenset[str]) -> list[Path] | None:
    """The folders without a watch, looked for twice a little apart: watchdog sets
    the watches of folders just made as their events come, so a folder it is about
    to watch is not taken for one it could not."""
    first = unwatched(root, skipped_dirs)
    if not first:
        return first
    time.sleep(SETTLE)
    second = unwatched(root, skipped_dirs)
    if second is None:
        return None
    return sorted(set(first) & set(second))
