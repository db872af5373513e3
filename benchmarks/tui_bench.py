"""How fast the explorer is at 100,000 kernel invocations (a benchmark, not a test).

    python benchmarks/tui_bench.py [--rows 100000] [--size 160x48] [REPORT...]

Loads the bundled sample (or REPORT...), repeats its invocations up to ``--rows``
with each copy's duration scaled by a fixed pseudo-random factor (so the points
spread over the roofline as a long run's would), and times:

- first paint: from the loaded run reaching the UI to the table's first rendered line;
- sort and filter: the pure pandas step, and the whole key press in the running app;
- roofline redraw: building the figure and rendering it with plotext, and a key press.

Targets (issue 3): first paint <= 1 s, sort/filter <= 100 ms, roofline redraw <= 200 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rooftui.analysis.filters import KernelFilter  # noqa: E402
from rooftui.model.columns import LEVELS  # noqa: E402

TARGETS_MS = {"first paint": 1000, "sort": 100, "filter": 100, "roofline": 200}


def scale_run(run, rows: int, seed: int = 3):
    """``run``'s invocations repeated to ``rows``; copy k's durations scaled by a
    factor in [0.5, 2], with FLOP/s and roof fractions following (FLOPs, bytes and
    AI are per launch and do not change)."""
    base = run.kernels
    copies = -(-rows // len(base))
    frame = pd.concat([base] * copies, ignore_index=True).iloc[:rows].copy()
    factor = np.exp(np.random.default_rng(seed).uniform(np.log(0.5), np.log(2.0), len(frame)))
    frame["time_s"] = frame["time_s"].to_numpy() * factor
    frame["flop_rate"] = frame["flop_rate"].to_numpy() / factor
    for column in ["roof_fraction", *(f"roof_fraction_{level}" for level in LEVELS)]:
        if column in frame.columns:
            frame[column] = frame[column].to_numpy() / factor
    frame["id"] = np.arange(len(frame))
    return replace(run, kernels=frame)


def timed(function, repeat: int = 5) -> float:
    """Median wall time of ``function()`` in milliseconds."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


FILTERS = {
    "name substring": KernelFilter(name="gemm"),
    "name regex": KernelFilter(name=r"^(sm|ampere).*nn", regex=True),
    "zero-AI only": KernelFilter(zero_ai="only"),
    "AI range at HBM": KernelFilter(ai_level="hbm", ai_min=0.1, ai_max=10),
    "memory-bound": KernelFilter(bound="memory"),
    "top 100 by time": KernelFilter(top_n=100),
}
SORTS = ["time_s", "name", "ai_hbm", "pipeline", "roof_fraction"]


def pure_timings(state) -> list[tuple[str, str, float]]:
    """Filter and sort on the ViewState alone (no Textual)."""
    from rooftui.views.tui.roofline_model import build_figure

    results = []
    for label, spec in FILTERS.items():
        state.spec = spec
        results.append(("filter", f"{label} (pure)", timed(state.positions)))
    state.spec = KernelFilter()
    for column in SORTS:
        state.sort_column = column
        state.positions()  # the first sort by a column computes its keys once
        results.append(("sort", f"by {column} (pure)", timed(state.positions)))
    state.sort_column = "time_s"
    rows = state.plot_rows(state.positions())
    figure_ms = timed(
        lambda: build_figure(
            rows,
            state.run.ceilings,
            pipelines=state.shown_pipelines(),
            selected=rows.iloc[0],
            cells=(150, 40),
        )
    )
    results.append(("roofline", "figure geometry (pure)", figure_ms))
    return results


