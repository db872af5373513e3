"""``rooftui plot``: the explorer's view as an SVG, and its table as CSV, without a terminal."""

from __future__ import annotations

from pathlib import Path

import click

from rooftui.analysis.filter_spec import BOUND_KINDS, ZERO_AI_MODES, InvalidFilter, KernelFilter
from rooftui.cli.options import report_options, reports_argument
from rooftui.cli.outputs import OutputFiles, make_xml_valid
from rooftui.errors import InputError
from rooftui.model.columns import LEVELS
from rooftui.views.text import printable


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
    help="Write the explorer's view (roofline, table, filters) as SVG.",
)
@click.option(
    "--csv",
    "csv_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the filtered, sorted table as CSV (every column, base units).",
)
@click.option("--size", default="160x48", show_default=True, help="Terminal size of the SVG.")
@click.option("--invocations", is_flag=True, help="One row per invocation instead of per kernel name.")
@click.option("--name", default="", help="Kernel name substring (or regex with --regex).")
@click.option("--regex", is_flag=True, help="Treat --name as a regular expression.")
@click.option(
    "--pipeline",
    default=None,
    help="Only kernels whose main pipeline is this (fp64, tensor_fp16, none...).",
)
@click.option("--zero-ai", type=click.Choice(ZERO_AI_MODES), default="all", show_default=True)
@click.option("--only-phase", default=None,
              help="Only kernels in this phase (forward, backward, optimizer...; see --phase).")
@click.option("--ai-level", type=click.Choice(LEVELS), default="hbm", show_default=True)
@click.option("--ai-min", type=float, default=None, help="Lowest AI (FLOP/byte) at --ai-level.")
@click.option("--ai-max", type=float, default=None, help="Highest AI (FLOP/byte) at --ai-level.")
@click.option("--bound", default=None, help=f"{' or '.join(BOUND_KINDS)}, or a roof such as HBM.")
@click.option("--top", type=click.IntRange(min=1), default=None, help="Keep the N heaviest by time.")
@click.option("--sort", "sort_column", default="time_s", show_default=True, help="Column to sort by.")
@click.option("--ascending", is_flag=True, help="Sort ascending (default: descending).")
@click.option("--ascii", "ascii_mode", is_flag=True, help="Only ASCII characters in the SVG.")
def plot(
    reports,
    load_options,
    svg_path,
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
) -> None:
    """Export the view of REPORT... (the bundled sample if none) for batch use.

    \b
    rooftui plot run.ncu-rep --svg roofline.svg
    rooftui plot run.ncu-rep --zero-ai only --csv zero_ai.csv
    """
    if svg_path is None and csv_path is None:
        raise click.UsageError("give --svg FILE, --csv FILE or both")
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
    view = {
        "spec": spec,
        "grouped": not invocations,
        "sort_column": sort_column,
        "sort_descending": not ascending,
    }
    outputs = OutputFiles([svg_path, csv_path], inputs=[*reports, load_options.ceilings])
    with outputs.writing():
        if svg_path is not None:
            import asyncio

            svg_file = outputs.temporary(svg_path)
            rows = asyncio.run(_export_svg(reports, load_options, view, svg_file, _size(size), ascii_mode))
            make_xml_valid(svg_file)
        else:
            rows = _rows_without_ui(reports, load_options, view)
        if csv_path is not None:
            rows.to_csv(outputs.temporary(csv_path), index=False)
    if csv_path is not None:
        click.echo(f"wrote {len(rows):,} rows to {printable(csv_path)}")
    if svg_path is not None:
        click.echo(f"wrote {printable(svg_path)}")


def _check_view(state, view) -> None:
    from rooftui.views.tui.table_columns import COLUMNS

    pipelines, phases, bounds = state.choices()
    spec = view["spec"]
    for what, value, present in (
        ("pipeline", spec.pipeline, pipelines),
        ("phase", spec.phase, phases),  # --only-phase
        ("bound", spec.bound, [*BOUND_KINDS, *bounds]),
    ):
        if value is not None and value not in present:
            raise InputError(f"no {what} {value!r} in this run; present: {', '.join(present) or 'none'}")
    sortable = [c.key for c in COLUMNS]
    if view["sort_column"] not in sortable:
        raise InputError(f"cannot sort by {view['sort_column']!r}; use one of {', '.join(sortable)}")


def _rows_without_ui(reports, load_options, view):
    from rooftui.views.tui.view_state import LoadedRun, ViewState

    if not reports:
        from rooftui.sample import sample_paths

        reports = sample_paths()
    state = ViewState(LoadedRun.from_run(load_options.load(reports)))
    _check_view(state, view)
    for key, value in view.items():
        setattr(state, key, value)
    return state.rows()


async def _export_svg(reports, load_options, view, svg_path: Path, size, ascii_mode):
    from rooftui.views.tui.app import make_app

    app = make_app(reports, options=load_options, ascii_mode=ascii_mode)
    async with app.run_test(size=size) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        if app.load_error is not None:
            raise app.load_error
        explorer = app.explorer
        _check_view(explorer.state, view)
        explorer.configure(**view)
        await pilot.pause()
        explorer.flush_redraw()
        await pilot.pause()
        app.save_screenshot(filename=svg_path.name, path=str(svg_path.parent.resolve()))
        return explorer.rows
