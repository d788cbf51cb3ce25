"""The C heap: big arrays kept for reuse, freed memory given back (doublet/heap)."""

from __future__ import annotations

import gc
import subprocess
import sys
import textwrap

import pytest

from doublet import heap
from doublet.engine.modes import MODES
from doublet.skipped import NotText

#: In a fresh process: 200 MB in 2 KB blocks (malloc's heap, not pymalloc's arenas nor
#: mmap), all freed but the last, which pins the heap's top so that it cannot shrink
#: by itself; the resident size then, and after give_back.
_CHILD = textwrap.dedent(
    """
    import sys
    from doublet import heap

    def resident_mb():
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * 4096 / 2**20

    blocks = [bytes(2048) + bytes([i % 256]) for i in range(100_000)]
    pinned = blocks[-1]
    del blocks
    before = resident_mb()
    heap.give_back()
    print(before, resident_mb())
    """
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim")
def test_memory_freed_under_a_live_block_goes_back_to_the_system() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD], capture_output=True, text=True, timeout=60, check=True
    )
    before, after = (float(x) for x in done.stdout.split())
    assert before > 150  # freed, and still held: the case give_back is for
    assert after < before - 150


#: In a fresh process with freed arrays kept: 50 MB in 2 KB blocks made and freed by a
#: thread; the resident size before the thread, after it, and after give_back.
_THREAD = textwrap.dedent(
    """
    import threading
    from doublet import heap

    def resident_mb():
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * 4096 / 2**20

    assert heap.keep_freed_arrays()

    def work():
        blocks = [bytes(2048) + bytes([i % 256]) for i in range(25_000)]
        del blocks

    start = resident_mb()
    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    before = resident_mb()
    heap.give_back()
    print(start, before, resident_mb())
    """
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's arenas")
def test_memory_a_thread_freed_goes_back_to_the_system_too() -> None:
    """A thread's own heap would keep its freed top (up to 64 MB) for good."""
    done = subprocess.run(
        [sys.executable, "-c", _THREAD], capture_output=True, text=True, timeout=60, check=True
    )
    start, before, after = (float(x) for x in done.stdout.split())
    assert before > start + 40  # freed, and still held: kept at the heap's top
    assert after < start + 10


def test_give_back_is_harmless_to_call_anywhere() -> None:
    kept = [bytes(100) for _ in range(1000)]
    heap.give_back()
    heap.give_back()
    assert all(len(b) == 100 for b in kept)


#: In a fresh process: 50 rounds of six arrays of 4 MB and more, a little larger each
#: round, made, written and dropped together, as a numpy step's temporaries are; the
#: page faults they took, with the heap told to keep freed arrays (argv[1] "keep")
#: or as glibc does by itself: it maps a block larger than any freed so far afresh
#: from the system, and unmaps it when freed.
_ARRAYS = textwrap.dedent(
    """
    import resource, sys
    import numpy as np
    from doublet import heap

    if sys.argv[1] == "keep":
        assert heap.keep_freed_arrays()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for size in range(4 << 20, (4 << 20) + 50 * (64 << 10), 64 << 10):
        arrays = [np.empty(size, dtype=np.uint8) for _ in range(6)]
        for block in arrays:
            block.fill(1)
        del arrays, block
    print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
    """
)
#: The pages those arrays span, all rounds together.
_PAGES = sum(6 * size // 4096 for size in range(4 << 20, (4 << 20) + 50 * (64 << 10), 64 << 10))


def _faults(how: str) -> int:
    done = subprocess.run(
        [sys.executable, "-c", _ARRAYS, how], capture_output=True, text=True, timeout=60, check=True
    )
    return int(done.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_arrays_freed_are_reused_without_faulting_their_pages_in_again() -> None:
    assert _faults("default") > _PAGES // 5  # glibc alone: fresh pages, round after round
    assert _faults("keep") < _PAGES // 20  # kept: the first round's pages, and the growth


#: In a fresh process with freed arrays kept: 80 MB of arrays of 8 MB made and filled,
#: a block of 2 MB made after them (it pins the heap's top), then the arrays freed; the
#: resident size they leave behind, made outside freed_arrays_given_back (argv[1]
#: "kept"), inside it (nested, as threads' steps are: "inside"), or after it ("after").
_GIVEN_BACK = textwrap.dedent(
    """
    import sys
    import numpy as np
    from doublet import heap

    def resident_mb():
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * 4096 / 2**20

    assert heap.keep_freed_arrays()
    start = resident_mb()
    if sys.argv[1] == "inside":
        with heap.freed_arrays_given_back(), heap.freed_arrays_given_back():
            arrays = [np.ones(8 << 20, dtype=np.uint8) for _ in range(10)]
            pin = np.ones(2 << 20, dtype=np.uint8)
            del arrays
            print(resident_mb() - start)
    else:
        if sys.argv[1] == "after":
            with heap.freed_arrays_given_back():
                pass
        arrays = [np.ones(8 << 20, dtype=np.uint8) for _ in range(10)]
        pin = np.ones(2 << 20, dtype=np.uint8)
        del arrays
        print(resident_mb() - start)
    """
)


def _left_behind(how: str) -> float:
    done = subprocess.run(
        [sys.executable, "-c", _GIVEN_BACK, how],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return float(done.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_big_arrays_freed_within_a_step_that_gives_them_back_leave_nothing_behind() -> None:
    assert _left_behind("kept") > 60  # kept in the heap for reuse, as a batch command has it
    assert _left_behind("inside") < 10  # mapped afresh, and returned when freed
    assert _left_behind("after") > 60  # kept again once the step is over


def test_giving_back_freed_arrays_is_harmless_where_they_are_not_kept() -> None:
    with heap.freed_arrays_given_back():
        kept = [bytes(100) for _ in range(1000)]
    assert all(len(b) == 100 for b in kept)


def test_the_batch_commands_keep_freed_arrays_and_the_language_server_does_not(
    monkeypatch: pytest.MonkeyPatch, tmp_path, capsys: pytest.CaptureFixture
) -> None:
    from doublet.cli import main as cli

    asked: list[str] = []
    monkeypatch.setattr(heap, "keep_freed_arrays", lambda: asked.append("kept") or True)
    monkeypatch.setattr(cli, "run_serve", lambda args: 0)  # not a server's whole life here
    assert cli.main(["serve"]) == 0
    assert asked == []
    assert cli.main(["config", str(tmp_path)]) == 0
    assert asked == ["kept"]
    assert "mode" in capsys.readouterr().out


def test_collections_are_paused_for_a_step_and_resumed_after_it() -> None:
    assert gc.isenabled()
    with heap.collections_paused():
        assert not gc.isenabled()
        with heap.collections_paused():  # nested (another thread's step)
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), heap.collections_paused():
        raise RuntimeError("a step that fails")
    assert gc.isenabled()


def test_a_collector_turned_off_before_the_step_stays_off() -> None:
    gc.disable()
    try:
        with heap.collections_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def _refresh_states(folder, monkeypatch, in_workers: bool) -> list[bool]:
    """Whether the collector ran as each prepared document was indexed."""
    from doublet import parallel, workspace

    if in_workers:  # few files, read by two workers all the same
        monkeypatch.setattr(workspace, "PARALLEL_FROM", 2)
        monkeypatch.setattr(parallel, "workers", lambda: 2)
    states: list[bool] = []

    def progress(results):
        for result in results:
            states.append(gc.isenabled())
            yield result

    changes = workspace.Workspace.open(folder).refresh(progress)
    assert len(changes.added) == 5
    assert gc.isenabled()
    return states


def _five_documents(folder) -> None:
    for i in range(5):
        (folder / f"d{i}.txt").write_text(f"Document {i} says something of its own. " * 20)
    (folder / "binary.txt").write_bytes(b"not text \0 at all")


def test_a_refresh_indexes_what_workers_prepared_with_collections_paused(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _five_documents(tmp_path)
    assert _refresh_states(tmp_path, monkeypatch, in_workers=True) == [False] * 6


def test_a_refresh_preparing_files_itself_keeps_the_collector(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the files are read and cut up in this process then: cycles made there are collected
    _five_documents(tmp_path)
    assert _refresh_states(tmp_path, monkeypatch, in_workers=False) == [True] * 6


def test_a_skipped_file_does_not_keep_its_batch_alive(tmp_path) -> None:
    from doublet.workspace import _prepare_batch

    _five_documents(tmp_path)
    jobs = [
        (str(path), path.name, MODES["prose"], path.stat().st_size)
        for path in sorted(tmp_path.iterdir())
    ]
    results, keys = _prepare_batch(jobs)
    assert len(keys) == 5  # the documents read
    skipped = [r for r in results if isinstance(r, NotText)]
    assert len(skipped) == 1 and "binary" in skipped[0].reason
    assert skipped[0].__traceback__ is None  # whose frame held every document read


def test_a_worker_collects_cycles_even_if_forked_with_the_collector_off() -> None:
    from doublet import parallel

    with heap.collections_paused(), parallel.process_pool(1) as pool:
        assert not gc.isenabled()
        assert pool.submit(gc.isenabled).result(timeout=60)
