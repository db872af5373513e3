"""The compare screen: two runs on one roofline, each matched kernel an arrow from A to B.

``CompareScreen(run_a, run_b)`` is self-contained: any app can push it (the
explorer's ``--compare``), and ``CompareApp`` wraps it for ``rooftui diff A B
--tui``. The matching and every number come from
:func:`rooftui.analysis.compare.compare_runs`; this module only draws.

The chart reuses the explorer's roofline geometry: ``build_figure`` for each
side's roofs (against that side's own ceilings, so A may be a V100 and B an
H200), with the explorer's colours and markers; ``CompareCanvas`` draws them and,
on top, each of the heaviest matched kernels as a line from its A point (hollow
marker) to its B point (filled marker) at one memory level.

Moving through the matched list draws the pair in gold; through the operations
list, every matched pair of that operation.

Keys: ``m`` matched, ``o`` by operation, ``a`` only in A, ``b`` only in B,
``t`` totals; ``l`` next memory level; ``+``/``-`` more/fewer arrows; ``z``
the chart alone; ``escape`` closes the screen.
"""

from __future__ import annotations

import dataclasses
import io
import math
from collections.abc import Collection
from dataclasses import dataclass

import pandas as pd
from rich.console import Console, Group, RenderableType
from rich.text import Text
from textual import on
from textual.app import App, ComposeResult, RenderResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import ContentSwitcher, DataTable, Footer, Static
from textual_plotext import Plot, PlotextPlot

from rooftui.analysis import Run
from rooftui.analysis.compare import Comparison, compare_runs
from rooftui.model.ceilings import CeilingSet
from rooftui.model.columns import LEVEL_LABELS, LEVELS
from rooftui.views.compare import (
    METHOD_WORDS,
    both,
    change,
    count_text,
    phase_totals,
    pipeline_text,
    pipeline_totals,
    time_text,
    zero_ai_totals,
)
from rooftui.views.tui.ascii import BOX_TO_ASCII
from rooftui.views.tui.format import ascii_safe, decade, duration, si
from rooftui.views.tui.roofline_model import RooflineFigure, build_figure
from rooftui.views.tui.widgets.roofline import (
    ASCII_MARKERS,
    AXIS_COLUMNS,
    AXIS_ROWS,
    LEVEL_COLOURS,
    ROOF_COLOUR,
    SELECTED_COLOUR,
    UNICODE_MARKERS,
)

ARROWS = 10  # matched kernels drawn as arrows, heaviest first
A_COLOUR = (150, 150, 150)
A_MARKER = {"unicode": "○", "ascii": "o"}
B_MARKER = {"unicode": "●", "ascii": "*"}
WIDE = 140  # from this many columns, the table and the chart sit side by side

VIEWS = {"matched": "m", "operations": "o", "only-a": "a", "only-b": "b", "totals": "t"}


# ---------------------------------------------------------------- the chart's geometry


@dataclass(frozen=True)
class Arrow:
    """One matched kernel at one level: log10 AI and log10 FLOP/s in A and in B."""

    row: int  # position in Comparison.kernels
    xa: float
    ya: float
    xb: float
    yb: float


@dataclass
class Overlay:
    figure: RooflineFigure  # roofs, ranges and ticks; no points of its own
    arrows: list[Arrow]  # the heaviest first, then selected ones beyond them
    level: str
    heavy: int  # how many of the arrows are there for their weight


def arrows_at(comparison: Comparison, level: str, count: int, also: Collection[int] = ()) -> list[Arrow]:
    """The ``count`` heaviest matched kernels, and those at rows ``also``, with a point
    on both sides at ``level``."""
    arrows = []
    heavy = 0
    for row, pair in comparison.matched.iterrows():
        if heavy >= count and row not in also:
            continue
        values = [pair[f"ai_{level}_a"], pair["flop_rate_a"], pair[f"ai_{level}_b"], pair["flop_rate_b"]]
        if all(isinstance(v, (int, float)) and math.isfinite(v) and v > 0 for v in values):
            xa, ya, xb, yb = (math.log10(v) for v in values)
            arrows.append(Arrow(int(row), xa, ya, xb, yb))
            heavy += 1
    return arrows


