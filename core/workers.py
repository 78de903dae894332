"""Parser processes: started early, fed batches of files, results taken as they finish.

A cold index is almost all parsing, so `Index.update` starts the pool while it
walks the repo. Each worker imports the parser and loads the tokenizer in its
initializer, in parallel with the walk; the parent never loads either.
"""

from __future__ import annotations

import itertools
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, wait
from types import TracebackType
from typing import TYPE_CHECKING

from symscope.core.models import FileResult
from symscope.core.walk import SourceFile

if TYPE_CHECKING:
    from multiprocessing.process import BaseProcess

log = logging.getLogger(__name__)

#: Most files per task: enough to keep inter-process overhead low.
CHUNK_MAX = 64
#: Tasks per worker, by bytes: enough to even out the end.
BATCHES_PER_WORKER = 12
#: Seconds between checks, while waiting for a batch, that no worker died unnoticed.
DEATH_CHECK_SECONDS = 1.0
#: Batches queued or running per worker at once: one parsing, one waiting, one more so a
#: worker never idles while the parent stores a batch (and no more: each holds its results).
IN_FLIGHT_PER_WORKER = 3

Job = tuple[str, str, int, str]
"""(repo-relative path, absolute path, mtime_ns, language name) of one file."""


#: The warning multiprocessing's resource tracker prints when a process that ended mid-index
#: (a signal, a client gone) left the pool's semaphores for it to remove. It removes them, so
#: nothing leaks; the line would only reach the user's terminal as noise.
_TRACKER_WARNING = "ignore::UserWarning:multiprocessing.resource_tracker"


def _quiet_resource_tracker() -> None:
    """Start the resource tracker (a child process) with its clean-up warning silenced.

    The tracker takes its warning filters from this interpreter's `-W` options
    (`sys.warnoptions`) when it starts, which is at the first pool; this process's own
    filters are unchanged.
    """
    if _TRACKER_WARNING not in sys.warnoptions:
        sys.warnoptions.append(_TRACKER_WARNING)


class ParserPool:
    """Worker processes that turn files into index rows.

    Raises OSError, ValueError or RuntimeError (e.g. `BrokenProcessPool`) when
    processes cannot be started or die; callers then parse in their own process.

    The workers die with this process, however it ends (`kill -9` included; see
    `die_with_parent`). On Linux they are tied to the *thread* that creates the
    pool (the one whose `submit` starts them): create, use and close a pool in
    one thread, as `Index.update` does.
    """

    def __init__(self, workers: int) -> None:
        import multiprocessing  # here, not at import: an update that parses inline never pays for it
        from concurrent.futures import ProcessPoolExecutor

        _quiet_resource_tracker()
        # Forking a process that runs threads (the TUI) can deadlock; spawn there.
        method = "fork" if threading.active_count() == 1 and os.name == "posix" else "spawn"
        self.workers = workers
        self._broken = False
        self._executor = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=multiprocessing.get_context(method),
            initializer=prepare_worker,
            initargs=(os.getpid(),),
        )
        # Submitting starts the processes now, so they load while the caller walks the repo.
        # They start with SIGINT blocked (a signal mask is inherited): Ctrl-C reaches the whole
        # process group, and a worker still importing would print a KeyboardInterrupt traceback.
        # The parent decides what Ctrl-C means; its workers end with it (`die_with_parent`).
        masked = hasattr(signal, "pthread_sigmask")
        if masked:
            old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            self._started = [self._executor.submit(os.getpid) for _ in range(workers)]
        finally:
            if masked:
                signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)

    def parse(
        self, files: list[SourceFile], cancelled: Callable[[], bool] | None = None
    ) -> Iterator[FileResult]:
        """Parse `files` in the workers, yielding each batch's results as it completes.

        At most `IN_FLIGHT_PER_WORKER` batches per worker are queued or running at once, and
        a batch's results are let go once yielded: the parent holds a bounded number of
        results whatever the repo's size (submitting every batch up front kept every
        finished batch's results alive in its future until the run ended).

        Stops (cancelling queued batches) when `cancelled` returns True.
        """
        todo = iter(batches(files, self.workers))
        running: set[Future[list[FileResult]]] = set()
        try:
            for batch in itertools.islice(todo, self.workers * IN_FLIGHT_PER_WORKER):
                running.add(self._executor.submit(parse_batch, batch))
            while running:
                done, running = wait(running, timeout=DEATH_CHECK_SECONDS, return_when=FIRST_COMPLETED)
                if not done:
                    if self._a_worker_died():
                        # killed mid-send (OOM, kill -9), a worker can leave the result pipe
                        # half-written: the executor then waits forever instead of breaking
                        self._broken = True
                        raise RuntimeError("a parser process died")
                    continue
                while done:
                    if cancelled is not None and cancelled():
                        return
                    more: list[Job] | None = next(todo, None)
                    if more is not None:  # keep the workers busy while this batch is stored
                        running.add(self._executor.submit(parse_batch, more))
                    results = done.pop().result()  # the future, and with it the results, let go
                    yield from results
                    del results
        finally:
            for fut in running:
                fut.cancel()

    def _processes(self) -> list[BaseProcess]:
        """The executor's worker processes (it keeps them in a private table)."""
        return list((getattr(self._executor, "_processes", None) or {}).values())

    def _a_worker_died(self) -> bool:
        return any(p.exitcode is not None for p in self._processes())

    def close(self) -> None:
        if self._broken:  # its manager thread may be stuck on a half-written result: end the workers
            for process in self._processes():
                process.kill()
            self._executor.shutdown(wait=False, cancel_futures=True)
            return
        self._executor.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> ParserPool:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class EarlyPool:
    """Starts a `ParserPool` as soon as a walk has found enough files to need one.

    Pass `on_file` to `walk`: the workers then start up while the walk goes on. With
    `known` (path -> (size, mtime_ns, ...) of the indexed files), only files that changed
    count: an update of a big repo starts one worker at its first changed file, which
    loads the parser and the tokenizer while the walk stats the rest.
    """

    def __init__(self, workers: int, threshold: int,
                 known: dict[str, tuple[int, int, str]] | None = None) -> None:
        self.workers = workers
        self.threshold = threshold
        self.known = known
        self.pool: ParserPool | None = None
        self._found = 0

    def on_file(self, file: SourceFile) -> None:
        if self.known is not None:
            old = self.known.get(file.path)
            if old is not None and old[0] == file.size and old[1] == file.mtime_ns:
                return  # unchanged: the walk's comparison will say so too
        self._found += 1
        if self._found == self.threshold:
            try:
                self.pool = ParserPool(self.workers)
            except (OSError, ValueError, RuntimeError) as exc:  # parsed without it later
                log.debug("parser pool unavailable (%s)", exc)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()


