"""A small dialog asking where to save an export."""

from __future__ import annotations

from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from rooftui.views.tui.base_app import DIALOG_KEYS
from rooftui.views.tui.format import ascii_safe, literal
from rooftui.views.tui.screens.help import HelpRow, binding_rows


class ExportScreen(ModalScreen[Path | None]):
    """Enter saves to the typed path, Escape cancels."""

    BINDINGS = [Binding("escape", "cancel", "cancel"), *DIALOG_KEYS]
    HELP_WHERE = "export"

    def __init__(self, what: str, default: Path, *, ascii_mode: bool = False) -> None:
        super().__init__()
        self.what = what
        self.ascii_mode = ascii_mode
        self.default = free_name(default)
        self._replace: Path | None = None  # the existing file the user was asked about

    def compose(self) -> ComposeResult:
        with Vertical(id="export-dialog"):
            yield Label(f"Save {self.what} to:")
            yield Input(str(self.default), id="export-path")
            yield Static("", id="export-error")
            hint = "enter save · esc cancel · F1 keys"
            yield Label(ascii_safe(hint) if self.ascii_mode else hint, classes="hint")

    @on(Input.Submitted)
    def _submit(self, event: Input.Submitted) -> None:
        path = Path(event.value.strip()).expanduser()
        if not event.value.strip():
            self.query_one("#export-error", Static).update("type a file name")
        elif not path.parent.resolve().is_dir():
            self.query_one("#export-error", Static).update(literal(f"no such folder: {path.parent}"))
        elif path.exists() and path != self._replace:
            # Never overwrite without asking: a second enter on the same name replaces it.
            self._replace = path
            self.query_one("#export-error", Static).update(
                literal(f"{path.name} exists: enter again to replace it, or type another name")
            )
        else:
            self.dismiss(path)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def help_rows(self) -> list[HelpRow]:
        return [
            ("export", "enter", "save (a file that exists: asks, a second enter replaces it)"),
            # The file name field types q and ?: F1 is the help there.
            *binding_rows("export", self.BINDINGS, self, typing=isinstance(self.focused, Input)),
            ("export", "left right home end", "move in the file name"),
        ]


def free_name(path: Path) -> Path:
    """``path``, or the first of ``name-1.ext``, ``name-2.ext``... that does not exist yet."""
    candidate, number = path, 1
    while candidate.exists():
        candidate = path.with_name(f"{path.stem}-{number}{path.suffix}")
        number += 1
    return candidate
