"""Every kernel identifiable: names shortened to the part that tells them apart, the
selected kernel's full name under the table, and a header saying what is open."""

from __future__ import annotations

import pytest

from rooftui.views.text import short_names
from tests.tui.conftest import loaded, screen_text

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


async def test_the_selected_kernels_full_name_and_what_is_open_are_on_screen(sample_run):
    from rooftui.sample import sample_ceilings
    from rooftui.views.tui.app import make_app

    app = make_app([], ceilings=sample_ceilings())
    async with app.run_test(size=(200, 60)) as pilot:
        await loaded(pilot)
        text = screen_text(app)
        assert text.splitlines()[0].strip() == (
            "deepcam_amp.raw-base.csv.xz (bundled sample) · NVIDIA H200 · ceilings: empirical"
            " from h200_ceilings.json"
        )
        name = app.explorer.selected["name"]
        assert len(name) == 173 and name in text.replace("\n", "").replace(" ", "")


async def test_a_report_given_is_not_called_the_sample(sample_app):
    app = sample_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        header = screen_text(app).splitlines()[0]
        assert header.strip().startswith("deepcam_amp.raw-base.csv.xz · NVIDIA H200 · ceilings: ")
        assert "sample" not in header
