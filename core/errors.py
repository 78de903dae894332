"""Errors that reach users as one clear line, never as a traceback."""

from __future__ import annotations


class SymscopeError(Exception):
    """Base for every error the CLI and TUI show as a one-line message."""


class NotARepoError(SymscopeError):
    """The path does not exist or is not a directory."""


class UnsafeRootError(SymscopeError):
    """The path is the filesystem root or the home folder itself: almost surely a mistake."""


class TooManyFilesError(SymscopeError):
    """The walk found more indexable files than the limit: probably not one repository."""


class IndexCorruptError(SymscopeError):
    """The SQLite index cannot be read; it should be rebuilt."""


class UntrustedIndexError(SymscopeError):
    """The index folder, or a file in it, is a symlink, another user's, or writable by others.

    Someone else could have planted its content (the ranker is a pickle: loading it runs
    code), so it is never used, nor its mode changed; the message says how to fix it.
    """


class IndexAccessError(SymscopeError):
    """The index is intact but cannot be used as asked right now (full disk, read-only, busy).

    Never a reason to set the index aside: rebuilding would not help.
    """


class IndexFullError(IndexAccessError):
    """The disk (or the database's size limit) is full, so the index cannot be written."""


class IndexReadOnlyError(IndexAccessError):
    """The index is on a read-only file system (or opened read-only), so it cannot be written."""


class IndexPermissionError(IndexAccessError):
    """The operating system denies access to the index folder or its files."""


class IndexBusyError(IndexAccessError):
    """Another process holds the index's write lock."""


class UnknownSymbolError(SymscopeError):
    """No symbol has the given ID (or the name given for one names several, or none)."""

    def __init__(self, message: str, candidates: tuple[str, ...] = (), nearest: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.candidates = candidates
        """Ids of the symbols a name given for an id names, when it names several."""
        self.nearest = nearest
        """Ids a search for an unknown id's name part found, nearest first."""


class StaleSymbolError(SymscopeError):
    """The symbol's file changed since it was indexed, so its bytes cannot be trusted."""


class StaleSettingsError(SymscopeError):
    """The index's stored search terms were built under other search settings; index again."""


class BadQueryError(SymscopeError):
    """The search query is empty or otherwise unusable."""


class BadArgumentError(BadQueryError):
    """A number (or other option) that makes no sense: a negative size, a zero limit.

    Refused before anything is read or written, so a typo never empties an index.
    """
