"""The compare screen, headless: its state and what it shows, without Textual.

``CompareModel`` owns which list is shown (matched, operations, only in A, only in B,
totals), the row selected in each, the memory level and the number of arrows on the
chart, the zoom and the pair opened with Enter. Every key of the compare screen is one
method here; the renderers give the summary line, the list's columns and rows with
names fitted to a width, the line under the lists, a pair's whole detail, the chart
laid out for a size (``compare_overlay``, by the explorer's engine) and its legend
wrapped between items. ``screens/compare.py`` binds keys to these methods and
puts what they return into widgets, so what the screen shows is checked without an app.

The matching and every number come from :func:`rooftui.analysis.compare.compare_runs`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from rich.text import Text

from rooftui.analysis.compare import Comparison
from rooftui.model.columns import BOUND_LEVELS as LEVELS  # compared: the paper's three levels
from rooftui.model.columns import LEVEL_LABELS
from rooftui.views.compare import (
    METHOD_WORDS,
    both,
    change,
    count_text,
    finite,
    pipeline_text,
    ratio,
    time_text,
)
from rooftui.views.formats import intensity, percent, seconds, si
from rooftui.views.text import ellipsis_mark, printable, short_names, shorten
from rooftui.views.tui.compare_overlay import (
    A_MARKER,
    B_MARKER,
    ComparePicture,
    overlay_figure,
    roof_legend_text,
    with_arrows,
)
from rooftui.views.tui.format import MISSING, ascii_safe, fit_parts
from rooftui.views.tui.kept import Kept
from rooftui.views.tui.roofline_layout import (
    A_COLOUR,
    ASCII,
    LEVEL_COLOURS,
    SELECTED_COLOUR,
    UNICODE,
    lay_out,
    plot_cells,
    rgb,
)

ARROWS = 10  # matched kernels drawn as arrows, heaviest first
# The lists, in the order of their keys on the views line.
VIEWS = {"matched": "m", "operations": "o", "only-a": "a", "only-b": "b", "totals": "t"}
LISTS = ("matched", "operations", "only-a", "only-b")
# A list's column titles: short cells first and the name last, so that 80 columns show
# every number and the name takes the columns left.
TITLES = {
    "matched": ("how", "time A", "time B", "Δt", "pipeline", "kernel (B)"),
    "operations": ("phase", "n", "time A", "time B", "Δt", "pipeline", "operation"),
    "only-a": ("n", "time", "pipeline", "phase", "kernel"),
    "only-b": ("n", "time", "pipeline", "phase", "kernel"),
}
# A table cell's padding (Textual's DataTable: one column each side) and the vertical
# scroll bar's width: what a list's width loses besides its cells.
CELL_PADDING, SCROLLBAR = 2, 2
NAME_MIN = 16  # below this many columns a name column tells too little; the table scrolls
LEGEND_PADDING = 2  # the legend's left and right padding (compare.tcss)
LEGEND_ROWS = 4  # the most rows the legend under the chart takes
PICTURES_KEPT = 16  # laid-out charts kept: a few sizes for each level, count and selection


class CompareModel:
    """The compare screen's state for one comparison; see the module's docstring."""

    def __init__(self, comparison: Comparison, *, ascii_mode: bool = False) -> None:
        self.comparison = comparison
        self.ascii_mode = ascii_mode
        self.view = "matched"
        self.cursors = dict.fromkeys(LISTS, 0)  # the selected row of each list, in list order
        self.level = "hbm"
        self.count = min(ARROWS, len(comparison.matched))
        self.zoomed = False
        self.picture: ComparePicture | None = None  # the chart as last laid out
        self._names: dict[int, dict[str, str]] = {}  # name width -> {name: shown}
        self._widths: dict[str, list[int]] = {}  # list -> its number columns' widths
        self._legend_rows: dict[tuple[Any, ...], int] = {}
        self._frames: tuple[tuple[pd.DataFrame, ...], dict[str, pd.DataFrame]] | None = None
        self._operation_pairs: dict[int, frozenset[int]] = {}  # operation row -> its matched pairs
        self._rows: dict[tuple[str, int], list[tuple[int, tuple[str, ...]]]] = {}  # (list, width) -> rows
        # Charts laid out, by size and what they draw: choosing the legend's rows lays the
        # chart out at the sizes the canvas then takes, so a redraw reuses that layout.
        self._pictures: Kept[ComparePicture] = Kept(PICTURES_KEPT)

    # --- what is shown ---------------------------------------------------------------

    def frame(self, view: str) -> pd.DataFrame:
        """The rows of list ``view``, in their order (heaviest first)."""
        comparison = self.comparison
        # Split once: every key asks for the selected row, and splitting the kernels by
        # status again for each cost more than drawing (kept while the frames are these).
        made_of = (comparison.kernels, comparison.operations)
        if self._frames is None or any(a is not b for a, b in zip(self._frames[0], made_of)):
            lists = {
                "matched": comparison.matched,
                "operations": comparison.operations,
                "only-a": comparison.only_a,
                "only-b": comparison.only_b,
            }
            self._frames = (made_of, lists)
            for made in (self._operation_pairs, self._rows, self._names, self._widths):
                made.clear()
        return self._frames[1][view]

    @property
    def selected_row(self) -> int | None:
        """The label (in ``Comparison.kernels`` or ``.operations``) of the shown list's
        selected row; None on the totals or an empty list."""
        if self.view not in LISTS:
            return None
        frame = self.frame(self.view)
        if not len(frame):
            return None
        return int(str(frame.index[self.cursors[self.view]]))

    @property
    def selected_pairs(self) -> frozenset[int]:
        """The matched pairs drawn in gold: the selected pair, or every matched pair of the
        selected operation, whatever their rank by time."""
        row = self.selected_row
        if row is None or self.view not in ("matched", "operations"):
            return frozenset()
        if self.view == "matched":
            return frozenset({row})
        if row not in self._operation_pairs:
            op = self.frame("operations").loc[row]
            matched = self.frame("matched")
            mine = ((matched["operation_a"] == op["operation"]) & (matched["phase_a"] == op["phase"])) | (
                (matched["operation_b"] == op["operation"]) & (matched["phase_b"] == op["phase"])
            )
            self._operation_pairs[row] = frozenset(int(str(label)) for label in matched.index[mine])
        return self._operation_pairs[row]

    # --- the keys ----------------------------------------------------------------------

    def show_view(self, view: str) -> None:
        """``m``/``o``/``a``/``b``/``t``: the list shown, its selection kept."""
        if view not in VIEWS:
            raise ValueError(f"no list {view!r}")
        self.view = view

    def select(self, position: int) -> None:
        """Select the row at ``position`` (list order) of the shown list, kept in range."""
        if self.view in LISTS:
            self.cursors[self.view] = max(0, min(len(self.frame(self.view)) - 1, position))

    def next_level(self) -> str:
        """``l``: the arrows at the next memory level; returns the level."""
        self.level = LEVELS[(LEVELS.index(self.level) + 1) % len(LEVELS)]
        return self.level

    def change_arrows(self, step: int) -> int:
        """``+``/``-``: five arrows more or fewer, one by one below five; returns the count."""
        size = 5 if self.count + step >= 5 else 1
        self.count = min(max(1, self.count + step * size), max(1, len(self.frame("matched"))))
        return self.count

    def toggle_zoom(self) -> None:
        """``z``: the chart alone, or back to the lists and the chart."""
        self.zoomed = not self.zoomed

    def escape(self) -> bool:
        """``esc``: out of the zoomed chart (True), else nothing here to undo (False: the
        screen goes back)."""
        if self.zoomed:
            self.zoomed = False
            return True
        return False

    # --- renderers ---------------------------------------------------------------------

    def _plain(self, text: str) -> str:
        return ascii_safe(text) if self.ascii_mode else text

    def _text(self, text: Text) -> Text:
        return Text(ascii_safe(text.plain)) if self.ascii_mode else text

    def summary_line(self, width: int) -> Text:
        """The top line: both runs, their times and the change, and the counts, as much of
        it as fits ``width`` (the counts go first, the change never)."""
        c = self.comparison
        total_a, total_b = c.total_time("a"), c.total_time("b")
        times = (
            f"A {printable(c.label_a)} {seconds(total_a, missing=MISSING)} → "
            f"B {printable(c.label_b)} {seconds(total_b, missing=MISSING)} "
            f"({change(total_b / total_a if total_a else None)})"
        )
        parts = [
            (0, times),
            (1, f"{len(c.matched)} matched"),
            (2, f"{len(c.only_a)} only A · {len(c.only_b)} only B"),
        ]
        line = self._plain(fit_parts(parts, width, " · "))
        return Text(shorten(line, width, ellipsis_mark(self.ascii_mode)))

    def views_line(self) -> Text:
        """The lists and their keys, the shown one reversed."""
        names = {
            "matched": f"matched {len(self.frame('matched'))}",
            "operations": "operations",
            "only-a": f"only A {len(self.frame('only-a'))}",
            "only-b": f"only B {len(self.frame('only-b'))}",
            "totals": "totals",
        }
        text = Text()
        for view, key in VIEWS.items():
            text.append(f" {key} {names[view]} ", style="bold reverse" if view == self.view else "dim")
            text.append(" ")
        return text

    def titles(self, view: str) -> tuple[str, ...]:
        """List ``view``'s column titles, the name's last."""
        return tuple(self._plain(title) for title in TITLES[view])

    def _number_widths(self, view: str) -> list[int]:
        """The widths of list ``view``'s columns but the name: its longest cell or title."""
        if view not in self._widths:
            rows = [cells for _, cells in self._cells(view, {})]
            titles = self.titles(view)[:-1]
            self._widths[view] = [
                max([len(title), *(len(cells[i]) for cells in rows)]) for i, title in enumerate(titles)
            ]
        return self._widths[view]

    def column_widths(self, view: str, width: int) -> list[int]:
        """Each column's cell width in a list ``width`` columns wide: the numbers whole,
        the name the rest (never less than ``NAME_MIN``)."""
        numbers = self._number_widths(view)
        taken = sum(w + CELL_PADDING for w in numbers) + CELL_PADDING + SCROLLBAR
        return [*numbers, max(NAME_MIN, width - taken)]

    def short(self, width: int) -> dict[str, str]:
        """Every kernel name of both runs as the one shortener fits it to ``width``."""
        if width not in self._names:
            kernels = self.comparison.kernels
            names = [n for side in "ab" for n in kernels[f"name_{side}"] if isinstance(n, str)]
            self._names[width] = short_names(names, width, ellipsis_mark(self.ascii_mode))
        return self._names[width]

    def rows(self, view: str, width: int) -> list[tuple[int, tuple[str, ...]]]:
        """List ``view``'s rows as (row label, cells) in a list ``width`` columns wide,
        names fitted to their column by the one shortener."""
        self.frame(view)  # splits again, forgetting the rows made, if the comparison changed
        key = (view, width)
        if key not in self._rows:
            self._rows[key] = self._cells(view, self.short(self.column_widths(view, width)[-1]))
        return list(self._rows[key])

    def _cells(self, view: str, names: dict[str, str]) -> list[tuple[int, tuple[str, ...]]]:
        frame = self.frame(view)
        out = []
        for label, row in frame.iterrows():
            if view == "matched":
                cells: tuple[str, ...] = (
                    METHOD_WORDS[row["method"]],
                    time_text(row["time_s_a"]),
                    time_text(row["time_s_b"]),
                    change(row["time_ratio"]),
                    both(pipeline_text(row["pipeline_a"]), pipeline_text(row["pipeline_b"])),
                    names.get(row["name_b"], ""),
                )
            elif view == "operations":
                cells = (
                    str(row["phase"]),
                    both(count_text(row["count_a"]), count_text(row["count_b"])),
                    time_text(row["time_s_a"]),
                    time_text(row["time_s_b"]),
                    change(row["time_ratio"]),
                    both(pipeline_text(row["pipeline_a"]), pipeline_text(row["pipeline_b"])),
                    printable(row["operation"]),
                )
            else:
                side = view[-1]
                cells = (
                    count_text(row[f"count_{side}"]),
                    time_text(row[f"time_s_{side}"]),
                    pipeline_text(row[f"pipeline_{side}"]),
                    printable(row[f"phase_{side}"]),
                    names.get(row[f"name_{side}"], ""),
                )
            out.append((int(str(label)), tuple(self._plain(cell) for cell in cells)))
        return out

    def detail_line(self) -> Text:
        """The lines under the lists: how the selected pair was matched and its FLOP/s,
        and the names whole (cut by the widget at the screen's edge)."""
        text = Text(no_wrap=True, overflow="ellipsis")
        row = self.selected_row
        if row is None:
            return text
        if self.view == "operations":
            op = self.comparison.operations.loc[row]
            text.append(printable(f"{op['phase']} · {op['operation']}: "), style="bold")
            text.append(
                f"{count_text(op['kernels_a']) or 0} kernels in A, {count_text(op['kernels_b']) or 0} in B"
            )
            return self._text(text)
        kernel = self.comparison.kernels.loc[row]
        if self.view == "matched":
            text.append(f"{how_matched(kernel)}  (enter: both sides)\n", style="bold")
        for side in ("a", "b"):
            if isinstance(kernel[f"name_{side}"], str):
                text.append(f"{side.upper()} ", style="bold")
                text.append(printable(kernel[f"name_{side}"]) + "\n")
        text.rstrip()
        return self._text(text)

    def pair_detail(self) -> Text | None:
        """Enter: the selected kernel's numbers in A and in B side by side and what
        changed, with both names whole; None where the shown list has no kernel."""
        row = self.selected_row
        if row is None or self.view not in ("matched", "only-a", "only-b"):
            return None
        return self._text(pair_text(self.comparison, row))

    def chart(self, width: int, height: int) -> ComparePicture:
        """The chart at ``width`` × ``height`` cells: the heaviest pairs' arrows at the level,
        the selected pairs in gold, both sides' roofs labelled where they fit; kept for
        ``legend``."""
        self.picture = self._lay_out(width, height)
        return self.picture

    def _lay_out(self, width: int, height: int) -> ComparePicture:
        selected = self.selected_pairs
        key = (width, height, self.level, self.count, selected, self.ascii_mode)
        return self._pictures.get(key, lambda: self._picture(width, height, selected))

    def _picture(self, width: int, height: int, selected: frozenset[int]) -> ComparePicture:
        overlay = overlay_figure(self.comparison, self.level, self.count, plot_cells(width, height), selected)
        layout = lay_out(
            with_arrows(overlay, selected), max(width, 20), max(height, 4), ascii_mode=self.ascii_mode
        )
        return ComparePicture(overlay, layout, self.ascii_mode)

    def legend_rows(self, pane_width: int, pane_height: int) -> int:
        """The fewest rows (1 to ``LEGEND_ROWS``) in which the legend of the chart laid out
        in a pane's other rows fits. Chosen from the pane's size and what is drawn, never
        from the last draw: a legend that followed what the plot could not label could
        make the screen settle into two layouts, one after the other."""
        key = (pane_width, pane_height, self.level, self.count, self.selected_pairs)
        if key not in self._legend_rows:
            rows = LEGEND_ROWS
            for tried in range(1, LEGEND_ROWS):
                picture = self._lay_out(pane_width, pane_height - tried)
                if len(self._legend(picture, pane_width).plain.splitlines()) <= tried:
                    rows = tried
                    break
            self._legend_rows[key] = rows
        return self._legend_rows[key]

    def legend(self, width: int) -> Text:
        """The legend under the chart (the last ``chart``) for a pane ``width`` columns
        wide: each item whole, wrapped between items, never cut inside one. The roofs the
        plot could not label are named here, with their values and sources."""
        return self._legend(self.picture, width)

    def _legend(self, picture: ComparePicture | None, width: int) -> Text:
        style = "ascii" if self.ascii_mode else "unicode"
        c = self.comparison
        items: list[tuple[str, str]] = [
            (f"{A_MARKER[style]} A {printable(c.label_a)}", rgb(A_COLOUR)),
            (f"{B_MARKER[style]} B {printable(c.label_b)}", rgb(LEVEL_COLOURS[self.level])),
            (
                f"{picture.overlay.heavy if picture else 0} heaviest matched at {LEVEL_LABELS[self.level]}",
                "dim",
            ),
        ]
        selected = self.selected_pairs
        if selected:
            glyph = (ASCII if self.ascii_mode else UNICODE).selected
            items.append((f"{glyph} {len(selected)} selected", rgb(SELECTED_COLOUR)))
        if picture is not None:
            items += [(roof_legend_text(roof), "dim") for roof in picture.unlabelled]
        return wrap_items([(self._plain(text), s) for text, s in items], max(10, width - LEGEND_PADDING))


