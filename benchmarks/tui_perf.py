"""TUI responsiveness on a real corpus, driven with Textual's Pilot.

    python -m benchmarks.tui_perf [REPO]   (default: $SYMSCOPE_CORPORA/fastapi)

Prints two figures, with a warm index (built first if missing):

* first full screen: from a fresh interpreter's start (imports included) to the
  first frame with the file tree populated (target <= 1.5 s);
* search latency: from a keystroke in the search box to its results being on
  screen, over every prefix of a few queries (target <= 100 ms).
"""

from __future__ import annotations

import time

PROCESS_START = time.perf_counter()

import argparse  # noqa: E402  (timed from before the imports, like a user's launch)
import asyncio  # noqa: E402
import os  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

#: Where the corpora live when no REPO is given (see benchmarks/README or corpora.md).
CORPORA_ENV = "SYMSCOPE_CORPORA"
QUERIES = ("dependency injection", "oauth2 password bearer", "APIRouter include", "validation error")
SIZE = (160, 48)


async def _first_screen(repo: Path, index_dir: str | None, started: float) -> tuple[float, int]:
    from symscope.core.index import Index
    from symscope.tui.app import STARTUP_UPDATE_DELAY, SymscopeApp
    from symscope.tui.widgets import RepoTree

    index = Index.open(repo, index_dir)
    app = SymscopeApp(index, clipboard=lambda text: "none", update_delay=STARTUP_UPDATE_DELAY)
    try:
        async with app.run_test(size=SIZE):
            tree = app.query_one(RepoTree)
            while tree.file_count == 0:
                await asyncio.sleep(0.002)
            painted: asyncio.Future[float] = asyncio.get_running_loop().create_future()
            app.call_after_refresh(lambda: painted.set_result(time.perf_counter()))
            elapsed = await painted - started  # the first frame with the tree on screen
            files = tree.file_count
            await app.workers.wait_for_complete()
    finally:
        index.close()
    return elapsed, files


async def _search_latency(repo: Path, index_dir: str | None) -> list[float]:
    from symscope.core.index import Index
    from symscope.tui.app import SymscopeApp
    from symscope.tui.widgets import SearchPane

    index = Index.open(repo, index_dir)
    app = SymscopeApp(index, clipboard=lambda text: "none")
    samples: list[float] = []
    try:
        async with app.run_test(size=SIZE) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            pane = app.query_one(SearchPane)
            for query in QUERIES:
                await pilot.press("ctrl+u") if app.focused is pane.input else await pilot.press("slash")
                for char in query:
                    before = pane.value
                    t0 = time.perf_counter()
                    app.simulate_key(char)  # as a terminal would: no waiting in between
                    while pane.value == before:
                        await asyncio.sleep(0.0005)
                    while pane.shown_query != pane.value:
                        await asyncio.sleep(0.0005)
                    painted: asyncio.Future[float] = asyncio.get_running_loop().create_future()
                    app.call_after_refresh(lambda done=painted: done.set_result(time.perf_counter()))
                    t1 = await painted  # the frame with the results is on screen
                    if char != " ":
                        samples.append(t1 - t0)
                    await pilot.pause(0.05)  # a typist's gap between keys
    finally:
        index.close()
    return samples


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = os.environ.get(CORPORA_ENV)
    parser.add_argument("repo", nargs="?", default=str(Path(default) / "fastapi") if default else None,
                        help=f"the repo to open (default: ${CORPORA_ENV}/fastapi)")
    parser.add_argument("--index-dir", default=None)
    parser.add_argument("--first-screen-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.repo is None:
        parser.error(f"give REPO, or set {CORPORA_ENV} to the folder holding fastapi/")
    repo = Path(args.repo)
    if not repo.is_dir():
        print(f"no such repo: {repo}", file=sys.stderr)
        return 1
    if args.first_screen_only:  # run in a fresh interpreter: the figure includes imports
        elapsed, files = asyncio.run(_first_screen(repo, args.index_dir, PROCESS_START))
        print(f"{elapsed:.4f} {files}")
        return 0

    from symscope.core.index import Index

    with Index.open(repo, args.index_dir) as index:
        if not index.is_built:
            print(f"building the index of {repo} first…")
        index.update()  # warm: later updates parse nothing

    cmd = [sys.executable, "-m", "benchmarks.tui_perf", str(repo), "--first-screen-only"]
    if args.index_dir:
        cmd += ["--index-dir", args.index_dir]
    runs = []
    for _ in range(3):
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.split()
        runs.append(float(out[0]))
    first, files = min(runs), int(out[1])
    samples = asyncio.run(_search_latency(repo, args.index_dir))
    ms = sorted(s * 1000 for s in samples)
    p95 = ms[min(len(ms) - 1, int(len(ms) * 0.95))]
    print(f"repo: {repo} ({files:,} indexed files), terminal {SIZE[0]}x{SIZE[1]}")
    print(f"first full screen: {first:.2f} s from process start, imports included "
          f"(best of {len(runs)}: {', '.join(f'{r:.2f}' for r in runs)})  (target <= 1.5 s)")
    print(f"search results after a keystroke: median {statistics.median(ms):.0f} ms, "
          f"p95 {p95:.0f} ms, max {ms[-1]:.0f} ms over {len(ms)} keystrokes  (target <= 100 ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
