"""Run one child process with a time limit and measure its own peak memory.

The all-pairs runs must not share memory or time with the benchmark process,
and `getrusage(RUSAGE_CHILDREN)` reports the largest child ever waited for, so
we reap the child with `os.wait4`, which gives that child's own resource usage.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from typing import IO


@dataclass
class ChildRun:
    """Outcome of one child process."""

    seconds: float
    peak_rss_mb: float
    exit_code: int | None  # None when we killed it at the time limit
    timed_out: bool
    stdout: str
    stderr: str


def run_child(argv: list[str], timeout: float, cwd: str | None = None) -> ChildRun:
    """Run `argv` to completion or until `timeout` seconds, whichever comes first."""
    with _capture() as out, _capture() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL, cwd=cwd)
        timed_out = not _wait_ready(proc.pid, timeout)
        if timed_out:
            os.kill(proc.pid, signal.SIGKILL)  # not yet reaped, so the pid is still ours
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)  # keep Popen from waiting again
        out.seek(0)
        err.seek(0)
        return ChildRun(
            seconds=seconds,
            peak_rss_mb=usage.ru_maxrss / 1024,  # Linux reports KiB
            exit_code=None if timed_out else proc.returncode,
            timed_out=timed_out,
            stdout=out.read(),
            stderr=err.read(),
        )


def _capture() -> IO[str]:
    """A temporary file for a child's output: no pipe to fill up and block it."""
    return tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")


def _wait_ready(pid: int, timeout: float) -> bool:
    """Wait until `pid` exits without reaping it; False if `timeout` passed first."""
    fd = os.pidfd_open(pid)
    try:
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        return bool(poller.poll(timeout * 1000))
    finally:
        os.close(fd)


def summarise(run: ChildRun, timeout: float) -> dict[str, object]:
    """The all-pairs result dict; the child's last stdout line is its JSON summary."""
    result: dict[str, object] = {
        "seconds": run.seconds,
        "peak_rss_mb": run.peak_rss_mb,
        "pairs": None,
        "finished": run.exit_code == 0,
        "reason": None,
    }
    if run.exit_code == 0:
        result.update(json.loads(run.stdout.strip().split("\n")[-1]))
    else:
        result["reason"] = _failure_reason(run, timeout)
    return result


def _failure_reason(run: ChildRun, timeout: float) -> str:
    """Why the child did not finish, in words a benchmark table can show."""
    if run.timed_out:
        return f"timed out after {timeout:g} s"
    if "heap out of memory" in run.stderr or "Reached heap limit" in run.stderr:
        return "out of memory: Node heap limit reached"
    if run.exit_code == -signal.SIGKILL:
        return "killed by SIGKILL (the system's out-of-memory killer?)"
    tail = run.stderr.strip()[-500:]
    return f"exit code {run.exit_code}: {tail}"
