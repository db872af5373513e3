"""Choosing which compute roofs the roofline draws."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, SelectionList

from rooftui.model.columns import PIPELINE_LABELS
from rooftui.views.tui.ascii import MarkedSelectionList
from rooftui.views.tui.base_app import DIALOG_KEYS
from rooftui.views.tui.format import ascii_safe
from rooftui.views.tui.screens.help import HelpRow, binding_rows


class PipelinesScreen(ModalScreen[set[str] | None]):
    """Space toggles a pipeline, Enter applies, Escape cancels."""

    BINDINGS = [
        Binding("enter", "apply", "apply", priority=True),
        Binding("escape,q", "cancel", "cancel"),
        *DIALOG_KEYS,
    ]
    HELP_WHERE = "compute roofs"

    def __init__(self, present: list[str], hidden: set[str], *, ascii_mode: bool = False) -> None:
        super().__init__()
        self.present = present
        self.hidden = set(hidden)
        self.ascii_mode = ascii_mode

    def compose(self) -> ComposeResult:
        with Vertical(id="pipelines-dialog"):
            yield Label("Compute roofs on the roofline")
            yield MarkedSelectionList(
                *[(PIPELINE_LABELS.get(p, p), p, p not in self.hidden) for p in self.present],
                id="pipelines-list",
                ascii_mode=self.ascii_mode,
            )
            hint = "space toggle · enter apply · esc cancel · ? keys"
            yield Label(ascii_safe(hint) if self.ascii_mode else hint, classes="hint")

    def on_mount(self) -> None:
        self.query_one(SelectionList).focus()

    @on(SelectionList.SelectionToggled)
    def _toggled(self) -> None:
        shown = set(self.query_one(SelectionList).selected)
        self.hidden = {p for p in self.present if p not in shown}

    def action_apply(self) -> None:
        self.dismiss(self.hidden)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def help_rows(self) -> list[HelpRow]:
        return [
            ("compute roofs", "up down", "move between roofs"),
            ("compute roofs", "space", "draw or hide the highlighted roof"),
            *binding_rows("compute roofs", self.BINDINGS, self),
        ]
