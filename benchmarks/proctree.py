"""Wall time, CPU time and peak memory of a command's whole process tree (its parser workers included).

`resource.getrusage(RUSAGE_CHILDREN)` reports the largest single process, not the sum of a
parent and its workers alive at once, so the tree's resident memory is summed from /proc
every few milliseconds while the command runs (Linux; elsewhere only the child's own peak).
"""

from __future__ import annotations

import contextlib
import os
import resource
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


@dataclass(frozen=True)
class Run:
    """One finished command: wall seconds, peak RSS of its tree (MB, sampled), its stdout, and
    the CPU seconds (user + system) of its whole tree: on a shared machine, where wall time
    depends on what else runs, the CPU a job costs still compares like with like."""

    seconds: float
    tree_mb: float
    stdout: str
    cpu_s: float = 0.0


def _children() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        kids.setdefault(ppid, []).append(int(entry.name))
    return kids


def tree_rss(pid: int) -> int:
    """Bytes resident in `pid` and all its descendants now (0 once it is gone)."""
    kids = _children()
    total, stack = 0, [pid]
    while stack:
        current = stack.pop()
        with contextlib.suppress(OSError, ValueError, IndexError):  # it ended meanwhile
            total += int(Path(f"/proc/{current}/statm").read_text().split()[1]) * _PAGE
        stack += kids.get(current, [])
    return total


def run(cmd: Sequence[str], env: dict[str, str] | None = None, interval: float = 0.02) -> Run:
    """Run `cmd` to the end, sampling its tree's memory; raise with its stderr if it fails."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(list(cmd), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **(env or {})})
    peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            if os.path.isdir("/proc"):
                peak = max(peak, tree_rss(proc.pid))
            done.wait(interval)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    stdout, stderr = proc.communicate()
    seconds = time.perf_counter() - start
    done.set()
    sampler.join()
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd[:4]} failed ({proc.returncode}): {stderr.strip()[-2000:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # counts descendants once reaped
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return Run(seconds, peak / 2**20, stdout, round(cpu, 2))
