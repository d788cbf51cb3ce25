"""Worker processes: a language server's background indexing leaves the cores to it."""

from __future__ import annotations

import os

from doublet import parallel


def test_background_workers_run_at_a_lower_priority_and_others_do_not() -> None:
    with parallel.process_pool(1) as pool:
        normal = pool.submit(os.nice, 0).result(timeout=60)
    with parallel.in_background(), parallel.process_pool(1) as pool:
        lowered = pool.submit(os.nice, 0).result(timeout=60)
    with parallel.process_pool(1) as pool:  # the context is over: full priority again
        again = pool.submit(os.nice, 0).result(timeout=60)
    assert normal == again == os.nice(0)
    assert lowered == min(normal + parallel.BACKGROUND_NICENESS, 19)
