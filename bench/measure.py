"""Running a command as a child process, measuring its wall time and its own peak memory."""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Run:
    seconds: float
    peak_rss_mb: float  # the child's peak resident memory (from wait4)
    returncode: int
    stdout: str
    stderr: str
    timed_out: bool


def run_measured(argv: list[str], timeout: float = 3600, cwd: str | None = None) -> Run:
    """Run ``argv`` to completion (or kill it after ``timeout`` seconds)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        process = subprocess.Popen(argv, stdout=out, stderr=err, text=True, cwd=cwd)
        killed = threading.Event()

        def kill() -> None:
            killed.set()
            process.kill()

        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            _, status, usage = os.wait4(process.pid, 0)
        finally:
            timer.cancel()
        seconds = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        out.seek(0)
        err.seek(0)
        return Run(
            seconds,
            usage.ru_maxrss / 1024,
            process.returncode,
            out.read(),
            err.read(),
            killed.is_set(),
        )


def git_commit() -> str:
    """The commit measured: HEAD, marked when tracked files differ from it (the
    working tree is what runs)."""
    repo = Path(__file__).resolve().parent.parent
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=repo,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + (" (with uncommitted changes)" if dirty else "")
