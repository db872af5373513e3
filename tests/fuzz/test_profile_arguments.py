"""Issue #25: `rooftui profile` checks its output name and rank counts before ncu is looked
for or anything runs: one line, exit 2, bounded in memory, nothing written."""

from __future__ import annotations

import resource

import pytest

from rooftui.errors import RooftuiError
from rooftui.profile import launchers
from rooftui.profile.launchers import parse_ranks, split_launcher
from tests.fuzz.helpers import assert_one_line_error, rooftui


@pytest.mark.parametrize(
    ("output", "words"),
    [
        ("afile/run", ("afile", "not a folder")),
        ("", ("empty report name",)),
        (".", ("names a folder",)),
        ("out/", ("names a folder",)),
        ("r" * 300, ("300 bytes",)),
        ("run", ("run.ncu.log", "is a folder")),
        ("nodir/run", ("nodir", "no such file")),
    ],
    ids=["under-a-file", "empty", "dot", "slash", "300-chars", "log-is-a-folder", "no-folder"],
)
def test_profile_refuses_an_output_name_it_cannot_write_before_running_anything(
    tmp_path, monkeypatch, output, words
):
    (tmp_path / "afile").write_text("")
    (tmp_path / "run.ncu.log").mkdir()
    monkeypatch.chdir(tmp_path)
    # an ncu that would leave a mark if it ran: it must not
    ncu = tmp_path / "ncu"
    ncu.write_text(f"#!/bin/sh\ntouch {tmp_path}/ncu-ran\n")
    ncu.chmod(0o755)
    result = rooftui(tmp_path, "profile", "--ncu", ncu, "--arch", "sm_90", "-o", output, "--", "true")
    assert_one_line_error(result, *words)
    assert not (tmp_path / "ncu-ran").exists()


@pytest.mark.parametrize(
    ("command", "environ", "words"),
    [
        ("torchrun --nproc_per_node 100000000 t.py", {}, ("--nproc_per_node", "more than")),
        ("mpirun -np 1e8 a", {}, ("-np 1e8", "not a whole number")),
        (
            "mpirun -N 100 -H " + ",".join(f"h{i}" for i in range(2000)) + " a",
            {},
            ("2000 hosts", "more than"),
        ),
        ("srun --nodes 100000 --ntasks-per-node 8 a", {}, ("--nodes 100000", "more than")),
        ("srun a", {"SLURM_NTASKS": "1e8"}, ("$SLURM_NTASKS", "not a whole number")),
        ("srun -n" + "9" * 5000 + " a", {}, ("--ntasks", "more than")),
    ],
    ids=["nproc", "np-1e8", "2000-hosts", "srun-nodes", "slurm-ntasks", "5000-digits"],
)
def test_a_rank_count_beyond_any_job_is_one_line_not_gigabytes(command, environ, words):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(RooftuiError) as caught:
        split_launcher(command.split()).planned_ranks(environ)
    message = str(caught.value)
    assert all(word in message for word in words), message
    assert len(message) < 300
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 50 << 10  # KiB: < 50 MB


def test_ranks_beyond_the_limit_are_refused_and_within_it_taken():
    with pytest.raises(RooftuiError, match="beyond"):
        parse_ranks("0-9999999999")
    limit = launchers.MAX_RANKS
    assert len(parse_ranks(f"0-{limit - 1}") or ()) == limit
    assert parse_ranks("0-3,5") == (0, 1, 2, 3, 5)
    assert split_launcher("torchrun --nproc_per_node auto t.py".split()).planned_ranks({})[0] is None
    assert split_launcher("mpirun -np 4 a".split()).planned_ranks({})[0] == (0, 1, 2, 3)


def test_profile_checks_rank_counts_before_looking_for_ncu(tmp_path):
    result = rooftui(tmp_path, "profile", "--ncu", tmp_path / "no-ncu", "--", "mpirun", "-np", "1e8", "a")
    assert_one_line_error(result, "-np 1e8")


def test_stop_on_stall_escalates_to_sigkill_on_one_ncu_that_ignores_sigint_and_sigterm(tmp_path, monkeypatch):
    import io
    import time

    from rooftui.profile import run as run_module

    monkeypatch.setattr(run_module, "INTERRUPT_GRACE_S", 0.3)
    stem = tmp_path / "run"
    ncu = tmp_path / "ncu"
    # a kernel name with an OSC 0 in it (from the profiled program), then a pass that never ends
    ncu.write_text(
        "#!/bin/sh\ntrap '' INT TERM\n"
        'printf \'==PROF== Profiling "k\\033]0;pwned\\007" - 0: 0%%....\' >> "$1"\n'
        "while :; do sleep 0.1; done\n"
    )
    ncu.chmod(0o755)
    echo = io.StringIO()
    started = time.monotonic()
    run = run_module.run_ncu(
        [str(ncu), f"{stem}.ncu.log"], stem, echo=echo, stall_timeout=0.5, stop_on_stall=True
    )
    assert time.monotonic() - started < 20
    assert run.interrupted and run.stalled and run.returncode != 0
    shown = echo.getvalue()
    assert "\x1b" not in shown and "\x07" not in shown
    assert "k\\e]0;pwned" in shown
