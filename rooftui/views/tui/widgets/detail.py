"""The detail pane: everything known about the selected kernel (``detail_text``), scrollable."""

from __future__ import annotations

from rich.console import RenderableType
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static


class DetailPane(VerticalScroll):
    """Scrollable details of one kernel; empty until a kernel is selected."""

    def __init__(self, *, ascii_mode: bool = False, id: str | None = None) -> None:
        super().__init__(id=id)
        self.ascii_mode = ascii_mode
        self.body = Static("Select a kernel to see its details.", id="detail-body")

    def compose(self) -> ComposeResult:
        yield self.body

    @property
    def text_width(self) -> int:
        """The width the content is laid out for."""
        return max(40, self.scrollable_content_region.width - 1)

    def show(self, content: RenderableType | None) -> None:
        """Show ``content`` (``ExplorerModel.detail``); None: no kernel selected."""
        self.body.update("No kernel selected." if content is None else content)
