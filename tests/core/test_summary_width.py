"""`rooftui summary` as a table: piped, nothing is cut; at a given width, names are
cut but numbers never are."""

from __future__ import annotations

from rooftui.cli import main
from rooftui.sample import sample_paths

HEAVIEST = (
    "sm80_xmma_wgrad_implicit_gemm_indexed_wo_smem_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize16x64x64"
    "_stage1_warpsize1x4x1_g1_tensor16x8x16_aligna4_alignc4_execute_kernel__5x_cudnn"
)


def heaviest_row(capsys, *options: str) -> str:
    main(["summary", str(sample_paths()[0]), "--top", "5", *options])
    lines = capsys.readouterr().out.splitlines()
    return next(line for line in lines if line.startswith("sm80_xmma"))


def test_piped_summary_keeps_whole_names_and_every_cell(capsys, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    row = heaviest_row(capsys)
    name, *cells = row.split()
    # time, share, FLOP/s, AI L1/L2/HBM, pipe (2 words), phase, bound (2 words)
    assert name == HEAVIEST and len(cells) == 11 and cells[:2] == ["108µs", "8%"]


def test_at_80_columns_names_are_cut_and_numbers_stay_whole(capsys, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)


def test_columns_sets_the_width_when_piped(capsys, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    whole = heaviest_row(capsys).split()[1:]
    monkeypatch.setenv("COLUMNS", "100")
    row = heaviest_row(capsys)
    assert len(row) <= 100 and row.split()[1:] == whole


def test_width_0_is_no_limit(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    assert heaviest_row(capsys, "--width", "0").split()[0] == HEAVIEST
