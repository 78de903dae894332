"""The clipboard tries desktop tools first and falls back to OSC 52."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from symscope.tui import clipboard


def test_falls_back_to_osc52_without_tools(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(clipboard, "_candidates", lambda: [])
    sent: list[str] = []
    copy = clipboard.make_clipboard(sent.append)
    assert copy("hello") == clipboard.OSC52
    assert sent == ["hello"]


def test_uses_the_first_tool_that_works(monkeypatch: pytest.MonkeyPatch) -> None:
    tools: list[tuple[str, Sequence[str]]] = [("broken", ["false"]), ("cat", ["cat"])]
    monkeypatch.setattr(clipboard, "_candidates", lambda: tools)
    sent: list[str] = []
    copy = clipboard.make_clipboard(sent.append)
    assert copy("hello") == "cat"
    assert sent == []  # no OSC 52 when a tool took it
