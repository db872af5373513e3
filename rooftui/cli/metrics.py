"""``rooftui metrics``: the counters rooftui needs, ready for ``ncu --metrics``."""

from __future__ import annotations

import click

from rooftui.model.metrics import required_metrics
from rooftui.profile.gpus import is_known_compute_capability, resolve_architecture
from rooftui.profile.ncu import NcuOptions, ncu_command_line

ARCH_HELP = "Architecture to collect for: sm_70, sm_75, sm_80, sm_86, sm_89, sm_90, sm_100, ..."
GPU_HELP = "GPU to collect for, by name: H100, H200, A100, V100, B200, L40S, 'RTX 4090', ..."


def chosen_metrics(arch: str | None, gpu: str | None) -> list[str]:
    """rooftui's metric list for ``--arch``/``--gpu`` (the local GPU when neither is given),
    warning on stderr when the architecture is newer than rooftui's table."""
    cc, architecture = resolve_architecture(arch, gpu)
    if not is_known_compute_capability(cc, architecture):
        click.echo(
            f"rooftui: compute capability {cc} is not in rooftui's table; "
            f"using {architecture.name}'s metrics",
            err=True,
        )
    return required_metrics(architecture)


@click.command("metrics", context_settings={"allow_interspersed_args": False})
@click.option("--arch", default=None, metavar="sm_XY", help=ARCH_HELP)
@click.option("--gpu", default=None, metavar="NAME", help=GPU_HELP)
@click.option(
    "--ncu-command",
    is_flag=True,
    help="Print the whole ncu command line (one report per host and process) instead.",
)
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
def metrics(arch: str | None, gpu: str | None, ncu_command: bool, command: tuple[str, ...]) -> None:
    """Print the metrics rooftui needs, comma-separated for `ncu --metrics`.

    \b
    Defaults to the local GPU. For running ncu yourself, e.g. under srun:
      rooftui metrics --gpu H100 --ncu-command -- python train.py
    """
    if command and not ncu_command:
        raise click.UsageError("a COMMAND goes with --ncu-command")
    names = chosen_metrics(arch, gpu)
    if ncu_command:
        click.echo(ncu_command_line(NcuOptions(metrics=tuple(names)), list(command)))
    else:
        click.echo(",".join(names))
