"""A number in the kernel table is shown whole or not at all, however far the table
is scrolled sideways: `.77e-04` for 3.77e-04 reads as another number."""

from __future__ import annotations

from rooftui.views.tui.table_columns import COLUMNS
from rooftui.views.tui.widgets.kernel_table import GAP, KernelTable


def visible_cells(table: KernelTable) -> list[tuple[str, str, str]]:
    """(column, what the screen shows in that column's place, the whole formatted value)
    for every row on screen and every column at least partly on screen."""
    width = table.scrollable_content_region.width
    height = table.scrollable_content_region.height
    left = table.name_width + GAP
    cells = []
    for y in range(1, height):
        row = int(table.scroll_y) + y - 1
        if row >= len(table.positions):
            break
        line = "".join(segment.text for segment in table.render_line(y))
        assert len(line) == width
        kernel = table.frame.iloc[int(table.positions[row])]
        start = left - int(table.scroll_x)
        for column in COLUMNS[1:]:
            first, last = max(start, left), min(start + column.width, width)
            if first < last:
                cells.append((column.key, line[first:last].strip(), column.cell(kernel)))
            start += column.width + GAP
    return cells


async def scrolling_sideways_never_cuts_a_number(pilot) -> None:
    """At 80x24, kernels grouped, then `g`, single launches; left grouped, at the first
    column, not scrolled. Run in test_snapshots.py's 80x24 app, after its pictures."""
    app = pilot.app
    assert app.size == (80, 24)
    table = app.explorer.query_one(KernelTable)
    for grouped in (True, False):
        if not grouped:  # back to the first column, as a fresh start has it
            await pilot.press(*["left"] * (len(COLUMNS) + 2), "g")
            assert table.cursor_column == 0 and table.scroll_x == 0
        seen = 0
        # by keys (the column cursor scrolls whole columns) and then by every offset,
        # as a mouse wheel or the scrollbar would leave it
        for step in range(len(COLUMNS) + 2):
            await pilot.press("right") if step else None
            await pilot.pause()
            cells = visible_cells(table)
            assert all(shown in ("", value) for _, shown, value in cells), (grouped, cells)
            seen += sum(1 for _, shown, _ in cells if shown)
        for x in range(int(table.max_scroll_x) + 1):
            table.scroll_to(x=x, animate=False, immediate=True)
            cells = visible_cells(table)
            assert all(shown in ("", value) for _, shown, value in cells), (grouped, x, cells)
        assert table.max_scroll_x > 0 and seen > 100  # the test did look at numbers
        assert app.explorer.state.grouped == grouped
    await pilot.press(*["left"] * (len(COLUMNS) + 2), "g")  # as it was
    assert table.cursor_column == 0 and table.scroll_x == 0 and app.explorer.state.grouped


def test_the_pipeline_column_marks_approximate_fp16_with_a_tilde_as_summary_does(sample_run):
    from rich.console import Console

    from rooftui.analysis.grouping import group_by_name
    from rooftui.views.summary import render_table
    from rooftui.views.tui.table_columns import COLUMNS

    pipeline = next(c for c in COLUMNS if c.key == "pipeline")
    assert pipeline.format("fp16", True) == "FP16~"
    assert pipeline.format("fp16", False) == "FP16"
    assert pipeline.format("tensor_fp16", True) == "Tensor FP16"  # Tensor Core FLOPs are exact
    assert pipeline.format("fp32", True) == "FP32"
    # the same kernels carry the mark in `rooftui summary`
    rows = group_by_name(sample_run.kernels)
    console = Console(width=400, color_system=None, record=True)
    render_table(sample_run, rows, console, grouped=True)
    marked = sum(line.count(" FP16~ ") for line in console.export_text().splitlines())
    tui = sum(pipeline.format(p, a).endswith("~") for p, a in zip(rows["pipeline"], rows["fp16_approximate"]))
    assert marked == tui > 0
