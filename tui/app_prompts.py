"""The app's questions that are not about the bundle's text: the price of a million tokens, and
which flagged secrets to keep. A base class of the app, so `app.py` stays compose, reactives and
routing."""

from __future__ import annotations

from typing import TYPE_CHECKING

from symscope.tui import formatting as fmt
from symscope.tui.base import KeyedApp
from symscope.tui.bundle_screens import SecretsScreen
from symscope.tui.screens import PromptScreen

if TYPE_CHECKING:
    from textual.reactive import reactive

    from symscope.tui.bundle_controller import BundleController, BundleState, Edit


class Prompts(KeyedApp):
    """Asks for a value in a modal screen, then applies it."""

    if TYPE_CHECKING:
        bundles: BundleController
        bundled: reactive[BundleState]
        price: reactive[float]

        def _edit(self, edit: Edit) -> None: ...

    def action_set_price(self) -> None:
        def done(value: str | None) -> None:
            price = fmt.parse_price(value) if value is not None else None
            if price is not None:
                self.price = price
                self.say(f"Price: {fmt.money(price)} per million tokens")

        self.push_screen(PromptScreen.price(self.price), done)

    def action_show_secrets(self) -> None:
        packing = self.bundled.packing
        redacted = list(packing.redactions) if packing is not None else []
        self.push_screen(SecretsScreen(redacted, list(self.bundled.kept.values()),
                                       lambda finding, keep: self._edit(self.bundles.keep_secret(finding, keep))))
