"""Saving the index a little after the last change: one write for a burst of changes."""

from __future__ import annotations

import time

from doublet.index_store import index_path
from doublet.workspace import DebouncedSave, Workspace


def _workspace(tmp_path) -> Workspace:
    (tmp_path / "a.txt").write_text("The lighthouse keeper climbed the stairs every evening.")
    workspace = Workspace.open(tmp_path)
    workspace.refresh()
    return workspace


def test_a_burst_of_changes_is_saved_once_after_the_delay(tmp_path):
    workspace = _workspace(tmp_path)
    saver = DebouncedSave(workspace, delay=0.2)
    for i in range(5):
        workspace.update_text("a.txt", f"Version {i} of the text about the lighthouse keeper.")
        saver.changed()
        time.sleep(0.02)
    assert not index_path(tmp_path).exists()
    deadline = time.monotonic() + 3
    while saver.saves == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert saver.saves == 1
    reopened = Workspace.open(tmp_path)
    assert reopened.index.names() == ["a.txt"]


def test_flush_saves_a_pending_change_at_once_and_nothing_when_idle(tmp_path):
    workspace = _workspace(tmp_path)
    saver = DebouncedSave(workspace, delay=60)
    saver.flush()
    assert saver.saves == 0 and not index_path(tmp_path).exists()
    saver.changed()
    saver.flush()
    assert saver.saves == 1 and index_path(tmp_path).exists()
