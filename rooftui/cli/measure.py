"""``rooftui measure``: measure this machine's GPU ceilings, or ``--show`` a ceilings file."""

from __future__ import annotations

import io
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.console import Console
from rich.table import Table

from rooftui.model.ceilings import CeilingSet
from rooftui.views.formats import si
from rooftui.views.text import markup_escaped, plain, printable, safe_console

if TYPE_CHECKING:
    from rooftui.measure.runner import Plan


@click.command("measure")
@click.option(
    "--device",
    "device",
    default="0",
    show_default=True,
    metavar="N|all",
    help="GPU index, or 'all' for one process per GPU.",
)
@click.option(
    "--out",
    "out",
    default="ceilings_%h_%d.json",
    show_default=True,
    help="Ceilings JSON to write; %h is the host name, %d the device index. A copy always goes "
    "to the user's data directory ($XDG_DATA_HOME/rooftui/ceilings), where every command finds it.",
)
@click.option(
    "--ert", is_flag=True, help="Also write ERT's roofline.json beside --out (<out>.roofline.json)."
)
@click.option("--quick", is_flag=True, help="Fewer sweep points and shorter timings (about 15 s).")
@click.option(
    "--log",
    "log_path",
    default=None,
    metavar="FILE",
    help="Write every measurement (sweep points, clocks, checks) to FILE; %h and %d as for --out.",
)
@click.option(
    "--show",
    "show",
    default=None,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Draw the bandwidth curves and ceilings of a ceilings file instead of measuring.",
)
@click.option(
    "--add-issue-rate",
    "add_issue_rate",
    default=None,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Measure only the warp-issue rate (a few seconds) and write FILE's ceilings to --out with "
    "it added, each level's transaction rate derived from FILE's own bandwidths; FILE's bandwidth "
    "and FLOP roofs are kept as they are. FILE must hold this GPU model's roofs.",
)
@click.option("--wgmma-blocks-per-sm", default=2, show_default=True, hidden=True, type=int)
@click.option(
    "--wgmma-layout",
    default="128,256",
    show_default=True,
    hidden=True,
    help="LBO,SBO in bytes of the wgmma shared-memory descriptors.",
)
def measure(
    device: str,
    out: str,
    ert: bool,
    quick: bool,
    log_path: str | None,
    show: Path | None,
    add_issue_rate: Path | None,
    wgmma_blocks_per_sm: int,
    wgmma_layout: str,
) -> None:
    """Measure the GPU's ceilings with ERT-style micro-kernels.

    \b
    Compute: FP64/FP32/FP16/BF16 FMA on CUDA cores; Tensor Cores FP16, BF16,
    TF32, FP8, INT8 and FP64 (mma.sync, and wgmma on Hopper).
    Bandwidth: L1, shared memory, L2 and HBM from working-set sweeps.
    Never changes clocks or settings; records the clocks seen.
    """
    if show is not None:
        from rooftui.measure.results import read_ceilings

        draw(read_ceilings(show))
        return

    from rooftui.measure import runner
    from rooftui.measure.gpu import device_count
    from rooftui.measure.results import ceilings_document, ert_document, write_json

    runner.check_installation()  # the kernels first: a broken install is not a GPU problem
    if device == "all":
        count = device_count()

        def argv_for(index: int) -> list[str]:
            argv = ["--device", str(index), "--out", out]
            if ert:
                argv.append("--ert")
            if quick:
                argv.append("--quick")
            if log_path:
                argv += ["--log", log_path]
            if add_issue_rate is not None:
                argv += ["--add-issue-rate", str(add_issue_rate)]
            return argv

        sys.exit(runner.run_children(list(range(count)), argv_for))
    try:
        index = int(device)
    except ValueError:
        raise click.BadParameter("a GPU index or 'all'", param_hint="--device") from None

    plan = runner.Plan.quick() if quick else runner.Plan.default()
    if add_issue_rate is not None:
        _add_issue_rate(add_issue_rate, index, plan, runner.expand_out(out, index))
        return
    lbo, sbo = (int(x) for x in wgmma_layout.split(","))
    argv = sys.argv[1:]
    if argv[:1] == ["measure"]:  # `rooftui measure ...` rather than `python -m rooftui.measure ...`
        argv = argv[1:]
    log_lines: list[str] = [f"$ rooftui measure {' '.join(argv)}"]
    err = Console(stderr=True)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("[bold]measure[/] {task.description:32s}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=True,
    ) as bar:
        task = bar.add_task("starting", total=None)
        progress = runner.Progress(
            total_cb=lambda n: bar.update(task, total=n),
            advance_cb=lambda label: bar.update(task, advance=1, description=label),
            log_cb=log_lines.append,
        )
        ceiling_set, record = runner.measure_device(index, plan, progress, wgmma_blocks_per_sm, (lbo, sbo))

    out_path = runner.expand_out(out, index)
    document = ceilings_document(ceiling_set, record)
    write_json(out_path, document)
    written = [str(out_path)]
    # Also where every command looks for this GPU model's ceilings without --ceilings.
    from rooftui.ingest.measured_ceilings import save_measured, saved_path

    saved = save_measured(document)
    if saved is not None:
        written.append(str(saved))
    else:
        kept = saved_path(ceiling_set.device.name, ceiling_set.device.cc)
        err.print(
            plain(
                f"note: kept the full measurement saved in {kept}; "
                "a --quick one never replaces it (this one is only in the --out file)"
            ),
            soft_wrap=True,
        )
    if ert:
        ert_path = out_path.with_name(out_path.name.removesuffix(".json") + ".roofline.json")
        write_json(ert_path, ert_document(ceiling_set))
        written.append(str(ert_path))
    console = Console()
    console.print(ceilings_table(ceiling_set))
    for warning in record["warnings"]:
        err.print(f"[yellow]warning:[/] {warning}")
    summary = (
        f"{ceiling_set.device.name} (device {index}): measured in {record['seconds']:.1f} s; "
        f"wrote {', '.join(written)}"
    )
    console.print(plain(summary), soft_wrap=True)  # paths whole, never broken over lines
    if log_path:
        path = runner.expand_out(log_path, index)
        path.parent.mkdir(parents=True, exist_ok=True)
        text_console = Console(record=True, width=140, file=io.StringIO())
        text_console.print(ceilings_table(ceiling_set))
        path.write_text("\n".join([*log_lines, "", text_console.export_text(), summary, ""]))


