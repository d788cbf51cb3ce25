"""Giving freed heap memory back to the system (doublet/heap)."""

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
