"""`symscope bundle`: the paste-ready text on stdout or in a private file, JSON, budgets, secrets."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from symscope.cli import main as cli
from symscope.core.tokens import count_tokens
from tests.conftest import WriteRepo
from tests.test_secrets import AWS_KEY, GITHUB_TOKEN, IDS, KEY_BODY, PASSWORD, SECRETS


@pytest.fixture
def secret_repo(write_repo: WriteRepo, tmp_path: Path) -> list[str]:
    root = write_repo(dict(SECRETS))
    return ["--repo", str(root), "--index-dir", str(tmp_path / "idx")]


def test_json_has_the_issue_shape_and_redacts_four_secrets(
    secret_repo: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["bundle", *IDS, "--json", *secret_repo]) == 0
    data = json.loads(capsys.readouterr().out)
    assert list(data) == ["text", "tokens", "budget", "items", "dropped", "redacted"]
    assert data["redacted"] == 4 and data["tokens"] == count_tokens(data["text"])
    for secret in (AWS_KEY, GITHUB_TOKEN, KEY_BODY.splitlines()[0], PASSWORD):
        assert secret not in data["text"]
    assert [i["id"] for i in data["items"]] == IDS
    assert all(set(i) == {"id", "detail", "tokens", "reason"} for i in data["items"])


def test_no_redact_keeps_every_secret(secret_repo: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["bundle", *IDS, "--no-redact", *secret_repo]) == 0
    out = capsys.readouterr()
    for secret in (AWS_KEY, GITHUB_TOKEN, KEY_BODY.splitlines()[0], PASSWORD):
        assert secret in out.out
    assert "0 secrets redacted" in out.err


def test_out_file_is_private_and_the_summary_goes_to_stderr(
    secret_repo: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "prompt.md"
    target.write_text("old")
    target.chmod(0o644)
    assert cli.main(["bundle", *IDS, "--out", str(target), *secret_repo]) == 0
    out = capsys.readouterr()
    assert out.out == "" and "4 secrets redacted" in out.err and out.err.count("\n") == 1
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert "«redacted:" in target.read_text()


def test_budget_is_exact_and_too_small_is_one_line(secret_repo: list[str],
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["bundle", *IDS, "--budget", "120", "--json", *secret_repo]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["budget"] == 120 and count_tokens(data["text"]) == data["tokens"] <= 120
    assert data["dropped"] or any(i["detail"] != "full" for i in data["items"])
    assert cli.main(["bundle", *IDS, "--budget", "3", *secret_repo]) == cli.EXIT_ERROR
    err = capsys.readouterr().err
    assert err.startswith("symscope: error: ") and err.count("\n") == 1


def test_bad_input_is_one_line(secret_repo: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    for args, code in ((["nope.py::x#function"], cli.EXIT_ERROR), ([], cli.EXIT_USAGE),
                       ([IDS[0], "--diff"], cli.EXIT_ERROR), ([IDS[0], "--deps", "9"], cli.EXIT_USAGE)):
        try:
            got = cli.main(["bundle", *args, *secret_repo])
        except SystemExit as usage:  # argparse's own refusal (a number out of range)
            got = int(usage.code or 0)
        assert got == code, args
        err = capsys.readouterr().err
        assert err.startswith("symscope: error: ") and err.count("\n") == 1, (args, err)


def test_bundle_command_loads_no_ui(secret_repo: list[str]) -> None:
    script = (
        "import contextlib, io, sys\n"
        "from symscope.tui import launch\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert launch.main(['bundle', {IDS[1]!r}, *{secret_repo!r}]) == 0\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_deps_come_at_signature_level_unless_deps_level_full(
    write_repo: WriteRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = "".join(f"        step{n} = value * {n} + len(str(value)) - {n}\n" for n in range(12))
    root = write_repo({"calc.py": (
        "class Calculator:\n    \"\"\"Adds things up.\"\"\"\n\n"
        f"    def total(self, value):\n{body}        return value\n\n"
        f"    def mean(self, value):\n{body}        return value / 2\n\n\n"
        "def run(value):\n    return Calculator().total(value)\n")})
    where = ["--repo", str(root), "--index-dir", str(tmp_path / "idx"), "--json"]
    texts = {}
    for level in ("signature", "full", None):
        args = ["bundle", "calc.py::run#function", "--deps", "1", *where]
        assert cli.main(args + (["--deps-level", level] if level else [])) == 0
        data = json.loads(capsys.readouterr().out)
        assert data["items"][0] == {"id": "calc.py::run#function", "detail": "full",
                                    "tokens": data["items"][0]["tokens"], "reason": "added"}
        assert {i["detail"] for i in data["items"][1:]} == {level or "signature"}
        assert data["tokens"] == count_tokens(data["text"])
        assert f"# Code context: {len(data['items'])} items, {data['tokens']} tokens\n" in data["text"]
        texts[level] = data
    assert texts[None] == texts["signature"]  # signature is the default
    assert texts["signature"]["tokens"] * 2 < texts["full"]["tokens"]
    assert "Dependencies of item 1 (run): items 2" in texts["signature"]["text"]
    with pytest.raises(SystemExit) as caught:
        cli.main(["bundle", "calc.py::run#function", "--deps-level", "everything", *where])
    assert caught.value.code == 2 and "invalid choice" in capsys.readouterr().err
