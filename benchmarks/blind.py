"""The blind test set (issue 30): `python -m benchmarks.blind CORPORA_DIR [--hybrid]`.

`blind_queries.json` holds 48 queries (16 keyword, 20 intent, 12 config) over pyjwt, chi,
sinatra and javapoet, four repositories in four languages used for nothing else, written
by reading their code and committed before symscope ran on them. It is scored once per
ranking change and never tuned on: a change that helps the training split and not here is
fitted. Each corpus is `CORPORA_DIR/<repo>`, extracted at the commit the file pins; the
scoring is the held-out set's (`benchmarks.heldout`).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from benchmarks import heldout

BLIND_FILE = Path(__file__).with_name("blind_queries.json")


def main(argv: Sequence[str] | None = None) -> int:
    return heldout.main(argv, BLIND_FILE, "python -m benchmarks.blind", (__doc__ or "").split("\n")[0])


if __name__ == "__main__":
    sys.exit(main())
