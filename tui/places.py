"""Where the app writes files the user asked for: the bundle (`s`) and screenshots.

Both default to places the user chose, not to where the process happens to run:
the bundle to the folder symscope was started from, a screenshot to the Downloads
folder, else that start folder, else the temporary folder, and the toast says which.
No Textual imports here.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from platformdirs import user_downloads_path

#: Set by `make run` to the folder `make` was called from (`make -C` runs the recipe elsewhere).
START_DIR_ENV = "SYMSCOPE_START_DIR"


def start_dir() -> Path:
    """The folder the user started symscope from: `$SYMSCOPE_START_DIR` if it is one, else the cwd."""
    given = os.environ.get(START_DIR_ENV, "")
    if given and Path(given).is_dir():
        return Path(given)
    return Path(os.getcwd())


@dataclass(frozen=True, slots=True)
class Folder:
    """A folder to write into, or None with the reasons no candidate would do."""

    path: Path | None
    skipped: tuple[str, ...] = ()
    """Why each earlier candidate was passed over ("~/Downloads does not exist")."""


def _unusable(folder: Path) -> str | None:
    """Why `folder` cannot take a new file, or None if it can."""
    if not folder.exists():
        return f"{folder} does not exist"
    if not folder.is_dir():
        return f"{folder} is not a folder"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"{folder} is not writable"
    return None


def first_usable(candidates: Sequence[Path]) -> Folder:
    """The first candidate folder that exists and is writable, with why the others were not."""
    skipped: list[str] = []
    for folder in candidates:
        reason = _unusable(folder)
        if reason is None:
            return Folder(folder, tuple(skipped))
        skipped.append(reason)
    return Folder(None, tuple(skipped))


def screenshot_folder(start: Path) -> Folder:
    """Downloads, else the start folder, else the temporary folder."""
    return first_usable([user_downloads_path(), start, Path(tempfile.gettempdir())])


def screenshot_name(now: datetime | None = None) -> str:
    """A file name that sorts by time and needs no quoting (`symscope-2026-12-04T17-02-01.svg`)."""
    return f"symscope-{(now or datetime.now()).strftime('%Y-%m-%dT%H-%M-%S')}.svg"