def wrap_items(items: list[tuple[str, str]], width: int, separator: str = "  ") -> Text:
    """``items`` (text, style) on lines of at most ``width`` columns, a line broken only
    between items; an item longer than a line is cut at its end."""
    text = Text()
    used = 0
    for item, style in items:
        item = shorten(item, width)
        if used and used + len(separator) + len(item) > width:
            text.append("\n")
            used = 0
        if used:
            text.append(separator)
            used += len(separator)
        text.append(item, style=style)
        used += len(item)
    return text


def how_matched(pair: pd.Series) -> str:
    """How a pair was matched, its rank among candidates, and its FLOP/s in A and in B."""
    if pair["method"] == "exact":
        what = "same kernel name"
    elif pair["method"] == "parameters":
        what = "same name but its parameters"
    elif pair["method"] == "similar":
        what = f"similar name ({pair['key']})"
    else:
        what = f"same operation ({pair['key']})"
    rank = ""
    if pair.get("how") == "aligned":
        aligned = int(pair["aligned"])
        rank = f", {aligned} launch{'es' if aligned != 1 else ''} aligned"
    elif pair["candidates_a"] > 1 or pair["candidates_b"] > 1:
        rank = (
            f", #{int(pair['rank'])} by time of {int(pair['candidates_a'])} in A and "
            f"{int(pair['candidates_b'])} in B"
        )
    rate_a, rate_b = (si(pair[f"flop_rate_{side}"], "FLOP/s", missing=MISSING) for side in "ab")
    return f"{what}{rank} · {rate_a} → {rate_b}"


