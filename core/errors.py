"""Errors that reach users as one clear line, never as a traceback."""

from __future__ import annotations


class SymscopeError(Exception):
    """Base for every error the CLI and TUI show as a one-line message."""


class NotARepoError(SymscopeError):
    """The path does not exist or is not a directory."""


class IndexCorruptError(SymscopeError):
    """The SQLite index cannot be read; it should be rebuilt."""


class UnknownSymbolError(SymscopeError):
    """No symbol has the given ID."""


class StaleSymbolError(SymscopeError):
    """The symbol's file changed since it was indexed, so its bytes cannot be trusted."""


class BadQueryError(SymscopeError):
    """The search query is empty or otherwise unusable."""
