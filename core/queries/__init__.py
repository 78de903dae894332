"""Tree-sitter tags queries, one `<language>-tags.scm` per language (package data)."""
