"""The C heap: big arrays kept for reuse, freed memory given back (doublet/heap)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from doublet import heap

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


def test_give_back_is_harmless_to_call_anywhere() -> None:
    kept = [bytes(100) for _ in range(1000)]
    heap.give_back()
    heap.give_back()
    assert all(len(b) == 100 for b in kept)


#: In a fresh process: 50 rounds of six 4 MB arrays made, written and dropped
#: together, as a numpy step's temporaries are; the page faults they took, with the
#: heap told to keep freed arrays (argv[1] "keep") or as glibc does by itself (it
#: serves the first from fresh pages, then from its heap, but gives back what a round
#: frees at the heap's top, so the next round faults it in again).
_ARRAYS = textwrap.dedent(
    """
    import resource, sys
    import numpy as np
    from doublet import heap

    if sys.argv[1] == "keep":
        assert heap.keep_freed_arrays()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(50):
        arrays = [np.empty(4 << 20, dtype=np.uint8) for _ in range(6)]
        for block in arrays:
            block.fill(1)
        del arrays, block
    print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
    """
)


def _faults(how: str) -> int:
    done = subprocess.run(
        [sys.executable, "-c", _ARRAYS, how], capture_output=True, text=True, timeout=60, check=True
    )
    return int(done.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_arrays_freed_are_reused_without_faulting_their_pages_in_again() -> None:
    pages = 50 * 6 * (4 << 20) // 4096
    assert _faults("default") > pages // 4  # glibc alone: fresh pages, round after round
    assert _faults("keep") < pages // 20  # kept: the first round's pages, and a few more


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
