"""`symscope index` names its phase on stderr when stderr is a terminal (issue 29, point 4),
and prints exactly what it printed before to a pipe, a log file or a `--json` reader."""

from __future__ import annotations

import io
import json
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest

from symscope.cli.main import main
from symscope.cli.output import ProgressLine
from symscope.core.models import IndexProgress

FILES = 60


def _repo(root: Path) -> Path:
    for i in range(FILES):
        folder = root / f"pkg{i % 3}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"mod{i}.py").write_text(f"def fn_{i}(x):\n    return x + {i}\n")
    return root


class Terminal(io.StringIO):
    """A stderr that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def test_on_a_terminal_the_phases_show_then_the_line_is_erased(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path / "repo")
    monkeypatch.setattr(ProgressLine, "INTERVAL", 0.0)  # every post is written
    err = Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    assert main(["index", str(repo), "--index-dir", str(tmp_path / "idx")]) == 0
    written = err.getvalue()
    shown = [part.rstrip() for part in written.split("\r") if part.strip()]
    assert shown[0] == "walking… 0 files" and f"walking… {FILES} files" in shown
    assert [s for s in shown if s.startswith("parsing")] == [f"parsing {n} / {FILES}" for n in range(1, FILES + 1)]
    assert shown[-1] == "building search data…"
    assert written.endswith("\r" + " " * len("building search data…") + "\r")  # erased
    assert "\n" not in written
    assert capsys.readouterr().out.startswith("indexed ")  # stdout as before


def test_to_a_pipe_stderr_stays_empty(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repo(tmp_path / "repo")
    assert main(["index", str(repo), "--index-dir", str(tmp_path / "idx"), "--json"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    assert json.loads(captured.out)["parsed"] == FILES


def test_a_real_terminal_sees_the_phases_and_stdout_is_unchanged_json(tmp_path: Path) -> None:
    """A real pty on stderr (as in a shell), stdout piped to a JSON reader."""
    repo = _repo(tmp_path / "repo")
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "symscope.cli", "index", str(repo), "--index-dir",
                             str(tmp_path / "idx"), "--json"], stdout=subprocess.PIPE, stderr=follower)
    os.close(follower)
    seen = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the process closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    out, _ = proc.communicate(timeout=60)
    os.close(leader)
    assert proc.returncode == 0
    assert json.loads(out)["parsed"] == FILES
    text = seen.decode()
    assert "walking… 0 files" in text and "building search data…" in text
    assert text.endswith("\r")  # erased before the process ended


def test_the_line_waits_its_interval_within_a_phase() -> None:
    err = Terminal()
    line = ProgressLine(err)
    for n in range(1, 1001):
        line(IndexProgress(n, 1000, "x.py"))
    line(IndexProgress(0, 1, "", "rank"))
    shown = [part.rstrip() for part in err.getvalue().split("\r") if part.strip()]
    assert shown[0] == "parsing 1 / 1,000" and shown[-1] == "building search data…"
    assert len(shown) < 50  # a burst of small files is not a write each
