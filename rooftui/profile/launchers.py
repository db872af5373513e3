"""Multi-process jobs: which launcher runs COMMAND, and how ncu goes inside it.

Every launcher gets the same treatment: a small shell script (the *rank wrapper*)
goes where the program was, so the launcher starts it once per rank; it reads the
rank from the launcher's environment variable and execs ncu around the program for
the ranks asked for (one report per rank, ``STEM.rankN.ncu-rep``), else runs the
program plainly. ncu's own %q{ENV} placeholder would name the reports too, but a
wrapper also lets ``--ranks`` leave ranks unprofiled, and marks each rank it starts
(``STEM.rankN.started``), so the ranks a job really has are known after its first run
even where the launcher's options do not say (a hostfile, an allocation, several nodes).
The wrapper and the marks live in a hidden temporary folder beside the reports
(``.rooftui-job-*``: ranks on other nodes reach it through the same shared folder),
removed when rooftui ends, however it ends short of SIGKILL.
"""

from __future__ import annotations

import atexit
import re
import shlex
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from rooftui.errors import RooftuiError

# The variables launchers set to the process's global rank, in the order read:
# torchrun, Open MPI, MPICH / Intel MPI / Hydra, Slurm; LOCAL_RANK last (one node).
RANK_VARIABLES = ("RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID", "LOCAL_RANK")
STARTED_SUFFIX = ".started"  # STEM.rankN.started: the wrapper ran for rank N

# Options that take no value; every other option takes one (--opt=value or --opt value).
_FLAGS = {
    "torchrun": {"--standalone", "--no-python", "--no_python", "-m", "--module", "--run-path", "--run_path"},
    "mpirun": {
        "--oversubscribe",
        "-oversubscribe",
        "--allow-run-as-root",
        "--allow_run_as_root",
        "-v",
        "--verbose",
        "--report-bindings",
        "--tag-output",
        "-tag-output",
        "--timestamp-output",
        "--display-map",
        "--display-allocation",
        "-q",
        "--quiet",
        "--noprefix",
        "-l",
        "-prepend-rank",
        "--prepend-rank",
        "-bind-to-core",
    },
    "srun": {
        "-l",
        "--label",
        "-u",
        "--unbuffered",
        "--exclusive",
        "--overlap",
        "-v",
        "--verbose",
        "-Q",
        "--quiet",
        "-K",
        "--kill-on-bad-exit",
        "--pty",
        "-X",
        "--disable-status",
    },
}
_TWO_VALUES = {"--mca", "-mca", "--gmca", "-gmca"}  # Open MPI: --mca KEY VALUE
# The most ranks rooftui plans for: every count, product and --ranks list is checked
# against it before a rank list is built, so `--ranks 0-9999999999` or `-np 1e8` is one
# line, not gigabytes of rank numbers (the largest jobs run today are ~10^5 GPUs).
MAX_RANKS = 1 << 17
_MAX_RANKS_FIX = f"give at most {MAX_RANKS:,} ranks; profile a large job's ranks with --ranks"


@dataclass(frozen=True)
class LaunchedJob:
    """COMMAND split into the launcher's part and the program each rank runs."""

    launcher: str  # "torchrun", "mpirun" or "srun"
    launcher_argv: list[str]  # the launcher and its options
    program: list[str]  # what each rank runs

    def option(self, *names: str) -> str | None:
        """The value of the launcher option called any of ``names`` (the last one given).

        Reads ``--opt value``, ``--opt=value`` and, for srun's one-letter options, ``-n8``.
        """
        found = None
        argv = self.launcher_argv
        for i, arg in enumerate(argv):
            key, equals, value = arg.partition("=")
            if key in names:
                found = value if equals else (argv[i + 1] if i + 1 < len(argv) else None)
            elif (
                self.launcher == "srun"
                and re.fullmatch(r"-[A-Za-z]", arg[:2])
                and len(arg) > 2
                and arg[:2] in names
            ):
                found = arg[2:]
        return found

    def planned_ranks(self, environ: Mapping[str, str]) -> tuple[tuple[int, ...] | None, str]:
        """The global ranks this command starts that rooftui can reach, and which options said so.

        None when the options do not say; rooftui then learns the ranks from the first run
        of the job (the rank wrapper marks each rank it starts).
        """
        if self.launcher == "torchrun":
            return _torchrun_ranks(self)
        if self.launcher == "mpirun":
            return _mpirun_ranks(self)
        return _srun_ranks(self, environ)

    def wrapped(self, wrapper: Path) -> list[str]:
        """The command with the rank wrapper in front of each rank's program."""
        if self.launcher == "torchrun":
            # --no-python: torchrun execs the wrapper itself instead of `python wrapper`.
            return [*self.launcher_argv, "--no-python", str(wrapper), *self.program]
        return [*self.launcher_argv, str(wrapper), *self.program]


