"""The app's bundle, index and filter actions: each is a key in the action table
(`actions.py`) that edits state through the bundle controller, or asks for a value
first. A base class of the app, so `app.py` stays compose, watchers and routing."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from symscope.tui import formatting as fmt
from symscope.tui import places
from symscope.tui.base import KeyedApp
from symscope.tui.bundle_screens import ConfirmReplaceScreen
from symscope.tui.screens import HelpScreen, PromptScreen
from symscope.tui.widgets.search import SearchPane

if TYPE_CHECKING:
    from symscope.core.api import Bundle, Format
    from symscope.tui.bundle_controller import BundleController, Edit
    from symscope.tui.bundle_runner import BundleRunner


class AppActions(KeyedApp):
    """Actions that only need the bundle controller, the runner and the search pane."""

    if TYPE_CHECKING:
        bundles: BundleController
        runner: BundleRunner
        start_dir: Path

        @property
        def bundle(self) -> Bundle: ...

        def _edit(self, edit: Edit) -> None: ...

        def start_index(self, manual: bool, rebuild: bool = False) -> None: ...

        def copy_bundle(self, format_name: Format | None = None) -> None: ...

    def action_set_budget(self) -> None:
        def done(value: str | None) -> None:
            if value is not None:
                self._edit(self.bundles.set_budget(fmt.parse_budget(value) if value.strip() else None))

        self.push_screen(PromptScreen.budget(self.bundle.budget), done)

    def action_clear_budget(self) -> None:
        self._edit(self.bundles.set_budget(None))

    def action_toggle_format(self) -> None:
        self._edit(self.bundles.toggle_format())

    def action_clear_bundle(self) -> None:
        self._edit(self.bundles.clear())

    def action_save_bundle(self) -> None:
        def done(value: str | None) -> None:
            if value:
                self._save_to(Path(value).expanduser())

        self.push_screen(PromptScreen.save_path(self.bundles.default_save_path()), done)

    def _save_to(self, target: Path) -> None:
        """Save, asking first when a file is already there (a symlink is refused by the save itself)."""
        if not target.is_symlink() and target.exists():
            def confirmed(yes: bool | None) -> None:
                if yes:
                    self.runner.save(target, replace=True)

            self.push_screen(ConfirmReplaceScreen(target), confirmed)
        else:
            self.runner.save(target)

    def action_refresh_index(self) -> None:
        self.start_index(manual=True)

    def action_rebuild_index(self) -> None:
        self.start_index(manual=True, rebuild=True)

    def action_search_filter(self, key: str, value: str = "") -> None:
        self.query_one(SearchPane).apply_filter(key, value or None)

    def action_prompt_path_filter(self) -> None:
        def done(value: str | None) -> None:
            if value is not None:
                self.action_search_filter("path", value.strip())

        self.push_screen(PromptScreen.path_filter(), done)

    def action_clear_filters(self) -> None:
        self.query_one(SearchPane).clear_filters()

    def deliver_screenshot(self, filename: str | None = None, path: str | None = None,
                           time_format: str | None = None) -> str | None:
        """The palette's Screenshot: save where a file can go, and say where (or why not).

        Textual's own saves only to Downloads and fails without a reason when it is missing.
        """
        folder = places.Folder(Path(path)) if path else places.screenshot_folder(self.start_dir)
        why = f" ({'; '.join(folder.skipped)})" if folder.skipped else ""
        if folder.path is None:
            self.say(f"Screenshot not saved: no folder to write to{why}", "error")
            return None
        target = folder.path / (filename or places.screenshot_name())
        try:
            target.write_text(self.export_screenshot(), encoding="utf-8")
        except OSError as exc:
            self.say(f"Screenshot not saved to {target}: {exc.strerror or exc}", "error")
            return None
        self.say(f"Screenshot saved to {target}{why}")
        return str(target)

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.help_rows()))
    def action_copy_bundle(self, format_name: str = "") -> None:
        self.copy_bundle("xml" if format_name == "xml" else "markdown" if format_name else None)

