"""What an index run holds, and what a fresh process loads (issue 29: memory bounded, a
one-file refresh cheap): the parser pool keeps a bounded number of batches in flight,
an index-only process never loads the ranker, and the walk asks only folders that list
a .gitignore for one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from symscope.core import walk as walk_module
from symscope.core.walk import walk


def _many_files(root: Path, count: int) -> Path:
    for i in range(count):
        folder = root / f"pkg{i // 20:02}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"mod{i:03}.py").write_text(f"def handler_{i}(x):\n    return x + {i}\n")
    return root


def test_the_parser_pool_keeps_few_batches_in_flight_and_parses_every_file(tmp_path: Path) -> None:
    """Submitting every batch up front kept each finished batch's results alive until the run
    ended (the parent grew with the repo): now a bounded number is queued or running."""
    from symscope.core.workers import CHUNK_MAX, IN_FLIGHT_PER_WORKER, ParserPool, batches

    files = walk(_many_files(tmp_path / "repo", 160), max_files=None).files
    workers = 2
    total = len(batches(files, workers))
    bound = workers * IN_FLIGHT_PER_WORKER
    assert total > bound + 2 and CHUNK_MAX >= 1  # enough batches for the bound to matter
    with ParserPool(workers) as pool:
        submitted: list[str] = []
        real_submit = pool._executor.submit

        def counting_submit(fn: Any, *args: Any, **kwargs: Any) -> Any:
            submitted.append(fn.__name__)
            return real_submit(fn, *args, **kwargs)

        pool._executor.submit = counting_submit  # type: ignore[method-assign]
        ahead: list[int] = []
        names = set()
        for result in pool.parse(files):
            ahead.append(submitted.count("parse_batch"))
            names.add(result.path)
    assert names == {f.path for f in files}  # every file parsed, each once
    assert submitted.count("parse_batch") == total
    assert ahead[0] <= bound + 1  # the first results arrive before most batches are sent
    assert max(ahead) == total


def test_an_index_only_process_never_loads_the_ranker(sample_repo: Path, tmp_path: Path) -> None:
    """A fresh process that only refreshes (a one-file edit) skips numpy and the ranking code;
    searching afterwards in the same process loads them and finds what was indexed."""
    script = (
        "import sys\n"
        "from symscope.core.index import Index\n"
        f"index = Index.open({str(sample_repo)!r}, {str(tmp_path / 'idx')!r})\n"
        "report = index.update(processes=1)\n"
        "loaded = sorted(m for m in ('numpy', 'symscope.core.search.searcher') if m in sys.modules)\n"
        "hit = index.search('add route')[0].symbol.qualname\n"
        "print(report.parsed, loaded, hit, 'numpy' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    parsed, loaded, hit, after = out.stdout.split()
    assert int(parsed) > 0
    assert loaded == "[]"
    assert hit == "Router.add_route" and after == "True"


def test_a_refresh_after_searching_brings_the_searchers_own_term_index_up_to_date(
        sample_repo: Path, tmp_path: Path) -> None:
    """Once a searcher is in use, an update syncs its term index, so the next search sees the edit."""
    from symscope.core.index import Index

    with Index.open(sample_repo, tmp_path / "idx") as ix:
        ix.update(processes=1)
        assert not [h for h in ix.search("zebra probe marker") if h.symbol.name == "zebra_probe_marker"]
        with (sample_repo / "lib" / "router.py").open("a") as f:
            f.write("\n\ndef zebra_probe_marker():\n    return 1\n")
        report = ix.update(processes=1)
        assert report.parsed == 1
        assert ix.search("zebra probe marker")[0].symbol.name == "zebra_probe_marker"


def test_the_walk_reads_a_gitignore_only_where_a_folder_lists_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _many_files(tmp_path / "repo", 60)  # pkg00, pkg01, pkg02
    (root / "pkg01" / ".gitignore").write_text("mod03*.py\n")
    asked: list[str] = []
    real = walk_module._load_ignore

    def spy(dirpath: str, rel_dir: str) -> Any:
        asked.append(rel_dir)
        return real(dirpath, rel_dir)

    monkeypatch.setattr(walk_module, "_load_ignore", spy)
    found = walk(root, max_files=None)
    assert asked == ["pkg01"]
    paths = {f.path for f in found.files}
    assert "pkg01/mod030.py" not in paths and "pkg01/mod029.py" in paths  # its rules still apply
    assert len(paths) == 60 - 10


def test_an_update_of_a_big_repo_parses_its_few_changes_in_a_head_start_process(tmp_path: Path) -> None:
    """Past `HEAD_START_FILES`, one parser process starts at the first changed file the walk
    finds (loading the parser while the walk goes on): the parent never loads tree-sitter or
    tiktoken, and the change is indexed as inline parsing would index it. A walk that finds
    nothing changed starts no process at all."""
    root = _many_files(tmp_path / "repo", 60)
    script = (
        "import sys\n"
        "import symscope.core.indexer as ixr\n"
        "from symscope.core.index import Index\n"
        "ixr.HEAD_START_FILES = 10\n"
        f"index = Index.open({str(root)!r}, {str(tmp_path / 'idx')!r})\n"
        "nothing = index.update(processes=2)\n"
        "idle = 'multiprocessing' in sys.modules\n"
        f"open({str(root / 'pkg01' / 'mod025.py')!r}, 'a').write('\\n\\ndef zebra_probe_marker():\\n    return 1\\n')\n"
        "report = index.update(processes=2)\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('tree_sitter', 'tiktoken'))\n"
        "hit = index.search('zebra probe marker')[0].symbol\n"
        "print(nothing.parsed, idle, report.parsed, report.files, ','.join(heavy) or '-', hit.path, hit.name)\n"
    )
    first = subprocess.run([sys.executable, "-c", f"from symscope.core.index import Index\n"
                            f"Index.open({str(root)!r}, {str(tmp_path / 'idx')!r}).update(processes=1)"],
                           capture_output=True, text=True, check=True)
    assert first.returncode == 0
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    nothing, idle, parsed, files, heavy, path, name = out.stdout.split()
    assert (nothing, idle) == ("0", "False")  # nothing changed: no process, no pool machinery
    assert (parsed, files) == ("1", "60")
    assert heavy == "-"  # parsed in the head-start process
    assert (path, name) == ("pkg01/mod025.py", "zebra_probe_marker")
