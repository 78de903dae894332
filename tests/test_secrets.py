"""Secrets in bundles: found by detect-secrets' plugins, redacted before the count, offline."""

from __future__ import annotations

import re
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from symscope.core.bundle import build_bundle
from symscope.core.index import Index
from symscope.core.json_shapes import bundle_json
from symscope.core.secrets import (
    FORMATS,
    PLUGINS,
    count_secrets,
    describe,
    find_secrets,
    marker,
    redact,
)
from symscope.core.tokens import count_tokens
from tests.planted_secrets import SAMPLES, plant

AWS_KEY = "AKIAIOSFODNN7EXAMPLE"
GITHUB_TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
KEY_BODY = ("MIIEowIBAAKCAQEAx4Jvq8mN0pQ3rS5tU7vW9yZ1aB3cD5eF7gH9iJ1kL3mN5oP7\n"
            "qR9sT1uV3wX5yZ7aB9cD1eF3gH5iJ7kL9mN1oP3qR5sT7uV9wX1yZ3aB5cD7eF9g")
PRIVATE_KEY = f"-----BEGIN RSA PRIVATE KEY-----\n{KEY_BODY}\n-----END RSA PRIVATE KEY-----"
PASSWORD = "hunter2-Tr0ub4dor&3"
SECRETS = {
    "config.py": f'''\
AWS_ACCESS_KEY_ID = "{AWS_KEY}"


def github_client():
    """Talk to GitHub."""
    token = "{GITHUB_TOKEN}"
    return token


SIGNING_KEY = """{PRIVATE_KEY}"""


def connect(host):
    password = "{PASSWORD}"
    return (host, password)
''',
}
IDS = ["config.py::AWS_ACCESS_KEY_ID#constant", "config.py::github_client#function",
       "config.py::SIGNING_KEY#constant", "config.py::connect#function"]


@pytest.fixture
def index(tmp_path: Path) -> Iterator[Index]:
    root = tmp_path / "repo"
    root.mkdir()
    for rel, text in SECRETS.items():
        (root / rel).write_text(text)
    ix = Index.open(root, index_dir=tmp_path / "idx")
    ix.update(processes=1)
    yield ix
    ix.close()


def _leaks(text: str) -> list[str]:
    return [s for s in (AWS_KEY, GITHUB_TOKEN, PASSWORD, *KEY_BODY.splitlines()) if s in text]


@pytest.mark.parametrize("fmt", ["markdown", "xml"])
def test_a_bundle_with_four_secrets_contains_none_and_reports_four(index: Index, fmt: str) -> None:
    assert {s.id for s in index.all_symbols()} >= set(IDS)
    result = build_bundle(index, IDS, fmt=fmt)  # type: ignore[arg-type]
    assert _leaks(result.text) == []
    assert result.redacted == 4 and bundle_json(result)["redacted"] == 4
    assert sorted(r.label for r in result.redactions) == [
        "AWS access key", "GitHub token", "password or secret", "private key"]
    for r in result.redactions:
        assert marker(r.label) in result.text
    lines = {r.label: r.line for r in result.redactions}
    assert lines == {"AWS access key": 1, "GitHub token": 6, "private key": 10, "password or secret": 17}
    # The count is of the text as output, markers included.
    assert result.tokens == count_tokens(result.text)


def test_no_redact_keeps_every_secret(index: Index) -> None:
    result = build_bundle(index, IDS, redact=False)
    assert len(_leaks(result.text)) == 5 and PRIVATE_KEY in result.text
    assert result.redacted == 0 and "«redacted" not in result.text


def test_one_secret_can_be_kept_on_purpose(index: Index) -> None:
    first = build_bundle(index, IDS)
    github = next(r for r in first.redactions if r.label == "GitHub token")
    kept = build_bundle(index, IDS, keep={github.fingerprint})
    assert GITHUB_TOKEN in kept.text and kept.redacted == 3
    assert AWS_KEY not in kept.text


def test_redaction_happens_before_the_budget_count(index: Index) -> None:
    full = build_bundle(index, IDS)
    result = build_bundle(index, IDS, budget=full.tokens - 5)
    assert result.tokens == count_tokens(result.text) <= full.tokens - 5
    assert _leaks(result.text) == []


def test_control_characters_are_made_visible_and_counted(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "esc.py").write_text('def title():\n    return "\x1b]0;pwned\x07"\n')
    with Index.open(root, index_dir=tmp_path / "idx") as ix:
        ix.update(processes=1)
        result = build_bundle(ix, ["esc.py::title#function"])
    assert "\x1b" not in result.text and "\x07" not in result.text
    assert '"\\x1b]0;pwned\\x07"' in result.text and result.controls == 2


def test_detectors_find_formats_and_secret_assignments_only() -> None:
    jwt = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIn0."
           "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c")
    text = (
        f'session = "{jwt}"\n'
        'slack = "xoxb-123456789012-1234567890123-abcdefghijABCDEFGHIJ1234"\n'
        'api_token = "8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c"\n'
        'url = "https://user:s3cr3tP4ss@example.com/x"\n'
        # Not secrets: a hash constant, templates, indirect reads, a sequence.
        'RANKS_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"\n'
        'password = "{password}"\n'
        'password = get_password()\n'
        'secret = "abcdefghijklmnop"\n'
    )
    found = find_secrets(text, "settings.py")
    assert [(f.line, f.label) for f in found] == [
        (1, "JSON web token"), (2, "Slack token"), (3, "high-entropy secret"), (4, "password in a URL")]
    assert text[found[0].start : found[0].end] == jwt  # the signature part too
    cleaned, replaced = redact(text, "settings.py")
    assert jwt not in cleaned and "s3cr3tP4ss" not in cleaned and len(replaced) == 4
    assert "https://user:«redacted: password in a URL»@example.com" in cleaned


