"""Other spellings of the same count (``rooftui.model.metrics.SPELLINGS``) give the same answers."""

import csv
import io

import pytest
from conftest import KNOWN

from rooftui.analysis import load_run
from rooftui.model import metrics as m

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


def test_every_sass_counter_under_its_sm_spelling_gives_the_known_answers(tmp_path, expected):
    renames = {canonical: others[0] for canonical, others in m.SPELLINGS.items() if "sass" in canonical}
    run = load_run([_respelled(tmp_path, renames)])
    today = load_run([KNOWN / "known_answer.raw-base.csv"]).kernels.set_index("name")[COMPARED]
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
    from paper_layout import write_clone

    runs = write_clone(tmp_path / "clone") / "mlperf-deepcam" / "PT-fp32-O1-Adam-fw-1"
    before = load_run([runs], gpu="V100").kernels["flops_tensor_fp16"]
    path = runs / "out.sm__inst_executed_pipe_tensor.sum"
    text = path.read_text()
    path.write_text(text.replace("sm__inst_executed_pipe_tensor", "smsp__inst_executed_pipe_tensor"))
    after = load_run([runs], gpu="V100").kernels["flops_tensor_fp16"]
    assert (after > 0).any() and after.equals(before)
