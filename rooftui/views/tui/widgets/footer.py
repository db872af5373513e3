"""The footer every screen shows: Textual's ``Footer``, built again only when the keys it
shows change.

Textual's ``Footer`` recomposes (unmounts every key and mounts new ones) whenever the
screen says its bindings changed, and a screen says so on every focus change and every
key that changes what ``check_action`` allows: ~7% of the CPU of a key press in the
explorer, for a footer that almost always shows the same keys. ``KeysFooter`` compares
what the new footer would show with what it shows and recomposes only on a difference,
so what is drawn is what ``Footer`` draws."""

from __future__ import annotations

from collections.abc import Hashable

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey


class KeysFooter(Footer):
    """``Footer``, recomposed only when the keys, their state or their text change."""

    def __init__(self) -> None:
        super().__init__()
        self._composed_for: Hashable = None  # what the keys shown were built from

    def shown_keys(self) -> Hashable:
        """Everything ``Footer.compose`` reads to build the keys: each active binding
        (key, display, description, action, group) with whether it is enabled and its
        tooltip, and whether the command palette's key is offered."""
        app = self.app
        active = self.screen.active_bindings
        keys = tuple(
            (binding, app.get_key_display(binding), enabled, tooltip)
            for (_, binding, enabled, tooltip) in active.values()
            if binding.show
        )
        palette = None
        if self.show_command_palette and app.ENABLE_COMMAND_PALETTE:
            found = active.get(app.COMMAND_PALETTE_BINDING)
            if found is not None:
                _, binding, enabled, tooltip = found
                palette = (binding, app.get_key_display(binding), enabled, tooltip)
        return keys, palette

    def compose(self) -> ComposeResult:
        self._composed_for = self.shown_keys() if self._bindings_ready else None
        for widget in super().compose():
            if isinstance(widget, FooterKey):
                # Born as packed as the footer: a FooterKey starts packed and its binding
                # to the footer's ``compact`` unpacks it once mounted, styling each key
                # twice more (~20 ms per footer built); the classes are what it ends with.
                widget.set_reactive(FooterKey.compact, self.compact)
                widget.set_class(self.compact, "-compact", update=False)
            yield widget

    def bindings_changed(self, screen: Screen) -> None:
        # Footer.bindings_changed, with the recompose asked only for a change
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen:
            self.call_after_refresh(self._recompose_if_changed)

    async def _recompose_if_changed(self) -> None:
        if not self.is_attached or self._pruning:
            return
        if self.shown_keys() != self._composed_for:
            await self.recompose()
