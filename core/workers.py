"""Parser processes: started early, fed batches of files, results read back in order.

A cold index is almost all parsing, so `Index.update` starts the pool before it
walks the repo. Each worker loads the tokenizer in its initializer, in parallel
with the walk, rather than the parent loading it before forking.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from types import TracebackType

from symscope.core.ingest import FileResult, ingest_batch
from symscope.core.walk import SourceFile

log = logging.getLogger(__name__)

#: Most files per task: small enough that no worker idles long at the end.
CHUNK_MAX = 32

Job = tuple[str, str, int, str]
"""(repo-relative path, absolute path, mtime_ns, language name) of one file."""


class ParserPool:
    """Worker processes that turn files into index rows.

    Raises OSError, ValueError or RuntimeError (e.g. `BrokenProcessPool`) when
    processes cannot be started or die; callers then parse in their own process.
    """

    def __init__(self, workers: int) -> None:
        # Forking a process that runs threads (the TUI) can deadlock; spawn there.
        method = "fork" if threading.active_count() == 1 and os.name == "posix" else "spawn"
        self.workers = workers
        self._executor = ProcessPoolExecutor(
            max_workers=workers, mp_context=multiprocessing.get_context(method), initializer=prepare_worker
        )
        # Submitting starts the processes now, so they load while the caller walks the repo.
        self._started = [self._executor.submit(os.getpid) for _ in range(workers)]

    def parse(self, jobs: list[Job], cancelled: Callable[[], bool] | None = None) -> Iterator[FileResult]:
        """Parse `jobs` in the workers, yielding results in job order.

        Stops (cancelling queued batches) when `cancelled` returns True.
        """
        chunk = max(4, min(CHUNK_MAX, len(jobs) // (self.workers * 8) or 4))
        batches = [jobs[i : i + chunk] for i in range(0, len(jobs), chunk)]
        futures: list[Future[list[FileResult]]] = [self._executor.submit(ingest_batch, b) for b in batches]
        try:
            for fut in futures:
                if cancelled is not None and cancelled():
                    return
                yield from fut.result()
        finally:
            for fut in futures:
                fut.cancel()

    def close(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> ParserPool:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class EarlyPool:
    """Starts a `ParserPool` as soon as a walk has found enough files to need one.

    Pass `on_file` to `walk`: the workers then start up while the walk goes on.
    """

    def __init__(self, workers: int, threshold: int) -> None:
        self.workers = workers
        self.threshold = threshold
        self.pool: ParserPool | None = None
        self._found = 0

    def on_file(self, _file: SourceFile) -> None:
        self._found += 1
        if self._found == self.threshold:
            try:
                self.pool = ParserPool(self.workers)
            except (OSError, ValueError, RuntimeError) as exc:  # parsed without it later
                log.debug("parser pool unavailable (%s)", exc)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()


def prepare_worker() -> None:
    """Pool initializer: silence stderr and load the tokenizer before the first file arrives.

    A worker's stray warnings must not draw over a full-screen UI.
    """
    from symscope.core.tokens import warm_up

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    os.close(devnull)
    warm_up()
