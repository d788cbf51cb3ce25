"""`scan --scheduler` / `--workers`: the same scan on a Dask cluster, byte for byte.

A real `dask scheduler` and two `dask worker` processes on localhost, as a user
starts them; the scheduler is asked afterwards which of our jobs it ran, so a
scan that quietly stayed on this machine fails.
"""

from __future__ import annotations

import random
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import distributed  # the test extra installs Dask (pyproject.toml)
import pytest

from tests.commands import doublet

DATA = Path(__file__).parents[1] / "data" / "clough-stevenson"
DASK = Path(sys.executable).with_name("dask")

STATEMENTS = [
    "total = total + {n} * len(words)",
    "words = [w.strip() for w in line.split(',') if w]",
    "if len(words) > {n}:\n        print('long line', {n}, line)",
    "counts[words[0]] = counts.get(words[0], 0) + {n}",
    "for w in words[{n}:]:\n        seen.add(w.lower())",
    "best = max(best, sum(len(w) for w in words) - {n})",
    "while total > {n}00:\n        total //= {n} + 1",
    "names.append(words[-1] if words else 'none{n}')",
]


def program(seed: int) -> str:
    """A small program of its own: statements drawn by ``seed``."""
    rng = random.Random(seed)
    body = [rng.choice(STATEMENTS).format(n=rng.randint(2, 9)) for _ in range(14)]
    lines = "\n    ".join(body)
    return (
        f"def solve_{seed}(text):\n    total, best, counts, seen, names = 0, 0, {{}}, set(), []\n"
        f"    for line in text.splitlines():\n        pass\n    {lines}\n"
        "    return total, best, counts, seen, names\n"
    )


def corpora(tmp_path: Path) -> list[Path]:
    """Two folders of different kinds: the Clough & Stevenson answers, and programs of
    which a few are copied."""
    essays = tmp_path / "essays"
    shutil.copytree(DATA, essays, ignore=shutil.ignore_patterns("*.csv"))
    programs = tmp_path / "programs"
    programs.mkdir()
    for i in range(16):
        (programs / f"p{i:02d}.py").write_text(program(i if i < 12 else i - 12), "utf-8")
    return [essays, programs]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def scheduler(tmp_path: Path) -> Iterator[str]:
    """A scheduler and two single-threaded workers, real processes, stopped afterwards."""
    address = f"tcp://127.0.0.1:{free_port()}"
    port = address.rsplit(":", 1)[1]
    logs = tmp_path / "dask.log"
    with logs.open("w") as log:
        processes = [
            subprocess.Popen(
                [
                    str(DASK),
                    "scheduler",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    port,
                    "--dashboard-address",
                    ":0",
                ],
                stdout=log,
                stderr=log,
            )
        ]
        try:
            client = _client(address, deadline=time.time() + 60)
            for _ in range(2):
                processes.append(
                    subprocess.Popen(
                        [
                            str(DASK),
                            "worker",
                            address,
                            "--nthreads",
                            "1",
                            "--nworkers",
                            "1",
                            "--no-dashboard",
                        ],
                        stdout=log,
                        stderr=log,
                    )
                )
            client.wait_for_workers(2, timeout=60)
            client.close()
            yield address
        finally:
            for process in reversed(processes):
                process.terminate()
            for process in processes:
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()


def _client(address: str, deadline: float):
    while True:
        try:
            return distributed.Client(address, timeout="2s")
        except OSError:
            if time.time() > deadline:
                raise
            time.sleep(0.2)


def scan_json(folder: Path, *options: str) -> bytes:
    run = doublet(
        "scan",
        str(folder),
        "--format",
        "json",
        "--no-index",
        "--no-progress",
        *options,
        text=False,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr.decode()
    return run.stdout


def jobs_run_by(address: str) -> set[str]:
    """The kinds of task the scheduler has seen (named after our job functions)."""
    with distributed.Client(address, timeout="10s") as client:
        return set(
            client.run_on_scheduler(lambda dask_scheduler: list(dask_scheduler.task_prefixes))
        )


def test_a_scan_on_a_dask_cluster_is_the_same_to_the_byte(tmp_path: Path, scheduler: str) -> None:
    for folder in corpora(tmp_path):
        alone = scan_json(folder)
        assert b'"pairs": [\n    {' in alone  # something to compare
        assert scan_json(folder, "--scheduler", scheduler) == alone, folder.name
    ran = jobs_run_by(scheduler)  # (prefixes drop "_")
    assert {"prepare_batch", "align_chunk", "seeds_of_shard", "evidence_of_part"} <= ran


def test_a_scan_on_local_dask_workers_is_the_same_to_the_byte(tmp_path: Path) -> None:
    [essays, _] = corpora(tmp_path)
    assert scan_json(essays, "--workers", "2") == scan_json(essays)


def test_scans_on_local_dask_workers_that_keep_their_pairs_follow_a_change(
    tmp_path: Path,
) -> None:
    """With the index and pairs kept, a scan after an edit selects on the cluster again
    (no kept selection is made there) and says what a scan from scratch says."""
    [essays, _] = corpora(tmp_path)

    def kept_scan() -> bytes:
        run = doublet(
            "scan", str(essays), "--format", "json", "--no-progress", "--workers", "2",
            text=False, timeout=300,
        )  # fmt: skip
        assert run.returncode == 0, run.stderr.decode()
        return run.stdout

    assert kept_scan() == scan_json(essays)
    answer = essays / "g0pA_taska.txt"
    with answer.open("a", encoding="latin-1") as out:
        out.write("\n" + (essays / "orig_taskb.txt").read_text(encoding="latin-1")[:900])
    assert kept_scan() == scan_json(essays)


def test_an_unreachable_scheduler_is_a_clear_error(tmp_path: Path) -> None:
    [essays, _] = corpora(tmp_path)
    run = doublet(
        "scan", str(essays), "--scheduler", f"tcp://127.0.0.1:{free_port()}", "--no-progress"
    )
    assert run.returncode == 2
    assert "cannot reach the Dask scheduler" in run.stderr
