"""Other spellings of the same count (``rooftui.model.metrics.SPELLINGS``) give the same answers."""

import csv
import io

import pytest

from rooftui.analysis import load_run
from rooftui.analysis.load_options import LoadOptions
from rooftui.model import metrics as m
from rooftui.notes import kind_of
from tests.conftest import KNOWN

COMPARED = ["flops_fp64", "flops_fp32", "flops_fp16", "flops_tensor", "bytes_l1", "bytes_l2", "bytes_hbm"]


def _respelled(tmp_path, renames: dict[str, str]):
    """The base-units known-answer raw export with columns renamed (header only)."""
    rows = list(csv.reader(io.StringIO((KNOWN / "known_answer.raw-base.csv").read_text())))
    rows[0] = [renames.get(name, name) for name in rows[0]]
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
    path = tmp_path / "respelled.csv"
    path.write_text(out.getvalue())
    return path


def test_every_sass_counter_under_its_sm_spelling_gives_the_known_answers(tmp_path, expected, load_once):
    renames = {canonical: others[0] for canonical, others in m.SPELLINGS.items() if "sass" in canonical}
    run = load_run([_respelled(tmp_path, renames)])
    today = load_once(KNOWN / "known_answer.raw-base.csv").kernels.set_index("name")[COMPARED]
    rows = run.kernels.set_index("name")
    assert rows[COMPARED].to_numpy() == pytest.approx(today.to_numpy(), nan_ok=True)
    for name, answer in expected.items():
        for column in ("flops_fp64", "flops_fp32"):  # FP16 carries HFMA2.MMA moves: see metrics.py
            assert rows.loc[name, column] == answer[column], name
        if answer["pipeline"] == "fp16":
            assert rows.loc[name, "flops_fp16"] == answer["flops_fp16"], name
    note = next(n for n in run.notes if n.startswith("read under another spelling"))
    assert all(other in note for other in renames.values())


def test_volta_tensor_rule_reads_either_spelling_of_pipe_tensor(tmp_path):
    from tests.ingest.paper_layout import LAUNCHES, write_clone

    runs = write_clone(tmp_path / "clone") / "mlperf-deepcam" / "PT-fp32-O1-Adam-fw-1"
    path = runs / "out.sm__inst_executed_pipe_tensor.sum"
    text = path.read_text()
    path.write_text(text.replace("sm__inst_executed_pipe_tensor", "smsp__inst_executed_pipe_tensor"))
    after = load_run([runs], LoadOptions(gpu="V100")).kernels.sort_values("ncu_id")["flops_tensor_fp16"]
    # Volta's rule on the values written under the canonical spelling (the answer
    # test_paper_data's join test pins for that spelling): 512 FLOPs per instruction
    expected = [512 * launch["sm__inst_executed_pipe_tensor.sum"] for launch in LAUNCHES]
    assert (after > 0).any() and list(after) == expected


SPELLINGS_FILE = KNOWN / "known_answer.spellings.raw-base.csv"


def test_both_spellings_collected_on_the_h200_are_the_same_count():
    """The known-answer kernels profiled with both spellings of every counter in the
    table (H200, ncu 2025.3.1, collected by the sass helper): equal on every launch."""
    from rooftui.ingest import read_report

    kernels = read_report(SPELLINGS_FILE).kernels
    for canonical, others in m.SPELLINGS.items():
        for other in others:
            assert (kernels[canonical] == kernels[other]).all(), (canonical, other)
    nonzero = [c for c in m.SPELLINGS if (kernels[c] > 0).any()]
    assert {
        "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum",
        "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
        "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum",
        "sm__inst_executed_pipe_tensor.sum",
    } <= set(nonzero)


def test_the_sm_spelling_alone_gives_the_same_flops_as_the_smsp_spelling(tmp_path, expected):
    rows = list(csv.reader(io.StringIO(SPELLINGS_FILE.read_text())))
    canonical = {c for c in m.SPELLINGS if c.startswith("smsp__")}
    keep = [
        i
        for i, name in enumerate(rows[0])
        if name.rsplit(".", 1)[0] + ".sum" not in canonical and name not in canonical
    ]
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(
        [[row[i] for i in keep] for row in rows]
    )
    sm_only = tmp_path / "sm_only.csv"
    sm_only.write_text(out.getvalue())
    both = load_run([SPELLINGS_FILE]).kernels.set_index("name")[COMPARED]
    run = load_run([sm_only])
    assert "respelled" in map(kind_of, run.notes)
    assert run.kernels.set_index("name")[COMPARED].to_numpy() == pytest.approx(both.to_numpy(), nan_ok=True)
    for name, answer in expected.items():
        assert run.kernels.set_index("name").loc[name, "flops_fp64"] == answer["flops_fp64"], name