def _yes_no(value: Any) -> str:
    return ("yes" if value else "no") if isinstance(value, (bool, np.bool_)) else MISSING


def _ratio(a: Any, b: Any) -> str:
    """B against A ("-66%"); blank where either side is missing or A is 0."""
    return change(ratio(b, a))


def _intensity(value: Any) -> str:
    return intensity(finite(value), missing=MISSING)


# One line per quantity of a kernel on each side: its title, its column in
# ``Comparison.kernels`` (``_a``/``_b`` added), how it is written, and whether a change
# is a ratio (numbers) or only a difference (words).
PAIR_LINES: tuple[tuple[str, str, Any, bool], ...] = (
    ("launches", "count", count_text, True),
    ("time", "time_s", lambda v: seconds(finite(v), missing=MISSING), True),
    ("time per launch", "time_mean_s", lambda v: seconds(finite(v), missing=MISSING), True),
    ("FLOP", "flops", lambda v: si(finite(v), "FLOP", missing=MISSING), True),
    ("FLOP/s", "flop_rate", lambda v: si(finite(v), "FLOP/s", missing=MISSING), True),
    *((f"AI {LEVEL_LABELS[level]} (FLOP/byte)", f"ai_{level}", _intensity, True) for level in LEVELS),
    ("pipeline", "pipeline", pipeline_text, False),
    ("bound", "bound", lambda v: v if isinstance(v, str) else MISSING, False),
    ("share of its roof", "roof_fraction", lambda v: percent(finite(v), missing=MISSING), False),
    ("zero-AI", "zero_ai", lambda v: _yes_no(v), False),
    ("phase", "phase", lambda v: printable(v) if isinstance(v, str) else MISSING, False),
    ("operation", "operation", lambda v: printable(v) if isinstance(v, str) else MISSING, False),
    ("GPU", "device", lambda v: printable(v) if isinstance(v, str) else MISSING, False),
)


