"""The same run read from .ncu-rep and from its exports gives the same kernel table."""

from rooftui.analysis import grouped_kernels
from tests.conftest import DEEPCAM, KNOWN

COLUMNS = [
    "name",
    "flops_fp64",
    "flops_fp32",
    "flops_fp16",
    "flops_tensor",
    "ops_tensor_int8",
    "bytes_l1",
    "bytes_l2",
    "bytes_hbm",
    "time_s",
    "pipeline",
    "zero_ai",
    "phase",
    "phase_inferred",
    "nvtx",
    "bound",
]


def table(run):
    return run.kernels.sort_values("ncu_id")[COLUMNS].reset_index(drop=True)


def test_known_answer_report_and_base_unit_csv_exports_are_identical(expected, load_once):
    report = table(load_once(KNOWN / "known_answer.ncu-rep"))
    assert report.equals(table(load_once(KNOWN / "known_answer.raw-base.csv")))
    assert report.equals(table(load_once(KNOWN / "known_answer.details-base.csv")))
    assert report.set_index("name").loc["wmma_gemm", "flops_tensor"] == 137_438_953_472


def test_pytorch_step_report_and_csv_agree_kernel_by_kernel_and_group_alike(load_once):
    from_report = load_once(DEEPCAM / "deepcam_amp.ncu-rep.xz")
    from_csv = load_once(DEEPCAM / "deepcam_amp.raw-base.csv.xz")
    assert table(from_report).equals(table(from_csv))
    groups_report = grouped_kernels(from_report)
    groups_csv = grouped_kernels(from_csv)
    assert sorted(groups_report["name"]) == sorted(groups_csv["name"])


def test_the_packaged_sample_is_the_committed_one():
    from rooftui.sample import sample_ceilings, sample_pair

    assert sample_ceilings().read_bytes() == (DEEPCAM.parent / "ceilings" / "h200.json").read_bytes()
    fp32, amp = sample_pair()
    assert amp.read_bytes() == (DEEPCAM / "deepcam_amp.raw-base.csv.xz").read_bytes()
    assert fp32.read_bytes() == (DEEPCAM / "deepcam_fp32.raw-base.csv.xz").read_bytes()