def _add_issue_rate(path: Path, index: int, plan: Plan, out_path: Path) -> None:
    """``--add-issue-rate FILE``: the issue rate of GPU ``index`` added to FILE's ceilings."""
    from rooftui.errors import GpuUnavailableError
    from rooftui.ingest.ceilings import read_json_object
    from rooftui.measure import runner
    from rooftui.measure.results import read_ceilings, with_issue_rate, write_json

    # A bad FILE is one line, before any GPU work.
    document, ceiling_set = read_json_object(path), read_ceilings(path)
    lines: list[str] = []
    issue, record = runner.measure_issue_only(index, plan, runner.Progress(log_cb=lines.append))
    if isinstance(issue, str):
        raise GpuUnavailableError(issue)
    write_json(out_path, with_issue_rate(document, ceiling_set, issue.roof(), record))
    for line in lines:
        click.echo(plain(line))
    click.echo(
        plain(
            f"{record['device']} (device {index}): warp issue {issue.warp_instructions_per_s / 1e9:.1f} G/s "
            f"({issue.per_cycle_per_sm:.3f}/cycle/SM, {issue.kernel}); wrote {out_path} "
            f"(the roofs of {path}, with instruction_ceilings)"
        )
    )


def ceilings_table(ceiling_set: CeilingSet) -> Table:
    device = ceiling_set.device
    table = Table(
        title=f"{markup_escaped(device.name)} (cc {markup_escaped(device.cc)}) ceilings",
        title_justify="left",
    )
    for column in ("ceiling", "value", "SM clock", "how", "of theoretical"):
        table.add_column(
            column, justify="right" if column in ("value", "SM clock", "of theoretical") else "left"
        )
    for c in ceiling_set.ceilings:
        clock = c.extra.get("clock_hz")
        how = c.extra.get("instruction") or c.extra.get("loads") or c.extra.get("kernel", "")
        if "plateau" in c.extra:
            lo, hi = c.extra["plateau"]["working_set_bytes"]
            how = f"{how}, plateau {_bytes(lo)}–{_bytes(hi)}"
        fraction = c.extra.get("fraction_of_theoretical")
        table.add_row(
            plain(c.name),
            si(c.value, c.unit, digits=4),
            f"{clock / 1e6:.0f} MHz" if isinstance(clock, (int, float)) and clock else "",
            plain(how),
            f"{fraction:.1%}" if isinstance(fraction, (int, float)) and fraction else "",
        )
    for roof in ceiling_set.instruction_roofs:  # the instruction roofline's (sources in the file)
        clock = roof.extra.get("clock_hz")
        fraction = roof.extra.get("fraction_of_theoretical")
        derived = roof.extra.get("derived_from")
        how = str(roof.extra.get("kernel") or roof.source).rsplit("/", 1)[-1]
        if isinstance(derived, dict):
            how = f"{derived.get('ceiling')} ÷ {derived.get('bytes_per_transaction')} B"
        table.add_row(
            plain(f"{roof.label} (instructions)"),
            si(roof.value, roof.unit.replace("transactions", "txn"), digits=4),
            f"{clock / 1e6:.0f} MHz" if isinstance(clock, (int, float)) and clock else "",
            plain(how),
            f"{fraction:.1%}" if isinstance(fraction, (int, float)) and fraction else "",
        )
    return table


