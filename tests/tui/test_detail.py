"""The detail pane: the roofs table whole at 120x40, metric names never broken inside a
word, no repeated name, raw values written for people and exactly."""

from __future__ import annotations

import re

import pytest
from rich.console import Console

from rooftui.views.tui.detail_text import describe, raw_value


def rendered(run, row, metrics, width: int) -> str:
    console = Console(width=width + 1, color_system=None, record=True)
    console.print(describe(row, run.ceilings, metrics, False, width))
    return console.export_text()


@pytest.fixture(scope="module")
def loaded_run():
    from tests.tui.conftest import SAMPLE, prepared_run

    return prepared_run([SAMPLE])


def heaviest(loaded_run):
    return loaded_run.grouped.sort_values("time_s", ascending=False).iloc[0]


# The detail pane's text width at 120x40 (DetailPane.text_width; test_explorer.py checks
# the screen gives it that width).
DETAIL_WIDTH_AT_120x40 = 48


def test_the_roofs_table_is_whole_at_120x40(loaded_run):
    row = heaviest(loaded_run)
    lines = rendered(loaded_run, row, loaded_run.launch_metrics(row), DETAIL_WIDTH_AT_120x40).splitlines()
    header = next(i for i, line in enumerate(lines) if "headroom" in line and "level" in line)
    roofs = lines[header : header + 5]
    assert not any("…" in line for line in roofs), roofs
    for level, line in zip(("L1", "L2", "HBM"), roofs[2:]):
        cells = line.split()
        assert len(cells) == 7 and cells[0] == level and cells[-1][-1] in "×–", cells


@pytest.mark.parametrize("width", [46, 75])
def test_metric_names_break_only_after_a_dot_or_an_underscore(loaded_run, width):
    row = heaviest(loaded_run)
    metrics = loaded_run.launch_metrics(row)
    text = rendered(loaded_run, row, metrics, width)
    section = text[text.index("ncu metrics") : text.index("kernel-table row")]
    lines = [line.strip() for line in section.splitlines()[1:] if line.strip()]
    joined = ""
    for line in lines:
        first = line.split()[0]
        if joined:  # the rest of a name broken on the line before
            joined += first
            if joined in metrics.index or line != first:
                assert joined in metrics.index, joined
                joined = ""
            continue
        if line == first and first not in metrics.index and not re.fullmatch(r"[\d,.\-e+]+|–", first):
            assert first.endswith((".", "_")), first  # broken, but after a separator
            joined = first
    assert all(len(line) <= width for line in section.splitlines())


def test_kernel_and_signature_are_one_row_when_they_are_the_same(loaded_run):
    row = heaviest(loaded_run).copy()
    text = rendered(loaded_run, row, None, 75)
    identity = text[: text.index("roofs per level")]
    assert row["demangled"] == row["name"] and "signature" not in identity
    row["demangled"] = "void " + row["name"] + "(Params)"
    assert "signature" in rendered(loaded_run, row, None, 75)


def test_raw_values_are_written_for_people_and_exactly():
    assert raw_value("9.0") == "9.0"  # a string, not '9.0'
    assert raw_value(693633024.0) == "693,633,024"
    assert raw_value(0.000377) == "0.000377"
    assert raw_value(1 / 3) == "0.3333333333333333"  # every digit Python has
    assert raw_value(float("nan")) == "–"
    assert raw_value(True) == "yes"
    assert raw_value("evil\x1b]0;title\x07") == "evil\\e]0;title\\x07"


def test_the_row_shows_no_python_repr(loaded_run):
    text = rendered(loaded_run, heaviest(loaded_run), None, 75)
    rows = text[text.index("kernel-table row") :]
    assert "'" not in rows and not re.search(r"\d\.0\b(?!\.)", rows.replace("9.0", "")), rows


def test_the_hfma2_register_moves_of_a_kernel_are_in_its_details(load_once):
    from tests.conftest import SAMPLES

    # register_moves.cu: 9 HFMA2.MMA moves per thread before the loop, 2^20 threads
    # (tests/ingest/test_sass_moves.py reads the 9 off the cuobjdump dump, from the same
    # load_once read when it runs in the same worker)
    run = load_once(SAMPLES / "register_moves" / "register_moves_sourcecounters.ncu-rep.xz")
    rows = {row["name"]: row for _, row in run.kernels.iterrows()}
    text = rendered(run, rows["moves_fp32"], None, 100)
    assert re.search(
        r"HFMA2\.MMA moves +9,437,184 thread instructions \(from the SASS\), not in the "
        r"FP16 FLOPs",
        text,
    )
    assert re.search(r"HFMA2\.MMA moves +0 thread instructions", rendered(run, rows["math_hfma2"], None, 100))


def test_unknown_register_moves_are_said_where_fp16_flops_may_hold_them(loaded_run):
    # the sample has no per-opcode SASS counts (rooftui profile's own section or ncu's
    # SourceCounters): its FP16 kernels may still count moves
    fp16 = loaded_run.grouped[loaded_run.grouped["flops_fp16"] > 0].iloc[0]
    assert re.search(
        r"HFMA2\.MMA moves +unknown \(no per-opcode SASS counts\): counted in FP16",
        rendered(loaded_run, fp16, None, 100),
    )
    no_fp16 = loaded_run.grouped[loaded_run.grouped["flops_fp16"].fillna(0) == 0].iloc[0]
    assert "HFMA2.MMA" not in rendered(loaded_run, no_fp16, None, 100)
