"""The advise screen (key `a`): the step's speed-of-light budget as a waterfall and the
findings ranked by gain; Enter jumps to the finding's kernel in the explorer. The text
comes from ``rooftui.views.advise`` (Textual-free); this screen only places it."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from rooftui.analysis import Run
from rooftui.analysis.advise_run import Advice, advise
from rooftui.views.advise import compact_waterfall_lines, finding_detail_lines, finding_kernel, finding_row
from rooftui.views.tui.format import literal
from rooftui.views.tui.widgets.footer import KeysFooter

BUDGET_LINES = 9  # of the waterfall, at most
TITLE = "Step budget: a bound, not a forecast · findings by µs per step · enter: jump"


class AdviseScreen(Screen[str | None]):
    """Dismissed with the name of the kernel to jump to, or None."""

    CSS_PATH = "advise.tcss"
    BINDINGS = [
        Binding("escape,a,q", "close", "back"),
        Binding("enter", "jump", "jump to the kernel", tooltip="select the finding's kernel in the explorer"),
    ]
    HELP_WHERE = "advise"

    def __init__(self, run: Run, *, ascii_mode: bool = False, advice: Advice | None = None) -> None:
        """``advice``: ``advise(run)`` when already made (``ExplorerModel.advice``)."""
        super().__init__()
        self.ascii_mode = ascii_mode
        self.advice: Advice = advise(run) if advice is None else advice
        self._budget = next(iter(self.advice.budgets.values()))

    def compose(self) -> ComposeResult:
        yield Static(
            literal(TITLE, self.ascii_mode),
            id="advise-title",
        )
        yield Static(id="advise-budget")
        yield OptionList(id="advise-findings")
        yield Static(id="advise-evidence")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.call_after_refresh(self.lay_out)
        self.query_one(OptionList).focus()

    def on_resize(self) -> None:
        self.lay_out()

    def lay_out(self) -> None:
        """Fill the widgets with the text for the screen's width."""
        width = max(self.size.width, 40)
        lines = compact_waterfall_lines(self._budget, width - 1, BUDGET_LINES, self.ascii_mode)
        self.query_one("#advise-budget", Static).update(self._lines(lines))
        options = self.query_one(OptionList)
        highlighted = options.highlighted or 0
        options.clear_options()
        step_s = self.advice.step_s
        options.add_options(
            Option(self._line(finding_row(rank, finding, step_s, width - 4)), id=str(rank - 1))
            for rank, finding in enumerate(self.advice.findings, 1)
        )
        if self.advice.findings:
            options.highlighted = min(highlighted, len(self.advice.findings) - 1)

    def _line(self, text: str) -> Text:
        line = literal(text, self.ascii_mode)
        line.no_wrap, line.overflow = True, "ellipsis"
        return line

    def _lines(self, lines: list[str]) -> Text:
        return Text("\n").join(self._line(line) for line in lines)

    @on(OptionList.OptionHighlighted, "#advise-findings")
    def _show_evidence(self, event: OptionList.OptionHighlighted) -> None:
        finding = self.advice.findings[int(event.option.id or 0)]
        lines = finding_detail_lines(finding, max(self.size.width - 2, 40))
        self.query_one("#advise-evidence", Static).update(self._lines(lines))

    @on(OptionList.OptionSelected, "#advise-findings")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.action_jump()

    def action_jump(self) -> None:
        options = self.query_one(OptionList)
        if options.highlighted is None or not self.advice.findings:
            return
        self.dismiss(finding_kernel(self.advice, self.advice.findings[options.highlighted]))

    def action_close(self) -> None:
        self.dismiss(None)