def _bytes(n: float) -> str:
    for scale, unit in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n:.0f} B"


# Larger than any GPU's bandwidth or memory by many orders; the log axes' tick labels
# (10**t) overflow a float near 1e308, so a hand-edited 1e308 ceiling is not drawn.
_DRAWABLE_LIMIT = 1e30


def _drawable(curves: dict[str, list], ceiling_set: CeilingSet) -> bool:
    values = [v for curve in curves.values() for point in curve for v in point]
    values += [c.value for c in ceiling_set.ceilings if c.kind == "bandwidth"]
    return all(isinstance(v, (int, float)) and 0 < v <= _DRAWABLE_LIMIT for v in values)


def draw(ceiling_set: CeilingSet, width: int | None = None, height: int | None = None) -> None:
    """Bandwidth against working set (log-log) with the ceilings, then the ceilings table.

    plotext's own log scale is unreliable, so this plots log10 of both axes on
    linear axes and writes the tick labels itself.
    """
    import shutil

    import plotext as plt

    curves: dict[str, list] = {}
    for c in ceiling_set.ceilings:
        if c.kind == "bandwidth" and c.extra.get("curve"):
            curves.setdefault(c.extra.get("loads", c.name), c.extra["curve"])
    if not curves:
        click.echo("no bandwidth curve in this file")
        safe_console().print(ceilings_table(ceiling_set))
        return
    if not _drawable(curves, ceiling_set):
        click.echo(
            f"a bandwidth or working set in this file is beyond {_DRAWABLE_LIMIT:.0e} or not "
            "above 0 (no GPU's): the chart is not drawn"
        )
        safe_console().print(ceilings_table(ceiling_set))
        return
    cols, rows = shutil.get_terminal_size((120, 40))
    plt.clear_figure()
    plt.plotsize(width or min(cols, 140), height or max(20, min(rows - 4, 36)))
    plt.title(f"{printable(ceiling_set.device.name)}: read bandwidth vs working set")
    xs_all, ys_all = [], []
    for label, curve in curves.items():
        xs = [math.log10(ws) for ws, _ in curve]
        ys = [math.log10(bw) for _, bw in curve]
        xs_all += xs
        ys_all += ys
        plt.plot(xs, ys, marker="braille", label=printable(label))
    x_lo, x_hi = min(xs_all), max(xs_all)
    bandwidths = [c for c in ceiling_set.ceilings if c.kind == "bandwidth"]
    for i, c in enumerate(bandwidths):
        level = math.log10(c.value)
        ys_all.append(level)
        plt.hline(level, "gray")
        # labels on the right half, where the legend (top left) is not; alternating
        # positions keep two close ceilings (L1 and shared memory) both readable
        x_label = x_hi - (0.62 if i % 2 else 0.3) * (x_hi - x_lo)
        plt.text(f"{printable(c.name)} {si(c.value, 'B/s', digits=4)}", x=x_label, y=level, color="gray")
    y_lo, y_hi = min(ys_all), max(ys_all)
    plt.xlim(x_lo, x_hi)
    plt.ylim(y_lo - 0.05, y_hi + 0.25 * (y_hi - y_lo))  # headroom for the legend
    powers = [k for k in range(0, 50, 2) if x_lo <= k * math.log10(2) <= x_hi]
    plt.xticks([k * math.log10(2) for k in powers], [_bytes(2**k) for k in powers])
    y_ticks = [
        e + math.log10(m)
        for e in range(math.floor(y_lo), math.ceil(y_hi) + 1)
        for m in (1, 2, 5)
        if y_lo - 0.05 <= e + math.log10(m) <= y_hi + 0.25 * (y_hi - y_lo)
    ]
    plt.yticks(y_ticks, [si(10**t, "B/s", digits=4) for t in y_ticks])
    plt.xlabel("working set (log scale)")
    plt.ylabel("bandwidth (log scale)")
    click.echo(plt.build())
    safe_console().print(ceilings_table(ceiling_set))