def batches(files: list[SourceFile], workers: int) -> list[list[Job]]:
    """Files in walk order, cut into batches of about equal bytes; biggest batches first.

    Neighbouring files share lines and names, which each worker's memos reuse,
    so a batch is a run of neighbours. A file bigger than the budget is a batch
    of its own, sent early; the last batches are the smallest, so the workers
    finish at nearly the same time.
    """
    budget = sum(f.size for f in files) // (workers * BATCHES_PER_WORKER) or 1
    out: list[list[Job]] = []
    batch: list[Job] = []
    size = 0
    sizes: list[int] = []
    for f in files:
        if batch and (size + f.size > budget or len(batch) >= CHUNK_MAX):
            out.append(batch)
            sizes.append(size)
            batch, size = [], 0
        batch.append(job(f))
        size += f.size
    if batch:
        out.append(batch)
        sizes.append(size)
    order = sorted(range(len(out)), key=sizes.__getitem__, reverse=True)
    return [out[i] for i in order]


def job(file: SourceFile) -> Job:
    return (file.path, file.abspath, file.mtime_ns, file.language.name)


#: Seconds between a worker's checks that its parent is still alive (the portable fallback).
PARENT_POLL_SECONDS = 0.5
_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def die_with_parent(parent_pid: int) -> None:
    """Make this worker process exit as soon as `parent_pid` is gone, however it died.

    Without this, a parent killed mid-index (`kill -9`, SIGTERM, a crashed UI)
    leaves its workers alive forever, re-parented to init, each holding its
    parser and tokenizer (~75 MB) and blocked writing results nobody reads.

    Linux: `prctl(PR_SET_PDEATHSIG, SIGKILL)` makes the kernel kill the worker
    when its parent exits. The signal is tied to the parent *thread* that
    started the worker (with `fork` and with `spawn` alike), not to the
    process: a pool must not outlive the thread that created it.

    Everywhere (and in case prctl is unavailable): a daemon thread checks every
    `PARENT_POLL_SECONDS` whether the parent is gone (on POSIX, `getppid()`
    changes once the parent dies; elsewhere, multiprocessing's parent sentinel
    is closed) and ends the process.
    """
    if sys.platform.startswith("linux"):
        _set_parent_death_signal()
    if _parent_gone(parent_pid):  # it died before the signal was armed
        os._exit(1)
    watcher = threading.Thread(
        target=_watch_parent, args=(parent_pid,), name="symscope-parent-watch", daemon=True
    )
    watcher.start()


def _set_parent_death_signal() -> bool:
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)) == 0
    except (OSError, AttributeError, TypeError):  # no libc symbol: the watcher thread still works
        return False


def _parent_gone(parent_pid: int) -> bool:
    if os.name == "posix":
        return os.getppid() != parent_pid
    import multiprocessing

    parent = multiprocessing.parent_process()
    return parent is not None and not parent.is_alive()


def _watch_parent(parent_pid: int) -> None:
    while not _parent_gone(parent_pid):
        time.sleep(PARENT_POLL_SECONDS)
    os._exit(1)


def prepare_worker(parent_pid: int | None = None) -> None:
    """Pool initializer: tie this worker's life to its parent's, silence stderr, then
    import the parser and load the tokenizer.

    A worker's stray warnings must not draw over a full-screen UI. The parent
    never imports tree-sitter or tiktoken to index in a pool: each worker does,
    in parallel, while the parent is still walking the repo.
    """
    if parent_pid is not None:
        die_with_parent(parent_pid)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    os.close(devnull)
    import symscope.core.ingest  # noqa: F401
    from symscope.core.tokens import warm_up

    warm_up()


def parse_batch(jobs: list[Job]) -> list[FileResult]:
    """Worker task: several files at once, to keep inter-process overhead low."""
    from symscope.core.ingest import ingest

    return [ingest(*job) for job in jobs]
