"""Folders the watcher could not watch (out of inotify watches): found by comparing
the folders on disk with the watches the kernel says a process holds, and polled.

A real inotify instance watches some folders of a real tree and not others, as
watchdog leaves them when the system's limit is reached (the limit itself is the
whole machine's and is not lowered here).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import shutil
import sys
import threading
import time
from pathlib import Path

import pytest

from doublet.lsp import unwatched
from doublet.lsp.unwatched import Poller, folders_under, held_watches

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="inotify and /proc are Linux's"
)

_IN_MODIFY = 0x2


class Inotify:
    """A real inotify instance of this process, watching the folders it is given."""

    def __init__(self) -> None:
        self.libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        self.fd = self.libc.inotify_init()
        assert self.fd >= 0

    def watch(self, folder: Path) -> None:
        assert self.libc.inotify_add_watch(self.fd, os.fsencode(folder), _IN_MODIFY) >= 0

    def close(self) -> None:
        os.close(self.fd)


@pytest.fixture
def inotify():
    instance = Inotify()
    yield instance
    instance.close()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "workspace"
    for folder in ("a/b", "a/c", "d", "node_modules/pkg", ".git/objects"):
        (root / folder).mkdir(parents=True)
    (root / "a/b/essay.txt").write_text("words", encoding="utf-8")
    return root


def test_the_folders_a_process_watches_are_read_from_the_kernel(tree: Path, inotify) -> None:
    before = held_watches()
    assert before is not None
    inotify.watch(tree / "a")
    inotify.watch(tree / "a/b")
    ids = {path: key for key, path in folders_under(tree, frozenset()).items()}
    assert held_watches() - before == {ids[tree / "a"], ids[tree / "a/b"]}


def test_the_folders_left_out_at_the_top_and_links_are_not_looked_for(tree: Path) -> None:
    (tree / "link").symlink_to(tree / "a", target_is_directory=True)
    found = folders_under(tree, frozenset({"node_modules"}))
    names = sorted(path.relative_to(tree).as_posix() for path in found.values())
    assert names == [".", "a", "a/b", "a/c", "d"]  # no .git, node_modules, link


def test_the_folders_not_watched_are_those_the_process_holds_no_watch_on(
    tree: Path, inotify
) -> None:
    for folder in ("", "a", "a/c"):
        inotify.watch(tree / folder)
    missing = unwatched.unwatched(tree, frozenset({"node_modules"}))
    assert missing == [tree / "a/b", tree / "d"]
    inotify.watch(tree / "a/b")
    inotify.watch(tree / "d")
    assert unwatched.unwatched(tree, frozenset({"node_modules"})) == []


def test_a_poller_reports_what_appeared_changed_or_went(tree: Path) -> None:
    poller = Poller(tree)
    assert poller.track([tree / "d", tree / "a/b"]) == [tree / "a/b", tree / "d"]
    assert poller.track([tree / "a/b", tree / "d"]) == []
    assert poller.look() == []
    (tree / "a/b/essay.txt").write_text("more words", encoding="utf-8")
    (tree / "d/new.txt").write_text("new", encoding="utf-8")
    assert sorted(poller.look()) == ["a/b/essay.txt", "d/new.txt"]
    (tree / "d/new.txt").unlink()
    (tree / "d/sub/deeper").mkdir(parents=True)
    assert sorted(poller.look()) == ["d/new.txt", "d/sub"]
    # a folder made in a polled one is polled too (nothing could have watched it)
    (tree / "d/sub/deeper/late.txt").write_text("late", encoding="utf-8")
    assert poller.look() == ["d/sub/deeper/late.txt"]
    # a file that becomes a folder: what is then made in it is seen too
    (tree / "d/was-a-file").write_text("x", encoding="utf-8")
    assert poller.look() == ["d/was-a-file"]
    (tree / "d/was-a-file").unlink()
    (tree / "d/was-a-file").mkdir()
    assert poller.look() == ["d/was-a-file"]
    (tree / "d/was-a-file/inside.txt").write_text("x", encoding="utf-8")
    assert poller.look() == ["d/was-a-file/inside.txt"]
    # a polled folder that goes is reported once, with the folders in it
    for path in sorted((tree / "d").rglob("*"), reverse=True):
        path.unlink() if path.is_file() else path.rmdir()
    (tree / "d").rmdir()
    assert poller.look() == ["d"]
    assert set(poller.listings) == {tree / "a/b"}
    # a folder watched since (watches freed) is no longer polled
    assert poller.track([]) == []
    assert poller.listings == {}


def test_the_guard_says_which_folders_it_could_not_watch_and_then_what_changes_there(
    tree: Path, inotify, caplog
) -> None:
    """What the watcher's process runs once its watches are set: the folders without
    a watch are reported at once (what changed before they were polled is unknown),
    then each change in them within a poll; a folder made later is checked again."""
    for folder in ("", "a", "a/c"):
        inotify.watch(tree / folder)
    said: list[list[str]] = []
    created = threading.Event()
    thread = threading.Thread(
        target=unwatched.guard,
        args=(tree, frozenset({"node_modules"}), said.append, created, 0.1),
        daemon=True,
    )
    with caplog.at_level("WARNING", logger="doublet.watcher"):
        thread.start()
        _wait_for(lambda: said)
    assert said == [["a/b", "d"]]
    assert "2 folders under" in caplog.text and "max_user_watches" in caplog.text
    (tree / "d/late.txt").write_text("late", encoding="utf-8")
    _wait_for(lambda: len(said) > 1)
    assert said[1] == ["d/late.txt"]
    # a folder made in a watched one whose watch failed: found once folders settle,
    # and no second warning for one folder more (a build folder made again and again)
    (tree / "a/c/new").mkdir()
    created.set()
    _wait_for(lambda: ["a/c/new"] in said, timeout=5)
    assert caplog.text.count("cannot be watched") == 1
    # the guard has no end but its process's: with no folder left it has nothing to
    # say (else, once the fixture's watches close, it warns into a later test's log)
    shutil.rmtree(tree)


def _wait_for(condition, timeout: float = 3.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "not within the time allowed"
        time.sleep(0.02)


def test_once_the_limit_is_raised_the_folder_is_watched_anew(
    tree: Path, inotify, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The warning says to raise the limit: when the system's limit is higher at the
    next comparison, the watches are set again (here, by the real inotify instance)
    and the folders no longer polled. The limit is read from a stand-in: lowering
    the machine's own would touch every program on it."""
    for folder in ("", "a", "a/c"):
        inotify.watch(tree / folder)
    limit = [8192]
    monkeypatch.setattr(unwatched, "watch_limit", lambda: limit[0])
    watched_again = threading.Event()

    def rewatch() -> None:
        for folder in ("a/b", "d"):
            inotify.watch(tree / folder)
        watched_again.set()

    said: list[list[str]] = []
    created = threading.Event()
    threading.Thread(
        target=unwatched.guard,
        args=(tree, frozenset({"node_modules"}), said.append, created, 0.1),
        kwargs={"rewatch": rewatch},
        daemon=True,
    ).start()
    _wait_for(lambda: said)
    assert said == [["a/b", "d"]]
    created.set()  # compared again: the limit is the same, nothing set again
    time.sleep(2.0)
    assert not watched_again.is_set()
    limit[0] = 524288
    created.set()
    _wait_for(watched_again.is_set, timeout=5)
    _wait_for(lambda: ["."] in said)  # while they were set, changes went unseen
    time.sleep(1.0)  # compared again: nothing is missing, nothing polled
    (tree / "d/after.txt").write_text("words", encoding="utf-8")
    time.sleep(1.0)  # ten polls, were d still polled
    assert not any("d/after.txt" in paths for paths in said)