def _count(text: str | None, what: str = "a count") -> int | None:
    """A count option's value: "4", or Slurm's "2-2" (min-max) when both are equal; None
    for what only run time decides ("auto", "2-4"). A number that is no count of ranks
    ("1e8", "-3", "2.5") or more than ``MAX_RANKS`` is refused here."""
    if text is None:
        return None
    low, _, high = text.strip().partition("-")
    if low.isascii() and low.isdigit() and (not high or high == low):
        return _bounded(int(low) if len(low) <= 12 else MAX_RANKS + 1, f"{what} {_shown(text)}")
    try:
        float(text)
    except ValueError:
        return None  # a word torchrun takes (auto, gpu), or a range: run time decides
    raise RooftuiError(f"{what} {_shown(text)}: not a whole number of processes", fix="give a count, e.g. 4")


def _shown(text: str) -> str:
    return text if len(text) <= 40 else text[:39] + "…"


def _bounded(count: int, what: str) -> int:
    if count > MAX_RANKS:
        raise RooftuiError(f"{what}: more than {MAX_RANKS:,} ranks", fix=_MAX_RANKS_FIX)
    return count


def _torchrun_ranks(job: LaunchedJob) -> tuple[tuple[int, ...] | None, str]:
    # torchrun numbers a worker RANK = node rank x --nproc_per_node + LOCAL_RANK when every
    # node runs the same command (static rendezvous, --node_rank given); one rooftui on
    # this node reaches this node's ranks only.
    per_node = _count(job.option("--nproc_per_node", "--nproc-per-node"), "--nproc_per_node")
    nnodes_text = job.option("--nnodes") or "1"
    low, _, high = nnodes_text.partition(":")
    nnodes = _count(low, "--nnodes") if not high or high == low else None
    if per_node is None or nnodes is None:
        return None, "torchrun's --nproc_per_node or --nnodes leaves the count of ranks to run time"
    if nnodes == 1:
        return tuple(range(per_node)), f"--nproc_per_node {per_node}"
    node = _count(job.option("--node_rank", "--node-rank"), "--node_rank")
    if node is None:
        return None, f"--nnodes {nnodes} without --node_rank: this node's ranks are set at rendezvous"
    first = _bounded(node * per_node, f"--node_rank {node} --nproc_per_node {per_node}")
    return (
        tuple(range(first, first + per_node)),
        f"--nnodes {nnodes} --node_rank {node} --nproc_per_node {per_node}: this node's ranks",
    )


def _mpirun_ranks(job: LaunchedJob) -> tuple[tuple[int, ...] | None, str]:
    total = _count(job.option("-np", "-n", "--np", "--n", "-c"), "-np")
    if total is not None:
        return tuple(range(total)), f"-np {total}"
    # Open MPI -N/--npernode, MPICH/Intel MPI -ppn, times the hosts named with -H/--host/-hosts.
    per_node = _count(
        job.option("-N", "--npernode", "-npernode", "-ppn", "--ppn", "-perhost"), "processes per node"
    )
    hosts = job.option("-H", "--host", "-host", "-hosts", "--hosts")
    if per_node is not None and hosts:
        nodes = len({h.split(":")[0] for h in hosts.split(",") if h})
        _bounded(per_node * nodes, f"{per_node} per node on {nodes} hosts")
        return tuple(range(per_node * nodes)), f"{per_node} per node on {nodes} hosts"
    return None, "mpirun's options name no -np (nor a count per node with -H hosts)"


def _srun_ranks(job: LaunchedJob, environ: Mapping[str, str]) -> tuple[tuple[int, ...] | None, str]:
    total = _count(job.option("-n", "--ntasks"), "--ntasks")
    if total is not None:
        return tuple(range(total)), f"--ntasks {total}"
    nodes_text = job.option("-N", "--nodes")
    per_node = _count(job.option("--ntasks-per-node"), "--ntasks-per-node")
    nodes = _count(nodes_text, "--nodes")
    if nodes is not None and per_node is not None:
        _bounded(nodes * per_node, f"--nodes {nodes} --ntasks-per-node {per_node}")
        return tuple(range(nodes * per_node)), f"--nodes {nodes} --ntasks-per-node {per_node}"
    # Inside an allocation srun takes its task count from SLURM_NTASKS (srun(1), input
    # environment), unless its own options change the layout.
    inherited = _count(environ.get("SLURM_NTASKS"), "$SLURM_NTASKS")
    if inherited is not None and nodes_text is None and per_node is None:
        return tuple(range(inherited)), f"$SLURM_NTASKS={inherited} (this allocation)"
    return None, "srun's options name no --ntasks (nor --nodes with --ntasks-per-node)"


