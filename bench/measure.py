"""Running a command as a child process, measuring its wall time and its peak memory:
its own (``wait4``) and that of its whole process tree (sampled)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

#: Seconds between two samples of a process tree's memory, at least. The peaks
#: that matter (a scan's worker holding its chunk of documents, the main process
#: selecting candidates) last from tenths of a second to many seconds, so 50 ms
#: sees them. Peaks shorter than the gaps can be missed: the figure is a lower
#: bound.
SAMPLE_SECONDS = 0.05
#: The share of one core the sampling may take: after a sample that took ``t``
#: seconds of CPU, the next waits at least ``t / SAMPLE_SHARE``. A sample is
#: cheap for small processes (the process table, ~1 ms) but reading
#: smaps_rollup walks the process's page tables, holding its memory map's lock
#: (its mmap and munmap wait): ~4 ms per GB resident when the process is idle,
#: ~13-15 ms (median) through the scale folder's scan, ~1 GB at its peak.
#: Without this bound, sampling that scan every 50 ms took 17% of a core (of
#: the two it ran on); with it, 4%.
SAMPLE_SHARE = 0.05


@dataclass(frozen=True)
class Run:
    seconds: float
    peak_rss_mb: float  # the child's peak resident memory (from wait4)
    returncode: int
    stdout: str
    stderr: str
    timed_out: bool
    # peak of the summed PSS of the child and its descendants, sampled (every
    # SAMPLE_SECONDS or more); None where /proc cannot tell (not Linux) or when no
    # sample found the child alive (it ended at once)
    tree_peak_mb: float | None = None


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
        sampler = TreeMemorySampler(process.pid)
        sampler.start()
        try:
            _, status, usage = os.wait4(process.pid, 0)
        finally:
            timer.cancel()
            sampler.stop()
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
            sampler.peak_mb,
        )


class TreeMemorySampler:
    """The peak over time of the memory a process and all its descendants hold together.

    ``wait4``'s ``ru_maxrss`` is the peak of one process, never a sum, so a
    command whose worker processes hold data beside the main one needs more
    memory than it says. Summing resident sets would count twice the pages a
    forked worker shares with its parent (copy on write); the proportional set
    size (PSS) splits each shared page between the processes that map it, so
    the sum of PSS is what the tree holds. Read from /proc: Linux only.
    """

    def __init__(self, pid: int, interval: float = SAMPLE_SECONDS) -> None:
        self.pid = pid
        self.interval = interval
        self._peak_kb: int | None = None
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._sample_until_stopped, daemon=True)

    def start(self) -> None:
        if sys.platform == "linux":  # elsewhere no /proc: the peak stays None
            self._thread.start()

    def stop(self) -> None:
        """Stop sampling (once the child has ended: a later sample would find nothing)."""
        self._stopped.set()
        if self._thread.is_alive():
            self._thread.join()

    @property
    def peak_mb(self) -> float | None:
        return None if self._peak_kb is None else self._peak_kb / 1024

    def _sample_until_stopped(self) -> None:
        while True:
            started = time.thread_time()
            held = tree_memory_kb(self.pid)
            if held is not None and (self._peak_kb is None or held > self._peak_kb):
                self._peak_kb = held
            spent = time.thread_time() - started
            if self._stopped.wait(max(self.interval, spent / SAMPLE_SHARE)):
                return


def tree_memory_kb(pid: int) -> int | None:
    """The summed PSS (KiB) of ``pid`` and its live descendants now; None if none of them
    holds memory any more (ended, or a zombie not yet reaped)."""
    held = [process_memory_kb(p) for p in [pid, *descendants(pid)]]
    found = [kb for kb in held if kb is not None]
    return sum(found) if found else None


def descendants(pid: int) -> list[int]:
    """The processes below ``pid``: its children, theirs, and so on."""
    children = _children_by_parent()
    below, waiting = [], list(children.get(pid, ()))
    while waiting:
        child = waiting.pop()
        below.append(child)
        waiting.extend(children.get(child, ()))
    return below


def _children_by_parent() -> dict[int, list[int]]:
    """Every process's children, from the parent field of each /proc/PID/stat.

    (/proc/PID/task/TID/children would be quicker, but kernels built without
    CONFIG_PROC_CHILDREN, such as this project's machines, lack it; the whole
    table is a few hundred small reads.)
    """
    children: dict[int, list[int]] = defaultdict(list)
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as stat:
                fields = stat.read()
        except OSError:  # ended since the listing
            continue
        # "pid (command) state ppid ...": the command may hold spaces and parentheses
        after_command = fields.rpartition(b")")[2].split()
        if len(after_command) >= 2:
            children[int(after_command[1])].append(int(name))
    return children


def process_memory_kb(pid: int) -> int | None:
    """The PSS of one process in KiB (its resident set where the kernel has no
    smaps_rollup, before 4.14); None if it has ended or holds no memory (a zombie)."""
    for path, field in ((f"/proc/{pid}/smaps_rollup", b"Pss:"), (f"/proc/{pid}/status", b"VmRSS:")):
        try:
            with open(path, "rb") as source:
                text = source.read()
        except FileNotFoundError:
            if not os.path.exists(f"/proc/{pid}"):
                return None  # ended
            continue  # no such file on this kernel: the next one
        except OSError:  # ended while being read (ESRCH), or not ours to read
            return None
        for line in text.splitlines():
            if line.startswith(field):
                return int(line.split()[1])
        return None  # a zombie's files have no memory lines
    return None


def rounded_mb(mb: float | None, digits: int | None = None) -> float | None:
    """A peak for a results file: rounded like the others, None kept (not measured)."""
    return None if mb is None else round(mb, digits)


def all_processes(figures: dict) -> str:
    """A run's ``tree_peak_mb``, to follow its own peak in a line or a sentence; nothing
    for results measured before it was sampled, or where it could not be."""
    tree = figures.get("tree_peak_mb")
    return f" ({tree:,.0f} MB all processes, summed PSS)" if tree is not None else ""


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
