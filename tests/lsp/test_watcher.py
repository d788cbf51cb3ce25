"""The watcher's own process: what it reports, when it is ready, how it ends.

Real files and real watchdog events; the server's use of it is in test_disk.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from doublet.lsp.watcher import Watcher

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="process checks are POSIX")


async def _watching(root: Path) -> tuple[set[str], Watcher]:
    """A watcher of ``root`` with its watches set, and what it reports."""
    seen: set[str] = set()
    watcher = Watcher(root, asyncio.get_running_loop(), seen.update)
    watcher.start()
    assert await asyncio.to_thread(watcher.wait_until_ready, 30)
    return seen, watcher


async def changes_after(root: Path, act, settle: float = 0.5) -> tuple[set[str], Watcher]:
    """What a watcher of ``root`` reports for ``act()`` (done once it is started)."""
    seen, watcher = await _watching(root)
    act()
    await asyncio.sleep(settle)
    return seen, watcher


async def test_it_reports_changed_paths_relative_to_the_folder(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    odd = "a name\nwith a line break.txt"  # the line protocol must not split it

    def act() -> None:
        (tmp_path / "sub" / "essay.txt").write_text("words", encoding="utf-8")
        (tmp_path / odd).write_text("words", encoding="utf-8")
        (tmp_path / ".doublet").mkdir()  # our own index writes are not news
        (tmp_path / ".doublet" / "index.msgpack").write_bytes(b"x")
        (tmp_path / ".git").mkdir()
        (tmp_path / ".git" / "HEAD").write_text("ref", encoding="utf-8")

    seen, watcher = await changes_after(tmp_path, act)
    watcher.stop()
    assert {"sub/essay.txt", odd} <= seen
    assert not any(rel.startswith((".doublet", ".git")) for rel in seen)


async def test_what_changes_right_after_the_watches_are_set_is_seen(tmp_path: Path) -> None:
    """Once wait_until_ready says so, nothing is missed: a refresh begun after it and
    a file written just after cannot both miss the file."""
    seen, watcher = await changes_after(
        tmp_path, lambda: (tmp_path / "at-once.txt").write_text("x"), settle=0.5
    )
    watcher.stop()
    assert "at-once.txt" in seen


async def test_stopping_ends_the_watchers_process(tmp_path: Path) -> None:
    _, watcher = await changes_after(tmp_path, lambda: None, settle=0)
    assert watcher.process is not None
    pid = watcher.process.pid
    watcher.stop()
    assert not _running(pid)
    watcher.stop()  # twice is no error


async def test_the_watcher_ends_when_the_server_is_killed(tmp_path: Path) -> None:
    """A server gone however it went (kill -9) leaves no watcher behind: the child ends
    when its input closes."""
    script = (
        "import asyncio, sys, time\n"
        "from pathlib import Path\n"
        "from doublet.lsp.watcher import Watcher\n"
        "w = Watcher(Path(sys.argv[1]), asyncio.new_event_loop(), lambda paths: None)\n"
        "w.start()\n"
        "w.wait_until_ready()\n"
        "print(w.process.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    server = subprocess.Popen(
        [sys.executable, "-c", script, str(tmp_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        child = int(server.stdout.readline())
        os.kill(server.pid, signal.SIGKILL)
        server.wait()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and _running(child):
            await asyncio.sleep(0.05)
        assert not _running(child)
    finally:
        if server.poll() is None:
            server.kill()


def _running(pid: int) -> bool:
    """Whether ``pid`` runs (not ended, nor ended and waiting for its parent to reap it)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return state != "Z"


async def test_a_folder_that_cannot_be_watched_is_logged_not_raised(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "a-file").write_text("not a folder", encoding="utf-8")
    impossible = tmp_path / "a-file" / "folder"  # can never be made
    watcher = Watcher(impossible, asyncio.get_running_loop(), lambda paths: None)
    watcher.start()
    assert not await asyncio.to_thread(watcher.wait_until_ready, 30)
    assert not watcher.ready
    assert "cannot watch" in caplog.text
    watcher.stop()


async def test_a_folder_deleted_or_not_yet_made_is_watched_once_it_is_there(
    tmp_path: Path,
) -> None:
    """A folder that is not there is no error for the watcher: once it is made (a
    fresh clone, submissions unzipped anew) it is watched, and the server told to
    look at all of it ("."); the same after it is deleted and made again."""
    root = tmp_path / "later"
    seen, watcher = await _watching(root)
    try:
        root.mkdir()
        await _until(lambda: "." in seen)
        (root / "essay.txt").write_text("words", encoding="utf-8")
        await _until(lambda: "essay.txt" in seen)
        shutil.rmtree(root)
        await asyncio.sleep(1.0)  # its deletion reported (".", too), and seen to
        seen.clear()
        root.mkdir()  # very likely with the deleted folder's inode number
        (root / "sub").mkdir()
        await _until(lambda: "." in seen)
        (root / "sub" / "again.txt").write_text("words", encoding="utf-8")
        await _until(lambda: "sub/again.txt" in seen)
    finally:
        watcher.stop()


