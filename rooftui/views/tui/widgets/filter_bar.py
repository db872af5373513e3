"""The filter bar: every way of narrowing the kernel table, two compact rows.

It turns what the user typed or picked into a ``KernelFilter`` and posts it; a
value that cannot be used (a bad regex, text in a number field) is shown in the
bar and the last good filter stays in force.
"""

from __future__ import annotations

from typing import cast

from textual import events, on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Checkbox, Input, Select, Static

from rooftui.analysis.filters import (
    InvalidFilter,
    KernelFilter,
    parse_count,
    parse_number,
)
from rooftui.model.columns import LEVEL_LABELS, PIPELINE_LABELS
from rooftui.views.tui.ascii import MarkedCheckbox
from rooftui.views.tui.format import literal

ZERO_AI_CHOICES = [("0-AI: show", "all"), ("0-AI: only", "only"), ("0-AI: hide", "hide")]
LEVEL_CHOICES = [(f"AI@{label}", level) for level, label in LEVEL_LABELS.items()]


class FieldInput(Input):
    """A filter field where a paste holding a Tab works as typing it would: what comes
    before the Tab fills this field and the focus moves on (Input alone keeps the Tab
    as text, so the Tab of a pasted burst was lost and the filter matched nothing)."""

    def on_paste(self, event: events.Paste) -> None:
        if "\t" not in event.text:
            return  # Input's own paste
        event.prevent_default()
        event.stop()
        first, rest = event.text.split("\t", 1)
        self.insert_text_at_cursor(first.splitlines()[0] if first else "")
        following = self.screen.focus_next()
        if rest and isinstance(following, Input):
            following.post_message(events.Paste(rest))


def _value(select: Select) -> str | None:
    return None if select.value is Select.NULL else str(select.value)


