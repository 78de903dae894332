"""Search: the ranking of one index's symbols, its filters and its abbreviations.

Modules, each with one job: `searcher` (the `Searcher` every face's search goes through),
`rankdata` (the persisted ranking structures), `expansion` (query terms and the repo's
spellings), `scoring` (name, kind, file and public-API adjustments), `fusion` (the
optional embeddings), `folding` (copies into one hit), `filters` and `query` (the
`kind:`/`lang:`/`path:` syntax and the mask it makes), `paths` (what a path says about
its code), `abbrev` and `abbreviations` (`bjson` -> `Context.BindJSON`).

Nothing is imported here: the console script reads `query` without loading numpy
(tests/test_packaging.py), so callers import the module they need.
"""