def _launcher_of(command: list[str]) -> tuple[str, int] | None:
    """The launcher's kind and where its options start, or None for a plain program."""
    if not command:
        return None
    base = Path(command[0]).name
    if base in ("torchrun",):
        return "torchrun", 1
    if base in ("mpirun", "mpiexec", "orterun", "mpiexec.hydra"):
        return "mpirun", 1
    if base == "srun":
        return "srun", 1
    if re.fullmatch(r"python[\d.]*", base) and command[1:3] == ["-m", "torch.distributed.run"]:
        return "torchrun", 3
    if re.fullmatch(r"python[\d.]*", base) and command[1:3] == ["-m", "torch.distributed.launch"]:
        raise RooftuiError(
            "torch.distributed.launch is deprecated and runs ranks in a way rooftui cannot wrap",
            fix="use torchrun (python -m torch.distributed.run) with the same options",
        )
    return None


def _torchrun_python(command: list[str]) -> str:
    """The Python torchrun starts workers with: the interpreter given, or torchrun's shebang."""
    base = Path(command[0]).name
    if base != "torchrun":
        return command[0]
    found = shutil.which(command[0])
    if found:
        try:
            first = Path(found).read_text(encoding="utf-8", errors="replace").split("\n", 1)[0]
        except OSError:
            first = ""
        if first.startswith("#!"):
            words = first[2:].split()
            if words and Path(words[0]).name != "env":
                return words[0]
            if len(words) > 1:
                return words[1]
    return "python"


def split_launcher(command: list[str]) -> LaunchedJob | None:
    """COMMAND as a launched job, or None when COMMAND is not a known launcher."""
    found = _launcher_of(command)
    if found is None:
        return None
    kind, start = found
    flags = _FLAGS[kind]
    i = start
    module = False
    while i < len(command):
        arg = command[i]
        if arg == "--":
            i += 1
            break
        if not arg.startswith("-") or arg == "-":
            break
        if kind == "torchrun" and arg in ("-m", "--module"):
            module = True
        if "=" in arg or arg in flags or (kind == "srun" and re.fullmatch(r"-[A-Za-z].+", arg)):
            i += 1  # srun's "-n8": a one-letter option with its value attached
        elif arg in _TWO_VALUES:
            i += 3
        else:
            i += 2
    launcher_argv = [a for a in command[:i] if a != "--"]
    program = command[i:]
    if not program:
        raise RooftuiError(
            f"no program after {shlex.join(command)}",
            fix="name the program each rank runs after the launcher's options (torchrun OPTIONS train.py)",
        )
    if kind == "torchrun":
        # torchrun would run `python [-m] PROGRAM`; with --no-python the wrapper runs it.
        python = _torchrun_python(command)
        dropped = ("-m", "--module", "--no-python", "--no_python")
        launcher_argv = launcher_argv[:start] + [a for a in launcher_argv[start:] if a not in dropped]
        if not module and "--no-python" not in command[:i] and "--no_python" not in command[:i]:
            program = [python, *program]
        elif module:
            program = [python, "-m", *program]
    return LaunchedJob(kind, launcher_argv, program)


def parse_ranks(text: str | None) -> tuple[int, ...] | None:
    """``--ranks 0,2-3`` as (0, 2, 3); None for every rank."""
    if text is None or text.strip() in ("", "all"):
        return None
    shown = _shown(text)
    spans = []
    for part in text.split(","):
        match = re.fullmatch(r"\s*(\d{1,12})\s*(?:-\s*(\d{1,12})\s*)?", part)
        if not match:
            raise RooftuiError(
                f"--ranks {shown}: not a list of ranks", fix="give e.g. --ranks 0,1 or --ranks 0-3"
            )
        first = int(match[1])
        last = int(match[2]) if match[2] else first
        if last < first:
            raise RooftuiError(f"--ranks {shown}: {part} runs backwards", fix="write the smaller rank first")
        if last >= MAX_RANKS:
            raise RooftuiError(
                f"--ranks {shown}: rank {last} is beyond the {MAX_RANKS:,} ranks rooftui plans for",
                fix=_MAX_RANKS_FIX,
            )
        spans.append((first, last))
    ranks: set[int] = set()  # every rank below MAX_RANKS: the set is bounded whatever the text
    for first, last in spans:
        ranks.update(range(first, last + 1))
    return tuple(sorted(ranks))


