"""The report page's data (lsp/actions.report_data) beside an editor's edits."""

from __future__ import annotations

import shutil
from pathlib import Path

from doublet.lsp.actions import report_data
from doublet.workspace import Workspace

CLOUGH = Path(__file__).resolve().parents[1] / "data" / "clough-stevenson"


def test_the_warnings_of_a_report_are_estimated_without_the_workspaces_lock(
    tmp_path: Path,
) -> None:
    """The estimate waits while an editor's question is under way; under the lock, the
    question would be waiting for the lock, and both for half a second a step."""
    for name in sorted(p.name for p in CLOUGH.glob("g0p*_task*.txt")):
        shutil.copy(CLOUGH / name, tmp_path / name)
    workspace = Workspace.open(tmp_path)
    workspace.refresh()
    held_when_asked = []
    let_through = workspace.questions.let_through

    def spying() -> None:
        held_when_asked.append(workspace.lock._is_owned())  # type: ignore[attr-defined]
        let_through()

    workspace.questions.let_through = spying  # type: ignore[method-assign]
    data, _ = report_data(workspace)
    assert data["pairs"] and held_when_asked and not any(held_when_asked)
