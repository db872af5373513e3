"""Options shared by every command that loads reports."""

from __future__ import annotations

import functools
from collections.abc import Callable

import click

from rooftui.analysis import Run, load_run
from rooftui.analysis.phases import PhaseConfig


def report_options(command: Callable) -> Callable:
    """REPORT... plus --ceilings, --phase, --no-infer-phases, --skip-invalid."""

    @click.argument("reports", nargs=-1, type=click.Path(dir_okay=True, path_type=str))
    @click.option("--ceilings", "ceilings", type=click.Path(path_type=str),
                  help="Ceilings JSON (rooftui measure) or ERT roofline.json.")
    @click.option("--phase", "phase_specs", multiple=True, metavar="NAME=REGEX",
                  help="A training phase and the NVTX range pattern naming it, in order "
                       "(default: forward, backward, optimizer).")
    @click.option("--no-infer-phases", is_flag=True,
                  help="Leave launches without an NVTX phase unlabelled.")
    @click.option("--skip-invalid", is_flag=True,
                  help="Leave out kernels with zero or non-finite duration instead of failing.")
    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        return command(*args, **kwargs)

    return wrapper


def load_from_options(reports, ceilings, phase_specs, no_infer_phases, skip_invalid, progress=None) -> Run:
    phases = PhaseConfig.from_options(tuple(phase_specs), infer=not no_infer_phases)
    return load_run(list(reports), ceilings=ceilings, phases=phases, skip_invalid=skip_invalid,
                    progress=progress)
