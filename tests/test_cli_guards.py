"""The CLI's guards: absurd roots, file limits, a healthy index never set aside, safe text output."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest

from symscope.cli import main as cli
from symscope.core.index import Index
from tests.conftest import WriteRepo


def test_root_and_home_are_refused_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    (home / "proj").mkdir(parents=True)
    (home / "proj" / "a.py").write_text("def f():\n    pass\n")
    monkeypatch.setenv("HOME", str(home))
    for repo in ("/", str(home)):
        code = cli.main(["search", "x", "--repo", repo, "--index-dir", str(tmp_path / "idx")])
        err = capsys.readouterr().err
        assert code == cli.EXIT_ERROR and err.startswith("symscope: error: ") and err.count("\n") == 1
        assert "--allow-any-root" in err
    assert not (tmp_path / "idx" / "index.sqlite").exists() or Index.open(
        home, tmp_path / "idx").stats().files == 0
    assert cli.main(["index", str(home), "--allow-any-root", "--index-dir", str(tmp_path / "idx2")]) == 0
    assert "files 1" in capsys.readouterr().out


def test_max_files_stops_the_index_with_a_clear_message(write_repo: WriteRepo, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    root = write_repo({f"m{i}.py": f"def f{i}():\n    pass\n" for i in range(5)})
    code = cli.main(["index", str(root), "--max-files", "3", "--index-dir", str(tmp_path / "idx")])
    err = capsys.readouterr().err
    assert code == cli.EXIT_ERROR and "--max-files" in err and err.count("\n") == 1
    assert cli.main(["index", str(root), "--max-files", "10", "--index-dir", str(tmp_path / "idx"),
                     "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["files"] == 5


def test_rebuild_never_sets_a_healthy_index_aside(write_repo: WriteRepo, tmp_path: Path) -> None:
    root = write_repo({"a.py": "def alpha():\n    pass\n"})
    idx = tmp_path / "idx"
    with Index.open(root, idx) as index:
        index.update(processes=1)
    db = idx / "index.sqlite"
    before = db.read_bytes()
    with Index.open(root, idx, discard_corrupt=True) as index:
        assert index.stats().symbols == 1
    assert db.read_bytes() == before and not (idx / "index.sqlite.corrupt").exists()


HOSTILE = (
    '"""Doc \x1b]0;pwned\x07 title."""\n\n'
    "def evil_name(x):  # \x1b]52;c;cHduZWQ=\x07 clip \x1b[2J clear \x1b[6n dsr\n"
    "    return 'adm\u200din \u202egnp.exe'\n"
)


def _run_on_tty(args: list[str]) -> bytes:
    """Run the CLI with its stdout on a pseudo-terminal, as a person would see it."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "symscope.cli", *args], stdout=follower,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    os.close(follower)
    out = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 30)
        if not ready:
            break
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    proc.wait(timeout=30)
    os.close(leader)
    assert proc.returncode == 0, proc.stderr.read() if proc.stderr else b""
    return out


@pytest.mark.parametrize("command", ["search", "show", "outline"])
def test_text_output_on_a_terminal_carries_no_control_or_bidi_characters(
    write_repo: WriteRepo, tmp_path: Path, command: str
) -> None:
    root = write_repo({"evil\x1b]0;t\x07.py": HOSTILE})
    common = ["--repo", str(root), "--index-dir", str(tmp_path / "idx")]
    target = {"search": ["evil name"], "outline": ["."],
              "show": ["evil\x1b]0;t\x07.py::evil_name#function"]}[command]
    out = _run_on_tty([command, *target, *common]).decode("utf-8")
    text = out.replace("\r\n", "\n")  # the terminal's own line discipline
    bad = [c for c in text if (ord(c) < 32 and c not in "\t\n") or 0x7F <= ord(c) < 0xA0
           or c in "\u200d\u202e"]
    assert bad == [], repr(text)
    assert "\\x1b" in text  # shown, not hidden


def test_json_output_escapes_bidi_and_zero_width_but_stays_exact(write_repo: WriteRepo, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    root = write_repo({"evil.py": HOSTILE})
    common = ["--repo", str(root), "--index-dir", str(tmp_path / "idx"), "--json"]
    assert cli.main(["show", "evil.py::evil_name#function", *common]) == 0
    raw = capsys.readouterr().out
    assert "\u202e" not in raw and "\u200d" not in raw and "\x1b" not in raw
    assert "\\u202e" in raw and "\\u001b" in raw
    source = json.loads(raw)["source"]
    assert source == (root / "evil.py").read_bytes().decode()[HOSTILE.index("def"):].rstrip("\n")
