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


def kernel_rows(capsys, width: int) -> list[tuple[str, list[str]]]:
    """The summary's kernel rows at ``--width width`` (0: no limit), each as (name as shown,
    its cells word by word).

    The name is everything before the time cell, which is right-aligned under the header's
    "time" (names have spaces in them, so a row cannot simply be split)."""
    main(["summary", str(sample_paths()[0]), "--top", "30", "--width", str(width)])
    lines = capsys.readouterr().out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("kernel "))
    end_of_time = lines[header].index(" time") + len(" time")
    rows = []
    for line in lines[header + 1 :]:
        if line.startswith("AI in FLOP/byte"):  # the legend under the table
            break
        assert len(line) <= (width or len(line)), line
        name, time = line[:end_of_time].rsplit(maxsplit=1)
        rows.append((name.rstrip(), [time, *line[end_of_time:].split()]))
    return rows


def test_at_80_columns_names_are_cut_and_numbers_stay_whole(capsys, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    whole = kernel_rows(capsys, 0)
    cut = kernel_rows(capsys, 80)
    assert len(cut) == len(whole) == 30
    assert whole[0][0] == HEAVIEST and cut[0][0].endswith("…")
    for (name, cells), (whole_name, whole_cells) in zip(cut, whole):
        assert cells == whole_cells and not any("…" in cell for cell in cells), whole_name
        assert name == whole_name or (name.endswith("…") and whole_name.startswith(name[:-1])), name


def test_columns_sets_the_width_when_piped(capsys, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    whole = heaviest_row(capsys).split()[1:]
    monkeypatch.setenv("COLUMNS", "100")
    row = heaviest_row(capsys)
    assert len(row) <= 100 and row.split()[1:] == whole


def test_width_0_is_no_limit(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    assert heaviest_row(capsys, "--width", "0").split()[0] == HEAVIEST
