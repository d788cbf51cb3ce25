"""Running a scan's work on a Dask cluster: an existing one, or one started here.

A scan's heavy parts are many independent jobs on files (cutting documents into
keys, aligning candidate pairs: doublet/parallel); a Dask cluster's executor
takes them instead of this machine's processes, so the same jobs give the same
results, to the byte. The workers read the files themselves: they must see the
folder at the same path (one machine, or a shared filesystem) and run the same
version of Doublet. Dask is an optional dependency (``pip install
'doublet[dask]'``); it is imported only here, only when asked for.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from doublet import parallel


class ClusterError(Exception):
    """The cluster asked for cannot be used (Dask missing, scheduler unreachable)."""


@contextmanager
def dask_cluster(scheduler: str | None = None, workers: int | None = None) -> Iterator[int]:
    """Within this context, parallel work runs on Dask: the scheduler at ``scheduler``
    (e.g. ``tcp://10.0.0.5:8786``), or a local cluster of ``workers`` processes with one
    thread each. Yields the number of worker threads."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ClusterError(
            "--scheduler and --workers need Dask: pip install 'doublet[dask]'"
        ) from None
    logging.getLogger("distributed").setLevel(logging.WARNING)
    local = None
    try:
        if scheduler is None:
            local = LocalCluster(
                n_workers=workers or 1,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",  # reachable from this machine only
                dashboard_address=None,
                silence_logs=logging.WARNING,
            )
            client = Client(local)
        else:
            client = Client(scheduler, timeout="10s")
    except OSError as exc:
        if local is not None:
            local.close()
        raise ClusterError(f"cannot reach the Dask scheduler {scheduler}: {exc}") from None
    try:
        threads = sum(client.nthreads().values())
        if threads < 1:
            raise ClusterError(f"the Dask scheduler {scheduler} has no workers")
        with parallel.running_on(client.get_executor(), threads):
            yield threads
    finally:
        client.close()
        if local is not None:
            local.close()
