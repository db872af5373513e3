"""``rooftui plot``: the roofline as a figure (SVG/PNG through matplotlib), the
explorer's screen as an SVG screenshot, and its table as CSV, without a terminal."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import click

from rooftui.analysis.filter_spec import BOUND_KINDS, ZERO_AI_MODES, InvalidFilter, KernelFilter
from rooftui.cli.options import report_options, reports_argument
from rooftui.cli.outputs import OutputFiles, make_xml_valid
from rooftui.errors import InputError
from rooftui.model.columns import LEVELS
from rooftui.views.text import printable

if TYPE_CHECKING:
    from rooftui.views.tui.view_state import ViewState


@dataclass(frozen=True)
class PlotView:
    """What ``plot`` shows: the explorer's view, chosen by options instead of keys."""

    spec: KernelFilter
    grouped: bool
    sort_column: str
    sort_descending: bool
    instruction: bool = False  # the instruction roofline (the explorer's key i)


def _size(text: str) -> tuple[int, int]:
    try:
        width, height = (int(part) for part in text.lower().split("x"))
    except ValueError:
        raise click.BadParameter(f"expected WIDTHxHEIGHT such as 160x48, got {text!r}") from None
    if width < 40 or height < 12:
        raise click.BadParameter("the smallest useful size is 40x12")
    return width, height


@click.command("plot")
@reports_argument
@report_options
@click.option(
    "--svg",
    "svg_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the roofline as a vector figure (needs pip install 'rooftui[plot]').",
)
@click.option(
    "--png",
    "png_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the roofline as a bitmap figure (needs pip install 'rooftui[plot]').",
)
@click.option(
    "--screenshot",
    "screenshot_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the explorer's screen (roofline, table, filters) as an SVG screenshot.",
)
@click.option(
    "--csv",
    "csv_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the filtered, sorted table as CSV (every column, base units).",
)
@click.option("--size", default="160x48", show_default=True, help="Terminal size of the screenshot.")
@click.option("--invocations", is_flag=True, help="One row per invocation instead of per kernel name.")
@click.option("--name", default="", help="Kernel name substring (or regex with --regex).")
@click.option("--regex", is_flag=True, help="Treat --name as a regular expression.")
@click.option(
    "--pipeline",
    default=None,
    help="Only kernels whose main pipeline is this (fp64, tensor_fp16, none...).",
)
@click.option("--zero-ai", type=click.Choice(ZERO_AI_MODES), default="all", show_default=True)
@click.option(
    "--only-phase",
    default=None,
    help="Only kernels in this phase (forward, backward, optimizer...; see --phase).",
)
@click.option("--ai-level", type=click.Choice(LEVELS), default="hbm", show_default=True)
@click.option("--ai-min", type=float, default=None, help="Lowest AI (FLOP/byte) at --ai-level.")
@click.option("--ai-max", type=float, default=None, help="Highest AI (FLOP/byte) at --ai-level.")
@click.option("--bound", default=None, help=f"{' or '.join(BOUND_KINDS)}, or a roof such as HBM.")
@click.option("--top", type=click.IntRange(min=1), default=None, help="Keep the N heaviest by time.")
@click.option("--sort", "sort_column", default="time_s", show_default=True, help="Column to sort by.")
@click.option("--ascending", is_flag=True, help="Sort ascending (default: descending).")
@click.option("--ascii", "ascii_mode", is_flag=True, help="Only ASCII characters in the screenshot.")
@click.option(
    "--instructions",
    "instruction",
    is_flag=True,
    help="The instruction roofline (warp instructions/s against instructions per transaction), as key i.",
)
def plot(
    reports,
    load_options,
    svg_path,
    png_path,
    screenshot_path,
    csv_path,
    size,
    invocations,
    name,
    regex,
    pipeline,
    zero_ai,
    only_phase,
    ai_level,
    ai_min,
    ai_max,
    bound,
    top,
    sort_column,
    ascending,
    ascii_mode,
    instruction,
) -> None:
    """Export the view of REPORT... (the bundled sample if none) for batch use.

    \b
    rooftui plot run.ncu-rep --svg roofline.svg --png roofline.png
    rooftui plot run.ncu-rep --screenshot screen.svg --size 120x40
    rooftui plot run.ncu-rep --zero-ai only --csv zero_ai.csv
    """
    figures = [(path, fmt) for path, fmt in ((svg_path, "svg"), (png_path, "png")) if path is not None]
    if not figures and screenshot_path is None and csv_path is None:
        raise click.UsageError("give --svg FILE, --png FILE, --screenshot FILE or --csv FILE")
    if figures:
        from rooftui.views.figure import require_matplotlib

        require_matplotlib()  # before loading anything
    try:
        spec = KernelFilter(
            name=name,
            regex=regex,
            pipeline=pipeline,
            zero_ai=zero_ai,
            phase=only_phase,
            ai_level=ai_level,
            ai_min=ai_min,
            ai_max=ai_max,
            bound=bound,
            top_n=top,
        )
    except InvalidFilter as err:
        raise click.BadParameter(str(err)) from None
    view = PlotView(
        spec=spec,
        grouped=not invocations,
        sort_column=sort_column,
        sort_descending=not ascending,
        instruction=instruction,
    )
    outputs = OutputFiles(
        [svg_path, png_path, screenshot_path, csv_path], inputs=[*reports, load_options.ceilings]
    )
    with outputs.writing():
        if screenshot_path is not None:
            import asyncio  # only here: `rooftui --help` stays fast

            screenshot = outputs.temporary(screenshot_path)
            asyncio.run(_export_screenshot(reports, load_options, view, screenshot, _size(size), ascii_mode))
            make_xml_valid(screenshot)
        if figures or csv_path is not None:
            state = _view_without_ui(reports, load_options, view)
            rows = state.rows()
        if figures:  # one figure, saved in each format asked for
            files = _figures(state, rows, [fmt for _, fmt in figures], view.instruction)
            for path, fmt in figures:
                write_output(outputs.temporary(path), files[fmt])
        if csv_path is not None:
            from rooftui.views.summary import to_csv  # the one CSV layout of the kernel table

            write_output(outputs.temporary(csv_path), to_csv(rows))
    if screenshot_path is not None:
        click.echo(f"wrote {printable(screenshot_path)} (screenshot)")
    for path, _ in figures:
        click.echo(f"wrote {printable(path)} (roofline figure)")
    if csv_path is not None:
        click.echo(f"wrote {len(rows):,} rows to {printable(csv_path)}")


