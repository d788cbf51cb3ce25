"""A second real client: Neovim's built-in LSP client, headless, against `doublet serve`.

tests/lsp/nvim/init.lua holds the Neovim 0.7 setup of docs/editors.md (a
FileType autocommand calling vim.lsp.start_client and vim.lsp.buf_attach_client;
Debian 12 ships Neovim 0.7.2), opens an essay, waits for the server's
diagnostics and writes them as JSON; this test reads that file. Neovim must be
installed (`apt-get install neovim`): a missing editor fails the test rather
than skipping it, so a green run always means the editor was really driven.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

INIT = Path(__file__).resolve().parent / "nvim" / "init.lua"
ESSAY = "essays/amira-haddad.txt"
SOURCE = "sources/hives-above-the-traffic.md"
#: vim.diagnostic.severity.INFO: init.lua sets severity = "information", which only
#: reaches the server through init_options on Neovim 0.7.
INFORMATION = 3
#: Milliseconds the script waits for diagnostics; the process gets more before it is killed.
WAIT_MS = 30_000
PROCESS_TIMEOUT = 60


def nvim() -> str:
    found = shutil.which("nvim")
    if found is None:
        pytest.fail(
            "Neovim is not installed, and tests/lsp/test_neovim.py drives it as a real LSP "
            "client. Install it with `apt-get install -y neovim` (Debian/Ubuntu, as root) "
            "and run the tests again.",
            pytrace=False,
        )
    return found


def run_neovim(folder: Path, tmp_path: Path, **extra: str) -> dict:
    """Run the script against ``folder`` (``extra``: more of its environment variables)
    and return what it wrote."""
    out = tmp_path / "nvim-result.json"
    home = tmp_path / "nvim-home"  # Neovim's state, caches and lsp.log, away from $HOME
    env = {
        **os.environ,
        "DOUBLET_PYTHON": sys.executable,
        "DOUBLET_ROOT": str(folder),
        "DOUBLET_FILE": str(folder / ESSAY),
        "DOUBLET_OUT": str(out),
        "DOUBLET_TIMEOUT": str(WAIT_MS),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_CACHE_HOME": str(home / "cache"),
        **extra,
    }
    command = [nvim(), "--headless", "--clean", "-u", str(INIT)]
    process = subprocess.Popen(
        command,
        cwd=folder,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # the server is Neovim's child: one group to stop on timeout
    )
    try:
        stdout, stderr = process.communicate(timeout=PROCESS_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        pytest.fail(
            f"Neovim did not finish within {PROCESS_TIMEOUT} s\n{log_of(home)}"
            f"stdout: {stdout}\nstderr: {stderr}",
            pytrace=False,
        )
    if not out.exists():
        pytest.fail(
            f"Neovim wrote no result (exit status {process.returncode})\n{log_of(home)}"
            f"stdout: {stdout}\nstderr: {stderr}",
            pytrace=False,
        )
    result = json.loads(out.read_text(encoding="utf-8"))
    result["returncode"] = process.returncode
    result["log"] = log_of(home)
    return result


def log_of(home: Path) -> str:
    """Neovim's LSP log (the server's stderr lands there), for failure messages."""
    log = home / "cache" / "nvim" / "lsp.log"
    return f"lsp.log:\n{log.read_text(errors='replace')}\n" if log.exists() else ""


def test_neovim_shows_the_copied_paragraph(folder: Path, tmp_path: Path):
    result = run_neovim(folder, tmp_path)
    context = json.dumps({k: v for k, v in result.items() if k != "log"}, indent=1)
    context += "\n" + result["log"]
    assert "error" not in result, f"{result['error']}\n{context}"

    diagnostics = result["diagnostics"]
    assert diagnostics, f"no diagnostics\n{context}"
    assert {d["source"] for d in diagnostics} == {"doublet"}, context
    copied = [d for d in diagnostics if SOURCE in d["message"]]
    assert copied, f"no diagnostic names {SOURCE}\n{context}"
    first = copied[0]
    # the copied paragraph starts on line 13 of the essay (0-based 12), first column
    assert first["range"]["start"] == {"line": 12, "character": 0}, context
    assert first["code"] == "shared-passage", context
    assert first["severity"] == INFORMATION, f"the editor's settings were not applied\n{context}"
    related = first["relatedInformation"]
    assert related and related[0]["location"]["uri"] == (folder / SOURCE).as_uri(), context


#: vim.diagnostic.severity.ERROR
ERROR = 1


def test_neovim_checks_only_when_asked_and_shows_copies_by_their_kind(folder: Path, tmp_path: Path):
    settings = {"checkFrequency": "manual", "severityByKind": {"verbatim": "error"}}
    result = run_neovim(
        folder, tmp_path, DOUBLET_SETTINGS=json.dumps(settings), DOUBLET_CHECK="manual"
    )
    context = json.dumps({k: v for k, v in result.items() if k != "log"}, indent=1)
    context += "\n" + result["log"]
    assert "error" not in result, f"{result['error']}\n{context}"
    assert result["published_before_command"] == 0, f"checked before it was asked\n{context}"
    assert result["command_result"] == {"checked": True, "diagnostics": 2}, context
    [copied] = [d for d in result["diagnostics"] if SOURCE in d["message"]]
    assert copied["severity"] == ERROR, context  # verbatim: error; the rest: warning
    assert {d["severity"] for d in result["diagnostics"]} == {ERROR, 2}, context
