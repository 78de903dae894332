"""Every MCP tool that hands repository text to a model redacts secrets by default (issue 27, point 2).

The secrets are built here, fake but correctly shaped, and planted in a temp repo;
each tool's text must hold none of them, `_meta` must say how many were redacted,
and `redact: false` must give the exact source back.
"""

from __future__ import annotations

import base64
import json
import random
import string
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import CallToolResult, TextContent

from symscope.core.index import Index
from symscope.core.secrets import marker
from symscope.core.tokens import count_tokens
from symscope.mcp_server.args import RESULT_BUDGET
from symscope.mcp_server.server import build_server

_RNG = random.Random(27)


def _chars(alphabet: str, n: int) -> str:
    return "".join(_RNG.choice(alphabet) for _ in range(n))


UPPER_DIGITS = string.ascii_uppercase + string.digits
ALNUM = string.ascii_letters + string.digits
AWS_ID = "AKIA" + _chars(UPPER_DIGITS, 16)
AWS_SECRET = _chars(ALNUM + "/+", 40)
GITHUB = "ghp_" + _chars(ALNUM, 36)
SLACK = "xoxb-" + _chars(string.digits, 12) + "-" + _chars(string.digits, 12) + "-" + _chars(ALNUM, 24)
STRIPE = "sk_live_" + _chars(ALNUM, 24)


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


JWT = ".".join([_b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode()),
                _b64url(json.dumps({"sub": "1234567890", "name": "planted"}).encode()),
                _b64url(bytes(_RNG.randrange(256) for _ in range(32)))])
KEY_LINES = [_chars(ALNUM + "+/", 64) for _ in range(6)]
PRIVATE_KEY = "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(KEY_LINES) + "\n-----END RSA PRIVATE KEY-----"
PASSWORD = "hunter2hunter2"
PG_PASSWORD = "Pg" + _chars(ALNUM, 14)
PG_URL = f"postgresql://admin:{PG_PASSWORD}@db.example.com:5432/app"

#: The text of every planted secret that must never appear (each key line on its own).
SECRETS = [AWS_ID, AWS_SECRET, GITHUB, SLACK, STRIPE, JWT, PASSWORD, PG_PASSWORD, *KEY_LINES]

CONFIG = f'''\
API_KEY = "{AWS_ID}"
AWS_SECRET_ACCESS_KEY = "{AWS_SECRET}"


def connect(user, password="{PASSWORD}"):
    """Open a session."""
    return (user, password)


class Settings:
    github_token = "{GITHUB}"
    slack_token = "{SLACK}"

    def stripe(self):
        return "{STRIPE}"

    def session(self):
        jwt = "{JWT}"
        return jwt

    def dsn(self):
        return "{PG_URL}"


SIGNING_KEY = """{PRIVATE_KEY}"""


def sign(payload):
    return (SIGNING_KEY, payload)
'''
USES = f'''\
from config import connect, sign


def login():
    return connect("svc", password="{PASSWORD}")


def signed():
    return sign("{GITHUB}")
'''
IDS = ["config.py::API_KEY#constant", "config.py::AWS_SECRET_ACCESS_KEY#constant",
       "config.py::connect#function", "config.py::Settings#class", "config.py::SIGNING_KEY#constant"]
#: Secrets in the source of IDS: one each, and the private key block counts once.
SECRETS_IN_IDS = 9


@pytest.fixture
def index(tmp_path: Path) -> Iterator[Index]:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "config.py").write_text(CONFIG)
    (root / "uses.py").write_text(USES)
    ix = Index.open(root, tmp_path / "idx")
    ix.update(processes=1)
    yield ix
    ix.close()


def _text(result: CallToolResult) -> str:
    assert not result.is_error, result.content
    return "".join(b.text for b in result.content if isinstance(b, TextContent))


def _leaks(text: str) -> list[str]:
    return [s for s in SECRETS if s in text]


def _markers(text: str) -> int:
    return text.count("«redacted: ")


async def _result(client: Client, tool: str, **args: Any) -> tuple[str, dict[str, Any]]:
    result = await client.call_tool(tool, args)
    text = _text(result)
    meta = result.meta or {}
    assert meta["symscope/tokens"] == count_tokens(text)
    return text, meta


def test_the_planted_source_holds_every_secret(index: Index) -> None:
    whole = "".join(index.source(index.symbol(i)) for i in IDS)
    assert not [s for s in SECRETS if s not in whole]


@pytest.mark.parametrize("fmt", ["plain", "markdown", "xml"])
async def test_get_symbols_redacts_in_every_format_and_counts(index: Index, fmt: str) -> None:
    async with Client(build_server(index)) as client:
        text, meta = await _result(client, "get_symbols", ids=IDS, format=fmt)
    assert _leaks(text) == []
    assert meta["symscope/redacted"] == SECRETS_IN_IDS == _markers(text)
    assert marker("private key") in text and marker("AWS access key") in text


async def test_redact_false_gives_the_exact_source(index: Index) -> None:
    async with Client(build_server(index)) as client:
        text, meta = await _result(client, "get_symbols", ids=["config.py::Settings#class"], redact=False)
        key, _ = await _result(client, "get_symbols", ids=["config.py::SIGNING_KEY#constant"], redact=False)
    settings = index.symbol("config.py::Settings#class")
    assert text == f"--- {settings.id} L{settings.start_line}-{settings.end_line}\n{index.source(settings)}\n"
    assert meta["symscope/redacted"] == 0
    assert PRIVATE_KEY in key


