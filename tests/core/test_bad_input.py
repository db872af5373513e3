"""Every bad input: one line naming the file and the fix, exit code 2, no traceback."""

import json

import pytest

from tests.conftest import KNOWN, assert_one_line_error, run_cli, run_cli_process

BASE = KNOWN / "known_answer.raw-base.csv"


def write(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return path


def edited_base(tmp_path, edit):
    """The base-units known-answer export with one cell changed by ``edit(header, rows)``."""
    lines = BASE.read_text().splitlines(keepends=True)
    import csv
    import io

    rows = list(csv.reader(io.StringIO("".join(lines))))
    edit(rows[0], rows)
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
    return write(tmp_path, "edited.csv", out.getvalue())


def test_missing_file(tmp_path):
    missing = tmp_path / "nope.ncu-rep"
    # a real process, for the interpreter's own exit code and stderr (the rest run in-process)
    assert_one_line_error(run_cli_process("summary", missing), str(missing), "no such file")


def test_empty_file(tmp_path):
    assert_one_line_error(run_cli("summary", write(tmp_path, "empty.csv", "")), "empty.csv", "empty")


def test_binary_file_that_is_not_a_report(tmp_path):
    path = write(tmp_path, "junk.csv", bytes(range(256)) * 10)
    assert_one_line_error(run_cli("summary", path), "junk.csv", "not a CSV")


def test_csv_from_another_tool(tmp_path):
    path = write(tmp_path, "other.csv", "Name,Duration\nfoo,12\n")
    assert_one_line_error(run_cli("summary", path), "other.csv", "not an Nsight Compute CSV", "--page raw")


def test_truncated_csv(tmp_path):
    text = BASE.read_text()
    path = write(tmp_path, "cut.csv", text[: len(text) * 2 // 3])
    assert_one_line_error(run_cli("summary", path), "cut.csv", "truncated")


def test_report_without_any_time_names_the_metric_and_the_command(tmp_path):
    path = write(
        tmp_path,
        "nometrics.csv",
        '"ID","Kernel Name","CC","sm__throughput.avg.pct_of_peak_sustained_elapsed"\n'
        '"","","","%"\n"0","k(int)","9.0","12.5"\n',
    )
    assert_one_line_error(run_cli("summary", path), "gpu__time_duration.sum", "rooftui profile")


def test_zero_duration_kernel_is_refused_then_skipped_on_request(tmp_path, expected):
    def zero(header, rows):
        rows[2][header.index("gpu__time_duration.sum")] = "0"

    path = edited_base(tmp_path, zero)
    assert_one_line_error(run_cli("summary", path), "edited.csv", "zero", "--skip-invalid")
    result = run_cli("summary", path, "--skip-invalid", "--format", "json")
    assert result.returncode == 0
    assert json.loads(result.stdout)["summary"]["kernels"] == len(expected) - 1


@pytest.mark.parametrize("bad", ["inf", "nan"])
def test_non_finite_values_are_refused(tmp_path, bad):
    def poison(header, rows):
        rows[3][header.index("gpu__time_duration.sum")] = bad

    assert_one_line_error(run_cli("summary", edited_base(tmp_path, poison)), "edited.csv", "non-finite")


def test_a_bad_ceilings_file(tmp_path):
    path = write(tmp_path, "ceil.json", '{"ceilings": [{"kind": "compute", "value": -1}]}')
    assert_one_line_error(run_cli("summary", BASE, "--ceilings", path), "ceil.json", "value")


def test_nothing_is_written_or_overwritten_on_error(tmp_path):
    before = sorted(p.name for p in tmp_path.iterdir())
    run_cli("summary", tmp_path / "missing.csv", cwd=tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_two_gpus_in_one_input_are_kept_apart(tmp_path):
    def second_gpu(header, rows):
        for row in rows[2:9]:
            row[header.index("device__attribute_display_name")] = "NVIDIA A100-SXM4-80GB"
            row[header.index("CC")] = "8.0"

    result = run_cli("summary", edited_base(tmp_path, second_gpu), "--format", "json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert {d["name"] for d in doc["devices"]} == {"NVIDIA H200", "NVIDIA A100-SXM4-80GB"}
    assert "several GPUs" in result.stderr
