"""ncu's CSV exports of a report run in the background (``start_export``), so that
``profile --dedup`` starts ncu for several exports at once and reads the SourceCounters
meanwhile; a failed export is one line naming the report."""

from __future__ import annotations

import pytest

from rooftui.errors import RooftuiError
from rooftui.profile.run import export_raw, exports_at_once, start_export

# Which report an export reads and which kernel base it prints.
IMPORT_ARGUMENTS = r"""
report=""; base=""; prev=""
for a in "$@"; do
  case "$prev" in --import) report=$a ;; --print-kernel-base) base=$a ;; esac
  prev=$a
done
"""
# Each export marks that it started, then waits (at most 10 s) for the other kernel base's.
WAITS_FOR_THE_OTHER = (
    IMPORT_ARGUMENTS
    + r"""
touch "$report.$base.started"; other=demangled; [ "$base" = demangled ] && other=function
n=0; while [ ! -e "$report.$other.started" ]; do
  n=$((n + 1)); [ $n -gt 200 ] && { echo "==ERROR== the $other export never started" >&2; exit 1; }
  sleep 0.05
done
printf '"ID","Kernel Name"\n"",""\n"0","%s"\n' "$base"
"""
)


def test_two_exports_of_one_report_run_at_once(tmp_path, fake_ncu):
    ncu = str(fake_ncu(WAITS_FOR_THE_OTHER))
    report = tmp_path / "step.ncu-rep"
    by_function = start_export(ncu, report, "function")
    assert export_raw(ncu, report).endswith('"0","demangled"\n')  # would wait 10 s, then fail, alone
    assert by_function.text().endswith('"0","function"\n')


def test_a_failed_export_is_one_line_naming_the_report(tmp_path, fake_ncu):
    ncu = str(fake_ncu('echo "==ERROR== The report is corrupt" >&2; exit 3\n'))
    with pytest.raises(
        RooftuiError, match="ncu could not export the report to CSV: ==ERROR== The report is corrupt"
    ):
        start_export(ncu, tmp_path / "step.ncu-rep").text()


def test_exports_at_once_give_each_text_in_order(tmp_path, fake_ncu):
    ncu = str(fake_ncu(WAITS_FOR_THE_OTHER))
    report = tmp_path / "step.ncu-rep"
    demangled, function = exports_at_once(ncu, [(report, "demangled"), (report, "function")])
    assert demangled.endswith('"0","demangled"\n') and function.endswith('"0","function"\n')


def test_exports_at_once_wait_for_every_export_before_saying_the_first_failure(tmp_path, fake_ncu):
    body = (
        IMPORT_ARGUMENTS
        + r"""
[ "$base" = demangled ] && { echo "==ERROR== The report is corrupt" >&2; exit 3; }
sleep 0.5; touch "$report.$base.done"; printf '"ID"\n""\n"0"\n'
"""
    )
    ncu = str(fake_ncu(body))
    report = tmp_path / "step.ncu-rep"
    with pytest.raises(RooftuiError, match="The report is corrupt"):
        exports_at_once(ncu, [(report, "demangled"), (report, "function")])
    assert (tmp_path / "step.ncu-rep.function.done").exists()  # no export left running