async def test_search_signatures_are_redacted(index: Index) -> None:
    async with Client(build_server(index)) as client:
        texts = []
        for query in ("API_KEY", "connect password", "aws secret access key", "github token slack"):
            text, meta = await _result(client, "search_symbols", query=query)
            assert meta["symscope/redacted"] == _markers(text)
            texts.append(text)
        raw, raw_meta = await _result(client, "search_symbols", query="API_KEY", redact=False)
    joined = "\n".join(texts)
    assert "config.py::API_KEY#constant" in joined and "config.py::connect#function" in joined
    assert _leaks(joined) == []
    assert _markers(joined) >= 2  # the constant's value and the default password
    assert AWS_ID in raw and raw_meta["symscope/redacted"] == 0


async def test_reference_lines_are_redacted(index: Index) -> None:
    async with Client(build_server(index)) as client:
        text, meta = await _result(client, "find_references", id="config.py::connect#function")
        signed, signed_meta = await _result(client, "find_references", id="config.py::sign#function")
        raw, _ = await _result(client, "find_references", id="config.py::connect#function", redact=False)
    assert "uses.py::login#function" in text and "uses.py::signed#function" in signed
    assert _leaks(text + signed) == []
    assert meta["symscope/redacted"] == _markers(text) == 1
    assert signed_meta["symscope/redacted"] == _markers(signed) == 1
    assert PASSWORD in raw


async def test_outline_dependencies_and_bundles_are_redacted_and_counted(index: Index) -> None:
    async with Client(build_server(index)) as client:
        outline, outline_meta = await _result(client, "get_outline", path="config.py")
        folder, folder_meta = await _result(client, "get_outline", path=".")
        deps, deps_meta = await _result(client, "find_dependencies", id="config.py::sign#function")
        bundle, bundle_meta = await _result(client, "build_bundle", ids=IDS)
        raw_bundle, raw_meta = await _result(client, "build_bundle", ids=IDS, redact=False)
    for text, meta in ((outline, outline_meta), (folder, folder_meta), (deps, deps_meta)):
        assert _leaks(text) == [] and meta["symscope/redacted"] == _markers(text)
    assert "config.py::SIGNING_KEY#constant" in deps
    assert _leaks(bundle) == []
    assert bundle_meta["symscope/redacted"] == SECRETS_IN_IDS == _markers(bundle)
    assert PRIVATE_KEY in raw_bundle and raw_meta["symscope/redacted"] == 0


async def test_a_cut_symbol_is_redacted_before_the_cut(tmp_path: Path) -> None:
    """A key block straddling the cut point must not leak its first lines."""
    filler = "".join(f"    value_{i} = compute_{i}(value_{i - 1}, {i})\n" for i in range(1, 350))
    body = [_chars(ALNUM + "+/", 64) for _ in range(80)]
    key = "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(body) + "\n-----END RSA PRIVATE KEY-----"
    head = f'def huge():\n    value_0 = 0\n{filler}    key = """'
    source = f'{head}\n{key}\n"""\n{filler}    return value_0\n'
    assert count_tokens(head) < RESULT_BUDGET < count_tokens(head + key)  # the cut falls in the key
    root = tmp_path / "repo"
    root.mkdir()
    (root / "big.py").write_text(source)
    with Index.open(root, tmp_path / "idx") as ix:
        ix.update(processes=1)
        async with Client(build_server(ix)) as client:
            text, meta = await _result(client, "get_symbols", ids=["big.py::huge#function"])
    assert "[cut: big.py::huge#function" in text and "value_300 = " in text
    assert [line for line in body if line in text] == []
    assert meta["symscope/redacted"] == _markers(text) == 1


async def test_every_readme_key_type_is_redacted_by_get_symbols_and_search(tmp_path: Path) -> None:
    """The README's secrets table, walked through the MCP path an agent takes: search, then fetch."""
    from tests.planted_secrets import SAMPLES, plant

    root = tmp_path / "repo"
    root.mkdir()
    samples = [s for s in SAMPLES if "py" in s.where]
    assert {s.row for s in samples} == {s.row for s in SAMPLES}  # every row has a Python plant
    for n, sample in enumerate(samples):
        _, text = plant(sample, "py")
        (root / f"settings_{n}.py").write_text(text)
    ix = Index.open(root, tmp_path / "idx")
    ix.update(processes=1)
    try:
        ids = [sym.id for f in ix.files() for sym in ix.store.file_symbols(f.path)]
        async with Client(build_server(ix)) as client:
            texts: list[str] = []
            redacted = 0
            for start in range(0, len(ids), 20):
                result = await client.call_tool("get_symbols", {"ids": ids[start:start + 20]})
                assert not result.is_error
                texts.append(_text(result))
                redacted += (result.meta or {}).get("symscope/redacted", 0)
            for sample in samples:
                found = await client.call_tool("search_symbols", {"query": sample.name, "limit": 50})
                texts.append(_text(found))
        whole = "\n".join(texts)
        for sample in samples:
            leaked = [h for h in sample.hidden() if h in whole]
            assert not leaked, f"{sample.row}: {leaked[0][:30]}… reached the agent"
        assert redacted >= len(samples)
    finally:
        ix.close()
