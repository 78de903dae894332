"""Drive the real app with Pilot on a pinned real repository and save its screenshots.

    python -m screenshots.make [--repo PATH] [--out DIR]
    python -m screenshots.make --sample [--out DIR]

By default the pictures are of gin at the commit the benchmarks pin
(`screenshots.corpus`), read from `benchmarks/corpora/gin`, so the savings panel
shows a real repository's savings; a folder that is missing or is not that corpus
is refused with one line saying how to get it (nothing is downloaded). `--sample`
uses the 10-file fixture repo instead, for a quick run, and writes to a temporary
folder unless `--out` is given. The index goes to a temporary folder. Writes SVGs
(and PNGs, if cairosvg is importable), and prints for each picture the figures
its counters and savings panel show, read from the app:

* main.svg    - search results, the chosen symbol's source, the counters;
* bundle.svg  - a bundle of real symbols, one added with its dependencies, with the
  live counters and the savings panel (against the files and the whole repo);
* related.svg - the Related pane (uses, used by) of a method added with its dependencies;
* help.svg    - the key-binding help screen.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

from screenshots import corpus
from screenshots.scenes import GIN_SCENES, SAMPLE_SCENES, Scene, settle
from symscope.core.api import Workspace, for_terminal
from symscope.tui import formatting as fmt
from symscope.tui.app import SymscopeApp
from symscope.tui.widgets.counters import Counters, SymbolCost

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SAMPLE_REPO = ROOT / "tests" / "fixtures" / "sample_repo"
#: Where the benchmarks keep their corpora (the Makefile's CORPORA).
DEFAULT_REPO = ROOT / "benchmarks" / "corpora" / corpus.NAME
SAMPLE_OUT = Path(tempfile.gettempdir()) / "symscope-screenshots-sample"


def figures(app: SymscopeApp) -> list[str]:
    """The savings the picture shows: the current symbol's line and the bundle's, as numbers."""
    lines = []
    current = app.query_one(Counters).current
    if isinstance(current, SymbolCost):
        s = current.savings
        lines.append(f"symbol {current.name}: {fmt.tokens(s.tokens)} tok, whole file "
                     f"{fmt.tokens(s.file_tokens)} tok ({fmt.ratio(s.vs_file_ratio)} smaller)")
    state = app.bundled
    if state.count:
        s = state.text_savings  # the exact count of the text `c` copies: what every figure shows
        lines.append(
            f"bundle {state.count} item{'s' if state.count != 1 else ''}: {fmt.tokens(s.tokens)} tok "
            f"(the copied text; code only {fmt.tokens(state.savings.tokens)}); vs files "
            f"{fmt.tokens(s.file_tokens)} tok ({fmt.ratio(s.vs_file_ratio)}, {fmt.saved(s.vs_file_saved_pct)}); "
            f"vs repo {fmt.tokens(s.repo_tokens)} tok ({fmt.ratio(s.vs_repo_ratio)}, {fmt.saved(s.vs_repo_saved_pct)})")
        if state.packing is not None and state.packing.budget:
            lines.append(f"budget {fmt.tokens(state.packing.budget)}")
    return [for_terminal(line) for line in lines]


async def shoot(repo: Path, index_dir: Path, name: str, size: tuple[int, int], scene: Scene,
                out: Path) -> tuple[Path, list[str]]:
    """Run `scene` in a fresh app on the built index; the SVG written and the figures shown."""
    ws = Workspace.open(repo, index_dir, ensure=False)
    app = SymscopeApp(ws, clipboard=lambda text: "none", processes=1, save_dir=index_dir)
    try:
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            await scene(pilot)
            app.clear_notifications()
            await pilot.pause(0.1)
            svg = app.export_screenshot(title=f"symscope · {repo.name}")
            shown = figures(app)
    finally:
        ws.close()
    target = out / f"{name}.svg"
    target.write_text(svg, encoding="utf-8")
    return target, shown


def _to_png(svg: Path) -> Path | None:
    try:
        import cairosvg  # type: ignore[import-not-found, import-untyped, unused-ignore]
    except ImportError:
        return None
    png = svg.with_suffix(".png")
    cairosvg.svg2png(url=str(svg), write_to=str(png), output_width=1600)
    return png


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m screenshots.make",
        description=f"Save symscope TUI screenshots of {corpus.REPOSITORY} at {corpus.COMMIT[:12]}.")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--repo", type=Path, default=DEFAULT_REPO,
                       help=f"the pinned {corpus.NAME} corpus (default: {DEFAULT_REPO.relative_to(ROOT)})")
    which.add_argument("--sample", action="store_true",
                       help="use the small fixture repo instead (a quick run)")
    parser.add_argument("--out", type=Path, default=None,
                        help=f"where to write (default: {HERE.relative_to(ROOT)}/, with --sample {SAMPLE_OUT})")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    if args.sample:
        repo, shots, out = SAMPLE_REPO, SAMPLE_SCENES, args.out or SAMPLE_OUT
    else:
        repo, shots, out = args.repo, GIN_SCENES, args.out or HERE
        problem = corpus.check(repo)
        if problem is not None:
            print(for_terminal(problem), file=sys.stderr)
            return 2
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="symscope-shots-") as tmp:
        index_dir = Path(tmp) / "index"
        with Workspace.open(repo, index_dir, ensure=False) as ws:
            ws.refresh(processes=1)
        png_missing = False
        for name, size, scene in shots:
            (index_dir / "bundle.json").unlink(missing_ok=True)  # each scene starts empty
            svg, shown = asyncio.run(shoot(repo, index_dir, name, size, scene, out))
            png = _to_png(svg)
            png_missing = png_missing or png is None
            print(for_terminal(f"wrote {svg}" + (f" and {png.name}" if png else "")))
            for line in shown:
                print(f"  {line}")
        if png_missing:
            print("PNG skipped: cairosvg is not installed (pip install cairosvg to get PNGs)",
                  file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