class Stopwatch:
    """Wraps methods to add up the time spent in each, between ``clear()`` calls."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = {}
        self.restore: list[tuple[type, str, object]] = []

    def watch(self, owner: type, name: str, label: str) -> None:
        original = getattr(owner, name)

        def timed_method(*args, **kwargs):
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                elapsed = (time.perf_counter() - start) * 1000
                self.spent[label] = self.spent.get(label, 0.0) + elapsed

        setattr(owner, name, timed_method)
        self.restore.append((owner, name, original))

    def clear(self) -> None:
        self.spent = {}

    def close(self) -> None:
        for owner, name, original in reversed(self.restore):
            setattr(owner, name, original)


async def app_timings(run, size: tuple[int, int]) -> list[tuple[str, str, float]]:
    """Inside the running app: the time our code spends on each key press, by
    stage, and the whole press as Pilot sees it (which adds Textual's own event
    handling and Pilot's wait for the screen to settle)."""
    from rooftui.views.tui import app as app_module
    from rooftui.views.tui.screens.explorer import ExplorerScreen
    from rooftui.views.tui.widgets.kernel_table import KernelTable
    from rooftui.views.tui.widgets.roofline import RooflineCanvas

    marks: dict[str, float] = {}
    original_show_run = ExplorerScreen.show_run
    original_render_line = KernelTable.render_line

    def show_run(self, run):
        marks["run reached the UI"] = time.perf_counter()
        original_show_run(self, run)

    def render_line(self, y):
        if len(self.positions) and "first table line" not in marks:
            marks["first table line"] = time.perf_counter()
        return original_render_line(self, y)

    ExplorerScreen.show_run = show_run
    KernelTable.render_line = render_line
    watch = Stopwatch()
    watch.watch(ExplorerScreen, "refresh_rows", "table")
    watch.watch(KernelTable, "render_line", "table")
    watch.watch(ExplorerScreen, "redraw_roofline", "roofline")
    watch.watch(RooflineCanvas, "render", "roofline")
    results = []
    try:
        app = app_module.make_app(run=run)
        async with app.run_test(size=size) as pilot:
            await app.workers.wait_for_complete()
            while "first table line" not in marks:
                await pilot.pause(0.01)
            paint = (marks["first table line"] - marks["run reached the UI"]) * 1000
            results.append(("first paint", "run loaded -> first table line", paint))
            explorer = app.explorer
            explorer.state.grouped = False
            explorer.refresh_rows()
            await pilot.pause()
            explorer.flush_redraw()
            await pilot.pause()

            async def press(*keys: str) -> dict[str, float]:
                watch.clear()
                start = time.perf_counter()
                await pilot.press(*keys)
                explorer.flush_redraw()  # the debounced roofline update, now
                await pilot.pause()
                spent = dict(watch.spent)
                spent["press"] = (time.perf_counter() - start) * 1000
                return spent

            def median(samples: list[dict[str, float]], key: str) -> float:
                return statistics.median(sample.get(key, 0.0) for sample in samples)

            def record(kind: str, what: str, samples: list[dict[str, float]]) -> None:
                results.append((kind, f"{what}: rows + status + table paint", median(samples, "table")))
                if median(samples, "roofline"):  # a sort keeps the picture: no redraw
                    results.append(
                        ("roofline", f"{what}: roofline figure + plot", median(samples, "roofline"))
                    )
                results.append(("press", f"{what}: whole press under Pilot", median(samples, "press")))

            table = explorer.query_one(KernelTable)
            table.focus()
            samples = [await press("w") for _ in range(4)]  # a key bound to nothing
            results.append(("press", "unbound key: Textual + Pilot alone", median(samples, "press")))
            for index in (7, 0, 2):  # AI HBM, name, time
                table.cursor_column = index
                samples = [await press(k) for k in ("left_square_bracket", "right_square_bracket")]
                record("sort", f"sort by {table.current_column.key}", samples)
            explorer.query_one("#filter-name").focus()
            record("filter", "type a name filter, per key", [await press(ch) for ch in "gemm"])
            await pilot.press("escape", "x")
            table.focus()
            samples = [await press(k) for k in ("1", "1", "3", "3")]
            results.append(("roofline", "level toggle: roofline figure + plot", median(samples, "roofline")))
            canvas = explorer.query_one(RooflineCanvas)
            results.append(
                (
                    "info",
                    f"{len(explorer.positions):,} rows shown; on screen: {canvas.figure.note}",
                    float("nan"),
                )
            )
    finally:
        watch.close()
        ExplorerScreen.show_run = original_show_run
        KernelTable.render_line = original_render_line
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="*", type=Path)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--size", default="160x48")
    args = parser.parse_args()
    size = tuple(int(v) for v in args.size.split("x"))

    from rooftui.analysis import load_run
    from rooftui.analysis.load_options import LoadOptions
    from rooftui.views.tui.view_state import LoadedRun, ViewState

    if args.reports:
        paths = args.reports
    else:
        from rooftui.sample import sample_paths

        paths = sample_paths()
    start = time.perf_counter()
    base = load_run(paths, LoadOptions(no_cache=True))  # a cold read, as the figure says
    load_ms = (time.perf_counter() - start) * 1000
    run = scale_run(base, args.rows)
    start = time.perf_counter()
    loaded = LoadedRun.from_run(run)
    prepare_ms = (time.perf_counter() - start) * 1000
    state = ViewState(loaded, grouped=False)

    results = [
        ("load", f"load_run of the sample ({len(base.kernels):,} invocations)", load_ms),
        ("load", f"prepare {args.rows:,} rows for the UI (worker thread)", prepare_ms),
    ]
    results += pure_timings(replace(state))
    results += asyncio.run(app_timings(run, size))

    print(f"rooftui explorer at {args.rows:,} invocations, {size[0]}x{size[1]}\n")
    print(f"| {'what':<11} | {'measured':<58} | {'ms':>8} | target |")
    print(f"|{'-' * 13}|{'-' * 60}|{'-' * 10}|--------|")
    for kind, label, ms in results:
        target = TARGETS_MS.get(kind)
        verdict = "" if target is None or ms != ms else ("ok" if ms <= target else "OVER")
        shown = "" if ms != ms else f"{ms:8.1f}"
        print(f"| {kind:<11} | {label:<58} | {shown:>8} | {verdict:<6} |")


if __name__ == "__main__":
    main()
