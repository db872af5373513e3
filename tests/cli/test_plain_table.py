"""``summary``'s tables on a console that writes no styles (a pipe, a file, NO_COLOR's
plain text) are written as lines of text, not drawn by rich cell by cell: the text must be
rich's own, character for character (rich's table is the independent answer)."""

from __future__ import annotations

import io

import pandas as pd
import pytest
from rich.console import Console
from rich.text import Text

from rooftui.analysis import grouped_kernels, load_run
from rooftui.views import name_table
from rooftui.views.summary import render_table
from rooftui.views.text import safe_console

REPORTS = [
    "rooftui/data/sample/deepcam_amp.raw-base.csv.xz",  # with the instruction table
    "sample_data/known_answer/known_answer.raw.csv",
    ("sample_data/multigpu/ddp.rank0.raw.csv.xz", "sample_data/multigpu/ddp.rank1.raw.csv.xz"),  # ranks
]


def both_ways(draw, width: int, monkeypatch, soft_wrap: bool = False) -> tuple[str, str]:
    """What ``draw(console)`` writes on a plain console of ``width`` columns: as written
    (the plain lines where they apply) and as rich draws every table."""
    texts = []
    for rich_only in (False, True):
        with monkeypatch.context() as patch:
            if rich_only:
                patch.setattr(name_table, "_plain_table", lambda *args: None)
            out = io.StringIO()
            draw(safe_console(file=out, width=width, soft_wrap=soft_wrap, color_system=None))
            texts.append(out.getvalue())
    return texts[0], texts[1]


@pytest.mark.parametrize("report", REPORTS, ids=lambda r: str(r).split("/")[-1])
def test_the_kernel_tables_plain_text_is_what_rich_draws_at_every_width(
    load_once, report, monkeypatch, shared_report_cache
):
    run = load_run(list(report)) if isinstance(report, tuple) else load_once(report)  # the run-wide cache
    for grouped in (False, True):
        rows = grouped_kernels(run) if grouped else run.kernels.sort_values("time_s", ascending=False)
        rows = rows.head(12)  # the names, ranks and columns vary; the rows repeat them
        for width in (40, 100):  # 40: too narrow, rich's own
            plain, drawn = both_ways(
                lambda console, rows=rows, grouped=grouped: render_table(run, rows, console, grouped),
                width,
                monkeypatch,
            )
            assert plain == drawn, (report, grouped, width)
        plain, drawn = both_ways(
            lambda console, rows=rows, grouped=grouped: render_table(run, rows, console, grouped),
            100_000,
            monkeypatch,
            soft_wrap=True,
        )
        assert plain == drawn  # --width 0: no limit


def test_cells_rich_would_wrap_cut_or_read_as_markup_are_left_to_rich(monkeypatch):
    names = ["kernel_a", "kernel_b", "kernel_c"]
    cases = [
        ["[bold]1[/bold]", "2", "3"],  # markup in a text cell
        ["1", "2", "wide 漢字"],  # two columns a character
        ["1", "tab\there", "3"],  # a control character
    ]
    for cells in cases:
        lines = [[name, cell] for name, cell in zip(names, cells)]
        assert (
            name_table._plain_table(Console(color_system=None), ["kernel", "x"], lines, [8, 12], [False])
            is None
        )
        plain, drawn = both_ways(
            lambda console, lines=lines: name_table.print_name_table(
                console, ["kernel", "x"], lines, pd.Series(names)
            ),
            60,
            monkeypatch,
        )
        assert plain == drawn
    styled = Console(file=io.StringIO(), force_terminal=True, color_system="truecolor")
    assert name_table._plain_table(styled, ["kernel"], [[Text("a")]], [6], []) is None  # styles: rich's
    line = name_table._plain_table(
        Console(color_system=None), ["kernel", "n"], [[Text("a"), "12  "]], [6, 3], [False]
    )
    assert line == "kernel   n\na       12"  # right-justified: trailing spaces go, as rich's justify
    assert name_table._plain_title(Console(width=80), "Title", 9, line) == "Title    \n" + line  # padded
    assert name_table._plain_title(Console(width=80, soft_wrap=True), "Title", 9, line) == "Title\n" + line
    assert name_table._plain_title(Console(width=80), "A longer title", 9, line) is None  # rich wraps it