def write_output(path: Path, data: bytes | str) -> None:
    """Every file ``plot`` writes goes through here (into ``OutputFiles``' temporaries,
    which become the targets only when every output was written)."""
    if isinstance(data, str):
        path.write_text(data, encoding="utf-8")
    else:
        path.write_bytes(data)


def _figures(state, rows, formats: list[str], instruction: bool = False) -> dict[str, bytes]:
    from rooftui.analysis import instruction_roofline
    from rooftui.views.figure import roofline_figure_files
    from rooftui.views.tui.roofline_model import ceilings_per_device

    run = state.run.source
    roofs = {device: instruction_roofline.ceilings_for(run, device) for device in run.devices}
    return roofline_figure_files(
        rows,
        ceilings_per_device(run),
        formats,
        pipelines=state.shown_pipelines(),
        title=", ".join(Path(str(r.path)).name for r in getattr(run, "reports", [])),
        instruction_roofs=roofs if instruction else None,
    )


def _check_view(state: ViewState, view: PlotView) -> None:
    from rooftui.views.tui.table_columns import COLUMNS

    pipelines, phases, bounds = state.choices()
    spec = view.spec
    for what, value, present in (
        ("pipeline", spec.pipeline, pipelines),
        ("phase", spec.phase, phases),  # --only-phase
        ("bound", spec.bound, [*BOUND_KINDS, *bounds]),
    ):
        if value is not None and value not in present:
            raise InputError(f"no {what} {value!r} in this run; present: {', '.join(present) or 'none'}")
    sortable = [c.key for c in COLUMNS]
    if view.sort_column not in sortable:
        raise InputError(f"cannot sort by {view.sort_column!r}; use one of {', '.join(sortable)}")


def _view_without_ui(reports, load_options, view: PlotView) -> ViewState:
    from rooftui.views.tui.view_state import LoadedRun, ViewState

    if not reports:
        from rooftui.sample import sample_paths

        reports = sample_paths()
    state = ViewState(LoadedRun.from_run(load_options.load(reports)))
    _check_view(state, view)
    state.spec, state.grouped = view.spec, view.grouped
    state.sort_column, state.sort_descending = view.sort_column, view.sort_descending
    return state


async def _export_screenshot(reports, load_options, view: PlotView, svg_path: Path, size, ascii_mode):
    from rooftui.views.tui.app import make_app

    app = make_app(reports, options=load_options, ascii_mode=ascii_mode)
    async with app.run_test(size=size) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        if app.load_error is not None:
            raise app.load_error
        explorer = app.explorer
        assert explorer.state is not None, "the run loaded without error, so the explorer has it"
        _check_view(explorer.state, view)
        explorer.configure(
            spec=view.spec,
            grouped=view.grouped,
            sort_column=view.sort_column,
            sort_descending=view.sort_descending,
        )
        if view.instruction:
            await pilot.press("i")
        await pilot.pause()
        explorer.flush_redraw()
        await pilot.pause()
        write_output(svg_path, app.export_screenshot())