async def test_a_folder_deleted_and_made_again_quickly_is_no_false_alarm(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """Between a deletion and the watch set on the folder made again, its folders
    have no watch, for the folder's sake, not the system's limit: no warning
    that the limit is reached, and the last folder made is watched."""
    root = tmp_path / "ws"
    root.mkdir()
    seen, watcher = await _watching(root)
    try:
        for pause in (0.5, 0.7, 0.6, 0.5, 0.7, 0.6, 0.5, 0.7):
            shutil.rmtree(root)
            for sub in ("s0/t", "s1/t", "s2/t"):
                (root / sub).mkdir(parents=True)
            await asyncio.sleep(pause)
        await asyncio.sleep(2.5)  # the guard's comparison after the last burst
        seen.clear()
        (root / "s2" / "t" / "last.txt").write_text("words", encoding="utf-8")
        await _until(lambda: "s2/t/last.txt" in seen, timeout=2)  # a watch, not polling
    finally:
        watcher.stop()
    assert "cannot be watched" not in capfd.readouterr().err


async def test_a_folder_moved_away_is_no_longer_reported_and_its_successor_is(
    tmp_path: Path,
) -> None:
    """watchdog says nothing when the watched folder itself is moved: what is written
    in it afterwards is not the workspace's (it would be reported as if it were),
    and a folder made at its path is watched."""
    root = tmp_path / "ws"
    root.mkdir()
    seen, watcher = await _watching(root)
    try:
        root.rename(tmp_path / "away")
        await asyncio.sleep(1.5)  # the folder at the path is looked at every 0.5 s
        (tmp_path / "away" / "elsewhere.txt").write_text("words", encoding="utf-8")
        root.mkdir()
        await _until(lambda: "." in seen)
        (root / "here.txt").write_text("words", encoding="utf-8")
        await _until(lambda: "here.txt" in seen)
        assert "elsewhere.txt" not in seen
    finally:
        watcher.stop()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify's own listing")
async def test_opening_files_and_listing_folders_is_not_asked_of_the_kernel(
    tmp_path: Path,
) -> None:
    """Every listing of a folder (the server's refresh walks them all) would be an
    event of its own: 5,000 folders overflowed the kernel's queue, and watchdog's
    walk to catch up made as many again, for good. Only changes are asked for."""
    for n in range(3):
        (tmp_path / f"folder-{n}").mkdir()
    watcher = Watcher(tmp_path, asyncio.get_running_loop(), lambda paths: None)
    watcher.start()
    assert await asyncio.to_thread(watcher.wait_until_ready, 30)
    try:
        masks = _inotify_masks(watcher.process.pid)
        assert len(masks) == 4  # the folder and the three in it
        in_open, in_close_nowrite, in_modify = 0x20, 0x10, 0x2
        assert all(mask & in_modify for mask in masks)
        assert not any(mask & (in_open | in_close_nowrite) for mask in masks)
    finally:
        watcher.stop()


def _inotify_masks(pid: int) -> list[int]:
    """The event masks of every inotify watch process ``pid`` holds."""
    masks = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        with contextlib.suppress(OSError):
            if os.readlink(f"/proc/{pid}/fd/{fd}") == "anon_inode:inotify":
                for line in Path(f"/proc/{pid}/fdinfo/{fd}").read_text().splitlines():
                    if line.startswith("inotify wd:"):
                        masks.append(int(line.split("mask:")[1].split()[0], 16))
    return masks


async def _until(condition, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "not within the time allowed"
        await asyncio.sleep(0.05)


async def test_the_watcher_imports_nothing_from_the_folder_it_runs_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server often runs in the workspace (Neovim's root_dir): a json.py or a
    watchdog.py there must not be imported by the watcher (a student's folder is
    not code to run), nor keep it from watching."""
    marker = tmp_path / "imported"
    for module in ("json", "watchdog", "doublet"):
        (tmp_path / f"{module}.py").write_text(
            f"open({str(marker)!r}, 'w').close()\nraise SystemExit(1)\n", encoding="utf-8"
        )
    monkeypatch.chdir(tmp_path)
    seen, watcher = await changes_after(tmp_path, lambda: (tmp_path / "new.txt").write_text("x"))
    watcher.stop()
    assert not marker.exists()
    assert "new.txt" in seen
