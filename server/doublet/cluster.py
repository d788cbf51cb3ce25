"""Running a scan's work on a Dask cluster: an existing one, or one started here.

A scan's heavy parts run on the cluster's workers:

- cutting documents into keys and aligning candidate pairs, many independent jobs
  on files (doublet/parallel): the cluster's executor takes them instead of this
  machine's processes;
- selecting the candidate pairs, as map, shuffle and reduce
  (engine/candidate_shards): the postings go out in key ranges, each range's seeds
  go on, by pair of documents, from worker to worker, and only each part's
  evidence comes back.

The same steps give the same results, to the byte. The workers read the files
themselves: they must see the folder at the same path (one machine, or a shared
filesystem) and run the same version of Doublet. Dask is an optional dependency
(``pip install 'doublet[dask]'``); it is imported only here, only when asked for.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

from doublet import parallel
from doublet.engine.candidate_shards import sharded_candidates
from doublet.engine.candidates import Candidate
from doublet.engine.index import Index

#: Arguments this large are sent to the workers ahead of the step that takes them.
_SCATTER_FROM = 1 << 20
#: At most about this many postings per key range, and as many parts of the pairs as
#: ranges: a worker's step holds its range's postings and seeds, not the folder's.
POSTINGS_PER_SHARD = 4_000_000


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
        with parallel.running_on(client.get_executor(), threads, _selector(client, threads)):
            yield threads
    finally:
        client.close()
        if local is not None:
            local.close()


def _selector(client, threads: int) -> parallel.Selector:
    """Candidate selection on the cluster: key ranges and parts of the pairs, two of
    each per worker thread at least (so that each has work while another waits)."""

    def submit(function, *args):
        args = tuple(
            client.scatter(a) if isinstance(a, np.ndarray) and a.nbytes >= _SCATTER_FROM else a
            for a in args
        )
        return client.submit(function, *args, pure=False)

    def select(index: Index, max_docs: int) -> tuple[list[Candidate], np.ndarray]:
        count = max(2 * threads, math.ceil(index.posting_count() / POSTINGS_PER_SHARD))
        return sharded_candidates(index, max_docs, count, count, submit, client.gather)

    return select
