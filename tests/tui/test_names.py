"""Every kernel identifiable: names shortened to the part that tells them apart, the
selected kernel's full name under the table, and a header saying what is open."""

from __future__ import annotations

import pytest

from rooftui.views.text import short_names

FPROP = "sm90_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize{}_warpgroupsize1x1x1_g1_execute_segment_k_off_kernel__5x_cudnn"  # noqa: E501
FILL = "vectorized_elementwise_kernel<{}, FillFunctor<{}>, array<char *, 1>>"


def test_a_name_that_fits_is_whole_and_a_long_one_with_its_own_start_is_cut_at_the_end():
    shown = short_names(["amp_update_scale_cuda_kernel", "nll_loss2d_forward_size_average_kernel<float>"], 32)
    assert shown["amp_update_scale_cuda_kernel"] == "amp_update_scale_cuda_kernel"
    assert shown["nll_loss2d_forward_size_average_kernel<float>"] == "nll_loss2d_forward_size_average…"


def test_tile_shapes_and_template_arguments_are_kept():
    tiles = [FPROP.format(t) for t in ("128x64x32", "64x128x64", "64x64x64")]
    fills = [FILL.format(8, "Half"), FILL.format(8, "float")]
    shown = short_names(tiles + fills, 40)
    for tile, name in zip(("128x64x32", "64x128x64", "64x64x64"), tiles):
        assert f"tilesize{tile}" in shown[name] and shown[name].startswith("sm90_xmma_fprop")
    assert "FillFunctor<Half>" in shown[fills[0]] and "FillFunctor<float>" in shown[fills[1]]
    assert all(len(text) <= 40 for text in shown.values())


def test_control_characters_are_escaped_before_shortening():
    shown = short_names(["evil\x1b]52;c;aGk=\x07kernel"], 80)
    assert shown == {"evil\x1b]52;c;aGk=\x07kernel": "evil\\e]52;c;aGk=\\x07kernel"}


@pytest.mark.parametrize("width", [24, 32, 48])
def test_the_samples_kernels_are_told_apart_far_more_often_than_by_cutting(sample_run, width):
    names = sorted(set(sample_run.kernels["name"]))
    shown = short_names(names, width)
    assert all(len(text) <= width for text in shown.values())
    cut = {name if len(name) <= width else name[: width - 1] + "…" for name in names}
    # 73 kernels: cutting at 24 characters leaves 36 different texts, at 32 41, at 48 54
    assert len(cut) == {24: 36, 32: 41, 48: 54}[width]
    assert len(set(shown.values())) == {24: 73, 32: 73, 48: 73}[width]


def test_the_header_says_what_is_open_and_calls_only_the_bundled_sample_the_sample(sample_run):
    # the header's widths on screen: 198 columns at 200x60, 78 at 80x24 (its padding);
    # on screen: `rooftui` with no report in test_tmux.py, a report given in the
    # snapshots (test_snapshots.py); the selected kernel's full name under the table:
    # test_explorer.py (opens_grouped_most_to_gain_first_with_totals)
    from rooftui.analysis import load_run
    from rooftui.analysis.load_options import LoadOptions
    from rooftui.sample import sample_ceilings, sample_paths
    from rooftui.views.tui.explorer_model import ExplorerModel
    from rooftui.views.tui.view_state import LoadedRun

    bundled = load_run(sample_paths(), LoadOptions(ceilings=sample_ceilings()))
    model = ExplorerModel(LoadedRun.from_run(bundled), ceilings_files=sample_ceilings(), sample=True)
    assert model.header(198) == (
        "deepcam_amp.raw-base.csv.xz (bundled sample) · NVIDIA H200 · ceilings: empirical"
        " from h200_ceilings.json"
    )
    header = ExplorerModel(LoadedRun.from_run(sample_run)).header(78)
    assert header.startswith("deepcam_amp.raw-base.csv.xz · NVIDIA H200 · ceilings: ")
    assert "sample" not in header
