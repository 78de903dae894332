"""Put text on the system clipboard, with OSC 52 as the fallback.

Order of attempts:

1. A clipboard tool for the running desktop: `wl-copy` (Wayland), `xclip` or `xsel`
   (X11), `pbcopy` (macOS), `clip.exe` (WSL/Windows), `termux-clipboard-set`.
2. Otherwise the terminal itself, via Textual's `App.copy_to_clipboard` (an OSC 52
   escape sequence; works in most modern terminals and through tmux with
   `set -g set-clipboard on`).

The app receives a `Clipboard` callable, so tests inject a fake that records text.
It is called from a thread worker: a slow tool never blocks the UI.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence

#: Copies text and returns a short description of the method used.
Clipboard = Callable[[str], str]

#: Name shown when the terminal (OSC 52) was used.
OSC52 = "OSC 52 (terminal)"


def _candidates() -> list[tuple[str, Sequence[str]]]:
    """Clipboard commands worth trying here, best first."""
    found: list[tuple[str, Sequence[str]]] = []
    if sys.platform == "darwin":
        found.append(("pbcopy", ["pbcopy"]))
    if os.environ.get("WAYLAND_DISPLAY"):
        found.append(("wl-copy", ["wl-copy"]))
    if os.environ.get("DISPLAY"):
        found.append(("xclip", ["xclip", "-selection", "clipboard", "-in"]))
        found.append(("xsel", ["xsel", "--clipboard", "--input"]))
    if sys.platform.startswith("win") or "microsoft" in _kernel_release():
        found.append(("clip.exe", ["clip.exe"]))
    if os.environ.get("TERMUX_VERSION"):
        found.append(("termux-clipboard-set", ["termux-clipboard-set"]))
    return [(name, cmd) for name, cmd in found if shutil.which(cmd[0])]


def _kernel_release() -> str:
    try:
        return os.uname().release.lower()
    except AttributeError:  # pragma: no cover - Windows
        return ""


def copy_with_tool(text: str) -> str | None:
    """Copy with the first working clipboard tool; its name, or None if none worked."""
    data = text.encode("utf-8")
    for name, cmd in _candidates():
        try:
            result = subprocess.run(
                list(cmd), input=data, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                timeout=3, check=False,
            )
        except (OSError, subprocess.SubprocessError):
            continue
        if result.returncode == 0:
            return name
    return None


def make_clipboard(osc52: Callable[[str], None]) -> Clipboard:
    """A clipboard that tries the system tools, then falls back to `osc52(text)`.

    Args:
        osc52: Usually `app.copy_to_clipboard`, which writes the OSC 52 sequence.
    """

    def copy(text: str) -> str:
        used = copy_with_tool(text)
        if used is not None:
            return used
        osc52(text)
        return OSC52

    return copy