def pair_text(comparison: Comparison, row: int) -> Text:
    """Kernel ``row`` of ``comparison.kernels`` in A and in B: each quantity on both sides
    and what changed (B against A), then both names whole. A side the kernel is not in
    reads "not in A"/"not in B"."""
    kernel = comparison.kernels.loc[row]
    present = {side: isinstance(kernel[f"name_{side}"], str) for side in "ab"}
    text = Text()
    if present["a"] and present["b"]:
        text.append(how_matched(kernel) + "\n\n", style="bold")
    else:
        only = "A" if present["a"] else "B"
        text.append(f"only in {only}: no kernel of the other run matched it\n\n", style="bold")
    title_width = max(len(title) for title, *_ in PAIR_LINES)
    cells = [("", printable(f"A {comparison.label_a}"), printable(f"B {comparison.label_b}"), "change")]
    for title, column, written, numeric in PAIR_LINES:
        values = [kernel[f"{column}_{side}"] for side in "ab"]
        shown = [written(v) if present[side] else f"not in {side.upper()}" for side, v in zip("ab", values)]
        if numeric:
            changed = _ratio(*values) if all(present.values()) else ""
        else:
            changed = "changed" if all(present.values()) and shown[0] != shown[1] else ""
        cells.append((title, shown[0], shown[1], changed))
    widths = [max(len(line[i]) for line in cells) for i in range(3)]
    widths[0] = title_width
    for number, (title, a, b, changed) in enumerate(cells):
        line = f"{title:<{widths[0]}}  {a:<{widths[1]}}  {b:<{widths[2]}}  {changed}".rstrip()
        text.append(line + "\n", style="bold" if number == 0 else "")
    text.append("\n")
    for side in "ab":
        if present[side]:
            text.append(f"{side.upper()} ", style="bold")
            text.append(printable(kernel[f"name_{side}"]) + "\n")
    text.rstrip()
    return text