def test_a_private_key_without_its_end_line_is_redacted_through_its_body() -> None:
    text = 'KEY = ("-----BEGIN PRIVATE KEY-----\\n"\n' + "".join(
        f'       "{line}\\n"\n' for line in KEY_BODY.splitlines()) + ")\nafter = 1\n"
    cleaned, found = redact(text)
    assert [f.label for f in found] == ["private key"]
    assert all(line not in cleaned for line in KEY_BODY.splitlines())
    assert cleaned.endswith(")\nafter = 1\n")


def test_scanning_never_touches_the_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("network used")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    text = f'aws = "{AWS_KEY}"\naws_secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"\ntoken = "{GITHUB_TOKEN}"\n'
    assert len(find_secrets(text, "x.py")) == 3


README = Path(__file__).resolve().parent.parent / "README.md"
PROJECT = Path(__file__).resolve().parent.parent


def readme_secret_rows() -> dict[str, str]:
    """{key type: marker label} from the table under the README's `### Secrets` heading."""
    text = README.read_text(encoding="utf-8")
    section = text.split("\n### Secrets\n", 1)[1]
    section = re.split(r"\n#{1,3} ", section, maxsplit=1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")][2:]  # after header, rule
    out: dict[str, str] = {}
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        out[cells[0]] = cells[-1].strip("`")
    return out


def test_the_readme_table_names_every_planted_type_and_every_marker() -> None:
    rows = readme_secret_rows()
    assert len(rows) >= 25
    assert set(rows) == {s.row for s in SAMPLES}
    labels = {label for *_, label in PLUGINS} | {label for label, _ in FORMATS}
    assert set(rows.values()) == labels


@pytest.mark.parametrize("row", sorted(readme_secret_rows()))
def test_every_readme_row_is_redacted_in_every_context(row: str) -> None:
    label = readme_secret_rows()[row]
    samples = [s for s in SAMPLES if s.row == row]
    assert samples, f"no planted example of {row!r}"
    for sample in samples:
        for where in sample.where:
            filename, text = plant(sample, where)
            cleaned, found = redact(text, filename)
            leaked = [h for h in sample.hidden() if h in cleaned]
            assert not leaked, f"{row} in {where}: {leaked[0][:30]}… survived"
            assert [f.label for f in found] == [label], (row, where)
            assert marker(label) in cleaned
            assert count_secrets(text, filename) == 1


def test_unquoted_config_values_count_only_after_a_secret_name() -> None:
    env = ("BUILD_SHA=8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a\n"
           "API_TOKEN=8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a\n"
           "DATABASE_PASSWORD=${DB_PASSWORD}\n"
           "TOKEN_URL=https://auth.example.com/oauth2/token\n")
    assert [(f.line, f.label) for f in find_secrets(env, "deploy/.env")] == [(2, "high-entropy secret")]
    yaml = "image:\n  digest: 3b1f0c9e8d7a6b5c4d3e2f1a0b9c8d7e\n  password: {{ vault_password }}\n"
    assert find_secrets(yaml, "values.yaml") == []


def test_ordinary_code_has_no_false_positives() -> None:
    """The project's own engine, UI and sample repo: hashes, UUIDs, test vectors, no secrets."""
    files = [p for d in ("core", "cli", "mcp_server", "tui", "tests/fixtures/sample_repo") for p in (PROJECT / d).rglob("*")
             if p.suffix in {".py", ".js", ".go", ".scm", ".tcss", ".md"}]
    assert len(files) > 30
    found = {str(p.relative_to(PROJECT)): find_secrets(p.read_text(encoding="utf-8"), p.name) for p in files}
    assert {path: f for path, f in found.items() if f} == {}
    vectors = (
        'SHA1 = "da39a3ee5e6b4b0d3255bfef95601890afd80709"\n'
        'REQUEST_ID = "123e4567-e89b-12d3-a456-426614174000"\n'
        'EXPECTED = "SGVsbG8sIHdvcmxkISBUaGlzIGlzIGEgdGVzdCB2ZWN0b3Iu"\n'
        "const integrity = 'sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg==';\n"
        'github_pat_label = "GitHub fine-grained personal access token"\n'
    )
    assert find_secrets(vectors, "vectors.py") == []


def test_describe_names_each_type_once() -> None:
    text = f'a = "{AWS_KEY}"\nb = "{AWS_KEY[:-1]}Q"\ntoken = "{GITHUB_TOKEN}"\n'
    assert describe(find_secrets(text, "x.py")) == "3 likely secrets (AWS access key, GitHub token)"
    assert describe(find_secrets(f'a = "{AWS_KEY}"', "x.py")) == "1 likely secret (AWS access key)"


@pytest.mark.parametrize("unit", [
    "eyJ", "sk-", "//x", "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8", 'token="8f7a6b5c4d3e2f1a0b9c" ',
    'password="', "-----BEGIN RSA PRIVATE KEY-----",
], ids=["jwt", "openai", "npmrc", "github", "entropy", "keyword", "private-key"])
def test_one_long_line_costs_time_linear_in_its_length(unit: str) -> None:
    """A run that made a detect-secrets pattern (or our widening) rescan the rest of the line at
    every start. Eight times the text must cost about eight times as much, not sixty-four."""
    find_secrets("warm up")

    def cost(n: int) -> float:
        text = (unit * (n // len(unit) + 1))[:n]
        best = float("inf")
        for _ in range(2):
            began = time.perf_counter()
            find_secrets(text, "x.py")
            best = min(best, time.perf_counter() - began)
        return best

    ratio = cost(240_000) / cost(30_000)
    assert ratio < 24, f"{ratio:.1f}x the time for 8x the text"