def overlay_figure(comparison: Comparison, level: str, count: int, cells: tuple[int, int],
                   selected: Collection[int] = ()) -> Overlay:
    """Both sides' roofs at ``level`` and for the pipelines their arrows use, on shared axes.

    Arrows: the ``count`` heaviest matched kernels, and the ``selected`` rows wherever they rank.
    """
    arrows = arrows_at(comparison, level, count, selected)
    rows = comparison.kernels.loc[[a.row for a in arrows]]
    # One pseudo-kernel per arrow end, so that build_figure sizes the axes to fit them all.
    ends = pd.DataFrame({
        "flops": 1.0, "time_s": 1.0,
        "flop_rate": [10 ** a.ya for a in arrows] + [10 ** a.yb for a in arrows],
        f"ai_{level}": [10 ** a.xa for a in arrows] + [10 ** a.xb for a in arrows],
    })
    figures = []
    for side in ("a", "b"):
        run = comparison.run_a if side == "a" else comparison.run_b
        pipelines = list(dict.fromkeys(rows[f"pipeline_{side}"].dropna())) or ["fp32"]
        figures.append(build_figure(ends, _ceilings(run, rows, side), levels=(level,), pipelines=pipelines,
                                    cells=cells, heavy_count=0))
    fig_a, fig_b = figures
    x_range = (min(fig_a.x_range[0], fig_b.x_range[0]), max(fig_a.x_range[1], fig_b.x_range[1]))
    y_range = (min(fig_a.y_range[0], fig_b.y_range[0]), max(fig_a.y_range[1], fig_b.y_range[1]))
    # A roof both sides share (same GPU, same value to 3 digits) is drawn once; one whose
    # value differs carries its side in its tag ("A HBM"), as do all when the GPUs differ.
    same_gpu = comparison.run_a.devices == comparison.run_b.devices
    roofs = []
    for side, figure, other in (("B", fig_b, fig_a), ("A", fig_a, fig_b)):
        for roof in figure.roofs:
            twin = [r for r in other.roofs if (r.kind, r.key) == (roof.kind, roof.key)]
            if side == "A" and same_gpu and twin and twin[0].label == roof.label:
                continue
            tagged = not same_gpu or (twin and twin[0].label != roof.label)
            xs, tag = roof.xs, roof.tag
            if roof.kind == "compute":
                # Short tags, drawn on the line: long ones hide the roofs close below them.
                xs = (roof.xs[0], x_range[1])
                tag = " · ".join(pipeline_text(key) for key in roof.key.split("+"))
            roofs.append(dataclasses.replace(roof, xs=xs, tag=f"{side} {tag}" if tagged else tag,
                                             label=f"{side} {roof.label}" if tagged else roof.label))
    figure = RooflineFigure(roofs=roofs, points=[], selected=[], x_range=x_range, y_range=y_range,
                            x_ticks=_decades(x_range, cells[0] // 6),
                            y_ticks=_decades(y_range, cells[1] // 2))
    return Overlay(figure, arrows, level, heavy=min(count, len(arrows)))


def _decades(span: tuple[float, float], room: int) -> list[tuple[float, str]]:
    """Ticks at powers of ten within ``span`` (log10), thinned to at most ``room`` of them."""
    exponents = list(range(math.ceil(span[0]), math.floor(span[1]) + 1))
    step = max(1, math.ceil(len(exponents) / max(2, room)))
    return [(float(e), decade(e)) for e in exponents[::step]]


def _ceilings(run: Run, rows: pd.DataFrame, side: str) -> CeilingSet:
    """The ceilings of the device most of the drawn kernels ran on (a run has one, as a rule)."""
    devices = rows[f"device_{side}"].dropna()
    device = devices.mode().iloc[0] if len(devices) else None
    return run.ceilings_by_device.get(device, run.ceilings)


class CompareCanvas(PlotextPlot, can_focus=True):
    """Draws an ``Overlay``: both sides' roofs, then an arrow per heavy matched kernel.

    Its own small widget rather than the explorer's ``RooflineCanvas`` (whose
    drawing is tuned for one run's points), with the same colours, markers and
    ASCII mode.
    """

    class Redrawn(Message):
        """The overlay changed (size, level, arrows): the legend follows."""

    def __init__(self, comparison: Comparison, *, ascii_mode: bool = False, id: str | None = None) -> None:
        super().__init__(id=id)
        self.comparison = comparison
        self.ascii_mode = ascii_mode
        self.markers = ASCII_MARKERS if ascii_mode else UNICODE_MARKERS
        self.level = "hbm"
        self.count = ARROWS
        self.selected_rows: frozenset[int] = frozenset()  # drawn in gold, whatever their rank
        self.overlay: Overlay | None = None

    def on_resize(self) -> None:
        self.rebuild()

    def rebuild(self) -> Overlay:
        width, height = self.size
        cells = (max(10, width - AXIS_COLUMNS), max(4, height - AXIS_ROWS))
        self.overlay = overlay_figure(self.comparison, self.level, self.count, cells, self.selected_rows)
        # A fresh plotext figure each time: a reused one keeps layout state from earlier sizes.
        self._plot = Plot()
        self._draw_roofs(self.overlay.figure)
        self._draw_arrows(self.overlay)
        self.refresh()
        self.post_message(self.Redrawn())
        return self.overlay

    def render(self) -> RenderResult:
        if not self.ascii_mode:
            return super().render()
        # PlotextPlot.render's steps, with plotext's box-drawing frame made ASCII.
        self._plot.plotsize(self.size.width, self.size.height)
        self._plot._set_size(self.size.width, self.size.height)  # as PlotextPlot.render does
        self._plot.theme(self._get_plotext_theme_name(self.app.theme))
        return Text.from_ansi(self._plot.build().translate(BOX_TO_ASCII))

    def _draw_roofs(self, figure: RooflineFigure) -> None:
        plt = self.plt
        plt.xlim(*figure.x_range)
        plt.ylim(*figure.y_range)
        plt.xticks([t for t, _ in figure.x_ticks], [label for _, label in figure.x_ticks])
        plt.yticks([t for t, _ in figure.y_ticks], [label for _, label in figure.y_ticks])
        plt.xlabel("arithmetic intensity (FLOP/byte)" if self.size.height >= 20 else "")
        # Tags sit on their line, two cells in from the right edge (plotext cuts the last
        # letters at the edge); the legend names every roof with its value.
        inset = 2 * (figure.x_range[1] - figure.x_range[0]) / max(10, self.size.width - AXIS_COLUMNS)
        for roof in figure.roofs:
            colour = LEVEL_COLOURS.get(roof.key, ROOF_COLOUR)
            plt.plot(list(roof.xs), list(roof.ys), marker=self.markers["line"], color=colour)
            tag = _ascii(roof.tag) if self.ascii_mode else roof.tag
            if roof.kind == "compute":
                plt.text(tag, roof.xs[1] - inset, roof.ys[1], color=ROOF_COLOUR, alignment="right")
            else:
                # Left of the slope, a decade below its ridge.
                x = max(roof.xs[0], roof.xs[1] - 1.0)
                plt.text(tag, x, roof.ys[0] + (x - roof.xs[0]), color=colour, alignment="right")

    def _draw_arrows(self, overlay: Overlay) -> None:
        plt = self.plt
        style = "ascii" if self.ascii_mode else "unicode"
        line = self.markers["line"]
        colour = LEVEL_COLOURS[overlay.level]
        others = [a for a in overlay.arrows if a.row not in self.selected_rows]
        chosen = [a for a in overlay.arrows if a.row in self.selected_rows]
        for arrow in others:
            plt.plot([arrow.xa, arrow.xb], [arrow.ya, arrow.yb], marker=line, color=A_COLOUR)
        if others:
            plt.scatter([a.xa for a in others], [a.ya for a in others], marker=A_MARKER[style],
                        color=A_COLOUR)
            plt.scatter([a.xb for a in others], [a.yb for a in others], marker=B_MARKER[style],
                        color=colour)
        for arrow in chosen:  # drawn last, over the others
            plt.plot([arrow.xa, arrow.xb], [arrow.ya, arrow.yb], marker=line, color=SELECTED_COLOUR)
            plt.scatter([arrow.xa], [arrow.ya], marker=A_MARKER[style], color=SELECTED_COLOUR)
            plt.scatter([arrow.xb], [arrow.yb], marker=B_MARKER[style], color=SELECTED_COLOUR)


# ---------------------------------------------------------------- the screen


class CompareScreen(Screen[None]):
    """Run A against run B: matched kernels, operations, one-sided kernels, totals, overlay."""

    CSS_PATH = "compare.tcss"
    BINDINGS = [
        Binding("m", "view('matched')", "matched"),
        Binding("o", "view('operations')", "operations"),
        Binding("a", "view('only-a')", "only A"),
        Binding("b", "view('only-b')", "only B"),
        Binding("t", "view('totals')", "totals"),
        Binding("l", "next_level", "level"),
        Binding("z", "zoom", "zoom chart"),
        Binding("plus,equals_sign", "arrows(1)", "more arrows", key_display="+", show=False),
        Binding("minus", "arrows(-1)", "fewer arrows", key_display="-", show=False),
        Binding("escape", "close", "close"),
    ]

    def __init__(self, run_a: Run, run_b: Run, *, label_a: str = "A", label_b: str = "B",
                 comparison: Comparison | None = None, ascii_mode: bool = False) -> None:
        super().__init__()
        self.comparison = comparison or compare_runs(run_a, run_b, label_a, label_b)
        self.ascii_mode = ascii_mode
        self.view = "matched"

    @classmethod
    def of(cls, comparison: Comparison, *, ascii_mode: bool = False) -> CompareScreen:
        """The screen for a comparison already made (``rooftui diff --tui``)."""
        return cls(comparison.run_a, comparison.run_b, comparison=comparison, ascii_mode=ascii_mode)

    def compose(self) -> ComposeResult:
        yield Static(self._text(self._summary()), id="compare-summary")
        yield Static(id="compare-views")
        with Horizontal(id="compare-body"):
            with ContentSwitcher(initial="matched", id="compare-lists"):
                yield DataTable(id="matched", cursor_type="row", zebra_stripes=True)
                yield DataTable(id="operations", cursor_type="row", zebra_stripes=True)
                yield DataTable(id="only-a", cursor_type="row", zebra_stripes=True)
                yield DataTable(id="only-b", cursor_type="row", zebra_stripes=True)
                with VerticalScroll(id="totals"):
                    yield Static(self._totals(), id="totals-tables")
            with Vertical(id="compare-chart"):
                yield CompareCanvas(self.comparison, ascii_mode=self.ascii_mode, id="compare-canvas")
                yield Static(id="compare-legend")
        yield Static(id="compare-detail")
        yield Footer()

    def on_mount(self) -> None:
        self._fill_matched()
        self._fill_operations()
        self._fill_one_side("a")
        self._fill_one_side("b")
        self._show_views()
        self.query_one("#matched", DataTable).focus()

    def on_resize(self) -> None:
        self.set_class(self.size.width >= WIDE, "wide")

    # -- tables ------------------------------------------------------------------------------

    def _fill_matched(self) -> None:
        table = self.query_one("#matched", DataTable)
        # Short cells first and the name last, so 80 columns show every number.
        table.add_columns(*self._cells("how", "time A", "time B", "Δt", "pipeline", "kernel (B)"))
        for row, pair in self.comparison.matched.iterrows():
            table.add_row(*self._cells(
                METHOD_WORDS[pair["method"]], time_text(pair["time_s_a"]), time_text(pair["time_s_b"]),
                change(pair["time_ratio"]),
                both(pipeline_text(pair["pipeline_a"]), pipeline_text(pair["pipeline_b"])),
                _short(pair["name_b"])), key=str(row))

    def _fill_operations(self) -> None:
        table = self.query_one("#operations", DataTable)
        table.add_columns(*self._cells("phase", "n", "time A", "time B", "Δt", "pipeline", "operation"))
        for row, op in self.comparison.operations.iterrows():
            table.add_row(*self._cells(
                op["phase"], both(count_text(op["count_a"]), count_text(op["count_b"])),
                time_text(op["time_s_a"]), time_text(op["time_s_b"]), change(op["time_ratio"]),
                both(pipeline_text(op["pipeline_a"]), pipeline_text(op["pipeline_b"])), op["operation"]),
                key=str(row))

    def _fill_one_side(self, side: str) -> None:
        frame = self.comparison.only_a if side == "a" else self.comparison.only_b
        table = self.query_one(f"#only-{side}", DataTable)
        table.add_columns("n", "time", "pipeline", "phase", "kernel")
        for row, kernel in frame.iterrows():
            table.add_row(*self._cells(
                count_text(kernel[f"count_{side}"]), time_text(kernel[f"time_s_{side}"]),
                pipeline_text(kernel[f"pipeline_{side}"]), kernel[f"phase_{side}"],
                _short(kernel[f"name_{side}"])), key=str(row))

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key is None or event.row_key.value is None:
            return
        if event.data_table.id != self.view:
            return  # every table highlights its first row when filled
        row = int(event.row_key.value)
        self._select(row)
        self._show_detail(self.view, row)

    def _select(self, row: int) -> None:
        """Gold arrows: the highlighted pair, or every pair of the highlighted operation."""
        if self.view == "matched":
            rows = {row}
        elif self.view == "operations":
            op = self.comparison.operations.loc[row]
            matched = self.comparison.matched
            mine = ((matched["operation_a"] == op["operation"]) & (matched["phase_a"] == op["phase"])) | (
                (matched["operation_b"] == op["operation"]) & (matched["phase_b"] == op["phase"]))
            rows = set(matched.index[mine])
        else:
            rows = set()
        canvas = self.query_one(CompareCanvas)
        if canvas.selected_rows != rows:
            canvas.selected_rows = frozenset(rows)
            canvas.rebuild()

    def _show_detail(self, view: str, row: int) -> None:
        text = Text(no_wrap=True, overflow="ellipsis")
        if view == "operations":
            op = self.comparison.operations.loc[row]
            text.append(f"{op['phase']} · {op['operation']}: ", style="bold")
            text.append(f"{count_text(op['kernels_a']) or 0} kernels in A, "
                        f"{count_text(op['kernels_b']) or 0} in B")
        elif view in ("matched", "only-a", "only-b"):
            kernel = self.comparison.kernels.loc[row]
            if view == "matched":
                text.append(f"{_how(kernel)}\n", style="bold")
            for side in ("a", "b"):
                if isinstance(kernel[f"name_{side}"], str):
                    text.append(f"{side.upper()} ", style="bold")
                    text.append(f"{kernel[f'name_{side}']}\n")
        self.query_one("#compare-detail", Static).update(self._text(text))

    # -- keys ----------------------------------------------------------------------------------

    def action_view(self, view: str) -> None:
        self.view = view
        self.query_one(ContentSwitcher).current = view
        widget = self.query_one(f"#{view}")
        (widget if isinstance(widget, DataTable) else widget).focus()
        if isinstance(widget, DataTable) and widget.row_count:
            row = int(widget.coordinate_to_cell_key(widget.cursor_coordinate).row_key.value)
            self._select(row)
            self._show_detail(view, row)
        else:
            self._select(-1)
            self.query_one("#compare-detail", Static).update("")
        self._show_views()

    def action_next_level(self) -> None:
        canvas = self.query_one(CompareCanvas)
        canvas.level = LEVELS[(LEVELS.index(canvas.level) + 1) % len(LEVELS)]
        canvas.rebuild()

    def action_arrows(self, step: int) -> None:
        """Five arrows more or fewer; one by one below five."""
        canvas = self.query_one(CompareCanvas)
        size = 5 if canvas.count + step >= 5 else 1
        canvas.count = min(max(1, canvas.count + step * size), len(self.comparison.matched))
        canvas.rebuild()

    def action_zoom(self) -> None:
        """The chart alone, or back to list and chart."""
        self.toggle_class("zoomed")

    def action_close(self) -> None:
        self.dismiss(None)

    # -- text ----------------------------------------------------------------------------------

    def _summary(self) -> Text:
        c = self.comparison
        total_a, total_b = c.total_time("a"), c.total_time("b")
        return Text.assemble(
            ("A ", "bold"), f"{c.label_a} {duration(total_a)} → ",
            ("B ", "bold"), f"{c.label_b} {duration(total_b)} ",
            (f"({change(total_b / total_a if total_a else None)})", "bold"),
            f" · {len(c.matched)} matched · {len(c.only_a)} only A · {len(c.only_b)} only B",
        )

    def _show_views(self) -> None:
        names = {"matched": f"matched {len(self.comparison.matched)}", "operations": "operations",
                 "only-a": f"only A {len(self.comparison.only_a)}",
                 "only-b": f"only B {len(self.comparison.only_b)}", "totals": "totals"}
        text = Text()
        for view, key in VIEWS.items():
            style = "bold reverse" if view == self.view else "dim"
            text.append(f" {key} {names[view]} ", style=style)
            text.append(" ")
        self.query_one("#compare-views", Static).update(self._text(text))

    @on(CompareCanvas.Redrawn)
    def _show_legend(self) -> None:
        canvas = self.query_one(CompareCanvas)
        overlay = canvas.overlay
        style = "ascii" if self.ascii_mode else "unicode"
        text = Text()
        text.append(f"{A_MARKER[style]} A {self.comparison.label_a}  ", style=_rgb(A_COLOUR))
        text.append(f"{B_MARKER[style]} B {self.comparison.label_b}  ",
                    style=_rgb(LEVEL_COLOURS[canvas.level]))
        shown = overlay.heavy if overlay else 0
        text.append(f"{shown} heaviest matched at {LEVEL_LABELS[canvas.level]}", style="dim")
        if canvas.selected_rows:
            text.append(f"  {len(canvas.selected_rows)} selected", style=_rgb(SELECTED_COLOUR))
        if overlay:
            roofs = [roof for roof in overlay.figure.roofs if roof.kind == "bandwidth"]
            roofs += sorted((roof for roof in overlay.figure.roofs if roof.kind == "compute"),
                            key=lambda roof: -roof.ys[0])
            text.append("\n" + " · ".join(_short_roof(roof.label) for roof in roofs), style="dim")
        self.query_one("#compare-legend", Static).update(self._text(text))

    def _totals(self) -> RenderableType:
        tables = Group(phase_totals(self.comparison), Text(), pipeline_totals(self.comparison), Text(),
                       zero_ai_totals(self.comparison))
        if not self.ascii_mode:
            return tables
        console = Console(width=120, file=io.StringIO(), color_system=None)
        with console.capture() as capture:
            console.print(tables)
        return Text(_ascii(capture.get()))

    def _cells(self, *cells: str) -> list[str]:
        return [_ascii(cell) for cell in cells] if self.ascii_mode else list(cells)

    def _text(self, text: Text) -> Text:
        return Text(_ascii(text.plain)) if self.ascii_mode else text


_MORE_ASCII = str.maketrans({"→": "->", "Δ": "d", "○": "o", "●": "*"})


def _ascii(text: str) -> str:
    return ascii_safe(text).translate(_MORE_ASCII)


def _short_roof(label: str) -> str:
    """"Tensor FP16 989 TFLOP/s (spec)" -> "Tensor FP16 989T (spec)": the legend has one line."""
    return label.replace("FLOP/s", "").replace(" T ", "T ").replace(" P ", "P ").replace(" G ", "G ")


def _rgb(colour: tuple[int, int, int]) -> str:
    return "rgb({},{},{})".format(*colour)


def _short(name: str, width: int = 48) -> str:
    """The name without template arguments, cut to ``width``: the detail line has it all."""
    at = name.find("<")
    name = name if at <= 0 else name[:at] + "<…>"
    return name if len(name) <= width else name[: width - 1] + "…"


def _how(pair: pd.Series) -> str:
    if pair["method"] == "exact":
        return "same kernel name"
    if pair["method"] == "parameters":
        what = "same name but its parameters"
    else:
        what = f"same operation ({pair['key']})"
    rank = ""
    if pair["candidates_a"] > 1 or pair["candidates_b"] > 1:
        rank = (f", #{int(pair['rank'])} by time of {int(pair['candidates_a'])} in A and "
                f"{int(pair['candidates_b'])} in B")
    return f"{what}{rank} · {si(pair['flop_rate_a'], 'FLOP/s')} → {si(pair['flop_rate_b'], 'FLOP/s')}"


class CompareApp(App[None]):
    """``rooftui diff A B --tui``: the compare screen on its own."""

    TITLE = "rooftui diff"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = [Binding("q", "quit", "quit")]

    def __init__(self, comparison: Comparison, *, ascii_mode: bool = False) -> None:
        super().__init__()
        self.comparison = comparison
        self.ascii_mode = ascii_mode

    def on_mount(self) -> None:
        self.push_screen(CompareScreen.of(self.comparison, ascii_mode=self.ascii_mode),
                         callback=lambda _: self.exit())

