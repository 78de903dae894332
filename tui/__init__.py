"""symscope's terminal UI, built with Textual on top of `symscope.core`.

`run_app(index)` is the one entry point; `launch.py` (the `symscope` command) calls it.
"""

from __future__ import annotations

__all__ = ["run_app"]


def __getattr__(name: str) -> object:
    # Lazy, so `import symscope.tui` stays cheap until the app is really wanted.
    if name == "run_app":
        from symscope.tui.app import run_app

        return run_app
    raise AttributeError(name)
