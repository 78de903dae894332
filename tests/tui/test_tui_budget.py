"""Budgets, detail levels and secrets in the app, with Pilot on real indexed code."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

from tui_support import RecordingApp, add_symbols, settle, until

from symscope.core.index import Index
from symscope.core.tokens import count_tokens
from symscope.tui.bundle_screens import SecretsScreen
from symscope.tui.screens import PromptScreen
from symscope.tui.widgets import BundleView, Counters

LINK_STORE = "shortener/store.py::LinkStore#class"
RESOLVE = "shortener/store.py::LinkStore.resolve#method"
TIME_AGO = "web/static/format.js::timeAgo#function"
CACHE_PUT = "cmd/redirector/cache.go::Cache.Put#method"

AWS_KEY = "AKIAZ7Q4EXAMPLE2KEYX"
GITHUB_TOKEN = "ghp_" + "Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9Oo8"
KEY_LINES = ("MIIEpAIBAAKCAQEA3Tz2mR5kPq8vW1yX4bN7cJ0eH6gL9oS2uV5xA8dF1iK4nQ7t",
             "W0zC3fI6lO9rU2xB5eH8kN1qT4wZ7aD0gJ3mP6sV9yB2eG5jM8pS1vY4bE7hK0n")
PASSWORD = "Corr3ct-Horse-Battery-9"
SECRETS_PY = f'''\
AWS_ACCESS_KEY_ID = "{AWS_KEY}"


def github_client():
    """Talk to GitHub."""
    token = "{GITHUB_TOKEN}"
    return token


SIGNING_KEY = """-----BEGIN RSA PRIVATE KEY-----
{KEY_LINES[0]}
{KEY_LINES[1]}
-----END RSA PRIVATE KEY-----"""


def connect(host):
    password = "{PASSWORD}"
    return (host, password)
'''
SECRET_IDS = ["settings.py::AWS_ACCESS_KEY_ID#constant", "settings.py::github_client#function",
              "settings.py::SIGNING_KEY#constant", "settings.py::connect#function"]


def _leaks(text: str) -> list[str]:
    return [s for s in (AWS_KEY, GITHUB_TOKEN, PASSWORD, *KEY_LINES) if s in text]


async def test_setting_a_budget_packs_the_copy_under_it(app: RecordingApp, index: Index) -> None:
    async with app.run_test(size=(160, 44)) as pilot:
        await settle(pilot)
        await add_symbols(pilot, app, LINK_STORE, RESOLVE, TIME_AGO, CACHE_PUT)
        full = app.bundled.packing
        assert full is not None and full.budget is None and full.reduced == full.dropped == 0
        budget = full.tokens // 2
        await pilot.press("B")
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen)
        await pilot.press(*str(budget), "enter")
        await settle(pilot)
        packing = app.bundled.packing
        assert packing is not None and packing.budget == budget and packing.error is None
        assert packing.tokens <= budget and packing.reduced + packing.dropped > 0
        # The counters show the budget, the packed total and what was cut.
        text = str(app.query_one(Counters).render())
        assert f"budget {budget:,}: packed {packing.tokens:,} tok" in text
        assert f"{packing.reduced} reduced, {packing.dropped} dropped" in text
        # The pane shows each item's level; what the budget lowered is marked.
        await pilot.press("b")
        await pilot.pause()
        view = app.query_one(BundleView)
        levels = [str(view.table.get_row_at(i)[2]) for i in range(4)]
        assert any(lv.endswith("↓") or lv == "drop" for lv in levels), levels
        assert levels[0] == "full"  # the first item the user added keeps the most detail
        # The copy is exactly what was counted, and fits.
        await pilot.press("c")
        await settle(pilot)
        copied = app.copied[-1]
        assert count_tokens(copied) == packing.tokens <= budget
        toast = next(t for t in reversed(app.toasts) if t.startswith("Copied"))
        assert f"Copied {packing.tokens:,} tokens" in toast
        assert f"Budget {budget:,}: {packing.reduced} reduced, {packing.dropped} dropped" in toast
        # A budget too small for anything says so, and copies nothing.
        await pilot.press("B", "ctrl+a", "ctrl+k", *"3", "enter")
        await settle(pilot)
        assert app.bundled.packing is not None and app.bundled.packing.error is not None
        assert "too small" in str(app.query_one(Counters).render())
        await pilot.press("c")
        await settle(pilot)
        assert len(app.copied) == 1 and "Nothing copied" in app.toasts[-1]
        # The palette removes the budget.
        await app.run_action("clear_budget")
        await settle(pilot)
        assert app.bundled.packing is not None and app.bundled.packing.budget is None
        assert app.bundled.packing.tokens == full.tokens


async def test_changing_an_items_level_by_hand(app: RecordingApp, index: Index) -> None:
    store = index.symbol(LINK_STORE)
    async with app.run_test(size=(160, 44)) as pilot:
        await settle(pilot)
        await add_symbols(pilot, app, LINK_STORE)
        await pilot.press("5")
        view = app.query_one(BundleView)
        assert str(view.table.get_row_at(0)[2]) == "full"
        await pilot.press("l")
        await settle(pilot)
        assert app.bundled.level(f"symbol:{LINK_STORE}") == "signature"
        assert str(view.table.get_row_at(0)[2]) == "sig"
        await pilot.press("c")
        await settle(pilot)
        signature = app.copied[-1]
        assert "(class LinkStore, signature, " in signature
        assert "    def resolve(" in signature  # a class's members' signatures ...
        assert "return " not in signature  # ... without their bodies
        assert count_tokens(signature) < count_tokens(store.signature) + store.tokens
        await pilot.press("l", "c")
        await settle(pilot)
        assert "(class LinkStore, name only)" in app.copied[-1] and "```" not in app.copied[-1]
        assert str(view.table.get_row_at(0)[2]) == "name"
        await pilot.press("l")  # back to full
        await settle(pilot)
        assert app.bundled.level(f"symbol:{LINK_STORE}") == "full"
    # The level is remembered with the bundle.
    assert '"details"' not in (index.index_dir / "bundle.json").read_text(encoding="utf-8")


async def test_secrets_are_redacted_by_default_and_one_can_be_kept(
    write_repo: Any, tmp_path: Path
) -> None:
    root = write_repo({"settings.py": SECRETS_PY})
    index = Index.open(root, index_dir=tmp_path / "idx")
    index.update(processes=1)
    app = RecordingApp(index, save_dir=tmp_path / "out")
    try:
        async with app.run_test(size=(160, 44)) as pilot:
            await settle(pilot)
            await add_symbols(pilot, app, *SECRET_IDS)
            packing = app.bundled.packing
            assert packing is not None and packing.redacted == 4
            assert "4 secrets redacted" in str(app.query_one(Counters).render())  # before any copy
            await pilot.press("c")
            await settle(pilot)
            copied = app.copied[-1]
            assert _leaks(copied) == []
            for label in ("AWS access key", "GitHub token", "private key"):
                assert f"«redacted: {label}»" in copied
            toast = next(t for t in reversed(app.toasts) if t.startswith("Copied"))
            assert "4 secrets redacted (S shows them)" in toast
            # Saving redacts too, into a private file.
            await pilot.press("s")
            await pilot.pause()
            await pilot.press("enter")
            await settle(pilot)
            saved = tmp_path / "out" / "symscope-bundle.md"
            assert _leaks(saved.read_text(encoding="utf-8")) == []
            assert stat.S_IMODE(saved.stat().st_mode) == 0o600
            # S lists them (type, item, line; never the secret); space keeps one on purpose.
            await pilot.press("S")
            assert await until(pilot, lambda: isinstance(app.screen, SecretsScreen))
            screen = app.screen
            assert isinstance(screen, SecretsScreen) and len(screen.findings) == 4
            shown = " ".join(str(cell) for f in range(4) for cell in screen.query_one("#secrets-table")
                             .get_row_at(f))  # type: ignore[attr-defined]
            assert _leaks(shown) == [] and "AWS access key" in shown
            row = next(i for i, (f, _) in enumerate(screen.findings) if f.label == "AWS access key")
            screen.query_one("#secrets-table").move_cursor(row=row)  # type: ignore[attr-defined]
            await pilot.press("space")
            await settle(pilot)
            await pilot.press("escape")
            await pilot.pause()
            assert app.bundled.packing is not None and app.bundled.packing.redacted == 3
            await pilot.press("c")
            await settle(pilot)
            assert _leaks(app.copied[-1]) == [AWS_KEY]
            toast = next(t for t in reversed(app.toasts) if t.startswith("Copied"))
            assert "3 secrets redacted" in toast and "1 secret kept on purpose" in toast
            # And back: space again redacts it.
            await pilot.press("S")
            assert await until(pilot, lambda: isinstance(app.screen, SecretsScreen))
            screen = app.screen
            assert isinstance(screen, SecretsScreen)
            kept = next(i for i, (_, k) in enumerate(screen.findings) if k)
            screen.query_one("#secrets-table").move_cursor(row=kept)  # type: ignore[attr-defined]
            await pilot.press("space", "escape")
            await settle(pilot)
            await pilot.press("c")
            await settle(pilot)
            assert _leaks(app.copied[-1]) == []
    finally:
        index.close()
