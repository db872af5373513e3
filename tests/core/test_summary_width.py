"""`rooftui summary` as a table: piped, nothing is cut; at a given width, names are
cut but numbers never are."""

from __future__ import annotations

from rooftui.cli import main
from rooftui.sample import sample_paths

HEAVIEST = (
    "sm80_xmma_wgrad_implicit_gemm_indexed_wo_smem_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize16x64x64"
    "_stage1_warpsize1x4x1_g1_tensor16x8x16_aligna4_alignc4_execute_kernel__5x_cudnn"
)
# Its row, every cell whole: the same figures the explorer and the JSON output give.
NUMBERS = ["108µs", "8%", "6.42T", "9.3", "22", "130", "TC FP16", "backward*", "HBM 1%"]


def table(capsys, *options: str) -> list[str]:
    main(["summary", str(sample_paths()[0]), "--top", "5", *options])
    return capsys.readouterr().out.splitlines()


def test_piped_summary_keeps_whole_names_and_numbers(capsys, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    lines = table(capsys)
    row = next(line for line in lines if line.startswith("sm80_xmma"))
    assert row.split()[0] == HEAVIEST and row.split()[1:] == " ".join(NUMBERS).split()
    assert not any("…" in line for line in lines)


def test_at_80_columns_names_are_cut_and_numbers_are_whole(capsys, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    for options in (("--width", "80"),):
        lines = table(capsys, *options)
        row = next(line for line in lines if line.startswith("sm80_xmma"))
        assert len(row) <= 80 and "…" in row.split()[0]
        assert row.split()[1:] == " ".join(NUMBERS).split()


def test_columns_sets_the_width_when_piped(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    row = next(line for line in table(capsys) if line.startswith("sm80_xmma"))
    assert len(row) <= 100 and row.split()[1:] == " ".join(NUMBERS).split()


def test_width_0_is_no_limit(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    row = next(line for line in table(capsys, "--width", "0") if line.startswith("sm80_xmma"))
    assert row.split()[0] == HEAVIEST