_SCRATCH: dict[Path, Path] = {}  # folder of the reports -> its .rooftui-job-* folder


def scratch_dir(stem: Path) -> Path:
    """The temporary folder for the rank wrapper and the ranks' marks of reports ``stem``*."""
    folder = stem.resolve().parent
    if folder not in _SCRATCH:
        if not _SCRATCH:
            atexit.register(remove_scratch)
        _SCRATCH[folder] = Path(tempfile.mkdtemp(prefix=".rooftui-job-", dir=folder))
    return _SCRATCH[folder]


def remove_scratch() -> None:
    """Remove every scratch folder this process made (its wrapper and marks)."""
    while _SCRATCH:
        shutil.rmtree(_SCRATCH.popitem()[1], ignore_errors=True)


def rank_wrapper_script(ncu_argv: list[str], stem: Path, ranks: tuple[int, ...] | None) -> str:
    """The rank wrapper: exec ``ncu_argv`` with this rank's log and report, or the program.

    ``ncu_argv`` is ncu and its options, without --log-file, -o and the program.
    """
    chain = ""
    for name in reversed(RANK_VARIABLES):
        chain = f"${{{name}:-{chain}}}" if chain else f"${{{name}:-}}"
    stem_q = shlex.quote(str(stem.resolve()))
    ncu = shlex.join(ncu_argv)
    wanted = "*" if ranks is None else "|".join(str(r) for r in ranks)
    out = f'{stem_q}.rank"${{rank:-p$$}}"'
    mark = shlex.quote(str(scratch_dir(stem) / stem.name)) + '.rank"${rank:-p$$}"'
    return f"""#!/bin/sh
# Written by rooftui profile: ncu around this rank's program, or the program alone.
rank={chain}
: > {mark}{STARTED_SUFFIX}  # rooftui counts the ranks the job started
case "$rank" in
  {wanted}) exec {ncu} --log-file {out}.ncu.log -o {out} "$@" ;;
esac
exec "$@"
"""


def clear_started(stem: Path) -> None:
    """Remove the marks of the last run of the job (STEM.rankN.started)."""
    for path in scratch_dir(stem).glob(f"{stem.name}.rank*{STARTED_SUFFIX}"):
        path.unlink(missing_ok=True)


def started_ranks(stem: Path) -> set[int]:
    """The ranks whose wrapper ran in the last run of the job (STEM.rankN.started)."""
    found = set()
    for path in scratch_dir(stem).glob(f"{stem.name}.rank*{STARTED_SUFFIX}"):
        rank = path.name[len(stem.name) + len(".rank") : -len(STARTED_SUFFIX)]
        if rank.isdigit():
            found.add(int(rank))
    return found


def ranks_text(ranks: tuple[int, ...] | list[int] | set[int]) -> str:
    """0,1,2,3,5 as "0-3,5"."""
    runs: list[list[int]] = []
    for rank in sorted(ranks):
        if runs and runs[-1][1] == rank - 1:
            runs[-1][1] = rank
        else:
            runs.append([rank, rank])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def describe(job: LaunchedJob, ranks: tuple[int, ...] | None, comm: str, source: str) -> str:
    """The one line that says what rooftui chose for this job; ``source``: where ``ranks`` came from."""
    variables = "/".join(RANK_VARIABLES)
    if comm == "replay":
        which = f"ranks {ranks_text(ranks)}" if ranks is not None else "every rank"
        how = f"ncu on {which} at once, NCCL kernels replayed like any kernel (hangs on collectives)"
    else:
        if ranks is None:
            which = f"ranks not known from the options ({source}): rank 0, then each rank the job started"
        else:
            runs = len(ranks) * (2 if comm == "time" else 1)
            which = f"ranks {ranks_text(ranks)} from {source}, {runs} runs of the job"
        how = (
            f"ncu on one rank per run of the job ({which}), the others running plainly;"
            " NCCL kernels left out of the counter run"
            + (", then timed alone in a one-metric run" if comm == "time" else " and not timed")
        )
    return (
        f"rooftui: {job.launcher} job: {how}; rank from ${variables}, one report per rank"
        " (REPORT.rankN.ncu-rep)"
    )
