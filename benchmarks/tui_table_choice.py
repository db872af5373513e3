"""Why the explorer has its own virtual table: first paint of 100,000 rows.

    python benchmarks/tui_table_choice.py [--rows 100000]

Compares textual-fastdatatable's DataTable (fed a pyarrow table of the same
display columns, or of the raw numbers) with rooftui's KernelTable, both in a
160x48 headless app: the time from mounting to the first rendered table line,
then to a re-sort (fastdatatable: a new backend; KernelTable: new positions).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from tui_bench import scale_run  # noqa: E402

from rooftui.analysis import load_run  # noqa: E402
from rooftui.sample import sample_paths  # noqa: E402
from rooftui.views.tui.explorer_model import ExplorerModel  # noqa: E402
from rooftui.views.tui.table_columns import COLUMNS  # noqa: E402
from rooftui.views.tui.view_state import LoadedRun  # noqa: E402


async def first_paint(widget_factory, after_mount) -> tuple[float, float]:
    from textual.app import App

    marks: dict[str, float] = {}

    class Bench(App):
        def compose(self):
            marks["compose"] = time.perf_counter()
            yield widget_factory()

    app = Bench()
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        marks["painted"] = time.perf_counter()
        start = time.perf_counter()
        await after_mount(app)
        await pilot.pause()
        resort = time.perf_counter() - start
    return (marks["painted"] - marks["compose"]) * 1000, resort * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    args = parser.parse_args()
    run = scale_run(load_run(sample_paths()), args.rows)
    model = ExplorerModel(LoadedRun.from_run(run))
    model.toggle_grouped()  # one row per invocation
    frame = model.state.all_rows
    keys = [c.key for c in COLUMNS]

    from textual_fastdatatable import ArrowBackend, DataTable

    raw = pa.Table.from_pandas(frame[keys], preserve_index=False)
    start = time.perf_counter()
    shown = pa.table({c.label: [c.format(v) for v in frame[c.key].tolist()] for c in COLUMNS})
    format_all_ms = (time.perf_counter() - start) * 1000

    async def resort_fast(app):
        table = app.query_one(DataTable)
        order = np.argsort(-frame["flop_rate"].to_numpy(), kind="stable")
        table.backend = ArrowBackend(raw.take(pa.array(order)))
        table.refresh()

    async def resort_ours(app):
        from rooftui.views.tui.widgets.kernel_table import KernelTable

        table = app.query_one(KernelTable)
        model.sort("flop_rate", True)
        table.show_rows(frame, model.positions, "flop_rate", True, page=model.table_page)

    def ours():
        from rooftui.views.tui.widgets.kernel_table import KernelTable

        table = KernelTable()
        model.sort("time_s", True)
        table.call_later(table.show_rows, frame, model.positions, "time_s", True, page=model.table_page)
        return table

    results = [
        (
            "fastdatatable, raw numbers",
            asyncio.run(first_paint(lambda: DataTable(backend=ArrowBackend(raw)), resort_fast)),
        ),
        (
            "fastdatatable, formatted strings",
            asyncio.run(first_paint(lambda: DataTable(backend=ArrowBackend(shown)), resort_fast)),
        ),
        ("rooftui KernelTable", asyncio.run(first_paint(ours, resort_ours))),
    ]
    print(f"{args.rows:,} rows, 160x48; formatting every cell up front takes {format_all_ms:.0f} ms\n")
    print("| table | first paint ms | re-sort ms |\n|---|---|---|")
    for label, (paint, resort) in results:
        print(f"| {label} | {paint:.0f} | {resort:.0f} |")


if __name__ == "__main__":
    main()
