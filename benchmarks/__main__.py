"""`python -m benchmarks CORPORA_DIR [--out DIR] [--repos A,B] [--skip-rag]`."""

from __future__ import annotations

from benchmarks.run import main

raise SystemExit(main())