class FilterBar(Vertical):
    """Name, pipeline, zero-AI, phase, bound, AI range, top N and (several ranks) rank."""

    class Changed(Message):
        def __init__(self, spec: KernelFilter) -> None:
            super().__init__()
            self.spec = spec

    def __init__(self, *, ascii_mode: bool = False, id: str | None = None) -> None:
        super().__init__(id=id)
        self.ascii_mode = ascii_mode

    def compose(self) -> ComposeResult:
        with Horizontal(classes="filter-row"):
            yield FieldInput(placeholder="kernel name  (f)", id="filter-name", compact=True)
            yield MarkedCheckbox("regex", id="filter-regex", compact=True, ascii_mode=self.ascii_mode)
            yield Select([], prompt="pipeline", id="filter-pipeline", compact=True)
            yield Select(ZERO_AI_CHOICES, allow_blank=False, value="all", id="filter-zero-ai", compact=True)
            yield Select([], prompt="phase", id="filter-phase", compact=True)
        with Horizontal(classes="filter-row", id="filter-ranges"):
            yield Select([], prompt="bound", id="filter-bound", compact=True)
            yield Select(LEVEL_CHOICES, allow_blank=False, value="hbm", id="filter-level", compact=True)
            yield FieldInput(placeholder="AI min", id="filter-ai-min", compact=True)
            yield FieldInput(placeholder="AI max", id="filter-ai-max", compact=True)
            yield FieldInput(placeholder="top N", id="filter-top", compact=True)
            # the rank choice (six widgets) is mounted here only for a run of several ranks
            yield Static("", id="filter-error")

    def set_choices(self, pipelines: list[str], phases: list[str], bounds: list[str]) -> None:
        """Offer the pipelines, phases and bound values present in the loaded run."""
        self.query_one("#filter-pipeline", Select).set_options(
            [(PIPELINE_LABELS.get(p, p), p) for p in pipelines]
        )
        self.query_one("#filter-phase", Select).set_options([(p, p) for p in phases])
        kinds = [("memory-bound", "memory"), ("compute-bound", "compute")]
        self.query_one("#filter-bound", Select).set_options(kinds + [(b, b) for b in bounds])

    def set_ranks(self, ranks: list[str]) -> None:
        """Offer a rank choice when the run holds several ranks (a run is loaded once);
        otherwise none is made: a widget costs at the start and on every key press
        (Pilot waits on each one), shown or not."""
        if len(ranks) > 1 and not self.query("#filter-rank"):
            options = [(f"rank {r}" if r else "rank ?", r) for r in ranks]
            select: Select[str] = Select(options, prompt="rank: all", id="filter-rank", compact=True)
            self.query_one("#filter-ranges", Horizontal).mount(select, before="#filter-error")

    def _rank(self) -> str | None:
        """The rank chosen; None for all ranks, and for a run of one rank (no choice)."""
        ranks = self.query("#filter-rank").results(Select)
        return next((_value(select) for select in ranks), None)

    def read(self) -> KernelFilter:
        """The filter the widgets describe; raises ``InvalidFilter``."""
        return KernelFilter(
            name=self.query_one("#filter-name", Input).value.strip(),
            regex=self.query_one("#filter-regex", Checkbox).value,
            pipeline=_value(self.query_one("#filter-pipeline", Select)),
            zero_ai=_value(self.query_one("#filter-zero-ai", Select)) or "all",
            phase=_value(self.query_one("#filter-phase", Select)),
            ai_level=_value(self.query_one("#filter-level", Select)) or "hbm",
            ai_min=parse_number(self.query_one("#filter-ai-min", Input).value, "AI min"),
            ai_max=parse_number(self.query_one("#filter-ai-max", Input).value, "AI max"),
            bound=_value(self.query_one("#filter-bound", Select)),
            top_n=parse_count(self.query_one("#filter-top", Input).value, "top N"),
            rank=self._rank(),
        )

    def clear(self) -> None:
        """Back to showing everything (keeps the chosen AI level)."""
        with self.prevent(Input.Changed, Checkbox.Changed, Select.Changed):
            for field in self.query(Input):
                field.value = ""
            self.query_one("#filter-regex", Checkbox).value = False
            for select in self.query("#filter-pipeline, #filter-phase, #filter-bound, #filter-rank"):
                cast(Select[str], select).clear()
            self.query_one("#filter-zero-ai", Select).value = "all"
        self._publish()

    def set_spec(self, spec: KernelFilter) -> None:
        """Show ``spec`` in the widgets and apply it (``rooftui plot`` uses this)."""

        def text(value: float | int | None) -> str:
            return "" if value is None else f"{value:g}"

        with self.prevent(Input.Changed, Checkbox.Changed, Select.Changed):
            self.query_one("#filter-name", Input).value = spec.name
            self.query_one("#filter-regex", Checkbox).value = spec.regex
            for select_id, value in (
                ("#filter-pipeline", spec.pipeline),
                ("#filter-phase", spec.phase),
                ("#filter-bound", spec.bound),
                ("#filter-rank", spec.rank),
            ):
                if not self.query(select_id):
                    continue  # one rank: no rank choice and no rank to keep
                select = self.query_one(select_id, Select)
                if value is None:
                    select.clear()
                else:
                    select.value = value
            self.query_one("#filter-zero-ai", Select).value = spec.zero_ai
            self.query_one("#filter-level", Select).value = spec.ai_level
            self.query_one("#filter-ai-min", Input).value = text(spec.ai_min)
            self.query_one("#filter-ai-max", Input).value = text(spec.ai_max)
            self.query_one("#filter-top", Input).value = text(spec.top_n)
        self._publish()

    def focus_name(self) -> None:
        self.query_one("#filter-name", Input).focus()

    @on(Input.Changed)
    @on(Checkbox.Changed)
    @on(Select.Changed)
    def _publish(self) -> None:
        error = self.query_one("#filter-error", Static)
        try:
            spec = self.read()
        except InvalidFilter as err:
            error.update(literal(err))
            self.add_class("-invalid")
            return
        error.update("")
        self.remove_class("-invalid")
        self.post_message(self.Changed(spec))
