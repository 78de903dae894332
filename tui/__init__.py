"""symscope's terminal UI, built with Textual on the engine API `symscope.core.api`.

`run_app(workspace)` is the one entry point; `launch.py` (the `symscope` command) calls it.
"""

from __future__ import annotations

__all__ = ["run_app"]


def __getattr__(name: str) -> object:
    # Lazy, so `import symscope.tui` stays cheap until the app is really wanted.
    if name == "run_app":
        from symscope.tui.app import run_app

        return run_app
    raise AttributeError(name)
